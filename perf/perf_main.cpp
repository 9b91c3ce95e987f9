// main() of the perf/ programs and the shared stage fixture (see perf_common.hpp).
#include "perf_common.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

namespace trackgen::perf {
namespace {

int g_envs = 4096;
std::string g_generator = "bezier";
std::map<std::string, std::unique_ptr<StageFixture>> g_fixtures;
std::vector<std::function<void()>> g_summaries;

/// Removes --envs=N / --generator=G from argv (they are ours, not Google
/// Benchmark's); the environment variables are read first, the flags win.
void parse_own_flags(int& argc, char** argv) {
  if (const char* e = std::getenv("TRACKGEN_PERF_ENVS"); e && *e) g_envs = std::atoi(e);
  if (const char* g = std::getenv("TRACKGEN_PERF_GENERATOR"); g && *g) g_generator = g;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--envs=", 0) == 0) {
      g_envs = std::atoi(a.c_str() + 7);
    } else if (a.rfind("--generator=", 0) == 0) {
      g_generator = a.substr(12);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (g_envs < 1) throw std::invalid_argument("perf: --envs / TRACKGEN_PERF_ENVS must be a positive integer");
}

void add_context() {
  benchmark::AddCustomContext("trackgen_version", version());
  benchmark::AddCustomContext("git_revision", git_revision());
  benchmark::AddCustomContext("kokkos_version", compat::kokkos_version_string());
  benchmark::AddCustomContext("execution_space", Space::name());
  benchmark::AddCustomContext("concurrency", std::to_string(compat::concurrency(Space())));
  for (const char* v : {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES"}) {
    const char* val = std::getenv(v);
    benchmark::AddCustomContext(v, val ? val : "(unset)");
  }
  benchmark::AddCustomContext("envs", std::to_string(g_envs));
  benchmark::AddCustomContext("stage_generator", g_generator);
}

}  // namespace

int num_envs() { return g_envs; }

std::vector<std::string> stage_generators() {
  if (g_generator == "all") return available_generators<Space>();
  return {g_generator};
}

TrackGenConfig perf_config(const std::string& generator) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = g_envs;
  c.validate(available_generators<Space>());
  return c;
}

StageFixture::StageFixture(const TrackGenConfig& config)
    : config_(config),
      ctx_(Space()),
      seed_buf_(Kokkos::view_alloc(ctx_.space(), label("perf", "seeds")), config_.num_envs),
      generator_(get_generator<Space>(config_.generator).make(ctx_.space(), config_)),
      buffers_(ctx_.space(), config_),
      track_(ctx_.space(), config_.num_envs, config_.N_max) {
  SeedState<Space>(ctx_.space(), config_.num_envs, 0, SeedExpansion::arange).effective(ctx_, seed_buf_);
  ctx_.fence();
}

void StageFixture::run(Stage s) {
  switch (s) {
    case Stage::generator:
      generator_->generate(ctx_, seed_buf_, buffers_.gen_centerline, buffers_.gen_valid);
      break;
    case Stage::resample:
      resample_constant_spacing(ctx_, config_, buffers_, track_);
      break;
    case Stage::relax:
      relax(ctx_, config_, buffers_, track_);
      break;
    case Stage::inflate:
      inflate(ctx_, config_, buffers_, seed_buf_, track_);
      break;
    case Stage::near_pairs:
      check_near_pairs(ctx_, config_, buffers_, track_);
      break;
  }
}

void StageFixture::prepare(Stage s) {
  for (; ready_ < static_cast<int>(s); ++ready_) run(static_cast<Stage>(ready_));
  ctx_.fence();
}

double StageFixture::yield() const {
  ctx_.fence();
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track_.valid);
  double n = 0;
  for (std::size_t e = 0; e < v.extent(0); ++e) n += v(e) != 0 ? 1 : 0;
  return n / double(v.extent(0));
}

StageFixture& fixture(const std::string& generator) { return fixture(generator, perf_config(generator)); }

StageFixture& fixture(const std::string& key, const TrackGenConfig& config) {
  auto& f = g_fixtures[key];
  if (!f) f = std::make_unique<StageFixture>(config);
  return *f;
}

void release_fixtures() { g_fixtures.clear(); }

void add_summary(std::function<void()> report) { g_summaries.push_back(std::move(report)); }

void print_summaries() {
  for (const auto& report : g_summaries) report();
}

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::generator:
      return "generator";
    case Stage::resample:
      return "resample";
    case Stage::relax:
      return "relax";
    case Stage::inflate:
      return "inflate";
    case Stage::near_pairs:
      return "near_pairs";
  }
  return "?";
}

void stage_benchmark(benchmark::State& state, Stage s, const std::string& generator) {
  stage_benchmark(state, s, generator, perf_config(generator));
}

void stage_benchmark(benchmark::State& state, Stage s, const std::string& key, const TrackGenConfig& config) {
  try {
    StageFixture& f = fixture(key, config);
    f.prepare(s);
    fenced_loop(state, f.space(), f.num_envs(), [&] { f.run(s); });
    if (s == Stage::inflate || s == Stage::near_pairs) state.counters["yield"] = f.yield();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace trackgen::perf

int main(int argc, char** argv) {
  try {
    trackgen::perf::parse_own_flags(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  int rc = 0;
  try {
    trackgen::perf::add_context();
    trackgen::perf::register_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
    trackgen::perf::print_summaries();
  } catch (const std::exception& e) {
    std::cerr << "perf: " << e.what() << "\n";
    rc = 1;
  }
  benchmark::Shutdown();
  trackgen::perf::release_fixtures();  // before Kokkos is finalized
  return rc;
}
