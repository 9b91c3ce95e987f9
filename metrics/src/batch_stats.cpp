#include <trackgen/core/errors.hpp>
#include <trackgen/metrics/batch_stats.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace trackgen {

void to_json(nlohmann::json& j, const BatchStats& s) {
  j = nlohmann::json{{"generator", s.generator},
                     {"num_envs", s.num_envs},
                     {"num_valid", s.num_valid},
                     {"num_measured", s.num_measured},
                     {"yield", s.yield},
                     {"pre_relax_self_intersection_rate", s.pre_relax_self_intersection_rate},
                     {"xpbd_displacement", s.xpbd_displacement},
                     {"mean_length", s.mean_length},
                     {"mean_compactness", s.mean_compactness},
                     {"compactness_p10", s.compactness_p10},
                     {"compactness_p50", s.compactness_p50},
                     {"compactness_p90", s.compactness_p90},
                     {"compactness_degenerate_rate", s.compactness_degenerate_rate},
                     {"shape_variety_pass", s.shape_variety_pass},
                     {"mean_chicanes", s.mean_chicanes},
                     {"straight_frac", s.straight_frac},
                     {"peak_curvature", s.peak_curvature},
                     {"lap_time", s.lap_time},
                     {"gen_ms_per_call", s.gen_ms_per_call}};
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

namespace detail::metrics {

/// disp[e] = mean over i < min(n_post[e], n_pre[e]) of |post_i - pre_i|, summed
/// in index order by one thread per env.
template <class Space>
void launch_displacement(const LaunchContext<Space>& ctx, const MetricsResult<typename Space::memory_space>& post,
                         const MetricsResult<typename Space::memory_space>& pre, int stride,
                         const DView<double, Space>& disp) {
  const auto a = post.points, b = pre.points;
  const auto na = post.num_points, nb = pre.num_points;
  ctx.for_each(
      label("metrics", "displacement"), disp.extent(0), KOKKOS_LAMBDA(const int e) {
        const std::size_t base = static_cast<std::size_t>(e) * static_cast<std::size_t>(stride);
        const int m = kmath::min(static_cast<int>(na(e)), static_cast<int>(nb(e)));
        double sum = 0.0;
        for (int i = 0; i < m; ++i) {
          const Vec2f p = a(base + i), q = b(base + i);
          const double dx = static_cast<double>(p.x) - q.x, dy = static_cast<double>(p.y) - q.y;
          sum += kmath::sqrt(dx * dx + dy * dy);
        }
        disp(e) = m > 0 ? sum / m : 0.0;
      });
}

}  // namespace detail::metrics

namespace {
double mean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}
}  // namespace

template <class Space>
BatchMetrics<Space>::BatchMetrics(const Space& space, int num_envs, int n_max, MetricsParams params)
    : ctx_(space),
      post_(space, num_envs, n_max, params),
      pre_(space, num_envs, n_max, params),
      disp_(Kokkos::view_alloc(space, label("metrics", "displacement")), std::size_t(num_envs)) {}

