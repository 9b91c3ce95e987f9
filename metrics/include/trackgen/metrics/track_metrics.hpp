// TrackMetrics: the per-env track-quality metrics (docs/algorithms.md#metrics),
// computed on the device over a batch of closed polylines.
//
// Input: a flat [E*stride] View of Vec2f or Vec3f points (only xy is read) and an
// [E] int32 View of counts; env e's loop is its first count[e] points (clamped to
// [0, stride]) with non-finite points skipped, closed by the edge back to the
// first point. One team per env computes everything; every floating-point sum is
// accumulated by one thread in index order, so the results are bitwise identical
// on every backend, thread count and team size.
//
// All outputs are allocated at construction; compute() allocates nothing and
// returns the same MetricsResult every call.
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstdint>
#include <type_traits>

namespace trackgen {

/// Parameters of the metric definitions (the original system's defaults).
struct MetricsParams {
  double a_lat = 1.0;              ///< lateral acceleration of the racing-line proxy: v = sqrt(a_lat / kappa)
  double chicane_min_turn = 0.05;  ///< turns below this (rad) are dropped before counting sign changes
  double straight_ratio = 0.5;     ///< a vertex is straight if its curvature < ratio * mean curvature
  int team_size = 0;               ///< team size of the per-env kernel; 0: Kokkos::AUTO (results do not depend on it)
};

/// Per-env metric results (fields as Track: flat Views, [E] or [E*stride]).
template <class MemorySpace>
struct MetricsResult {
  template <class T>
  using view = Kokkos::View<T*, MemorySpace>;

  // --- per env [E]
  view<std::int32_t> num_points;       ///< finite points used (<= count; = count when all are finite)
  view<double> perimeter;              ///< sum of edge lengths, closing edge included
  view<double> area;                   ///< |shoelace| / 2
  view<double> compactness;            ///< 4 pi area / perimeter^2 (1 = circle; 0 if perimeter <= 0)
  view<double> mean_curvature;         ///< mean of the per-vertex curvature
  view<double> peak_curvature;         ///< max of the per-vertex curvature
  view<std::int32_t> chicanes;         ///< sign changes of the turn sequence after dropping small turns
  view<double> straight_fraction;      ///< fraction of vertices with curvature < ratio * mean (0 if mean <= 1e-9)
  view<std::int32_t> crossings;        ///< crossings among non-adjacent edges (geom::segments_cross_sign)
  view<std::int32_t> self_intersects;  ///< crossings > 0
  view<double> lap_time;               ///< sum l_i / max(sqrt(a_lat / k_i), 1e-9), k_i = max(curvature_i, 1e-6)
  view<double> integral_kappa2;        ///< sum k_i^2 l_i

  // --- per vertex [E*stride], index i of env e at e*stride + i for i < num_points[e]; NaN beyond
  view<Vec2f> points;        ///< the finite xy points the metrics were computed on
  view<double> edge_length;  ///< l_i = |p_{i+1} - p_i|
  view<double> turn_angle;   ///< heading(edge i) - heading(edge i-1), wrapped to [-pi, pi)
  view<double> curvature;    ///< |turn_i| / max((l_i + l_{i-1}) / 2, 1e-9)

  int num_envs() const { return static_cast<int>(perimeter.extent(0)); }
  int stride() const { return num_envs() > 0 ? static_cast<int>(points.extent(0)) / num_envs() : 0; }
};

template <class Space = Kokkos::DefaultExecutionSpace>
class TrackMetrics {
 public:
  using execution_space = Space;
  using memory_space = typename Space::memory_space;
  using result_type = MetricsResult<memory_space>;
  template <class T>
  using const_view = DView<const T, Space>;

  /// Allocates the outputs for `num_envs` envs of stride `stride` on the
  /// instance `space`. ConfigError if num_envs < 1, stride < 1, or a parameter
  /// is out of range.
  TrackMetrics(const Space& space, int num_envs, int stride, MetricsParams params = {});

  /// The same on the default instance of `Space`.
  TrackMetrics(int num_envs, int stride, MetricsParams params = {})
      : TrackMetrics(Space(), num_envs, stride, params) {}

  TrackMetrics(const TrackMetrics&) = delete;
  TrackMetrics& operator=(const TrackMetrics&) = delete;

  /// Computes every metric of every env of `points` ([E*stride] Vec2f or Vec3f,
  /// only xy read) with `count` ([E] int32) real points each. Asynchronous on the
  /// instance: fence (or read through to_host) before reading the results on the
  /// host. ConfigError on wrong extents.
  template <class PointView>
  const result_type& compute(const PointView& points, const const_view<std::int32_t>& count) {
    using P = std::remove_const_t<typename PointView::value_type>;
    static_assert(std::is_same_v<P, Vec2f> || std::is_same_v<P, Vec3f>,
                  "TrackMetrics::compute: points must be a View of Vec2f or Vec3f");
    return compute_impl(const_view<P>(points), count);
  }

  /// The results of the last compute() (allocated at construction).
  const result_type& result() const { return result_; }
  /// The results copied to host memory (fences the instance).
  MetricsResult<Kokkos::HostSpace> to_host() const;

  int num_envs() const { return num_envs_; }
  int stride() const { return stride_; }
  const MetricsParams& params() const { return params_; }
  const Space& space() const { return ctx_.space(); }

 private:
  template <class P>
  const result_type& compute_impl(const const_view<P>& points, const const_view<std::int32_t>& count);

  LaunchContext<Space> ctx_;
  int num_envs_;
  int stride_;
  MetricsParams params_;
  result_type result_;
};

}  // namespace trackgen
