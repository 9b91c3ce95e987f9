// The bench's parent process: what to run (generators, policies, thread
// counts), the probes behind the memory cap and the first time estimates, one
// worker plan per thread count, and the records the workers send back.
#include "../progress.hpp"
#include "bench.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <type_traits>

namespace trackgen::app::bench {
namespace {

/// The resolved options of one run.
struct Plan {
  std::vector<int> sweep;  ///< the sweep's batch sizes, sorted, unique
  std::vector<BenchPolicy> policies;
  double max_mb = 0.0;  ///< memory cap
  bool openmp = false;  ///< thread counts apply
  int max_threads = 0;  ///< the largest thread count (the sweep's)
};

/// Thread counts to run: the given list, else powers of two up to the OpenMP
/// concurrency and it; {0} (no --threads) off OpenMP.
std::vector<int> thread_counts(const BenchOptions& o, bool openmp, int conc) {
  std::vector<int> threads = o.threads_list;
  if (!openmp) {
    if (!threads.empty()) std::cerr << "trackgen bench: --threads-list applies to the OpenMP backend only; ignored\n";
    threads = {0};
  } else if (threads.empty()) {
    for (int t = 1; t < conc; t *= 2) threads.push_back(t);
    threads.push_back(conc);
  }
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  return threads;
}

/// Probes every generator at two tiny batches (E=1 and E=2): device bytes per
/// env (the slope, so memory a producer holds once is not counted per env) and
/// the fixed part, for the memory cap; a rough time per track (one generate()
/// at E=2, after construction) for the time budget's first estimates.
/// Generators that fail to build are reported and left out.
template <class Space>
void probe(BenchRun& run, const std::vector<std::string>& generators, int seed) {
  const Space space;
  for (const auto& g : generators) {
    TrackGenConfig c = run.base;
    c.generator = g;
    try {
      auto build = [&](int E, bool timed) {
        c.num_envs = E;
        TrackGenerator<Space> gen(space, c, SeedState<Space>(space, E, seed));
        double seconds = 0.0;
        if (timed) {
          gen.space().fence();
          const auto t0 = Clock::now();
          gen.generate();
          gen.space().fence();
          seconds = seconds_since(t0);
        }
        return std::pair<double, double>(double(gen.device_bytes()), seconds);
      };
      const double b1 = build(1, false).first;
      const auto [b2, s2] = build(2, true);
      run.bytes_per_env[g] = std::max(0.0, b2 - b1);
      run.fixed_bytes[g] = std::max(0.0, b1 - run.bytes_per_env[g]);
      run.probe_s_per_track[g] = s2 / 2.0;
      run.generators.push_back(g);
    } catch (const std::exception& e) {
      std::cerr << "trackgen bench: generator '" << g << "' skipped: " << e.what() << "\n";
      run.records.push_back({{"record", "error"}, {"generator", g}, {"error", e.what()}, {"context", run.context}});
    }
  }
  if (run.generators.empty()) throw std::runtime_error("bench: no generator could be built");
}

/// The batch sizes of `envs` that fit the memory cap for generator g; the others
/// are recorded as skipped.
std::vector<int> fitting_sizes(BenchRun& run, const Plan& plan, const std::string& g, const std::set<int>& envs,
                               int threads) {
  std::vector<int> keep;
  for (int E : envs) {
    const double bytes = run.fixed_bytes[g] + run.bytes_per_env[g] * E;
    if (bytes <= plan.max_mb * 1024.0 * 1024.0) {
      keep.push_back(E);
      continue;
    }
    for (const auto& p : run.policies) {
      run.records.push_back({{"record", "skipped"},
                             {"phase", "plan"},
                             {"generator", g},
                             {"policy", p},
                             {"envs", E},
                             {"threads", threads},
                             {"reason", "memory"},
                             {"estimate_bytes", bytes},
                             {"max_memory_mb", plan.max_mb},
                             {"context", run.context}});
    }
  }
  return keep;
}

/// The time per track at the sweep's thread count near the strong-scaling size,
/// scaled to t threads: the time budget's estimate for a scaling phase.
double scaled_hint(const BenchRun& run, const Plan& plan, const std::string& g, int t) {
  double best = 0.0;
  int best_dist = std::numeric_limits<int>::max();
  for (const auto& m : run.measurements) {
    if (m["generator"] != g || m["threads"] != plan.max_threads) continue;
    const int d = std::abs(m["envs"].get<int>() - run.strong_envs);
    if (d < best_dist) {
      best_dist = d;
      best = m["median_ms"].get<double>() * 1e-3 / m["envs"].get<int>();
    }
  }
  return best > 0 ? best * double(plan.max_threads) / double(t)
                  : run.probe_s_per_track.at(g) * double(run.concurrency) / double(t);
}

/// Runs one worker with `plan_json` at `threads` and keeps its records.
void collect(BenchRun& run, int threads, const json& plan_json, std::set<std::string>& notes) {
  for (auto& r : run_worker_process(threads, plan_json, notes)) {
    if (r["record"] == "measurement") run.measurements.push_back(r);
    run.records.push_back(std::move(r));
  }
}

/// The worker plan of one phase, without its generators.
json phase_plan(const BenchRun& run, const BenchOptions& o, const Plan& plan, int threads, const char* phase,
                double budget_s) {
  json p = {{"config", run.base},         {"timing", o.timing}, {"seed", o.batch.seed}, {"policies", run.policies},
            {"backend", o.batch.backend}, {"threads", threads}, {"phase", phase},       {"generators", json::array()}};
  p["budget_s"] = o.time_budget > 0 ? std::max(1.0, budget_s) : 0.0;
  p["point_cap_s"] = p["budget_s"].get<double>() / double(run.generators.size() * plan.policies.size());
  p["quiet"] = progress_quiet();
  return p;
}

/// Phase 1: the sweep (and the scaling points) at the largest thread count.
void run_sweep(BenchRun& run, const BenchOptions& o, const Plan& plan, Clock::time_point start,
               std::set<std::string>& notes) {
  const double share = run.scaling ? sweep_budget_share : 1.0;
  json p = phase_plan(run, o, plan, plan.max_threads, "sweep", o.time_budget * share - seconds_since(start));
  for (const auto& g : run.generators) {
    std::set<int> es(plan.sweep.begin(), plan.sweep.end());
    if (run.scaling) {
      es.insert(run.strong_envs);
      es.insert(run.weak_envs * plan.max_threads);
    }
    const int t = plan.max_threads > 0 ? plan.max_threads : run.concurrency;
    p["generators"].push_back(
        {{"name", g}, {"envs", fitting_sizes(run, plan, g, es, t)}, {"tpt_hint_s", run.probe_s_per_track[g]}});
  }
  if (!progress_quiet()) {
    std::fprintf(stderr, "[bench] sweep at %d thread(s): %zu generator(s) x E in {",
                 plan.max_threads > 0 ? plan.max_threads : run.concurrency, run.generators.size());
    for (std::size_t i = 0; i < plan.sweep.size(); ++i) std::fprintf(stderr, "%s%d", i ? "," : "", plan.sweep[i]);
    std::fprintf(stderr, "}\n");
  }
  collect(run, plan.openmp ? plan.max_threads : 0, p, notes);
}

/// Phase 2: the other thread counts (strong and weak scaling points). Each gets
/// what is left of the budget, but at least its part of the share reserved for
/// this phase (so an overrun of the sweep does not cost the speed-up numbers).
void run_scaling(BenchRun& run, const BenchOptions& o, const Plan& plan, Clock::time_point start,
                 std::set<std::string>& notes) {
  const std::size_t n = run.threads.size();
  for (std::size_t ti = 0; run.scaling && ti + 1 < n; ++ti) {
    const int t = run.threads[ti];
    const double reserved = (1.0 - sweep_budget_share) * o.time_budget * double(n - 1 - ti) / double(n - 1);
    const double left = o.time_budget > 0 ? std::max(o.time_budget - seconds_since(start), reserved) : 0.0;
    json p = phase_plan(run, o, plan, t, "scaling", left / double(n - 1 - ti));
    for (const auto& g : run.generators) {
      const std::set<int> es{run.strong_envs, run.weak_envs * t};
      p["generators"].push_back(
          {{"name", g}, {"envs", fitting_sizes(run, plan, g, es, t)}, {"tpt_hint_s", scaled_hint(run, plan, g, t)}});
    }
    if (!progress_quiet()) {
      std::fprintf(stderr, "[bench] scaling at %d thread(s): E in {%d, %d}\n", t,
                   std::min(run.strong_envs, run.weak_envs * t), std::max(run.strong_envs, run.weak_envs * t));
    }
    collect(run, t, p, notes);
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

template <class Space>
void run_bench_on(const BenchOptions& o) {
  const auto start = Clock::now();
  const Space space;
  BenchRun run;
  Plan plan;
  run.space_name = Space::name();
  run.concurrency = compat::concurrency(space);
  const bool all = o.batch.generator.empty() || o.batch.generator == "all";
  BatchOptions bo = o.batch;
  if (all) bo.generator.clear();
  run.base = make_config(bo, base_config_envs);
  const std::vector<std::string> generators =
      all ? available_generators<Space>() : std::vector<std::string>{run.base.generator};
  for (const auto& p : o.policies) plan.policies.push_back(parse_policy(p));
  for (BenchPolicy p : plan.policies) run.policies.push_back(policy_name(p));
#if defined(KOKKOS_ENABLE_OPENMP)
  plan.openmp = std::is_same_v<Space, Kokkos::OpenMP>;
#endif
  run.threads = thread_counts(o, plan.openmp, run.concurrency);
  plan.max_threads = run.threads.back();
  run.scaling = run.threads.size() > 1;
  run.strong_envs = o.scaling_envs;
  run.weak_envs = o.weak_envs > 0 ? o.weak_envs : std::max(1, run.strong_envs / std::max(1, plan.max_threads));
  plan.sweep = o.envs_list;
  std::sort(plan.sweep.begin(), plan.sweep.end());
  plan.sweep.erase(std::unique(plan.sweep.begin(), plan.sweep.end()), plan.sweep.end());
  plan.max_mb = o.max_memory_mb > 0 ? o.max_memory_mb : default_memory_share * physical_memory_mb();

  run.context = run_context(run.space_name, run.concurrency, 0);
  std::printf("trackgen bench: TrackGen %s (%s), Kokkos %s [%s], backend %s\n", version(), git_revision(),
              compat::kokkos_version_string().c_str(), joined(backend_names()).c_str(), Space::name());
  std::printf("  CPU %s (%u logical), memory cap %.0f MiB, time budget %s, policies %s\n",
              run.context["cpu_model"].get<std::string>().c_str(), std::thread::hardware_concurrency(), plan.max_mb,
              o.time_budget > 0 ? fmt("%.0f s", o.time_budget).c_str() : "none", joined(run.policies).c_str());
  std::fflush(stdout);

  probe<Space>(run, generators, o.batch.seed);
  std::set<std::string> notes;
  run_sweep(run, o, plan, start, notes);
  run_scaling(run, o, plan, start, notes);
  run.sweep_threads =
      plan.openmp ? plan.max_threads
                  : (run.measurements.empty() ? run.concurrency : run.measurements.front()["threads"].get<int>());
  run.wall_s = seconds_since(start);

  const std::vector<Summary> sums = summarize(run);
  print_report(run, sums);
  if (!o.json_out.empty()) write_json_lines(run, sums, o.timing, o.json_out);
  if (!o.svg_out.empty()) write_svg(run, sums, o.svg_out);
}

}  // namespace

void run_bench(const BenchOptions& o) {
  with_backend(o.batch.backend, [&]<class Space>() { run_bench_on<Space>(o); });
}

}  // namespace trackgen::app::bench
