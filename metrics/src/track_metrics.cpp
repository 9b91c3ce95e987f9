#include <trackgen/core/errors.hpp>
#include <trackgen/metrics/detail/polyline.hpp>
#include <trackgen/metrics/track_metrics.hpp>

#include <string>

namespace trackgen {
namespace detail::metrics {

KOKKOS_INLINE_FUNCTION constexpr double nan_d() { return __builtin_nan(""); }

/// The per-env metrics kernel: one team per env.
///  1. one thread copies the env's finite xy points (in order, up to
///     min(count, stride)) into r.points and broadcasts their number n;
///  2. the team's lanes write each vertex's edge length, turn angle and
///     curvature (pure functions of the points; NaN in the padding) and count,
///     per edge, the crossings with later non-adjacent edges (an integer
///     team reduction: exact in any order);
///  3. one thread accumulates every float sum in index order, in double.
/// Floating-point results thus never depend on team size or scheduling.
/// (A free function: nvcc refuses device lambdas in private member functions.)
template <class Space, class P>
void launch_track_metrics(const LaunchContext<Space>& ctx, const DView<const P, Space>& pts,
                          const DView<const std::int32_t, Space>& count, int num_envs, int stride,
                          const MetricsParams& prm, const MetricsResult<typename Space::memory_space>& r) {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  const auto num_points = r.num_points;
  const auto perimeter = r.perimeter;
  const auto area = r.area;
  const auto compactness = r.compactness;
  const auto mean_curvature = r.mean_curvature;
  const auto peak_curvature = r.peak_curvature;
  const auto chicanes = r.chicanes;
  const auto straight_fraction = r.straight_fraction;
  const auto crossings = r.crossings;
  const auto self_intersects = r.self_intersects;
  const auto lap_time = r.lap_time;
  const auto integral_kappa2 = r.integral_kappa2;
  const auto points = r.points;
  const auto seg = r.edge_length;
  const auto turn = r.turn_angle;
  const auto curv = r.curvature;
  const double a_lat = prm.a_lat, min_turn = prm.chicane_min_turn, straight_ratio = prm.straight_ratio;

  ctx.for_each_team(
      label("metrics", "compute"), num_envs, prm.team_size, KOKKOS_LAMBDA(const Member& team) {
        const int e = team.league_rank();
        const std::size_t base = static_cast<std::size_t>(e) * static_cast<std::size_t>(stride);

        // 1. finite points, in order
        int n = 0;
        Kokkos::single(
            Kokkos::PerTeam(team),
            [&](int& m) {
              const int c = kmath::clamp(static_cast<int>(count(e)), 0, stride);
              m = 0;
              for (int i = 0; i < c; ++i) {
                const P q = pts(base + i);
                const Vec2f v{q.x, q.y};
                if (is_finite(v)) points(base + m++) = v;
              }
            },
            n);
        team.team_barrier();
        const Vec2f* p = points.data() + base;

        // 2. per-vertex values (lanes), crossings (integer reduction)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, stride), [&](const int i) {
          if (i < n) {
            const double l_out = edge_length(p, n, i);
            const double l_in = edge_length(p, n, (i + n - 1) % n);
            const double t = turn_angle(p, n, i);
            seg(base + i) = l_out;
            turn(base + i) = t;
            curv(base + i) = vertex_curvature(t, l_out, l_in);
          } else {
            points(base + i) = nan2();
            seg(base + i) = nan_d();
            turn(base + i) = nan_d();
            curv(base + i) = nan_d();
          }
        });
        int x = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n), [&](const int i, int& c) { c += edge_crossings(p, n, i); }, x);
        team.team_barrier();

