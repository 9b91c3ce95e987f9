// Inflation and validity on their own (docs/algorithms.md#inflation: re-uniformize, frames,
// arc length, winding, offsets, validity, flat lift), fed by the relaxed output
// of the stage generator (produced once, untimed); tracks per second and the
// batch yield.
#include "perf_common.hpp"

namespace trackgen::perf {

void register_benchmarks() {
  for (const auto& g : stage_generators()) {
    add("inflate/" + g, [g](benchmark::State& state) { stage_benchmark(state, Stage::inflate, g); });
  }
}

}  // namespace trackgen::perf
