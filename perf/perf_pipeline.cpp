// The full TrackGenerator::generate() against the sum of its stages.
//
// Each iteration times one generate() of a TrackGenerator (the iteration time,
// so tracks/s is the pipeline's), then each stage of an identically configured
// StageFixture on its own, each between fences. Counters (averages per
// iteration): generate_ms, stages_ms (generator + resample + relax + inflate),
// ratio = generate_ms / stages_ms (> 1: facade overhead such as the seed kernel,
// fences and the truncation read-back; < 1: overlap the split loses), and
// <stage>_ms / <stage>_pct, the per-stage breakdown.
#include "perf_common.hpp"

#include <array>

namespace trackgen::perf {
namespace {

void pipeline_benchmark(benchmark::State& state, const std::string& g) {
  try {
    StageFixture& f = fixture(g);
    TrackGenerator<Space> gen(perf_config(g), SeedState<Space>(num_envs(), 0));
    gen.generate();  // warm both
    f.prepare(Stage::inflate);
    f.run(Stage::inflate);
    constexpr std::array stages{Stage::generator, Stage::resample, Stage::relax, Stage::inflate};
    std::array<double, stages.size()> per_stage{};
    double full = 0.0, split = 0.0;
    gen.space().fence();
    f.space().fence();
    for (auto _ : state) {
      const double t = fenced_seconds(gen.space(), [&] { gen.generate(); });
      for (std::size_t i = 0; i < stages.size(); ++i) {
        const double ts = fenced_seconds(f.space(), [&] { f.run(stages[i]); });
        per_stage[i] += ts;
        split += ts;
      }
      full += t;
      state.SetIterationTime(t);
    }
    const auto avg = benchmark::Counter::kAvgIterations;
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(num_envs()));
    state.counters["E"] = num_envs();
    state.counters["generate_ms"] = benchmark::Counter(1e3 * full, avg);
    state.counters["stages_ms"] = benchmark::Counter(1e3 * split, avg);
    state.counters["ratio"] = split > 0 ? full / split : 0.0;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const std::string n = stage_name(stages[i]);
      state.counters[n + "_ms"] = benchmark::Counter(1e3 * per_stage[i], avg);
      state.counters[n + "_pct"] = split > 0 ? 100.0 * per_stage[i] / split : 0.0;
    }
    state.counters["yield"] = f.yield();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

void register_benchmarks() {
  for (const auto& g : stage_generators()) {
    add("pipeline/" + g, [g](benchmark::State& state) { pipeline_benchmark(state, g); });
  }
}

}  // namespace trackgen::perf
