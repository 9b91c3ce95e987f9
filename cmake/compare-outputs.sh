#!/usr/bin/env bash
# Bit-identity check of the command-line tool against a reference build: the same
# batches must give byte-identical tracks.json, the tool must offer the same flags,
# and the JSON config must round-trip.
#
#   cmake/compare-outputs.sh REF [BUILD_DIR]
#
#   REF        a build folder holding apps/trackgen, or a git revision (commit,
#              branch, tag): that revision is checked out into a temporary git
#              worktree and only its `trackgen` tool is built there, with the
#              openmp preset and the Kokkos of `cmake/bootstrap.sh deps`
#   BUILD_DIR  the build under test (default: build/openmp)
#
# Checks, for every generator G of TRACKGEN_COMPARE_GENERATORS (default: bezier
# polar hull voronoi checkpoint):
#   1. `trackgen generate --generator G --envs E --seed K --out DIR` writes a
#      byte-identical DIR/tracks.json with both tools (cmp), E and K from
#      TRACKGEN_COMPARE_ENVS (default 512) and TRACKGEN_COMPARE_SEED (default 0);
#   2. the config stored in that tracks.json, fed back with --config, gives the
#      same tracks.json again (the JSON config format reads what it writes);
# then, once:
#   3. `trackgen [SUBCOMMAND] --help` lists the same flags with both tools (the
#      help texts themselves are diffed for information only).
# Outputs go to TRACKGEN_COMPARE_OUT (default: a temporary folder, removed on
# success). Exit status: 0 when every check passed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=${1:?usage: cmake/compare-outputs.sh REF [BUILD_DIR]}
build=${2:-$here/build/openmp}
generators=${TRACKGEN_COMPARE_GENERATORS:-bezier polar hull voronoi checkpoint}
envs=${TRACKGEN_COMPARE_ENVS:-512}
seed=${TRACKGEN_COMPARE_SEED:-0}
out=${TRACKGEN_COMPARE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/trackgen-compare.XXXXXX")}
mkdir -p "$out"
log() { printf '[compare] %s\n' "$*" >&2; }
export OMP_PROC_BIND=false TRACKGEN_LOG_LEVEL=error

# ---- the two tools -------------------------------------------------------------
new_tool="$build/apps/trackgen"
[ -x "$new_tool" ] || { log "no tool at $new_tool (build the trackgen_app target first)"; exit 2; }
if [ -x "$ref/apps/trackgen" ]; then
  ref_tool="$ref/apps/trackgen"
else
  rev=$(git -C "$here" rev-parse --verify "$ref^{commit}" 2>/dev/null) ||
    { log "REF '$ref' is neither a build folder with apps/trackgen nor a git revision"; exit 2; }
  src="$out/ref-src"
  log "building the trackgen tool of ${rev:0:12} in $src"
  git -C "$here" worktree add --detach "$src" "$rev" >/dev/null 2>&1
  trap 'git -C "$here" worktree remove --force "$src" >/dev/null 2>&1 || git -C "$here" worktree prune' EXIT
  kokkos=$(Kokkos_ROOT=${Kokkos_ROOT:-} "$here/cmake/bootstrap.sh" deps)
  (cd "$src" && cmake --preset openmp -DKokkos_ROOT="$kokkos" -DTRACKGEN_ENABLE_TESTS=OFF \
     -DTRACKGEN_ENABLE_PERF=OFF -DTRACKGEN_ENABLE_EXAMPLES=OFF >/dev/null &&
   nice -n 10 cmake --build build/openmp -j "$(nproc)" --target trackgen_app >/dev/null)
  ref_tool="$src/build/openmp/apps/trackgen"
fi
log "reference: $ref_tool"
log "under test: $new_tool"

fail=0
# ---- 1, 2: tracks.json ---------------------------------------------------------
for g in $generators; do
  "$ref_tool" generate --generator "$g" --envs "$envs" --seed "$seed" --out "$out/ref/$g" >/dev/null
  "$new_tool" generate --generator "$g" --envs "$envs" --seed "$seed" --out "$out/new/$g" >/dev/null
  if cmp -s "$out/ref/$g/tracks.json" "$out/new/$g/tracks.json"; then
    log "$g: tracks.json identical ($(stat -c %s "$out/new/$g/tracks.json") bytes)"
  else
    log "$g: tracks.json DIFFERS ($(cmp "$out/ref/$g/tracks.json" "$out/new/$g/tracks.json" | head -n 1))"
    fail=1
  fi
  jq '.config' "$out/new/$g/tracks.json" >"$out/new/$g/config.json"
  "$new_tool" generate --config "$out/new/$g/config.json" --seed "$seed" --out "$out/round/$g" >/dev/null
  if cmp -s "$out/new/$g/tracks.json" "$out/round/$g/tracks.json"; then
    log "$g: config round trip gives the same tracks.json"
  else
    log "$g: config round trip DIFFERS"
    fail=1
  fi
done

# ---- 3: flags ------------------------------------------------------------------
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
    fail=1
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
