#!/usr/bin/env bash
# TrackGen bootstrap: installs what the build needs, provides Kokkos, builds, and
# runs the main job or the tests.
#
#   cmake/bootstrap.sh demo  [--preset P]   set up, build the CLI, run `trackgen generate`
#   cmake/bootstrap.sh test  [--preset P]   set up, build, run ctest
#   cmake/bootstrap.sh deps  [--preset P]   set up only; prints the Kokkos root
#
# Kokkos, in this order of precedence:
#  - Kokkos_ROOT set: used as it is and never modified.
#  - TRACKGEN_KOKKOS_SOURCE=DIR|FILE set: a modern Kokkos (4.x, 5.x) from the source
#    folder or release tarball (kokkos-X.Y.Z.tar.gz) it names, with Kokkos Kernels from
#    TRACKGEN_KOKKOS_KERNELS_SOURCE=DIR|FILE when that is set too (TrackGen needs Kokkos
#    Kernels only on Kokkos 3.x; installed beside Kokkos for applications that use it).
#  - otherwise Kokkos 3.4.01 and Kokkos Kernels 3.4.01 from Debian's `trilinos` source
#    package through apt itself (deb-src entries derived from this machine's own apt
#    sources, private apt state, apt verifies the hashes): the only Kokkos this
#    machine's package archive serves, hence the default.
# Either is built with C++20 and the backends of the preset and installed into
#   ${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}/<key>
# keyed by versions, backends and compiler, so later runs reuse it in seconds. A
# modern Kokkos's prefix holds SOURCE.txt, which says what it was built from, and
# <cache>/modern names the last one built (.ci/run tests against it when present).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
action=${1:-deps}; shift || true
preset=openmp
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift 2 ;;
    *) echo "bootstrap: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$action" in demo|test|deps) ;; *) echo "bootstrap: unknown action '$action' (demo|test|deps)" >&2; exit 2 ;; esac

log() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

# ---- 1. build packages --------------------------------------------------------
pkgs="g++ make cmake ninja-build git ca-certificates catch2 libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev"
pkgs="$pkgs libboost-dev"  # trackgen serve: the HTTP server (Boost.Beast and Boost.Asio, header-only)
pkgs="$pkgs libhdf5-dev hdf5-tools"  # optional io/ layer (--format hdf5) and h5dump for its tests
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  log "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# ---- 2. Kokkos ----------------------------------------------------------------
case "$preset" in
  serial) backends="Serial" ;;
  cuda)   backends="" ;;
  *)      backends="Serial;OpenMP" ;;
esac

source "$here/cmake/apt-private.sh"

cache_root=${TRACKGEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/trackgen}
cxx_id=$(c++ -dumpfullversion 2>/dev/null || echo unknown)
backend_key=$(echo "$backends" | tr 'A-Z;' 'a-z-')

# build_kokkos PREFIX LABEL KOKKOS_SRC KERNELS_SRC [KOKKOS_FLAG...]: builds Kokkos
# (and Kokkos Kernels when KERNELS_SRC is not empty) with the preset's backends and
# installs them into PREFIX; the logs go to $work.
build_kokkos() {
  local prefix=$1 label=$2 ksrc=$3 kksrc=$4; shift 4
  local flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_EXTENSIONS=OFF
               -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
  local kflags=(-DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF "$@")
  case "$backends" in *OpenMP*) kflags+=(-DKokkos_ENABLE_OPENMP=ON) ;; esac
  rm -rf "$prefix"; mkdir -p "$prefix"
  log "building $label ($backends)"
  cmake -S "$ksrc" -B "$work/build-kokkos" "${flags[@]}" "${kflags[@]}" >"$work/kokkos.log" 2>&1 \
    && cmake --build "$work/build-kokkos" -j "$(nproc)" >>"$work/kokkos.log" 2>&1 \
    && cmake --install "$work/build-kokkos" >>"$work/kokkos.log" 2>&1 \
    || { tail -n 40 "$work/kokkos.log" >&2; exit 1; }
  [ -n "$kksrc" ] || return 0
  log "building Kokkos Kernels (no default ETI)"
  cmake -S "$kksrc" -B "$work/build-kk" "${flags[@]}" -DKokkos_ROOT="$prefix" \
    -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF >"$work/kk.log" 2>&1 \
    && cmake --build "$work/build-kk" -j "$(nproc)" >>"$work/kk.log" 2>&1 \
    && cmake --install "$work/build-kk" >>"$work/kk.log" 2>&1 \
    || { tail -n 40 "$work/kk.log" >&2; exit 1; }
}

