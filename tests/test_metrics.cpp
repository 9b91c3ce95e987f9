// Track-quality metrics (docs/algorithms.md#metrics) on analytic shapes, padding
// and non-finite handling, and determinism across backends and team sizes.
#include "metrics_support.hpp"
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/metrics/detail/polyline.hpp>
#include <trackgen/metrics/metrics.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

using trackgen::BatchMetrics;
using trackgen::BatchStats;
using trackgen::MetricsParams;
using trackgen::MetricsResult;
using trackgen::Track;
using trackgen::TrackMetrics;
using trackgen::Vec2f;
using trackgen::Vec3f;
using HostResult = MetricsResult<Kokkos::HostSpace>;

// The backend every other one must match bitwise.
#if defined(KOKKOS_ENABLE_SERIAL)
using ReferenceSpace = Kokkos::Serial;
#else
using ReferenceSpace = Kokkos::DefaultHostExecutionSpace;
#endif
using namespace trackgen::test::metrics;  // Loop, circle, square, make_batch, ...

constexpr double pi = trackgen::geom::pi_d;


// ---------------------------------------------------------------------------
// Named launchers (device work only through the library)

template <class Space>
HostResult compute_metrics(const HostBatch& b, MetricsParams params = {}) {
  const auto pts = trackgen::test::to_device<Space>(b.points, "test_points");
  const auto cnt = trackgen::test::to_device<Space>(b.count, "test_count");
  TrackMetrics<Space> m(b.num_envs(), b.stride, params);
  m.compute(pts, cnt);
  return m.to_host();
}

template <class Space>
HostResult compute_metrics_vec3(const HostBatch& b, float z) {
  std::vector<Vec3f> p3;
  for (const Vec2f p : b.points) p3.push_back({p.x, p.y, z});
  const auto pts = trackgen::test::to_device<Space>(p3, "test_points3");
  const auto cnt = trackgen::test::to_device<Space>(b.count, "test_count");
  TrackMetrics<Space> m(b.num_envs(), b.stride);
  m.compute(pts, cnt);
  return m.to_host();
}

struct TeamSizeProbe {
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member&) const {}
};

template <class Space>
int max_team_size() {
  return Kokkos::TeamPolicy<Space>(Space(), 1, 1).team_size_max(TeamSizeProbe{}, Kokkos::ParallelForTag{});
}

template <class V>
std::vector<typename V::non_const_value_type> vec(const V& v) {
  return std::vector<typename V::non_const_value_type>(v.data(), v.data() + v.extent(0));
}

/// Every field of two results, bitwise.
bool bitwise_equal(const HostResult& a, const HostResult& b) {
  using trackgen::test::bitwise_equal;
  return bitwise_equal(vec(a.num_points), vec(b.num_points)) && bitwise_equal(vec(a.perimeter), vec(b.perimeter)) &&
         bitwise_equal(vec(a.area), vec(b.area)) && bitwise_equal(vec(a.compactness), vec(b.compactness)) &&
         bitwise_equal(vec(a.mean_curvature), vec(b.mean_curvature)) &&
         bitwise_equal(vec(a.peak_curvature), vec(b.peak_curvature)) &&
         bitwise_equal(vec(a.chicanes), vec(b.chicanes)) &&
         bitwise_equal(vec(a.straight_fraction), vec(b.straight_fraction)) &&
         bitwise_equal(vec(a.crossings), vec(b.crossings)) &&
         bitwise_equal(vec(a.self_intersects), vec(b.self_intersects)) &&
         bitwise_equal(vec(a.lap_time), vec(b.lap_time)) &&
         bitwise_equal(vec(a.integral_kappa2), vec(b.integral_kappa2)) && bitwise_equal(vec(a.points), vec(b.points)) &&
         bitwise_equal(vec(a.edge_length), vec(b.edge_length)) && bitwise_equal(vec(a.turn_angle), vec(b.turn_angle)) &&
         bitwise_equal(vec(a.curvature), vec(b.curvature));
}

