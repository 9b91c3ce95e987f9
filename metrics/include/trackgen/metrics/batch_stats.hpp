// Batch statistics of a generated batch (docs/algorithms.md#batch-statistics):
// per-env metrics on the device (TrackMetrics, on the relaxed centerline and on
// the pre-relax chain), then the batch aggregates on the host. Every summary a
// front end prints (trackgen generate, metrics, bench) comes from here.
#pragma once

#include <trackgen/metrics/track_metrics.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace trackgen {

/// The aggregates of the quality table for one batch. An env is *measured* when it
/// has count >= 4 and its first count centerline points are finite; the
/// per-track means and percentiles run over the measured valid envs (0 when
/// there are none); the pre-relax crossing rate and the displacement count every
/// measured env, valid or not.
struct BatchStats {
  std::string generator;  ///< generator name (set by batch_stats(gen, ...))
  int num_envs = 0;       ///< E
  int num_valid = 0;      ///< envs with valid = 1
  int num_measured = 0;   ///< measured valid envs (the sample of the per-track means)
  double yield = 0.0;     ///< mean(valid) over E
  double pre_relax_self_intersection_rate =
      0.0;                         ///< measured envs (valid or not) whose pre-relax chain self-intersects, / E
  double xpbd_displacement = 0.0;  ///< mean of |post_i - pre_i| over the points of all measured envs (valid or not)
  double mean_length = 0.0;        ///< mean perimeter
  double mean_compactness = 0.0;
  double compactness_p10 = 0.0;  ///< percentiles with linear interpolation (numpy's default)
  double compactness_p50 = 0.0;
  double compactness_p90 = 0.0;
  double compactness_degenerate_rate = 0.0;  ///< fraction with compactness > 0.90 (near-circular)
  bool shape_variety_pass = false;           ///< has valid && degenerate_rate < 0.25 && mean_compactness < 0.90
  double mean_chicanes = 0.0;
  double straight_frac = 0.0;    ///< mean straight fraction
  double peak_curvature = 0.0;   ///< mean per-track peak curvature
  double lap_time = 0.0;         ///< mean racing-line-proxy lap time
  double gen_ms_per_call = 0.0;  ///< time per generate() call (ms), as passed in
};

/// JSON object with the quality table's key names (generator, num_envs, num_valid,
/// num_measured, yield, pre_relax_self_intersection_rate, xpbd_displacement,
/// mean_length, mean_compactness, compactness_p10/p50/p90,
/// compactness_degenerate_rate, shape_variety_pass, mean_chicanes, straight_frac,
/// peak_curvature, lap_time, gen_ms_per_call).
void to_json(nlohmann::json& j, const BatchStats& s);

/// q-th percentile (q in [0, 100]) of `v` with linear interpolation between
/// closest ranks, as numpy.percentile's default; 0 for an empty sample. The
/// median of every summary (compactness, timings) is percentile(v, 50).
double percentile(std::vector<double> v, double q);

/// The counts of a batch: envs, valid tracks, truncated tracks, and the yield.
struct TrackCounts {
  int num_envs = 0;
  int num_valid = 0;      ///< envs with valid = 1
  int num_truncated = 0;  ///< envs with truncated = 1
  /// num_valid / num_envs (0 for an empty batch).
  double yield() const { return num_envs > 0 ? static_cast<double>(num_valid) / num_envs : 0.0; }
};

/// The counts of `track` (copies its valid and truncated flags to the host,
/// which waits for the work that writes them).
template <class MemorySpace>
TrackCounts track_counts(const Track<MemorySpace>& track) {
  const auto valid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.valid);
  const auto truncated = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.truncated);
  TrackCounts c;
  c.num_envs = track.num_envs();
  for (int e = 0; e < c.num_envs; ++e) {
    c.num_valid += valid(e) != 0 ? 1 : 0;
    c.num_truncated += truncated(e) != 0 ? 1 : 0;
  }
  return c;
}