# source_dir VAR NAME: the source folder that $VAR names (a folder, or a release
# tarball extracted into $work/NAME), checked to hold a CMakeLists.txt.
source_dir() {
  local given=${!1} dir
  if [ -d "$given" ]; then
    dir=$(cd "$given" && pwd)
  elif [ -f "$given" ]; then
    mkdir -p "$work/$2"
    tar -xf "$given" -C "$work/$2" || { echo "bootstrap: $1=$given is not a tarball tar can extract" >&2; exit 1; }
    dir=$(find "$work/$2" -mindepth 1 -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | sort | head -n 1)
  else
    echo "bootstrap: $1=$given is neither a folder nor a file" >&2; exit 1
  fi
  [ -n "$dir" ] && [ -f "$dir/CMakeLists.txt" ] \
    || { echo "bootstrap: $1=$given holds no CMakeLists.txt (not a Kokkos source)" >&2; exit 1; }
  echo "$dir"
}

# version_of DIR PROJECT: "X.Y.Z" from the set(PROJECT_VERSION_MAJOR ...) lines of
# DIR/CMakeLists.txt (Kokkos, KokkosKernels).
version_of() {
  local v="" part n
  for part in MAJOR MINOR PATCH; do
    n=$(grep -iE "^[[:space:]]*set\([[:space:]]*$2_VERSION_$part[[:space:]]" "$1/CMakeLists.txt" | head -n 1 \
        | grep -oE '[0-9]+\)' | tr -d ')')
    [ -n "$n" ] || { echo "bootstrap: no $2_VERSION_$part in $1/CMakeLists.txt" >&2; exit 1; }
    v="$v${v:+.}$n"
  done
  echo "$v"
}

# content_hash DIR: 12 hex digits of the hash of every file under DIR (.git aside),
# so that two sources of one version number get two cache entries.
content_hash() {
  (cd "$1" && find . -type f ! -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) \
    | sha256sum | cut -c1-12
}

if [ -n "${Kokkos_ROOT:-}" ]; then
  log "using the Kokkos given by Kokkos_ROOT=$Kokkos_ROOT (not modified)"
elif [ "$preset" = cuda ]; then
  echo "bootstrap: the cuda preset needs a CUDA-enabled Kokkos >= 4.7: set Kokkos_ROOT" >&2; exit 1
