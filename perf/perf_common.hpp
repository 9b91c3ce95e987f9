// Shared pieces of the per-stage benchmarks (Google Benchmark).
//
// Every program in perf/ links perf_main.cpp, which owns the Kokkos runtime
// (ScopeGuard around benchmark::Initialize / RunSpecifiedBenchmarks), reads the
// batch size and the stage generator, records the run context, and calls the
// program's register_benchmarks().
//
// Options (flags before the Google Benchmark ones, or environment variables):
//   --envs=N        or TRACKGEN_PERF_ENVS       batch size E (default 4096)
//   --generator=G   or TRACKGEN_PERF_GENERATOR  generator feeding the resample,
//                   relaxation and inflation benchmarks (default bezier; 'all'
//                   for every registered one)
// plus Kokkos' own flags (--kokkos-threads=N on Kokkos 3.4).
//
// Timing: each iteration runs the stage once on the fixture's execution-space
// instance and is bracketed by fences on that instance; the elapsed wall time is
// reported with SetIterationTime (UseManualTime), and items per second are tracks
// per second (E per iteration).
#pragma once

#include <trackgen/pipeline/detail/stages.hpp>
#include <trackgen/trackgen.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trackgen::perf {

using Space = Kokkos::DefaultExecutionSpace;
using Clock = std::chrono::steady_clock;

/// Batch size E of every benchmark (--envs / TRACKGEN_PERF_ENVS, default 4096).
int num_envs();

/// Generators feeding the stage benchmarks (--generator / TRACKGEN_PERF_GENERATOR).
std::vector<std::string> stage_generators();

/// The library's default config with `generator` and num_envs().
TrackGenConfig perf_config(const std::string& generator);

/// The pipeline stages, in order (near_pairs is the last step of inflate, run
/// again on its own).
enum class Stage { generator = 0, resample = 1, relax = 2, inflate = 3, near_pairs = 4 };

/// The pipeline of one generator, split into its stages over buffers owned here
/// (allocated once), so that each stage can be run and timed on its own. Stages
/// only read what earlier stages wrote, so re-running a stage repeats the same
/// work on the same realistic input.
class StageFixture {
 public:
  /// The fixture of a validated config (num_envs included).
  explicit StageFixture(const TrackGenConfig& config);

  /// Runs every stage before `s` once (in order), so that `s` reads real input.
  void prepare(Stage s);
  /// Issues one stage on the instance (no fence).
  void run(Stage s);

  const TrackGenConfig& config() const { return config_; }
  const Space& space() const { return ctx_.space(); }
  int num_envs() const { return config_.num_envs; }
  /// Fraction of valid tracks after the last inflate or near_pairs (host read; fences).
  double yield() const;

 private:
  TrackGenConfig config_;
  LaunchContext<Space> ctx_;
  DView<std::int32_t, Space> seed_buf_;
  std::unique_ptr<Generator<Space>> generator_;
  PipelineBuffers<Space> buffers_;
  Track<Space::memory_space> track_;
  int ready_ = 0;  // stages [0, ready_) have run
};

/// The fixture of `generator`, built on first use and kept until release_fixtures().
StageFixture& fixture(const std::string& generator);

/// The fixture of `config`, kept under `key` (built on first use).
StageFixture& fixture(const std::string& key, const TrackGenConfig& config);

/// Destroys the fixtures (before Kokkos is finalized).
void release_fixtures();

/// Seconds of `f()` followed by a fence on `space`.
template <class F>
double fenced_seconds(const Space& space, F&& f) {
  const auto t0 = Clock::now();
  f();
  space.fence();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The benchmark loop: each iteration times `body()` between fences on `space`
/// (manual time) and counts E tracks.
template <class F>
void fenced_loop(benchmark::State& state, const Space& space, int E, F&& body) {
  space.fence();
  for (auto _ : state) state.SetIterationTime(fenced_seconds(space, body));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(E));
  state.counters["E"] = E;
}

/// Registers `fn` (callable with benchmark::State&) under `name` with the
/// settings every benchmark here uses (manual time, milliseconds).
template <class F>
benchmark::internal::Benchmark* add(const std::string& name, F&& fn) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(fn))->UseManualTime()->Unit(benchmark::kMillisecond);
}

/// Times stage `s` of `generator`'s fixture on its own (earlier stages run once
/// first, untimed). Errors are reported through SkipWithError.
void stage_benchmark(benchmark::State& state, Stage s, const std::string& generator);

/// Same for the fixture of `config` kept under `key`.
void stage_benchmark(benchmark::State& state, Stage s, const std::string& key, const TrackGenConfig& config);

/// Name of a stage ("generator", "resample", "relax", "inflate", "near_pairs").
const char* stage_name(Stage s);

/// Defined by each program: registers its benchmarks (Kokkos is initialized).
void register_benchmarks();

/// Adds `report` to the reports printed after every benchmark ran (in the
/// order added; Kokkos is still initialized), e.g. ratios across benchmarks.
void add_summary(std::function<void()> report);

}  // namespace trackgen::perf