        // 3. sums in index order, one thread
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          double perim = 0.0, sum_k = 0.0, peak = 0.0, lap = 0.0, ik2 = 0.0;
          for (int i = 0; i < n; ++i) {
            const double l = seg(base + i), kv = curv(base + i);
            perim += l;
            sum_k += kv;
            peak = kmath::max(peak, kv);
            const double k = kmath::max(kv, 1e-6);
            const double v = kmath::sqrt(a_lat / k);
            lap += l / kmath::max(v, 1e-9);
            ik2 += k * k * l;
          }
          const double mean_k = n > 0 ? sum_k / n : 0.0;
          int straight = 0;
          for (int i = 0; i < n; ++i) {
            if (curv(base + i) < straight_ratio * mean_k) ++straight;
          }
          const double a = n > 0 ? 0.5 * kmath::fabs(geom::shoelace2(p, n)) : 0.0;
          num_points(e) = n;
          perimeter(e) = perim;
          area(e) = a;
          compactness(e) = detail::metrics::compactness(a, perim);
          mean_curvature(e) = mean_k;
          peak_curvature(e) = peak;
          chicanes(e) = chicane_count(turn.data() + base, n, min_turn);
          straight_fraction(e) = mean_k > 1e-9 ? static_cast<double>(straight) / n : 0.0;
          crossings(e) = x;
          self_intersects(e) = x > 0 ? 1 : 0;
          lap_time(e) = lap;
          integral_kappa2(e) = ik2;
        });
      });
}

template <class T, class Space>
DView<T, Space> metrics_view(const Space& space, const char* name, std::size_t n) {
  return DView<T, Space>(Kokkos::view_alloc(space, label("metrics", name)), n);
}

/// An independent host copy of `v`, copied on the instance `space` (not fenced).
template <class Space, class T, class M>
Kokkos::View<T*, Kokkos::HostSpace> host_copy(const Space& space, const Kokkos::View<T*, M>& v) {
  Kokkos::View<T*, Kokkos::HostSpace> h(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.extent(0));
  Kokkos::deep_copy(space, h, v);
  return h;
}

}  // namespace detail::metrics

template <class Space>
TrackMetrics<Space>::TrackMetrics(const Space& space, int num_envs, int stride, MetricsParams params)
    : ctx_(space), num_envs_(num_envs), stride_(stride), params_(params) {
  const std::string api = "trackgen::TrackMetrics";
  if (num_envs < 1) throw ConfigError(api + ": num_envs must be >= 1, got " + std::to_string(num_envs));
  if (stride < 1) throw ConfigError(api + ": stride must be >= 1, got " + std::to_string(stride));
  if (!(params.a_lat > 0.0)) throw ConfigError(api + ": params.a_lat must be > 0, got " + std::to_string(params.a_lat));
  if (!(params.chicane_min_turn >= 0.0)) {
    throw ConfigError(api + ": params.chicane_min_turn must be >= 0, got " + std::to_string(params.chicane_min_turn));
  }
  if (!(params.straight_ratio >= 0.0)) {
    throw ConfigError(api + ": params.straight_ratio must be >= 0, got " + std::to_string(params.straight_ratio));
  }
  if (params.team_size < 0) {
    throw ConfigError(api + ": params.team_size must be >= 0, got " + std::to_string(params.team_size));
  }
  const Space& s = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(num_envs), F = E * static_cast<std::size_t>(stride);
  using detail::metrics::metrics_view;
  result_.num_points = metrics_view<std::int32_t>(s, "num_points", E);
  result_.perimeter = metrics_view<double>(s, "perimeter", E);
  result_.area = metrics_view<double>(s, "area", E);
  result_.compactness = metrics_view<double>(s, "compactness", E);
  result_.mean_curvature = metrics_view<double>(s, "mean_curvature", E);
  result_.peak_curvature = metrics_view<double>(s, "peak_curvature", E);
  result_.chicanes = metrics_view<std::int32_t>(s, "chicanes", E);
  result_.straight_fraction = metrics_view<double>(s, "straight_fraction", E);
  result_.crossings = metrics_view<std::int32_t>(s, "crossings", E);
  result_.self_intersects = metrics_view<std::int32_t>(s, "self_intersects", E);
  result_.lap_time = metrics_view<double>(s, "lap_time", E);
  result_.integral_kappa2 = metrics_view<double>(s, "integral_kappa2", E);
  result_.points = metrics_view<Vec2f>(s, "points", F);
  result_.edge_length = metrics_view<double>(s, "edge_length", F);
  result_.turn_angle = metrics_view<double>(s, "turn_angle", F);
  result_.curvature = metrics_view<double>(s, "curvature", F);
  ctx_.fill(result_.points, nan2());
  ctx_.fill(result_.edge_length, detail::metrics::nan_d());
  ctx_.fill(result_.turn_angle, detail::metrics::nan_d());
  ctx_.fill(result_.curvature, detail::metrics::nan_d());
  ctx_.fence();
}

