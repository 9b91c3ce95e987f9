#!/usr/bin/env bash
# Side-by-side throughput of two builds of the trackgen tool: per static
# generator, batch size and OpenMP thread count, the median time of repeated
# generate() batches of an old and a new build, measured alternately in one run,
# with the speed-up old/new and each build's parallel efficiency.
#
#   perf/compare-speed.sh OLD [NEW]
#
#   OLD   a build folder holding apps/trackgen, the tool itself, or a git
#         revision whose tool is built in a temporary git worktree
#         (cmake/reference-tool.sh)
#   NEW   a build folder or the tool (default: build/openmp)
#
# Environment:
#   TRACKGEN_SPEED_GENERATORS  default: bezier polar hull voronoi checkpoint
#   TRACKGEN_SPEED_ENVS        batch sizes, default: 512 4096
#   TRACKGEN_SPEED_THREADS     thread counts, default: 1 2 (the first is the base
#                              of the efficiencies)
#   TRACKGEN_SPEED_ROUNDS      alternating rounds per point, default: 5
#   TRACKGEN_SPEED_REPEAT      timed batches per round (`generate --repeat`),
#                              default: 5; a round's time is the median the tool
#                              prints, a point's the median of its rounds
#   TRACKGEN_SPEED_CONFIG      a JSON config given to both tools (--config)
#
# Every point runs `trackgen generate --generator G --envs E --seed 0 --repeat R
# --policy graph` with OMP_NUM_THREADS=T, OMP_PROC_BIND=false. The load average
# is printed before and after: timings taken while other work runs are not
# comparable.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
generators=${TRACKGEN_SPEED_GENERATORS:-bezier polar hull voronoi checkpoint}
envs_list=${TRACKGEN_SPEED_ENVS:-512 4096}
threads_list=${TRACKGEN_SPEED_THREADS:-1 2}
rounds=${TRACKGEN_SPEED_ROUNDS:-5}
repeat=${TRACKGEN_SPEED_REPEAT:-5}
config_args=()
if [ -n "${TRACKGEN_SPEED_CONFIG:-}" ]; then config_args=(--config "$(realpath "$TRACKGEN_SPEED_CONFIG")"); fi
out=$(mktemp -d "${TMPDIR:-/tmp}/trackgen-speed.XXXXXX")
# shellcheck source=cmake/reference-tool.sh
. "$here/cmake/reference-tool.sh"
trap 'reference_tool_cleanup "$out"; reference_tool_cleanup "$out/new"; rm -rf "$out"' EXIT
old=$(reference_tool "${1:?usage: perf/compare-speed.sh OLD [NEW]}" "$out") || exit 2
new=$(reference_tool "${2:-$here/build/openmp}" "$out/new") || exit 2
export OMP_PROC_BIND=false TRACKGEN_LOG_LEVEL=error

# ms per batch of one round: the median the tool prints.
round() {  # tool threads generator envs
  OMP_NUM_THREADS=$2 "$1" generate "${config_args[@]}" --generator "$3" --envs "$4" --seed 0 --repeat "$repeat" \
    --policy graph --out "$out/run" | sed -n 's/^ *time\/batch *\([0-9.]*\) ms.*/\1/p'
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "old: $old"
echo "new: $new"
echo "rounds $rounds x --repeat $repeat, medians in ms per batch"
declare -A t
for g in $generators; do
  for e in $envs_list; do
    for th in $threads_list; do
      : >"$out/old"
      : >"$out/new"
      for _ in $(seq "$rounds"); do
        round "$old" "$th" "$g" "$e" >>"$out/old"
        round "$new" "$th" "$g" "$e" >>"$out/new"
      done
      t[$g,$e,$th,old]=$(median <"$out/old")
      t[$g,$e,$th,new]=$(median <"$out/new")
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
# Efficiency at T threads: time at the base count * base / (time at T * T).
base=${threads_list%% *}
eff() { echo "${t[$1,$2,$base,$4]} * $base / (${t[$1,$2,$3,$4]} * $3) * 100" | bc -l; }
printf '| generator | E | threads | old ms | new ms | speed-up | old efficiency | new efficiency |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for g in $generators; do for e in $envs_list; do for th in $threads_list; do
  o=${t[$g,$e,$th,old]} n=${t[$g,$e,$th,new]}
  if [ "$th" = "$base" ]; then eo="" en=""; else eo=$(printf '%.0f%%' "$(eff "$g" "$e" "$th" old)") en=$(printf '%.0f%%' "$(eff "$g" "$e" "$th" new)"); fi
  printf '| %s | %s | %s | %.1f | %.1f | %.2fx | %s | %s |\n' "$g" "$e" "$th" "$o" "$n" "$(echo "$o / $n" | bc -l)" "$eo" "$en"
done; done; done
