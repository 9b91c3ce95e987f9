#!/usr/bin/env bash
# Builds the fuzzers (fuzz/CMakeLists.txt, clang with libFuzzer, ASan and
# UBSan) and runs each for SECONDS (default 60):
#  - fuzz_config, the config loader and validation, on the seed corpus
#    docs/*.json and fuzz/inputs/*.json (configs the tests and the CLI write),
#    plus what earlier runs added in build/fuzz/corpus;
#  - fuzz_generate, the generate path: small random configs run through the
#    TrackGenerator and GateGenerator, corpus build/fuzz/corpus-generate.
# TRACKGEN_FUZZ_TARGETS (default "config generate") picks them. A finding
# stops the run, exits non-zero and leaves the reproducer in build/fuzz/findings/
# (replay: build/fuzz/fuzz_config FILE, or fuzz_generate FILE).
#
#   fuzz/run.sh [SECONDS] [-- extra libFuzzer flags]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
[ "${1:-}" = "--" ] && shift
case "$seconds" in '' | *[!0-9]*) echo "fuzz/run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac

export Kokkos_ROOT=${Kokkos_ROOT:-$("$here/cmake/bootstrap.sh" deps)}
build="$here/build/fuzz"
cmake -S "$here/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build"

mkdir -p "$build/corpus" "$build/corpus-generate" "$build/findings" "$build/inputs"
cp "$here"/docs/*.json "$here"/fuzz/inputs/*.json "$build/inputs/"
# Each input is written to a file (the loaders read files): a private folder in
# memory when /dev/shm is there (a disk folder makes the run ~15 times slower).
shm=/dev/shm; [ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$shm/trackgen-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for target in ${TRACKGEN_FUZZ_TARGETS:-config generate}; do
  case "$target" in
    config)
      echo "fuzz/run.sh: fuzz_config for ${seconds} s; corpus $build/corpus" >&2
      TMPDIR="$tmp" "$build/fuzz_config" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$build/findings/" "$@" "$build/corpus" "$build/inputs"
      ;;
    generate)
      # A run of one input takes up to a few seconds (a repulsive env, a long
      # chain without a cache): -timeout 60 flags a hang, not a slow config.
      echo "fuzz/run.sh: fuzz_generate for ${seconds} s; corpus $build/corpus-generate" >&2
      OMP_PROC_BIND=false "$build/fuzz_generate" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=512 \
        -print_final_stats=1 -artifact_prefix="$build/findings/" "$@" "$build/corpus-generate"
      ;;
    *) echo "fuzz/run.sh: unknown target '$target' in TRACKGEN_FUZZ_TARGETS (config, generate)" >&2; exit 2 ;;
  esac
done