namespace {
template <class Space, class P>
void check_inputs(const TrackMetrics<Space>& m, const DView<const P, Space>& points,
                  const DView<const std::int32_t, Space>& count) {
  const std::size_t F = static_cast<std::size_t>(m.num_envs()) * static_cast<std::size_t>(m.stride());
  if (points.extent(0) != F) {
    throw ConfigError("trackgen::TrackMetrics::compute: points must hold num_envs * stride = " + std::to_string(F) +
                      " entries, got " + std::to_string(points.extent(0)));
  }
  if (count.extent(0) != static_cast<std::size_t>(m.num_envs())) {
    throw ConfigError("trackgen::TrackMetrics::compute: count must hold num_envs = " + std::to_string(m.num_envs()) +
                      " entries, got " + std::to_string(count.extent(0)));
  }
}
}  // namespace

template <class Space>
template <class P>
auto TrackMetrics<Space>::compute_impl(const const_view<P>& points, const const_view<std::int32_t>& count)
    -> const result_type& {
  check_inputs(*this, points, count);
  const auto region = ctx_.region("TrackGen::metrics::compute");
  detail::metrics::launch_track_metrics<Space, P>(ctx_, points, count, num_envs_, stride_, params_, result_);
  return result_;
}

template <class Space>
MetricsResult<Kokkos::HostSpace> TrackMetrics<Space>::to_host() const {
  const auto host_copy = [this](const auto& v) { return detail::metrics::host_copy(ctx_.space(), v); };
  MetricsResult<Kokkos::HostSpace> h;
  h.num_points = host_copy(result_.num_points);
  h.perimeter = host_copy(result_.perimeter);
  h.area = host_copy(result_.area);
  h.compactness = host_copy(result_.compactness);
  h.mean_curvature = host_copy(result_.mean_curvature);
  h.peak_curvature = host_copy(result_.peak_curvature);
  h.chicanes = host_copy(result_.chicanes);
  h.straight_fraction = host_copy(result_.straight_fraction);
  h.crossings = host_copy(result_.crossings);
  h.self_intersects = host_copy(result_.self_intersects);
  h.lap_time = host_copy(result_.lap_time);
  h.integral_kappa2 = host_copy(result_.integral_kappa2);
  h.points = host_copy(result_.points);
  h.edge_length = host_copy(result_.edge_length);
  h.turn_angle = host_copy(result_.turn_angle);
  h.curvature = host_copy(result_.curvature);
  ctx_.fence();
  return h;
}

#define TRACKGEN_INSTANTIATE_METRICS(S)                                                                     \
  template class TrackMetrics<S>;                                                                           \
  template auto TrackMetrics<S>::compute_impl(const const_view<Vec2f>&, const const_view<std::int32_t>&)    \
      -> const result_type&;                                                                                \
  template auto TrackMetrics<S>::compute_impl(const const_view<Vec3f>&, const const_view<std::int32_t>&)    \
      -> const result_type&;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_METRICS)
#undef TRACKGEN_INSTANTIATE_METRICS

}  // namespace trackgen