BatchStats aggregate_batch_stats(const std::vector<EnvStats>& envs) {
  const int E = static_cast<int>(envs.size());
  BatchStats s;
  s.num_envs = E;
  for (const EnvStats& r : envs) s.num_valid += r.valid != 0 ? 1 : 0;
  s.yield = E > 0 ? static_cast<double>(s.num_valid) / E : 0.0;
  int pre_crossing = 0;
  // Displacement: one mean over the points of every measured env, valid or not
  // (pooled, not a mean of per-env means, docs/algorithms.md#batch-statistics);
  // the per-env mean times its point count restores the env's sum.
  double disp_sum = 0.0;
  long long disp_points = 0;
  std::vector<double> len, compact, chic, straight, peak, lap;
  for (const EnvStats& r : envs) {
    if (r.measured == 0) continue;
    pre_crossing += r.pre_crossing != 0 ? 1 : 0;
    disp_sum += r.displacement * r.disp_points;
    disp_points += r.disp_points;
    if (r.valid == 0) continue;
    len.push_back(r.perimeter);
    compact.push_back(r.compactness);
    chic.push_back(r.chicanes);
    straight.push_back(r.straight_fraction);
    peak.push_back(r.peak_curvature);
    lap.push_back(r.lap_time);
  }
  s.num_measured = static_cast<int>(compact.size());
  s.pre_relax_self_intersection_rate = E > 0 ? static_cast<double>(pre_crossing) / E : 0.0;
  s.xpbd_displacement = disp_points > 0 ? disp_sum / static_cast<double>(disp_points) : 0.0;
  s.mean_length = mean(len);
  s.mean_compactness = mean(compact);
  s.compactness_p10 = percentile(compact, 10.0);
  s.compactness_p50 = percentile(compact, 50.0);
  s.compactness_p90 = percentile(compact, 90.0);
  const auto degenerate = std::count_if(compact.begin(), compact.end(), [](double v) { return v > 0.90; });
  s.compactness_degenerate_rate =
      compact.empty() ? 0.0 : static_cast<double>(degenerate) / static_cast<double>(compact.size());
  s.shape_variety_pass = !compact.empty() && s.compactness_degenerate_rate < 0.25 && s.mean_compactness < 0.90;
  s.mean_chicanes = mean(chic);
  s.straight_frac = mean(straight);
  s.peak_curvature = mean(peak);
  s.lap_time = mean(lap);
  return s;
}

template <class Space>
std::vector<EnvStats> BatchMetrics<Space>::env_stats(const Track<memory_space>& track,
                                                     const DView<const Vec2f, Space>& pre_chain) {
  const int E = post_.num_envs(), N = post_.stride();
  if (track.num_envs() != E || track.n_max() != N) {
    throw ConfigError("trackgen::BatchMetrics::compute: track has num_envs = " + std::to_string(track.num_envs()) +
                      ", n_max = " + std::to_string(track.n_max()) + "; expected " + std::to_string(E) + ", " +
                      std::to_string(N));
  }
  const auto region = ctx_.region("TrackGen::metrics::batch_stats");
  post_.compute(track.center, track.count);
  pre_.compute(pre_chain, track.count);
  detail::metrics::launch_displacement(ctx_, post_.result(), pre_.result(), N, disp_);

  const auto hp = post_.to_host();  // fences the (shared) instance
  const auto pre_x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pre_.result().self_intersects);
  const auto pre_n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pre_.result().num_points);
  const auto disp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disp_);
  const auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.count);
  const auto valid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.valid);

  std::vector<EnvStats> envs(static_cast<std::size_t>(E));
  for (int e = 0; e < E; ++e) {
    EnvStats& r = envs[static_cast<std::size_t>(e)];
    r.valid = valid(e) != 0 ? 1 : 0;
    // count >= 4 and every one of the first count centerline points finite
    const int c = count(e);
    if (c < 4 || hp.num_points(e) != std::min(c, N)) continue;
    r.measured = 1;
    r.pre_crossing = pre_x(e) != 0 ? 1 : 0;
    r.disp_points = std::min(hp.num_points(e), pre_n(e));
    r.displacement = disp(e);
    r.perimeter = hp.perimeter(e);
    r.compactness = hp.compactness(e);
    r.chicanes = hp.chicanes(e);
    r.straight_fraction = hp.straight_fraction(e);
    r.peak_curvature = hp.peak_curvature(e);
    r.lap_time = hp.lap_time(e);
  }
  return envs;
}

template <class Space>
BatchStats BatchMetrics<Space>::compute(const Track<memory_space>& track, const DView<const Vec2f, Space>& pre_chain,
                                        double ms_per_call) {
  BatchStats s = aggregate_batch_stats(env_stats(track, pre_chain));
  s.gen_ms_per_call = ms_per_call;
  return s;
}

#define TRACKGEN_INSTANTIATE_BATCH_METRICS(S) template class BatchMetrics<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_BATCH_METRICS)
#undef TRACKGEN_INSTANTIATE_BATCH_METRICS

}  // namespace trackgen
