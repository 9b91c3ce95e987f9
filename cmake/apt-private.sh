# Private apt access for the bootstrap scripts (sourced, not run).
#
# Archive entries are derived from this machine's own apt sources, so no archive
# host is named in the repository, and apt runs with private state folders, so
# the system's apt state is untouched; apt verifies every hash.

# derive_sources TYPE SUITE: "TYPE [opts] URI SUITE main" lines (TYPE deb or
# deb-src) for every non-security Debian source configured on this machine.
derive_sources() {
  local type=$1 suite=$2 f
  {
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -e "$f" ] || continue
      awk -v suite="$suite" -v type="$type" '
        BEGIN { RS=""; FS="\n" }
        {
          uris=""; key=""; types=""
          for (i = 1; i <= NF; i++) {
            line = $i; sub(/#.*/, "", line)
            if (line ~ /^Types:/)      { sub(/^Types:[ \t]*/, "", line); types = line }
            if (line ~ /^URIs:/)       { sub(/^URIs:[ \t]*/, "", line); uris = line }
            if (line ~ /^Signed-By:/)  { sub(/^Signed-By:[ \t]*/, "", line); key = line }
          }
          if (types !~ /deb/ || uris == "" || uris ~ /security/) next
          opt = (key != "") ? "[signed-by=" key "] " : ""
          n = split(uris, u, /[ \t]+/)
          for (k = 1; k <= n; k++) if (u[k] != "") print type " " opt u[k] " " suite " main"
        }' "$f"
    done
    if [ -f /etc/apt/sources.list ]; then
      awk -v suite="$suite" -v type="$type" '$1 == "deb" && $0 !~ /security/ {
          i = 2; opt = ""
          if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opt = opt $i " "; i++ } opt = opt $i " "; i++ }
          print type " " opt $i " " suite " main" }' /etc/apt/sources.list
    fi
  } | sort -u
}

# apt_private DIR TYPE SUITE apt-get-args...: apt-get with state in DIR.
apt_private() {
  local dir=$1 type=$2 suite=$3; shift 3
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  [ -s "$dir/sources.list" ] || derive_sources "$type" "$suite" > "$dir/sources.list"
  if [ ! -s "$dir/sources.list" ]; then
    echo "bootstrap: found no Debian apt source on this machine to derive entries from" >&2
    return 1
  fi
  apt-get -q -o Dir::State::Lists="$dir/lists" -o Dir::Etc::SourceList="$dir/sources.list" \
    -o Dir::Etc::SourceParts=/dev/null -o Dir::Cache="$dir/cache" -o Dir::State::status=/dev/null \
    -o APT::Sandbox::User=root "$@"
}

# fetch_libkokkos_dev DEST: unpacks Debian's libkokkos-dev binary package (unstable
# suite: the headers of an OpenMP build of Kokkos 5, every backend's headers
# included) into DEST with dpkg -x, writes its version to DEST/VERSION; a no-op
# when DEST/.complete exists.
fetch_libkokkos_dev() {
  local dest=$1 work
  [ -f "$dest/.complete" ] && return 0
  work=$(mktemp -d "${TMPDIR:-/tmp}/trackgen-kokkos5.XXXXXX")
  echo "[kokkos5] fetching libkokkos-dev (unstable) through apt" >&2
  apt_private "$work/apt" deb unstable update -qq >/dev/null
  (cd "$work" && apt_private "$work/apt" deb unstable download libkokkos-dev >/dev/null 2>&1)
  rm -rf "$dest"; mkdir -p "$dest"
  dpkg -x "$work"/libkokkos-dev_*.deb "$dest"
  dpkg-deb -f "$work"/libkokkos-dev_*.deb Version > "$dest/VERSION"
  rm -rf "$work"
  touch "$dest/.complete"
}
