// A bench worker: measures the points of its plan, level by level, and prints one
// JSON line per point (a measurement, a point skipped for the time budget, or an
// error) with the run context; its progress (points done) goes to stderr through
// Progress, silenced by the plan's "quiet".
#include "../progress.hpp"
#include "bench.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace trackgen::app::bench {
namespace {

/// Timed calls of one point: the warm-up calls and the timed ones (ms each).
struct Calls {
  double first_ms = 0.0;
  int warmup = 0;
  std::vector<double> ms;
};

/// Warm-up (the first call always; adaptive: more until warm_time is spent),
/// then the timed calls, each returned by `timed_call` in ms.
template <class F>
Calls time_calls(const Timing& timing, const F& timed_call) {
  Calls c;
  const auto t_warm = Clock::now();
  c.first_ms = timed_call();
  c.warmup = 1;
  if (timing.warmup >= 0) {
    for (; c.warmup < timing.warmup; ++c.warmup) timed_call();
    c.warmup = std::max(timing.warmup, 1);
  } else {
    while (c.warmup < timing.max_warmup && seconds_since(t_warm) < timing.warm_time) {
      timed_call();
      ++c.warmup;
    }
  }
  const auto t_reps = Clock::now();
  if (timing.reps > 0) {
    for (int r = 0; r < timing.reps; ++r) c.ms.push_back(timed_call());
  } else {
    while (static_cast<int>(c.ms.size()) < timing.min_reps ||
           (static_cast<int>(c.ms.size()) < timing.max_reps && seconds_since(t_reps) < timing.min_time)) {
      c.ms.push_back(timed_call());
    }
  }
  return c;
}

/// Builds a producer of `E` envs and times generate() under `policy`.
template <class Space>
json measure_point(const TrackGenConfig& base, const std::string& generator, int E, BenchPolicy policy,
                   const Timing& timing, int seed) {
  TrackGenConfig config = base;
  config.generator = generator;
  config.num_envs = E;
  const Space space;
  const auto t_build = Clock::now();
  TrackGenerator<Space> gen(space, config, SeedState<Space>(space, E, seed));
  gen.set_policy(to_library(policy));
  gen.space().fence();
  const double construct_ms = 1e3 * seconds_since(t_build);

  const Calls calls = time_calls(timing, [&] {
    const auto t0 = Clock::now();
    gen.generate();
    gen.space().fence();
    return 1e3 * seconds_since(t0);
  });
  const std::vector<double>& ms = calls.ms;
  const double med = percentile(ms, 50.0);
  double sum = 0.0;
  for (double v : ms) sum += v;
  const std::size_t bytes = gen.device_bytes();
  return {{"generator", generator},
          {"policy", policy_name(policy)},
          {"envs", E},
          {"warmup_calls", calls.warmup},
          {"reps", ms.size()},
          {"construct_ms", construct_ms},
          {"first_call_ms", calls.first_ms},
          {"times_ms", ms},
          {"min_ms", *std::min_element(ms.begin(), ms.end())},
          {"median_ms", med},
          {"mean_ms", sum / double(ms.size())},
          {"max_ms", *std::max_element(ms.begin(), ms.end())},
          {"tracks_per_s", E / (med * 1e-3)},
          {"us_per_track", 1e3 * med / E},
          {"yield", track_counts(gen.track()).yield()},
          {"capturable", gen.capturable()},
          {"device_bytes", bytes},
          {"bytes_per_env", double(bytes) / E}};
}

void emit(const json& record) { std::cout << record.dump() << std::endl; }

/// One generator under one policy in a worker's plan.
struct Unit {
  std::string name;
  BenchPolicy policy;
  std::set<int> envs;
  double tpt = 0.0;      ///< seconds per track (last measurement or hint); 0: unknown
  bool stopped = false;  ///< skipped for the time budget from some E on
  bool failed = false;   ///< threw; the error is recorded
};

/// What a worker knows for the whole run.
struct WorkerRun {
  Clock::time_point start;
  std::string phase;
  int threads = 0;
  int concurrency = 0;
  json context;
  TrackGenConfig base;
  Timing timing;
  int seed = 0;
  double budget = 0.0;     ///< seconds; 0: unlimited
  double point_cap = 0.0;  ///< no single point may cost more (fair share); 0: none
};

/// The units of level E to run: those whose estimated cost fits in what is left
/// of the budget, cheapest first (unknown cost: always run). Units that do not
/// fit stop (this E and every larger one). `est` receives every estimate.
std::set<std::size_t> choose_level(const WorkerRun& w, std::vector<Unit>& units, const std::vector<std::size_t>& here,
                                   int E, std::map<std::size_t, double>& est) {
  std::vector<std::size_t> order = here;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return units[a].tpt < units[b].tpt; });
  std::set<std::size_t> run;
  double planned = 0.0;
  for (std::size_t i : order) {
    Unit& u = units[i];
    if (u.failed) continue;
    est[i] = u.tpt > 0 ? w.timing.estimate(u.tpt * E) : 0.0;
    const bool over =
        w.budget > 0 && u.tpt > 0 &&
        (seconds_since(w.start) + planned + est[i] > w.budget || (w.point_cap > 0 && est[i] > w.point_cap));
    if (u.stopped || over) {
      u.stopped = true;
      continue;
    }
    planned += est[i];
    run.insert(i);
  }
  return run;
}