/// The per-env scalars of env `e` of `a` equal those of env `f` of `b`, bitwise.
bool same_env(const HostResult& a, int e, const HostResult& b, int f) {
  const auto eq = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.num_points(e) == b.num_points(f) && eq(a.perimeter(e), b.perimeter(f)) && eq(a.area(e), b.area(f)) &&
         eq(a.compactness(e), b.compactness(f)) && eq(a.mean_curvature(e), b.mean_curvature(f)) &&
         eq(a.peak_curvature(e), b.peak_curvature(f)) && a.chicanes(e) == b.chicanes(f) &&
         eq(a.straight_fraction(e), b.straight_fraction(f)) && a.crossings(e) == b.crossings(f) &&
         a.self_intersects(e) == b.self_intersects(f) && eq(a.lap_time(e), b.lap_time(f)) &&
         eq(a.integral_kappa2(e), b.integral_kappa2(f));
}

/// A deterministic batch of random smooth polar loops of various sizes, some
/// folded enough to self-intersect.
std::vector<Loop> random_loops(int num, int max_n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Loop> loops;
  for (int e = 0; e < num; ++e) {
    const int n = 4 + static_cast<int>(u(rng) * (max_n - 4));
    double a[5], ph[5];
    for (int k = 0; k < 5; ++k) {
      a[k] = (e % 4 == 3 ? 0.6 : 0.15) * u(rng);
      ph[k] = 2 * pi * u(rng);
    }
    Loop p;
    for (int i = 0; i < n; ++i) {
      const double t = 2 * pi * i / n;
      double r = 1.0;
      for (int k = 0; k < 5; ++k) r += a[k] * std::sin((k + 2) * t + ph[k]);
      p.push_back({float(r * std::cos(t)), float(r * std::sin(t))});
    }
    loops.push_back(p);
  }
  return loops;
}


}  // namespace

// ---------------------------------------------------------------------------
// Device building blocks on the host

TEST_CASE("metrics: wrap_pi maps every angle into -pi <= a < pi", "[metrics]") {
  using trackgen::detail::metrics::wrap_pi;
  CHECK(wrap_pi(0.0) == 0.0);
  CHECK(wrap_pi(pi) == Approx(-pi));
  CHECK(wrap_pi(-pi) == Approx(-pi));
  CHECK(wrap_pi(3 * pi / 2) == Approx(-pi / 2));
  CHECK(wrap_pi(-3 * pi / 2) == Approx(pi / 2));
  CHECK(wrap_pi(0.25 + 4 * pi) == Approx(0.25));
  for (double a = -20.0; a < 20.0; a += 0.01) {
    const double w = wrap_pi(a);
    CHECK((w >= -pi && w < pi));
  }
}

TEST_CASE("metrics: chicane_count drops small turns and counts sign changes", "[metrics]") {
  using trackgen::detail::metrics::chicane_count;
  const std::vector<double> t{0.1, 0.01, -0.02, 0.2, -0.3, -0.06, 0.049, 0.07, 0.0};
  // kept: 0.1, 0.2, -0.3, -0.06, 0.07 -> signs + + - - + -> 2 changes
  CHECK(chicane_count(t.data(), static_cast<int>(t.size()), 0.05) == 2);
  CHECK(chicane_count(t.data(), 0, 0.05) == 0);
  // non-cyclic: a last turn whose sign differs from the first adds nothing more
  const std::vector<double> u{0.1, 0.1, -0.1};
  CHECK(chicane_count(u.data(), 3, 0.05) == 1);
}

