// Inflation and validity on their own (docs/algorithms.md#inflation: re-uniformize, frames,
// arc length, winding, offsets, validity, flat lift), fed by the relaxed output
// of the stage generator (produced once, untimed); tracks per second and the
// batch yield. Per generator, at the default half-width and at a narrow one
// (hw 0.015 with N_max 1024, so that the tracks fit):
//   inflate/G[/hw=0.015]                    the stage as configured (loop check on)
//   inflate/G[/hw=0.015]/no_loop_check      validity_border_check off: the
//                                           original system's validity
//   near_pairs/G[/hw=0.015][/no_loop_check] the pair tests alone (the stage's
//                                           last kernel) on the inflated track;
//                                           envs they already failed are skipped
#include "perf_common.hpp"

namespace trackgen::perf {

void register_benchmarks() {
  for (const auto& g : stage_generators()) {
    TrackGenConfig narrow = perf_config(g);
    narrow.half_width = 0.015f;
    narrow.N_max = 1024;
    narrow.validate(available_generators<Space>());
    for (const auto& [width, base] : {std::pair{std::string(), perf_config(g)}, std::pair{std::string("/hw=0.015"), narrow}}) {
      TrackGenConfig off = base;
      off.validity_border_check = false;
      for (const auto& [mode, config] : {std::pair{std::string(), base}, std::pair{std::string("/no_loop_check"), off}}) {
        const std::string key = g + width + mode;
        add("inflate/" + key, [key, config](benchmark::State& state) { stage_benchmark(state, Stage::inflate, key, config); });
        add("near_pairs/" + key,
            [key, config](benchmark::State& state) { stage_benchmark(state, Stage::near_pairs, key, config); });
      }
    }
  }
}

}  // namespace trackgen::perf
