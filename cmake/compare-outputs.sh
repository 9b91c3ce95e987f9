#!/usr/bin/env bash
# Bit-identity check of the command-line tool against a reference build: the same
# batches must give byte-identical tracks.json, the tool must offer the same flags,
# and the JSON config must round-trip.
#
#   cmake/compare-outputs.sh REF [BUILD_DIR]
#
#   REF        a build folder holding apps/trackgen, the tool itself, or a git
#              revision (commit, branch, tag) whose tool is built in a temporary
#              git worktree (cmake/reference-tool.sh)
#   BUILD_DIR  the build under test (default: build/openmp)
#
# Checks, for every generator G of TRACKGEN_COMPARE_GENERATORS (default: bezier
# polar hull voronoi checkpoint) and every batch size E of TRACKGEN_COMPARE_ENVS
# (default: 512 4096):
#   1. `trackgen generate --generator G --envs E --seed K --out DIR` writes a
#      byte-identical DIR/tracks.json with both tools (cmp), K from
#      TRACKGEN_COMPARE_SEED (default 0); with TRACKGEN_COMPARE_CONFIG=FILE both
#      tools also get `--config FILE` (a JSON config, e.g. one that pins a
#      setting whose default differs between the two revisions); with
#      TRACKGEN_COMPARE_PART=tracks only the "tracks" arrays are compared, on
#      the track fields the reference writes (the config echo may differ: a
#      setting the reference lacks or spells differently; a field added since,
#      such as invalid_reason, is named and left out), with the default
#      TRACKGEN_COMPARE_PART=file the whole file;
#   2. the config stored in that tracks.json, fed back with --config, gives the
#      same tracks.json again (the JSON config format reads what it writes);
#   3. unless TRACKGEN_COMPARE_GATES=0, in gates mode: `trackgen generate --mode
#      gates --generator G --envs E --seed K --out DIR` writes a byte-identical
#      DIR/gates.json with both tools (the gate generators have the same names);
# then, once:
#   4. `trackgen [SUBCOMMAND] --help` lists the same flags with both tools (the
#      help texts themselves are diffed for information only); with
#      TRACKGEN_COMPARE_PART=tracks a difference is reported, not failed.
# Outputs go to TRACKGEN_COMPARE_OUT (default: a temporary folder, removed on
# success). Exit status: 0 when every check passed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=${1:?usage: cmake/compare-outputs.sh REF [BUILD_DIR]}
build=${2:-$here/build/openmp}
generators=${TRACKGEN_COMPARE_GENERATORS:-bezier polar hull voronoi checkpoint}
envs_list=${TRACKGEN_COMPARE_ENVS:-512 4096}
seed=${TRACKGEN_COMPARE_SEED:-0}
part=${TRACKGEN_COMPARE_PART:-file}
case "$part" in file | tracks) ;; *) echo "TRACKGEN_COMPARE_PART must be file or tracks, not '$part'" >&2; exit 2 ;; esac
config_args=()
if [ -n "${TRACKGEN_COMPARE_CONFIG:-}" ]; then
  config_args=(--config "$(realpath "$TRACKGEN_COMPARE_CONFIG")")
