// Relaxation on its own (docs/algorithms.md#relaxation: band/L0 setup and the whole solve),
// fed by the resampled output of the stage generator (produced once, untimed);
// tracks per second.
#include "perf_common.hpp"

namespace trackgen::perf {

void register_benchmarks() {
  for (const auto& g : stage_generators()) {
    add("relax/" + g, [g](benchmark::State& state) { stage_benchmark(state, Stage::relax, g); });
  }
}

}  // namespace trackgen::perf
