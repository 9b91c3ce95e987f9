// Centerline generators on their own: one benchmark per registered generator,
// E envs, seeds 0..E-1; tracks per second.
#include "perf_common.hpp"

namespace trackgen::perf {

void register_benchmarks() {
  for (const auto& g : available_generators<Space>()) {
    add("generator/" + g, [g](benchmark::State& state) { stage_benchmark(state, Stage::generator, g); });
  }
}

}  // namespace trackgen::perf