TEST_CASE("metrics: percentile interpolates linearly like numpy", "[metrics]") {
  using trackgen::percentile;
  CHECK(percentile({4.0, 1.0, 3.0, 2.0}, 10.0) == Approx(1.3));
  CHECK(percentile({4.0, 1.0, 3.0, 2.0}, 50.0) == Approx(2.5));
  CHECK(percentile({4.0, 1.0, 3.0, 2.0}, 90.0) == Approx(3.7));
  CHECK(percentile({7.0}, 90.0) == 7.0);
  CHECK(percentile({}, 50.0) == 0.0);
}

// ---------------------------------------------------------------------------
// Analytic shapes

TEMPLATE_TEST_CASE("metrics: circles", "[metrics]", TRACKGEN_TEST_SPACES) {
  const double r_dense = 2.0, r_coarse = 1.5;
  const int n_dense = 256, n_coarse = 64, stride = 300;
  const auto h = compute_metrics<TestType>(
      make_batch({circle(n_dense, r_dense), circle(n_coarse, r_coarse, /*cw=*/true, 0.3, 5.0, -2.0)}, stride));

  for (int e = 0; e < 2; ++e) {
    const double r = e == 0 ? r_dense : r_coarse;
    const int n = e == 0 ? n_dense : n_coarse;
    INFO("env " << e);
    CHECK(h.num_points(e) == n);
    CHECK(h.compactness(e) == Approx(1.0).margin(1e-3));
    CHECK(h.perimeter(e) == Approx(2 * pi * r).epsilon(2e-3));
    CHECK(h.area(e) == Approx(pi * r * r).epsilon(2e-3));
    CHECK(h.chicanes(e) == 0);
    CHECK(h.crossings(e) == 0);
    CHECK(h.self_intersects(e) == 0);
    CHECK(h.mean_curvature(e) == Approx(1.0 / r).epsilon(1e-3));
    CHECK(h.peak_curvature(e) == Approx(1.0 / r).epsilon(1e-2));
    CHECK(h.straight_fraction(e) == 0.0);
    CHECK(h.lap_time(e) == Approx(2 * pi * std::sqrt(r)).epsilon(2e-3));
    CHECK(h.integral_kappa2(e) == Approx(2 * pi / r).epsilon(2e-3));
    double turning = 0.0;
    for (int i = 0; i < n; ++i) {
      const std::size_t k = std::size_t(e) * stride + i;
      CHECK(h.curvature(k) == Approx(1.0 / r).epsilon(1e-2));
      CHECK(h.turn_angle(k) == Approx((e == 0 ? 1.0 : -1.0) * 2 * pi / n).epsilon(1e-2));
      turning += h.turn_angle(k);
    }
    CHECK(turning == Approx(e == 0 ? 2 * pi : -2 * pi).epsilon(1e-4));
    for (int i = n; i < stride; ++i) {
      const std::size_t k = std::size_t(e) * stride + i;
      CHECK(std::isnan(h.curvature(k)));
      CHECK(std::isnan(h.turn_angle(k)));
      CHECK(std::isnan(h.edge_length(k)));
      CHECK(std::isnan(h.points(k).x));
    }
  }
}

TEMPLATE_TEST_CASE("metrics: densely sampled square", "[metrics]", TRACKGEN_TEST_SPACES) {
  const int per_edge = 50;
  const double side = 2.0, l = side / per_edge;
  const auto h = compute_metrics<TestType>(make_batch({square(side, per_edge)}, 4 * per_edge));
  CHECK(h.compactness(0) == Approx(pi / 4).epsilon(1e-5));
  CHECK(h.perimeter(0) == Approx(4 * side).epsilon(1e-5));
  CHECK(h.area(0) == Approx(side * side).epsilon(1e-5));
  CHECK(h.straight_fraction(0) > 0.5);
  CHECK(h.straight_fraction(0) == Approx(196.0 / 200.0));
  CHECK(h.chicanes(0) == 0);
  CHECK(h.self_intersects(0) == 0);
  CHECK(h.peak_curvature(0) == Approx((pi / 2) / l).epsilon(1e-4));
  int corners = 0;
  for (int i = 0; i < 4 * per_edge; ++i) corners += std::fabs(h.turn_angle(i)) > 1.0 ? 1 : 0;
  CHECK(corners == 4);
}

