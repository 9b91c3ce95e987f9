# The trackgen tool of a reference, for the scripts that compare two builds
# (cmake/compare-outputs.sh, perf/compare-speed.sh). Sourced, not run.
#
#   reference_tool REF WORKDIR
#
# prints the path of the tool: REF/apps/trackgen for a build folder, REF itself
# for the tool; otherwise REF must be a git revision (commit, branch, tag) of this
# repository, checked out into the temporary git worktree WORKDIR/ref-src, where
# only the `trackgen` tool is built (openmp preset, the Kokkos of
# `cmake/bootstrap.sh deps`, nice -n 10). `reference_tool_cleanup WORKDIR`
# removes that worktree if there is one; the caller runs it on exit (reference_tool
# usually runs in a command substitution, a subshell). Messages go to stderr.

reference_tool() {
  local ref=$1 work=$2 root rev kokkos src
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -x "$ref/apps/trackgen" ]; then
    echo "$ref/apps/trackgen"
    return
  fi
  if [ -x "$ref" ] && [ ! -d "$ref" ]; then
    echo "$ref"
    return
  fi
  rev=$(git -C "$root" rev-parse --verify "$ref^{commit}" 2>/dev/null) ||
    { echo "'$ref' is neither a build folder with apps/trackgen, a tool, nor a git revision" >&2; return 2; }
  src="$work/ref-src"
  echo "building the trackgen tool of ${rev:0:12} in $src" >&2
  git -C "$root" worktree add --detach "$src" "$rev" >/dev/null 2>&1
  kokkos=$(Kokkos_ROOT=${Kokkos_ROOT:-} "$root/cmake/bootstrap.sh" deps)
  (cd "$src" && cmake --preset openmp -DKokkos_ROOT="$kokkos" -DTRACKGEN_ENABLE_TESTS=OFF \
     -DTRACKGEN_ENABLE_PERF=OFF -DTRACKGEN_ENABLE_EXAMPLES=OFF >/dev/null &&
   nice -n 10 cmake --build build/openmp -j "$(nproc)" --target trackgen_app >/dev/null) >&2 || return 2
  echo "$src/build/openmp/apps/trackgen"
}

reference_tool_cleanup() {
  local src=$1/ref-src root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  [ ! -d "$src" ] || git -C "$root" worktree remove --force "$src" >/dev/null 2>&1 || true
  git -C "$root" worktree prune
}
