// Constant-spacing resample on its own (docs/algorithms.md#constant-spacing), fed by the stage
// generator's real output (produced once, untimed); tracks per second.
#include "perf_common.hpp"

namespace trackgen::perf {

void register_benchmarks() {
  for (const auto& g : stage_generators()) {
    add("resample/" + g, [g](benchmark::State& state) { stage_benchmark(state, Stage::resample, g); });
  }
}

}  // namespace trackgen::perf
