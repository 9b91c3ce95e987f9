// The bench's analysis: per generator and policy, the linearity of the time per
// track over the sweep, and strong / weak scaling over the thread counts.
#include "bench.hpp"

#include <algorithm>
#include <limits>

namespace trackgen::app::bench {
namespace {

/// Median time of the measurement of (key, E, threads), or NaN.
double median_at(const std::vector<json>& meas, const Key& k, int E, int threads) {
  for (const auto& m : meas) {
    if (m["generator"] == k.generator && m["policy"] == k.policy && m["envs"] == E && m["threads"] == threads) {
      return m["median_ms"].get<double>();
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// Linearity (time per track over E >= linearity_min_envs of the sweep) and the
/// largest E measured at the sweep thread count.
void linearity(const BenchRun& run, Summary& s) {
  for (const auto& m : run.measurements) {
    if (m["generator"] != s.key.generator || m["policy"] != s.key.policy || m["threads"] != run.sweep_threads) {
      continue;
    }
    const int E = m["envs"];
    if (E > s.largest_envs) {
      s.largest_envs = E;
      s.bytes_per_env_largest = m["bytes_per_env"];
    }
    if (E < linearity_min_envs || m["phase"] != "sweep") continue;
    const double us = m["us_per_track"];
    if (s.lin_points == 0 || E < s.lin_from) s.lin_from = E;
    if (s.lin_points == 0 || E > s.lin_to) s.lin_to = E;
    s.lin_min_us = s.lin_points == 0 ? us : std::min(s.lin_min_us, us);
    s.lin_max_us = s.lin_points == 0 ? us : std::max(s.lin_max_us, us);
    ++s.lin_points;
  }
  if (s.lin_points >= 2) s.lin_ratio = s.lin_max_us / s.lin_min_us;
}

/// Strong scaling at strong_envs and weak scaling at weak_envs x threads, both
/// against the smallest thread count.
void thread_scaling(const BenchRun& run, Summary& s) {
  const int t0 = run.threads.front();
  const double strong0 = median_at(run.measurements, s.key, run.strong_envs, t0);
  const double weak0 = median_at(run.measurements, s.key, run.weak_envs * t0, t0);
  for (int t : run.threads) {
    const double ms = median_at(run.measurements, s.key, run.strong_envs, t);
    const double sp = strong0 / ms;
    s.strong.push_back({t, run.strong_envs, ms, sp, sp * t0 / t});
    const double wms = median_at(run.measurements, s.key, run.weak_envs * t, t);
    s.weak.push_back({t, run.weak_envs * t, wms, NAN, weak0 / wms});
    if (t0 == 1 && t == 2) s.speedup_2v1 = sp;
  }
}

}  // namespace

std::vector<Key> keys_of(const BenchRun& run) {
  std::vector<Key> keys;
  for (const auto& g : run.generators) {
    for (const auto& p : run.policies) keys.push_back({g, p});
  }
  return keys;
}

std::vector<Summary> summarize(const BenchRun& run) {
  std::vector<Summary> sums;
  for (const auto& k : keys_of(run)) {
    Summary s;
    s.key = k;
    s.bytes_per_env_estimate = run.bytes_per_env.at(k.generator);
    linearity(run, s);
    if (run.scaling) thread_scaling(run, s);
    sums.push_back(s);
  }
  return sums;
}

}  // namespace trackgen::app::bench
