// TrackLocalizer (cold and warm, teleports, NaN), curvature and speed profile:
// circles and squares with hand-computed values; the cold search against a
// plain scan on generated tracks.
#include "runtime_support.hpp"

#include <trackgen/pipeline/track_generator.hpp>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr int kStride = 70;

template <class Space>
Track<typename Space::memory_space> circle_and_stub() {
  return tt::band_track<Space>({{tt::circle_loop(1.0, 64)}, {{{0, 0, 0}, {1, 0, 0}}}}, kStride);
}

std::vector<Vec3f> at_angle(double theta, double r) {
  return {{static_cast<float>(r * std::cos(theta)), static_cast<float>(r * std::sin(theta)), 0.0f}, {0.5f, 0, 0}};
}

template <class Space>
struct HostFrame {
  std::vector<float> s, n, n_up;
  std::vector<int> segment;
  explicit HostFrame(const TrackFrame<Space>& f)
      : s(tt::to_vector(f.s)), n(tt::to_vector(f.n)), n_up(tt::to_vector(f.n_up)), segment(tt::to_vector(f.segment)) {}
};

}  // namespace

TEMPLATE_TEST_CASE("TrackLocalizer: frames on a circle, warm agrees with cold, teleports relock",
                   "[runtime][localizer]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = circle_and_stub<Space>();
  TrackLocalizer<Space> cold(Space(), track);
  TrackLocalizer<Space> warm(Space(), track, 3);
  const float length = tt::to_vector(track.length)[0];

  // Outside the circle at angle 0: the vertex (1, 0), offset 0.1 to the right of
  // (counter-clockwise) travel, arc length 0.
  const HostFrame<Space> f0(cold.query(tt::to_device<Space>(at_angle(0.0, 1.1), "p")));
  CHECK(f0.segment[0] == 0);
  CHECK(f0.s[0] == 0.0f);
  CHECK(f0.n[0] == Approx(0.1f).epsilon(2e-3));
  CHECK(f0.n_up[0] == 0.0f);
  CHECK(f0.segment[1] == -1);  // fewer than 3 points
  CHECK(std::isnan(f0.s[1]));

  // A smooth drive over most of a lap and across the seam: warm == cold bitwise.
  for (int t = 0; t < 520; ++t) {
    INFO("step " << t);
    const auto p = tt::to_device<Space>(at_angle(0.013 * t - 0.3, 1.0 + 0.05 * std::sin(0.1 * t)), "p");
    const HostFrame<Space> a(cold.query(p)), b(warm.query(p));
    REQUIRE(b.segment[0] == a.segment[0]);
    CHECK(tt::bitwise_equal(a.s, b.s));
    CHECK(tt::bitwise_equal(a.n, b.n));
    CHECK(a.s[0] >= 0.0f);
    CHECK(a.s[0] < length);
  }
  CHECK(tt::to_vector(warm.last_segment())[0] >= 0);

  // A teleport across the circle: the window's best lies on its edge, so the
  // warm localizer searches the whole ring.
  for (const double theta : {3.0, -1.2}) {
    INFO("teleport to angle " << theta);
    const auto p = tt::to_device<Space>(at_angle(theta, 1.0), "p");
    const HostFrame<Space> a(cold.query(p)), b(warm.query(p));
    CHECK(b.segment[0] == a.segment[0]);
    CHECK(tt::bitwise_equal(a.s, b.s));
  }

  // NaN positions forget the warm state; reset(mask) does too.
  std::vector<Vec3f> nan_p{nan3(), {0.5f, 0, 0}};
  const HostFrame<Space> fn(warm.query(tt::to_device<Space>(nan_p, "p")));
  CHECK(fn.segment[0] == -1);
  CHECK(std::isnan(fn.n[0]));
  CHECK(tt::to_vector(warm.last_segment())[0] == -1);
  warm.query(tt::to_device<Space>(at_angle(1.0, 1.0), "p"));
  CHECK(tt::to_vector(warm.last_segment())[0] >= 0);
  warm.reset(LaunchContext<Space>(), tt::to_device<Space>(std::vector<std::int32_t>{1, 0}, "mask"));
  CHECK(tt::to_vector(warm.last_segment())[0] == -1);
}