/// One env's share of the batch statistics: what the aggregation reads of env e
/// (a plain struct, so that front ends can move per-env records between
/// processes and aggregate them in env order with aggregate_batch_stats()).
struct EnvStats {
  std::int32_t valid = 0;         ///< valid flag (0/1)
  std::int32_t measured = 0;      ///< count >= 4 and the first count centerline points finite
  std::int32_t pre_crossing = 0;  ///< the pre-relax chain self-intersects (measured envs)
  std::int32_t disp_points = 0;   ///< points of the displacement mean (measured envs)
  std::int32_t chicanes = 0;
  std::int32_t padding = 0;   ///< unused (keeps the doubles aligned without implicit padding)
  double displacement = 0.0;  ///< mean |post_i - pre_i| over disp_points points
  double perimeter = 0.0;
  double compactness = 0.0;
  double straight_fraction = 0.0;
  double peak_curvature = 0.0;
  double lap_time = 0.0;
};

/// The batch aggregates of the per-env records `envs`, in env order (env e at
/// index e): every field of BatchStats but `generator` and `gen_ms_per_call`.
/// BatchMetrics::compute() is env_stats() followed by this, so records gathered
/// from several processes in env order give the same bits as one process.
BatchStats aggregate_batch_stats(const std::vector<EnvStats>& envs);

/// Computes BatchStats of batches of `num_envs` envs of stride `n_max`; holds two
/// TrackMetrics (post-relax centerline, pre-relax chain) and the per-env
/// displacement, all allocated at construction.
template <class Space = Kokkos::DefaultExecutionSpace>
class BatchMetrics {
 public:
  using execution_space = Space;
  using memory_space = typename Space::memory_space;

  /// Allocates everything on the instance `space`.
  BatchMetrics(const Space& space, int num_envs, int n_max, MetricsParams params = {});

  /// The same on the default instance of `Space`.
  BatchMetrics(int num_envs, int n_max, MetricsParams params = {}) : BatchMetrics(Space(), num_envs, n_max, params) {}

  /// Per-env metrics of `track.center` and of `pre_chain` (the pre-relax
  /// constant-spacing chain, [E*n_max] with track.count real points per env),
  /// the per-env displacement, then the batch aggregates (reads results on the
  /// host: fences the instance). `ms_per_call` is copied into the result.
  BatchStats compute(const Track<memory_space>& track, const DView<const Vec2f, Space>& pre_chain,
                     double ms_per_call = 0.0);

  /// The per-env records behind compute() (the same device work, then a host
  /// read that fences the instance), env e at index e.
  std::vector<EnvStats> env_stats(const Track<memory_space>& track, const DView<const Vec2f, Space>& pre_chain);

  /// Metrics of the relaxed centerline / of the pre-relax chain (last compute()).
  const TrackMetrics<Space>& post() const { return post_; }
  const TrackMetrics<Space>& pre() const { return pre_; }
  /// Per env: mean over i < min(post.num_points, pre.num_points) of
  /// |post.points_i - pre.points_i| (index-aligned; 0 if no points) [E].
  const DView<double, Space>& displacement() const { return disp_; }

 private:
  LaunchContext<Space> ctx_;
  TrackMetrics<Space> post_;
  TrackMetrics<Space> pre_;
  DView<double, Space> disp_;
};

/// BatchStats of the batch last produced by `gen` (a TrackGenerator: its
/// track(), pre_relax_centerline(), config().generator and space()), with
/// `ms_per_call` the measured time per generate(). Allocates a BatchMetrics per
/// call; hold one BatchMetrics to measure repeatedly without allocating.
template <class Generator>
requires requires(const Generator& g) {
  g.track();
  g.pre_relax_centerline();
  g.config().generator;
}
BatchStats batch_stats(const Generator& gen, double ms_per_call = 0.0) {
  using Space = typename Generator::execution_space;
  BatchMetrics<Space> m(gen.space(), gen.track().num_envs(), gen.track().n_max());
  BatchStats s = m.compute(gen.track(), gen.pre_relax_centerline(), ms_per_call);
  s.generator = gen.config().generator;
  return s;
}

}  // namespace trackgen
