// PropSampler (points and segments, truncation) and HeightFieldBaker on square
// tracks, by hand; bad input.
#include "runtime_support.hpp"

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr int kStride = 20;

/// Env 0: the square of half size 1 with borders at 0.75 and 1.25 (outer
/// perimeter 10, inner 6), z = 0.1 x; env 1: the same, invalid; env 2: 2 points.
template <class Space>
Track<typename Space::memory_space> tilted_squares() {
  auto sq = tt::square_loop(1.0f, 4);
  for (auto& p : sq) p.z = 0.1f * p.x;
  return tt::band_track<Space>({{sq, 0.75f, 1.25f}, {sq, 0.75f, 1.25f, 0}, {{{0, 0, 0}, {1, 0, 0}}}}, kStride);
}

}  // namespace

TEMPLATE_TEST_CASE("PropSampler: points and chords along a border, counts, truncation", "[runtime][props]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Flat borders, so 3D arc lengths are the plan-view ones.
  const auto track =
      tt::band_track<Space>({{tt::square_loop(1.0f, 4), 0.75f, 1.25f}, {{{0, 0, 0}, {1, 0, 0}}}}, kStride);
  PropSampler<Space> points(Space(), track, 1.0f);
  CHECK(points.capacity() == 16);  // ceil(1.25 * 20 points * (10 / 16) per point / 1)
  const auto& p = points.props();
  CHECK(tt::to_vector(p.count) == std::vector<std::int32_t>{10, 0});
  CHECK(tt::to_vector(p.step)[0] == 1.0f);
  CHECK(std::isnan(tt::to_vector(p.step)[1]));
  const auto pos = tt::to_vector(p.position), tan = tt::to_vector(p.tangent);
  const auto yaw = tt::to_vector(p.yaw), len = tt::to_vector(p.length);
  CHECK(pos[1].x == 1.25f);  // arc 1 from (1.25, -1.25), up the right side
  CHECK(pos[1].y == Approx(-0.25f));
  CHECK(tan[1].y == 1.0f);
  CHECK(yaw[1] == Approx(geom::pi_f / 2));
  CHECK(len[1] == 1.0f);
  CHECK(pos[3].x == Approx(0.75f));  // arc 3: half a unit along the top side
  CHECK(pos[3].y == 1.25f);
  CHECK(yaw[3] == Approx(geom::pi_f));
  CHECK(std::isnan(pos[10].x));

  PropSampler<Space> chords(Space(), track, 1.0f, PropBoundary::outer, PropMode::segments);
  const auto cp = tt::to_vector(chords.props().position), cl = tt::to_vector(chords.props().length);
  const auto cy = tt::to_vector(chords.props().yaw);
  CHECK(cp[2].x == Approx(1.0f));  // the chord from (1.25, 0.75) to (0.75, 1.25) across the corner
  CHECK(cp[2].y == Approx(1.0f));
  CHECK(cl[2] == Approx(std::sqrt(0.5f)));
  CHECK(cy[2] == Approx(3 * geom::pi_f / 4));
  CHECK(cp[9].x == Approx(0.75f));  // the last chord closes to arc 0
  CHECK(cp[9].y == -1.25f);
  CHECK(cl[9] == Approx(1.0f));

  PropSampler<Space> inner(Space(), track, 1.0f, PropBoundary::inner, PropMode::points, 4);
  CHECK(tt::to_vector(inner.props().count)[0] == 4);  // 6 wanted, capacity 4
  CHECK(tt::to_vector(inner.props().truncated)[0] == 1);
  CHECK(tt::to_vector(inner.props().step)[0] == 1.5f);
  CHECK(tt::bitwise_equal(tt::to_vector(inner.props().clone().yaw), tt::to_vector(inner.props().yaw)));
}

TEMPLATE_TEST_CASE("HeightFieldBaker: the centerline's height continued sideways", "[runtime][heightfield]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = tilted_squares<Space>();
  HeightFieldBaker<Space> baker(Space(), track, GridOptions{8, 0.45f});
  const auto& f = baker.heightfield();
  const auto lo = tt::to_vector(f.lo), hi = tt::to_vector(f.hi);
  CHECK(lo[0].x == Approx(-1.7f));  // the outer border's box [-1.25, 1.25]^2 padded by 0.45
  CHECK(hi[0].y == Approx(1.7f));
  CHECK(lo[2].x == -1.0f);  // fewer than 3 points: [-1, 1]^2
  const auto h = tt::to_vector(f.height);
  const auto at = [&](int e, int x, int y) { return h[std::size_t(e) * 64 + y * 8 + x]; };
  // Texel (x, y) is centred at -1.7 + (x + 0.5) * 0.425.
  CHECK(at(0, 7, 3) == Approx(0.1f));    // (1.4875, -0.2125): nearest the right side, z = 0.1
  CHECK(at(0, 0, 3) == Approx(-0.1f));   // the left side
  CHECK(at(0, 3, 7) == Approx(-0.02125f));  // above the top side at x = -0.2125
  for (int t = 0; t < 64; ++t) {
    CHECK(std::isnan(h[64 + t]));  // invalid
    CHECK(std::isnan(h[128 + t]));  // degenerate
  }
}

TEMPLATE_TEST_CASE("PropSampler and HeightFieldBaker: bad input throws before any device work",
                   "[runtime][props][heightfield]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = tilted_squares<Space>();
  const auto mask2 = DView<std::int32_t, Space>("m", 2), mask4 = DView<std::int32_t, Space>("m", 4);
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(PropSampler<Space>(Space(), track, -1.0f), Catch::Contains("spacing must be finite and > 0"));
  CHECK_THROWS_WITH(PropSampler<Space>(Space(), track, 1.0f, PropBoundary::outer, PropMode::points, 2),
                    Catch::Contains("max_props must be >= 3, got 2"));
  CHECK_THROWS_WITH(PropSampler<Space>(Space(), track, 1.0f, static_cast<PropBoundary>(7)),
                    Catch::Contains("boundary must be"));
  CHECK_THROWS_WITH(PropSampler<Space>(Space(), Track<typename Space::memory_space>(), 1.0f),
                    Catch::Contains("track must be an allocated Track"));
  CHECK_THROWS_WITH(HeightFieldBaker<Space>(Space(), Track<typename Space::memory_space>()),
                    Catch::Contains("track must be an allocated Track"));
  CHECK_THROWS_WITH(HeightFieldBaker<Space>(Space(), track, GridOptions{7, std::nullopt}),
                    Catch::Contains("resolution must be >= 8, got 7"));
  CHECK_THROWS_WITH(HeightFieldBaker<Space>(Space(), track, GridOptions{8, 0.0f}),
                    Catch::Contains("padding must be finite and > 0"));
  CHECK(tt::LaunchCounter::launches == 0);
  PropSampler<Space> props(Space(), track, 1.0f);
  HeightFieldBaker<Space> baker(Space(), track, GridOptions{8, std::nullopt});
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(props.sample(LaunchContext<Space>(), mask2),
                    Catch::Contains("mask must be a View of extent E = 3, got 2"));
  CHECK_THROWS_WITH(baker.bake(LaunchContext<Space>(), mask4),
                    Catch::Contains("mask must be a View of extent E = 3, got 4"));
  CHECK(tt::LaunchCounter::launches == 0);
}