TEMPLATE_TEST_CASE("metrics: figure eight self-intersects, circle and square do not", "[metrics]",
                   TRACKGEN_TEST_SPACES) {
  const auto h = compute_metrics<TestType>(
      make_batch({figure_eight(200), figure_eight(30), circle(200, 1.0), square(1.0, 50)}, 200));
  CHECK(h.self_intersects(0) == 1);
  CHECK(h.crossings(0) == 1);
  CHECK(h.self_intersects(1) == 1);
  CHECK(h.crossings(1) == 1);
  CHECK(h.self_intersects(2) == 0);
  CHECK(h.self_intersects(3) == 0);
  // the two lobes turn opposite ways: total turning ~ 0
  double turning = 0.0;
  for (int i = 0; i < 200; ++i) turning += h.turn_angle(i);
  CHECK(turning == Approx(0.0).margin(1e-4));
}

TEMPLATE_TEST_CASE("metrics: a vertex touching a non-adjacent edge counts as a crossing", "[metrics]",
                   TRACKGEN_TEST_SPACES) {
  // The original system's tolerance-free sign predicate, (d1 > 0) != (d2 > 0) and
  // (d3 > 0) != (d4 > 0), has no zero check: vertex (1, 0) lies exactly on the
  // bottom edge (0, 0)-(2, 0); both edges at that vertex count. Shifted up by
  // 1/4 the vertex clears the edge and nothing crosses.
  const Loop touching{{0.0f, 0.0f}, {2.0f, 0.0f}, {2.0f, 2.0f}, {1.0f, 1.0f}, {1.0f, 0.0f}, {0.5f, 1.0f}, {0.0f, 2.0f}};
  Loop clear = touching;
  clear[4].y = 0.25f;
  const auto h = compute_metrics<TestType>(make_batch({touching, clear}, 8));
  CHECK(h.crossings(0) == 2);
  CHECK(h.self_intersects(0) == 1);
  CHECK(h.crossings(1) == 0);
  CHECK(h.self_intersects(1) == 0);
}

TEMPLATE_TEST_CASE("metrics: a sine-wiggle loop has chicanes", "[metrics]", TRACKGEN_TEST_SPACES) {
  // r = 1 + 0.15 sin(8 theta): 8 outward and 8 inward bends, 16 sign changes
  // of the turn sequence (non-cyclic: 15 or 16 depending on where it starts).
  const auto h = compute_metrics<TestType>(make_batch({wiggle(400, 1.0, 0.15, 8), wiggle(400, 1.0, 0.002, 8)}, 400));
  CHECK(h.chicanes(0) > 0);
  CHECK(h.chicanes(0) >= 15);
  CHECK(h.chicanes(0) <= 16);
  CHECK(h.self_intersects(0) == 0);
  CHECK(h.compactness(0) < 1.0);
  // an almost-circle keeps turning one way
  CHECK(h.chicanes(1) == 0);
}

// ---------------------------------------------------------------------------
// Padding, non-finite points, input types