elif [ -n "${TRACKGEN_KOKKOS_SOURCE:-}" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/trackgen-kokkos.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  ksrc=$(source_dir TRACKGEN_KOKKOS_SOURCE kokkos)
  kver=$(version_of "$ksrc" Kokkos)
  case "$kver" in 3.*) echo "bootstrap: TRACKGEN_KOKKOS_SOURCE is Kokkos $kver; it takes Kokkos 4 or later (3.4.01 is the default without it)" >&2; exit 1 ;; esac
  key="kokkos-$kver-$(content_hash "$ksrc")"
  kksrc=""
  if [ -n "${TRACKGEN_KOKKOS_KERNELS_SOURCE:-}" ]; then
    kksrc=$(source_dir TRACKGEN_KOKKOS_KERNELS_SOURCE kokkos-kernels)
    kkver=$(version_of "$kksrc" KokkosKernels)
    key="$key-kk-$kkver-$(content_hash "$kksrc")"
  fi
  # Kokkos' mdspan-based View (the default of its 4.5 to 4.7.0 sources) is
  # miscompiled by GCC 12: a default-constructed View gets a zero allocation
  # tracker and crashes when destroyed (kokkos issue #7464). Where the source
  # still offers the legacy View, GCC 12 and older build with it (the default of
  # Kokkos 4.7.1 and later); cmake/TrackGenDependencies.cmake checks the result.
  legacy=()
  if grep -q IMPL_VIEW_LEGACY "$ksrc/cmake/kokkos_enable_options.cmake" 2>/dev/null \
     && c++ --version 2>/dev/null | head -n 1 | grep -qE '^(g\+\+|c\+\+) ' && [ "${cxx_id%%.*}" -le 12 ] 2>/dev/null; then
    legacy=(-DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON)
    key="$key-legacyview"
  fi
  prefix="$cache_root/$key-$backend_key-cxx20-gcc$cxx_id"
  if [ -f "$prefix/.complete" ]; then
    log "reusing cached Kokkos $kver at $prefix"
  else
    t0=$(date +%s)
    build_kokkos "$prefix" "Kokkos $kver from $TRACKGEN_KOKKOS_SOURCE${legacy:+ (legacy View: GCC $cxx_id)}" \
      "$ksrc" "$kksrc" "${legacy[@]}"
    {
      echo "Kokkos $kver from $TRACKGEN_KOKKOS_SOURCE (content hash $(content_hash "$ksrc"))"
      [ -z "$kksrc" ] || echo "Kokkos Kernels $kkver from $TRACKGEN_KOKKOS_KERNELS_SOURCE (content hash $(content_hash "$kksrc"))"
      echo "backends $backends, C++20, $(c++ --version | head -n 1)${legacy:+, Kokkos_ENABLE_IMPL_VIEW_LEGACY=ON}"
    } >"$prefix/SOURCE.txt"
    touch "$prefix/.complete"
    log "Kokkos $kver installed in $prefix in $(( $(date +%s) - t0 )) s"
  fi
  ln -sfn "$prefix" "$cache_root/modern"
  export Kokkos_ROOT="$prefix" KokkosKernels_ROOT="$prefix"
else
  key="kokkos-3.4.01-kk-3.4.01-$backend_key-cxx20-gcc$cxx_id"
  prefix="$cache_root/$key"
  if [ -f "$prefix/.complete" ]; then
    log "reusing cached Kokkos at $prefix"
  else
    t0=$(date +%s)
    work=$(mktemp -d "${TMPDIR:-/tmp}/trackgen-kokkos.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    log "fetching Debian's trilinos source package through apt (private state in $work)"
    apt_private "$work/apt" deb-src bookworm update -qq >/dev/null
    (cd "$work" && apt_private "$work/apt" deb-src bookworm source --download-only --tar-only trilinos >/dev/null 2>&1)
    tarball=$(ls "$work"/trilinos_*.orig.tar.* | head -n 1)
    log "extracting Kokkos and Kokkos Kernels from $(basename "$tarball")"
    tar -xf "$tarball" -C "$work" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
    src=$(ls -d "$work"/*/packages | head -n 1)
    build_kokkos "$prefix" "Kokkos 3.4.01 and Kokkos Kernels 3.4.01" "$src/kokkos" "$src/kokkos-kernels"
    touch "$prefix/.complete"
    log "Kokkos installed in $prefix in $(( $(date +%s) - t0 )) s"
  fi
  export Kokkos_ROOT="$prefix" KokkosKernels_ROOT="$prefix"
fi

if [ "$action" = deps ]; then
  echo "${Kokkos_ROOT:-}"
  exit 0
fi

# ---- 3. build and run ---------------------------------------------------------
cd "$here"
# TRACKGEN_WERROR=1 (CI) builds our code with -Wall -Wextra -Werror; Kokkos'
# headers are system includes, so only TrackGen's own code is held to it.
werror=()
[ "${TRACKGEN_WERROR:-0}" = 1 ] && werror=(-DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror")
cmake --preset "$preset" "${werror[@]}" >/dev/null
# demo builds only the command-line tool it runs (not the tests, benchmarks, examples).
targets=()
[ "$action" = demo ] && targets=(--target trackgen_app)
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
builddir="$here/build/$preset"
if [ "$action" = demo ]; then
  "$builddir/apps/trackgen" generate --out "$here/out"
else
  OMP_PROC_BIND=false ctest --preset "$preset"
fi