TEMPLATE_TEST_CASE("TrackLocalizer: the cold search finds the segment of a plain scan on generated tracks",
                   "[runtime][localizer]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Lifted tracks (random knot heights), points near and far from them, above
  // and below: the chunk bounds of the ring search must never drop the nearest.
  TrackGenConfig cfg;
  cfg.num_envs = 8;
  cfg.z_profile = ZProfile::uniform;
  cfg.z_min = -0.5f;
  cfg.z_max = 0.5f;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 3));
  const auto& track = gen.generate();
  const auto h = track.to_host();
  constexpr int kPoints = 300;
  tt::Lcg rng{99u};
  std::vector<Vec3f> points;
  for (int e = 0; e < cfg.num_envs; ++e) {
    for (int k = 0; k < kPoints; ++k) {
      // Near a random centerline point (within a few half widths), or anywhere up to 1.5 away.
      const Vec3f c = h.center(std::size_t(e) * cfg.N_max + (k * 37) % h.count(e));
      const float r = k % 3 == 0 ? 1.5f : 3.0f * cfg.half_width;
      points.push_back(
          {c.x + r * (2 * rng.uniformf() - 1), c.y + r * (2 * rng.uniformf() - 1), c.z + r * (2 * rng.uniformf() - 1)});
    }
  }
  // One box per env slot: kPoints queries of one localizer, one point per env each.
  TrackLocalizer<Space> cold(Space(), track);
  for (int k = 0; k < kPoints; ++k) {
    std::vector<Vec3f> p(cfg.num_envs);
    for (int e = 0; e < cfg.num_envs; ++e) p[e] = points[std::size_t(e) * kPoints + k];
    const HostFrame<Space> f(cold.query(tt::to_device<Space>(p, "position")));
    for (int e = 0; e < cfg.num_envs; ++e) {
      const int m = h.count(e);
      const Vec3f* c = h.center.data() + std::size_t(e) * cfg.N_max;
      float best = 3e38f, best_u = 0;
      int seg = -1;
      for (int i = 0; i < m; ++i) {
        const Vec3f a = c[i], b = c[i + 1 < m ? i + 1 : 0];
        const float u = geom::segment_param(p[e], a, b);
        const Vec3f d = p[e] - geom::lerp(a, b, u);
        if (dot(d, d) < best) best = dot(d, d), seg = i, best_u = u;
      }
      INFO("env " << e << " point " << k);
      REQUIRE(f.segment[e] == seg);
      const float* arc = h.arclen.data() + std::size_t(e) * cfg.N_max;
      const float end = seg + 1 < m ? arc[seg + 1] : h.length(e);
      float want_s = arc[seg] + best_u * (end - arc[seg]);
      if (want_s >= h.length(e)) want_s -= h.length(e);
      REQUIRE(std::fabs(f.s[e] - want_s) <= 1e-5f * (1.0f + h.length(e)));
    }
  }
}

TEMPLATE_TEST_CASE("TrackLocalizer: a teleport to the other branch of a pinch relocks beyond the relock distance",
                   "[runtime][localizer]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // A 4 x 0.6 rectangle: its long sides are two branches 0.6 apart.
  auto rect = tt::square_loop(2.0f, 8);
  for (auto& p : rect) p.y *= 0.15f;
  const auto track = tt::band_track<Space>({{rect}}, 40);
  TrackLocalizer<Space> cold(Space(), track), locked(Space(), track, 3), relocking(Space(), track, 3, 0.5f);
  const auto top = tt::to_device<Space>(std::vector<Vec3f>{{0.1f, 0.3f, 0}}, "top");
  const auto bottom = tt::to_device<Space>(std::vector<Vec3f>{{0.1f, -0.3f, 0}}, "bottom");
  locked.query(top);
  relocking.query(top);
  const int want = HostFrame<Space>(cold.query(bottom)).segment[0];
  // Without a relock distance the window's interior best (0.6 away, on the top
  // branch) is kept; with one the whole ring is searched.
  CHECK(HostFrame<Space>(locked.query(bottom)).segment[0] != want);
  CHECK(HostFrame<Space>(relocking.query(bottom)).segment[0] == want);
}