TEMPLATE_TEST_CASE("metrics: padding, non-finite points and Vec3f input", "[metrics]", TRACKGEN_TEST_SPACES) {
  const Loop w = wiggle(90, 1.3, 0.12, 5);
  Loop with_nan = w;
  with_nan.insert(with_nan.begin() + 17, trackgen::nan2());
  with_nan.insert(with_nan.begin() + 40, Vec2f{1.0f, trackgen::nanf()});
  const Loop empty;

  // tight stride, no padding
  const auto tight = compute_metrics<TestType>(make_batch({w}, 90));
  // wide stride with finite garbage in the padding (must be ignored), a NaN-holed
  // copy, an empty env
  const auto wide = compute_metrics<TestType>(make_batch({w, with_nan, empty}, 128, Vec2f{100.0f, -50.0f}));
  CHECK(same_env(wide, 0, tight, 0));
  CHECK(wide.num_points(1) == 90);
  CHECK(same_env(wide, 1, tight, 0));
  for (int i = 0; i < 90; ++i) {
    CHECK(std::memcmp(&wide.curvature(128 + i), &tight.curvature(i), sizeof(double)) == 0);
  }
  CHECK(wide.num_points(2) == 0);
  CHECK(wide.perimeter(2) == 0.0);
  CHECK(wide.compactness(2) == 0.0);
  CHECK(wide.chicanes(2) == 0);
  CHECK(wide.self_intersects(2) == 0);
  CHECK(wide.lap_time(2) == 0.0);
  for (int i = 0; i < 128; ++i) CHECK(std::isnan(wide.curvature(2 * 128 + i)));

  // a count beyond the stride is clamped to it
  HostBatch over = make_batch({w}, 90);
  over.count[0] = 1000;
  CHECK(same_env(compute_metrics<TestType>(over), 0, tight, 0));

  // Vec3f input: only xy is read
  CHECK(bitwise_equal(compute_metrics_vec3<TestType>(make_batch({w, with_nan, empty}, 128), 0.7f),
                      compute_metrics<TestType>(make_batch({w, with_nan, empty}, 128))));
}

TEMPLATE_TEST_CASE("metrics: wrong extents and bad parameters throw", "[metrics]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackMetrics<Space> m(4, 16);
  trackgen::DView<Vec2f, Space> pts("pts", 4 * 15);
  trackgen::DView<int, Space> cnt("cnt", 4);
  CHECK_THROWS_AS(m.compute(pts, cnt), trackgen::ConfigError);
  trackgen::DView<Vec2f, Space> pts_ok("pts", 4 * 16);
  trackgen::DView<int, Space> cnt_bad("cnt", 3);
  CHECK_THROWS_AS(m.compute(pts_ok, cnt_bad), trackgen::ConfigError);
  CHECK_THROWS_AS(TrackMetrics<Space>(0, 16), trackgen::ConfigError);
  CHECK_THROWS_AS(TrackMetrics<Space>(4, 0), trackgen::ConfigError);
  MetricsParams p;
  p.a_lat = 0.0;
  CHECK_THROWS_AS(TrackMetrics<Space>(4, 16, p), trackgen::ConfigError);
  CHECK(m.result().perimeter.label() == "TrackGen::metrics::perimeter");
  CHECK(m.result().curvature.label() == "TrackGen::metrics::curvature");
}

// ---------------------------------------------------------------------------
// Determinism

TEMPLATE_TEST_CASE("metrics: bitwise identical across backends and team sizes", "[metrics]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const HostBatch b = make_batch(random_loops(96, 300, 12345u), 300);
  const auto ref = compute_metrics<ReferenceSpace>(b);
  int crossing_envs = 0;
  for (int e = 0; e < b.num_envs(); ++e) crossing_envs += ref.self_intersects(e);
  CHECK(crossing_envs > 0);  // the batch exercises the crossing count
  CHECK(crossing_envs < b.num_envs());

  std::vector<int> sizes{0, 1};
  if (max_team_size<Space>() > 1) sizes.push_back(max_team_size<Space>());
  for (int ts : sizes) {
    INFO("team size " << ts << " on " << Space::name());
    MetricsParams p;
    p.team_size = ts;
    CHECK(bitwise_equal(compute_metrics<Space>(b, p), ref));
  }
  // repeated compute() on one object gives the same result
  const auto pts = trackgen::test::to_device<Space>(b.points);
  const auto cnt = trackgen::test::to_device<Space>(b.count);
  TrackMetrics<Space> m(b.num_envs(), b.stride);
  m.compute(pts, cnt);
  const auto first = m.to_host();
  m.compute(pts, cnt);
  CHECK(bitwise_equal(m.to_host(), first));
}