/// Measures unit `u` at E (or records why not), emits its line and advances
/// `progress` by one point, with the point's result as its detail.
template <class Space>
void run_point(const WorkerRun& w, Unit& u, int E, bool chosen, double estimate, Progress& progress) {
  json rec = {{"record", "measurement"},         {"phase", w.phase}, {"generator", u.name},
              {"policy", policy_name(u.policy)}, {"envs", E},        {"threads", w.concurrency}};
  const std::string point = u.name + " E=" + std::to_string(E) + " " + policy_name(u.policy);
  char result[160];
  if (!chosen) {
    if (u.failed) {  // its error is recorded
      progress.advance(1, point + ": not run (failed at a smaller E)");
      return;
    }
    const double left = w.budget - seconds_since(w.start);
    rec.update({{"record", "skipped"},
                {"reason", "time budget"},
                {"estimate_s", estimate},
                {"budget_left_s", left},
                {"point_cap_s", w.point_cap},
                {"context", w.context}});
    emit(rec);
    std::snprintf(result, sizeof result, ": skipped (estimated %.0f s; %.0f s left, %.0f s per point at most)",
                  estimate, std::max(0.0, left), w.point_cap);
    progress.advance(1, point + result);
    return;
  }
  try {
    json m = measure_point<Space>(w.base, u.name, E, u.policy, w.timing, w.seed);
    rec.update(m);
    u.tpt = m.at("median_ms").get<double>() * 1e-3 / E;
    std::snprintf(result, sizeof result, ": median %.2f ms, %.0f tracks/s (%d reps)", m.at("median_ms").get<double>(),
                  m.at("tracks_per_s").get<double>(), m.at("reps").get<int>());
  } catch (const std::exception& e) {
    rec["record"] = "error";
    rec["error"] = e.what();
    std::snprintf(result, sizeof result, ": failed (see the report)");
    u.failed = true;
  }
  TrackGenConfig c = w.base;
  c.generator = u.name;
  c.num_envs = E;
  rec.update({{"config", c}, {"timing", w.timing}, {"seed", w.seed}, {"context", w.context}});
  emit(rec);
  progress.advance(1, point + result);
}

/// Runs the plan level by level: every (generator, policy) at the smallest E,
/// then at the next E, ... Under a budget, a level runs the points whose
/// estimated cost (Timing::estimate of the time per track measured at the
/// previous level, or the plan's hint) fits in what is left, cheapest first; a
/// point that does not fit is skipped with every larger E of its generator.
template <class Space>
void run_worker_on(const json& plan) {
  WorkerRun w;
  w.start = Clock::now();
  const Space space;
  w.threads = plan.at("threads");
  w.phase = plan.at("phase");
  w.concurrency = compat::concurrency(space);
  w.context = run_context(Space::name(), w.concurrency, w.threads);
  w.base = plan.at("config").get<TrackGenConfig>();
  w.timing = plan.at("timing").get<Timing>();
  w.seed = plan.at("seed");
  w.budget = plan.at("budget_s");
  w.point_cap = plan.value("point_cap_s", 0.0);

  std::vector<Unit> units;
  std::set<int> levels;
  for (const auto& g : plan.at("generators")) {
    const std::vector<int> envs = g.at("envs");
    for (const auto& p : plan.at("policies")) {
      units.push_back({g.at("name"),
                       parse_policy(p.get<std::string>()),
                       {envs.begin(), envs.end()},
                       g.contains("tpt_hint_s") ? g.at("tpt_hint_s").get<double>() : 0.0,
                       false,
                       false});
    }
    levels.insert(envs.begin(), envs.end());
  }
  long long total = 0;
  for (const auto& u : units) total += static_cast<long long>(u.envs.size());
  set_progress_quiet(plan.value("quiet", false));
  Progress progress("bench " + w.phase + " t=" + std::to_string(w.concurrency), total, "points");
  for (int E : levels) {
    std::vector<std::size_t> here;
    for (std::size_t i = 0; i < units.size(); ++i) {
      if (units[i].envs.count(E)) here.push_back(i);
    }
    std::map<std::size_t, double> est;
    const std::set<std::size_t> chosen = choose_level(w, units, here, E, est);
    for (std::size_t i : here) run_point<Space>(w, units[i], E, chosen.count(i) > 0, est[i], progress);
  }
}

}  // namespace

void run_worker(const json& plan) {
  with_backend(plan.at("backend").get<std::string>(), [&]<class Space>() { run_worker_on<Space>(plan); });
}

}  // namespace trackgen::app::bench