fi
out=${TRACKGEN_COMPARE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/trackgen-compare.XXXXXX")}
mkdir -p "$out"
log() { printf '[compare] %s\n' "$*" >&2; }
export OMP_PROC_BIND=false TRACKGEN_LOG_LEVEL=error

# ---- the two tools -------------------------------------------------------------
new_tool="$build/apps/trackgen"
[ -x "$new_tool" ] || { log "no tool at $new_tool (build the trackgen_app target first)"; exit 2; }
# shellcheck source=cmake/reference-tool.sh
. "$here/cmake/reference-tool.sh"
trap 'reference_tool_cleanup "$out"' EXIT
ref_tool=$(reference_tool "$ref" "$out") || exit 2
log "reference: $ref_tool"
log "under test: $new_tool"

fail=0
# ---- 1-3: tracks.json and gates.json ------------------------------------------
# The fields of FILE's tracks, as a JSON array.
track_fields() { jq -c '[.tracks[] | keys[]] | unique' "$1"; }
same() {  # REF NEW: identical in the compared part (tracks: on the fields the reference writes)
  if [ "$part" = file ]; then
    cmp -s "$1" "$2"
  else
    cmp -s <(jq -c '.tracks' "$1") \
      <(jq -c --argjson k "$(track_fields "$1")" '.tracks | map(with_entries(select(.key as $f | $k | index([$f]))))' "$2")
  fi
}
extra_fields() {  # REF NEW: the track fields only NEW writes, as words
  jq -rn --argjson r "$(track_fields "$1")" --argjson n "$(track_fields "$2")" '$n - $r | join(" ")'
}
for envs in $envs_list; do
  for g in $generators; do
    run="$g-$envs"
    "$ref_tool" generate "${config_args[@]}" --generator "$g" --envs "$envs" --seed "$seed" --out "$out/ref/$run" >/dev/null
    "$new_tool" generate "${config_args[@]}" --generator "$g" --envs "$envs" --seed "$seed" --out "$out/new/$run" >/dev/null
    if same "$out/ref/$run/tracks.json" "$out/new/$run/tracks.json"; then
      log "$g, E=$envs: tracks.json identical ($part; $(stat -c %s "$out/new/$run/tracks.json") bytes)"
      if [ "$part" = tracks ]; then
        extra=$(extra_fields "$out/ref/$run/tracks.json" "$out/new/$run/tracks.json")
        [ -z "$extra" ] || log "$g, E=$envs: track fields the reference does not write, not compared: $extra"
      fi
    else
      log "$g, E=$envs: tracks.json DIFFERS ($part; $(cmp "$out/ref/$run/tracks.json" "$out/new/$run/tracks.json" | head -n 1))"
      fail=1
    fi
    if [ "${TRACKGEN_COMPARE_GATES:-1}" != 0 ]; then
      "$ref_tool" generate --mode gates --generator "$g" --envs "$envs" --seed "$seed" --out "$out/ref/gates-$run" >/dev/null
      "$new_tool" generate --mode gates --generator "$g" --envs "$envs" --seed "$seed" --out "$out/new/gates-$run" >/dev/null
      if cmp -s "$out/ref/gates-$run/gates.json" "$out/new/gates-$run/gates.json"; then
        log "$g, E=$envs: gates.json identical ($(stat -c %s "$out/new/gates-$run/gates.json") bytes)"
      else
        log "$g, E=$envs: gates.json DIFFERS ($(cmp "$out/ref/gates-$run/gates.json" "$out/new/gates-$run/gates.json" | head -n 1))"
        fail=1
      fi
    fi
    jq '.config' "$out/new/$run/tracks.json" >"$out/new/$run/config.json"
    "$new_tool" generate --config "$out/new/$run/config.json" --seed "$seed" --out "$out/round/$run" >/dev/null
    if cmp -s "$out/new/$run/tracks.json" "$out/round/$run/tracks.json"; then
      log "$g, E=$envs: config round trip gives the same tracks.json"
    else
      log "$g, E=$envs: config round trip DIFFERS"
      fail=1
    fi
  done
done

# ---- 4: flags ------------------------------------------------------------------
flags() { grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[ ,]*//' | sort -u; }
for sub in "" generate metrics bench; do
  name=${sub:-top}
  # shellcheck disable=SC2086
  { "$ref_tool" $sub --help 2>&1 || true; } | sed "s|$ref_tool|trackgen|" >"$out/ref-help-$name.txt"
  # shellcheck disable=SC2086
  { "$new_tool" $sub --help 2>&1 || true; } | sed "s|$new_tool|trackgen|" >"$out/new-help-$name.txt"
  if diff <(flags <"$out/ref-help-$name.txt") <(flags <"$out/new-help-$name.txt") >/dev/null; then
    log "trackgen ${sub:-(top level)} --help: same flags"
  else
    log "trackgen ${sub:-(top level)} --help: FLAGS DIFFER"
    diff <(flags <"$out/ref-help-$name.txt") <(flags <"$out/new-help-$name.txt") >&2 || true
    [ "$part" = tracks ] || fail=1
  fi
  diff -u "$out/ref-help-$name.txt" "$out/new-help-$name.txt" | sed -n '3,$p' | grep '^[-+]' | sed 's/^/[compare]   /' >&2 || true
done

if [ "$fail" = 0 ]; then
  log "all checks passed"
  [ -n "${TRACKGEN_COMPARE_OUT:-}" ] || rm -rf "$out"
else
  log "FAILED; outputs kept in $out"
fi
exit "$fail"
