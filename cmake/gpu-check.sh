#!/usr/bin/env bash
# The GPU check: runs the CUDA test cases and a short GPU benchmark from a CUDA
# build folder or from a pack made by cmake/gpu-pack.sh, and writes a report.
# Sized for under 8 minutes on one recent GPU (each step has its own time limit).
#
#   gpu-check.sh DIR [REPORT]     (REPORT default: ./gpu-report.md)
#
# Steps: the device, the CUDA executor tests, the test suite's Kokkos::Cuda cases
# and its untemplated cases (which run on the default space, Cuda), then
# perf_exec (eager run, graph replay, recording cost and masked regeneration of
# every static generator) at E = 1024, 4096, 16384 and 65536, and `trackgen
# generate` of a bezier batch on the cuda and openmp backends. Exit status: 0 when
# every test step passed; the benchmark steps only report.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR [REPORT]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
report=${2:-$PWD/gpu-report.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -d "$dir/bin" ]; then  # a pack
  bin() { echo "$dir/bin/$1"; }
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export TRACKGEN_SOURCE_DIR="$dir"
else  # a build folder
  bin() {
    case "$1" in
      trackgen_tests) echo "$dir/tests/trackgen_tests" ;;
      trackgen_cuda_tests) echo "$dir/exec/cuda/trackgen_cuda_tests" ;;
      perf_exec) echo "$dir/perf/perf_exec" ;;
      trackgen) echo "$dir/apps/trackgen" ;;
    esac
  }
fi
export OMP_PROC_BIND=false TRACKGEN_LOG_LEVEL=error
threads=$(nproc)
failed=0

: > "$report"
say() { printf '%s\n' "$@" | tee -a "$report"; }
# step NAME SECONDS CMD...: runs CMD under a time limit, its output into the report.
step() {
  local name=$1 limit=$2
  shift 2
  say "" "## $name" "" '```'
  local t0=$SECONDS
  timeout "$limit" "$@" > "$work/out" 2>&1
  local rc=$?
  tail -n 60 "$work/out" | tee -a "$report"
  say '```' "exit $rc after $((SECONDS - t0)) s (limit $limit s)"
  return $rc
}

say "# TrackGen GPU check" "" "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host threads: $threads"
[ -f "$dir/MANIFEST" ] && say "" '```' "$(cat "$dir/MANIFEST")" '```'
step "device" 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true

step "CUDA executor tests" 60 "$(bin trackgen_cuda_tests)" || failed=1

"$(bin trackgen_tests)" --list-test-names-only > "$work/all" 2> /dev/null
# One case name per line, with the characters Catch's test specs read escaped.
grep -v -e ' - Kokkos::Serial$' -e ' - Kokkos::OpenMP$' -e '^$' "$work/all" | sed 's/[],[]/\\&/g' > "$work/cases"
say "" "test cases selected: $(wc -l < "$work/cases") of $(grep -vc '^$' "$work/all")"
TRACKGEN_TEST_THREADS=$threads step "test suite: Kokkos::Cuda and untemplated cases" 180 \
  "$(bin trackgen_tests)" --input-file "$work/cases" --reporter compact || failed=1

for envs in 1024 4096 16384 65536; do
  step "perf_exec at E=$envs" 35 "$(bin perf_exec)" --envs=$envs --benchmark_min_time=0.2 \
    --benchmark_counters_tabular=true || true
done

for backend in cuda openmp; do
  step "trackgen generate --backend $backend (bezier, E=4096)" 30 "$(bin trackgen)" --threads "$threads" generate \
    --backend "$backend" --envs 4096 --repeat 5 --out "$work/gen-$backend" || true
done
# Same tracks on both backends? (the files differ only in their "backend" value if so)
strip_backend() { sed 's/"backend":"[^"]*"//' "$1/tracks.json" 2> /dev/null; }
if [ ! -s "$work/gen-cuda/tracks.json" ] || [ ! -s "$work/gen-openmp/tracks.json" ]; then
  say "" "tracks.json: not compared (a generate step failed)"
elif cmp -s <(strip_backend "$work/gen-cuda") <(strip_backend "$work/gen-openmp"); then
  say "" "tracks.json: cuda and openmp give identical tracks"
else
  say "" "tracks.json: cuda and openmp tracks differ (see docs/gpu.md on device rounding)"
fi

say "" "result: $([ $failed = 0 ] && echo PASS || echo FAIL)"
exit $failed