TEMPLATE_TEST_CASE("curvature and speed profile: a circle and a square by hand", "[runtime][localizer]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = tt::band_track<Space>({{tt::circle_loop(2.0, 64)}, {tt::square_loop(1.0f, 4)}}, kStride);
  const auto kappa = tt::to_vector(curvature(Space(), track, 2));
  const double turn = 2.0 * 3.14159265358979323846 / 64, chord = 2.0 * 2.0 * std::sin(turn / 2);
  for (int i = 0; i < 64; ++i) CHECK(kappa[i] == Approx(turn / chord).epsilon(1e-4));  // ~1/R, CCW positive
  CHECK(std::isnan(kappa[64]));

  // The square, unsmoothed: pi at the corners (a quarter turn over 0.5), 0 elsewhere.
  const auto raw = tt::to_vector(curvature(Space(), track, 0));
  CHECK(raw[kStride + 0] == Approx(geom::pi_f));
  CHECK(raw[kStride + 1] == 0.0f);
  CHECK(raw[kStride + 4] == Approx(geom::pi_f));
  // Smoothed over 5 points: a corner's quarter turn spread over the window.
  CHECK(kappa[kStride + 0] == Approx(geom::pi_f / 5));
  CHECK(kappa[kStride + 1] == Approx(geom::pi_f / 5));
  CHECK(kappa[kStride + 2] == Approx(2 * geom::pi_f / 5));  // both corners 0 and 4 in its window

  const SpeedLimits limits{1.0f, 1.0f, 2.0f, 10.0f};
  DView<float, Space> kappa0 = curvature(Space(), track, 0), v("v", kappa0.extent(0));
  compute_speed_profile(LaunchContext<Space>(), track, limits, kappa0, v);
  const auto speed = tt::to_vector(v);
  const double corner = 1.0 / std::sqrt(geom::pi_d);  // sqrt(a_lat / pi)
  // Accelerating out of a corner at 1 over 0.5 per point, braking at 2 into the next.
  CHECK(speed[kStride + 0] == Approx(corner));
  CHECK(speed[kStride + 1] == Approx(std::sqrt(corner * corner + 1.0)));
  CHECK(speed[kStride + 2] == Approx(std::sqrt(corner * corner + 2.0)));
  CHECK(speed[kStride + 3] == Approx(std::sqrt(corner * corner + 2.0)));  // braking for the corner at 4
  CHECK(speed[kStride + 4] == Approx(corner));
  const auto circle_v = tt::to_vector(speed_profile(Space(), track, SpeedLimits{1.0f, 1.0f, 2.0f, 2.0f}));
  CHECK(circle_v[10] == Approx(std::sqrt(chord / turn)).epsilon(1e-4));  // sqrt(a_lat R) < v_cap
  CHECK(std::isnan(circle_v[64]));
}

TEMPLATE_TEST_CASE("TrackLocalizer, curvature, speed profile: bad input throws before any device work",
                   "[runtime][localizer]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = circle_and_stub<Space>();
  const auto k3 = DView<float, Space>("k", 3), v = DView<float, Space>("v", 2 * kStride);
  const auto p3 = DView<Vec3f, Space>("p", 3);
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(TrackLocalizer<Space>(Space(), track, 0), Catch::Contains("warm_window must be >= 1"));
  CHECK_THROWS_WITH(TrackLocalizer<Space>(Space(), track, std::nullopt, 1.0f),
                    Catch::Contains("relock_distance must be unset for a cold localizer"));
  CHECK_THROWS_WITH(TrackLocalizer<Space>(Space(), track, 2, -1.0f), Catch::Contains("relock_distance must be finite"));
  CHECK_THROWS_WITH(TrackLocalizer<Space>(Space(), Track<typename Space::memory_space>()),
                    Catch::Contains("track must be an allocated Track"));
  CHECK_THROWS_WITH(curvature(Space(), track, -1), Catch::Contains("window must be >= 0, got -1"));
  CHECK_THROWS_WITH(speed_profile(Space(), track, SpeedLimits{0.0f, 1.0f, 1.0f, 1.0f}),
                    Catch::Contains("trackgen::speed_profile: SpeedLimits.a_lat_max: 0 is invalid; must be > 0"));
  CHECK_THROWS_WITH(compute_speed_profile(LaunchContext<Space>(), track, SpeedLimits{}, k3, v),
                    Catch::Contains("kappa must be a View of extent E*N_max = 140, got 3"));
  CHECK(tt::LaunchCounter::launches == 0);
  TrackLocalizer<Space> loc(Space(), track);
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(loc.query(), Catch::Contains("no inputs bound"));
  CHECK_THROWS_WITH(loc.query(p3), Catch::Contains("position must be a View of extent E = 2"));
  CHECK_THROWS_WITH(loc.bind(p3), Catch::Contains("position must be a View of extent E = 2, got 3"));
  CHECK_THROWS_WITH(loc.query(), Catch::Contains("no inputs bound"));  // the failed bind bound nothing
  CHECK(tt::LaunchCounter::launches == 0);
}
