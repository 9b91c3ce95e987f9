// The execution layer on the whole pipeline: TrackGenerator::generate() run
// eagerly against its self-graph replay, the one-time cost of recording that
// graph, and masked regeneration, for every static generator at E envs (--envs).
//
//   exec/<g>/eager        Policy::eager: every stage launched directly
//   exec/<g>/replay       Policy::automatic: the recorded self-graph replayed
//   exec/<g>/record       a fresh generator's first generate() (records, instantiates
//                         and runs the graph); counter record_ms = that call minus
//                         the fastest of the replays that follow it
//   exec/<g>/masked_none  generate(mask) with an all-zero mask (the body is skipped
//                         on the device)
//   exec/<g>/masked_1pct  generate(mask) with every 100th env masked
//
// Counters: E; for replay the ratio eager_ms / replay_ms of the last eager run;
// for the masked runs of_full, their time over the fastest full replay.
#include "perf_common.hpp"

#include <algorithm>
#include <map>

namespace trackgen::perf {
namespace {

constexpr int replays_after_record = 3;
constexpr int full_replays = 3;  // the masked runs' reference: the fastest of these

std::map<std::string, double> g_eager_ms;  // last eager time per generator, for the ratio

void policy_benchmark(benchmark::State& state, const std::string& g, Policy policy) {
  try {
    TrackGenerator<Space> gen(Space(), perf_config(g), SeedState<Space>(num_envs(), 0));
    gen.set_policy(policy);
    gen.generate();  // records the self-graph (automatic) and warms the buffers
    double total = 0.0;
    gen.space().fence();
    for (auto _ : state) {
      const double t = fenced_seconds(gen.space(), [&] { gen.generate(); });
      total += t;
      state.SetIterationTime(t);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(num_envs()));
    state.counters["E"] = num_envs();
    const double ms = 1e3 * total / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
    if (policy == Policy::eager) {
      g_eager_ms[g] = ms;
    } else if (g_eager_ms.count(g) != 0 && ms > 0.0) {
      state.counters["eager_over_replay"] = g_eager_ms[g] / ms;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void record_benchmark(benchmark::State& state, const std::string& g) {
  try {
    double record = 0.0;
    for (auto _ : state) {
      TrackGenerator<Space> gen(Space(), perf_config(g), SeedState<Space>(num_envs(), 0));
      gen.space().fence();
      const double first = fenced_seconds(gen.space(), [&] { gen.generate(); });
      double replay = first;
      for (int i = 0; i < replays_after_record; ++i) {
        replay = std::min(replay, fenced_seconds(gen.space(), [&] { gen.generate(); }));
      }
      record += first - replay;
      state.SetIterationTime(first);
    }
    state.counters["E"] = num_envs();
    state.counters["record_ms"] = benchmark::Counter(1e3 * record, benchmark::Counter::kAvgIterations);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

/// Masks every `every`-th env (none when `every` is 0).
void masked_benchmark(benchmark::State& state, const std::string& g, int every) {
  try {
    TrackGenerator<Space> gen(Space(), perf_config(g), SeedState<Space>(num_envs(), 0));
    typename TrackGenerator<Space>::IntView mask(Kokkos::view_alloc(gen.space(), label("perf", "mask")), num_envs());
    auto host = Kokkos::create_mirror_view(mask);
    for (int e = 0; e < num_envs(); ++e) host(e) = (every > 0 && e % every == 0) ? 1 : 0;
    Kokkos::deep_copy(gen.space(), mask, host);
    gen.generate();
    double full = 0.0;
    for (int i = 0; i < full_replays; ++i) {
      const double t = fenced_seconds(gen.space(), [&] { gen.generate(); });
      full = i == 0 ? t : std::min(full, t);
    }
    gen.generate(mask);  // records the masked self-graph
    double total = 0.0;
    gen.space().fence();
    for (auto _ : state) {
      const double t = fenced_seconds(gen.space(), [&] { gen.generate(mask); });
      total += t;
      state.SetIterationTime(t);
    }
    state.counters["E"] = num_envs();
    const auto n = static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
    state.counters["of_full"] = full > 0.0 ? total / n / full : 0.0;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

void register_benchmarks() {
  // The built-in generators whose body is one fixed launch sequence (STATIC).
  for (const std::string& g : builtin_generator_names()) {
    if (get_generator<Space>(g).capture != CaptureClass::STATIC) continue;
    add("exec/" + g + "/eager", [g](benchmark::State& s) { policy_benchmark(s, g, Policy::eager); });
    add("exec/" + g + "/replay", [g](benchmark::State& s) { policy_benchmark(s, g, Policy::automatic); });
    add("exec/" + g + "/record", [g](benchmark::State& s) { record_benchmark(s, g); });
    add("exec/" + g + "/masked_none", [g](benchmark::State& s) { masked_benchmark(s, g, 0); });
    add("exec/" + g + "/masked_1pct", [g](benchmark::State& s) { masked_benchmark(s, g, 100); });
  }
}

}  // namespace trackgen::perf
