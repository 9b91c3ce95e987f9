// CollisionChecker (segments and sdf backends) and DiscChecker: hand-computed
// contacts on square bands, the segments backend against a plain scan and the
// sdf against the segments backend on generated tracks, bound and per-call
// modes, and bad input.
#include "runtime_support.hpp"

#include <trackgen/pipeline/track_generator.hpp>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr int kStride = 20;

/// Envs 0 and 1: the square band of half size 1 between half sizes 0.75 and
/// 1.25 (4 points per side); env 2: a degenerate track of 2 points.
template <class Space>
Track<typename Space::memory_space> square_bands() {
  const auto sq = tt::square_loop(1.0f, 4);
  return tt::band_track<Space>({{sq, 0.75f, 1.25f}, {sq, 0.75f, 1.25f}, {{{0, 0, 0}, {1, 0, 0}}, 0.75f, 1.25f}},
                               kStride);
}

struct BoxCase {
  Vec3f position;
  float yaw;
  Vec2f half;
};

/// Three boxes per env (see the test for what each one checks).
std::vector<BoxCase> box_cases() {
  const float nan = nanf();
  return {
      {{1.0625f, 0.25f, 0}, 0.0f, {0.0625f, 0.0625f}},   // 0: inside, 0.125 from the outer border
      {{1.125f, -0.25f, 0}, 0.0f, {0.125f, 0.125f}},     // 1: a corner exactly on the outer border
      {{1.25f, 0.25f, 0}, 0.0f, {0.0625f, 0.0625f}},     // 2: straddles the outer border
      {{0.0f, 0.0f, 0}, 0.0f, {0.0625f, 0.0625f}},       // 3: inside the inner border (the infield)
      {{1.0f, 0.5f, 0}, geom::pi_f / 4, {0.1f, 0.05f}},  // 4: yawed, inside
      {{nan, 0.5f, 0}, 0.0f, {0.1f, 0.05f}},             // 5: inactive slot
      {{0.5f, 0.0f, 0}, 0.0f, {0.1f, 0.1f}},             // 6: degenerate track
      {{0.5f, 0.0f, 0}, 0.0f, {0.1f, 0.1f}},             // 7
      {{0.5f, 0.0f, 0}, 0.0f, {0.1f, 0.1f}},             // 8
  };
}

template <class Space>
struct TestBoxes {
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  explicit TestBoxes(const std::vector<BoxCase>& cases) {
    std::vector<Vec3f> p;
    std::vector<Quatf> q;
    std::vector<Vec2f> h;
    for (const auto& c : cases) {
      p.push_back(c.position);
      q.push_back(geom::quat_from_yaw(c.yaw));
      h.push_back(c.half);
    }
    position = tt::to_device<Space>(p, "position");
    orientation = tt::to_device<Space>(q, "orientation");
    half = tt::to_device<Space>(h, "half_extents");
  }
};

template <class Space>
struct HostContact {
  std::vector<int> oob, boundary;
  std::vector<float> distance;
  std::vector<Vec2f> nearest, normal;
  explicit HostContact(const BoxContact<Space>& c)
      : oob(tt::to_vector(c.oob)),
        boundary(tt::to_vector(c.boundary)),
        distance(tt::to_vector(c.distance)),
        nearest(tt::to_vector(c.nearest)),
        normal(tt::to_vector(c.normal)) {}
};

}  // namespace

TEMPLATE_TEST_CASE("CollisionChecker segments: hand-computed contacts on a square band", "[runtime][collision]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = square_bands<Space>();
  CollisionChecker<Space> checker(Space(), track, 3);
  const TestBoxes<Space> in(box_cases());
  const HostContact<Space> c(checker.query(in.position, in.orientation, in.half));

  CHECK(c.oob[0] == 0);  // clearance 0.125 to the outer border x = 1.25, nearest at the first corner's height
  CHECK(c.distance[0] == 0.125f);
  CHECK(c.boundary[0] == 1);
  CHECK(c.nearest[0].x == 1.25f);
  CHECK(c.nearest[0].y == 0.3125f);
  CHECK(c.normal[0].x == -1.0f);  // into the band
  CHECK(c.normal[0].y == 0.0f);

  CHECK(c.oob[1] == 1);  // touching counts as out (half-open crossing; the border segment meets the box)
  CHECK(c.distance[1] == 0.0f);
  CHECK(c.boundary[1] == 1);

  CHECK(c.oob[2] == 1);  // corners 0.0625 beyond the outer border
  CHECK(c.distance[2] == -0.0625f);

  CHECK(c.oob[3] == 1);  // in the infield: every corner 0.6875 inside the inner border
  CHECK(c.distance[3] == -0.6875f);
  CHECK(c.boundary[3] == 0);
  CHECK(c.nearest[3].x == 0.75f);
  CHECK(c.normal[3].x == 1.0f);  // from the inner border towards the road

  const float reach = 0.1f * std::cos(geom::pi_f / 4) + 0.05f * std::sin(geom::pi_f / 4);
  CHECK(c.oob[4] == 0);
  CHECK(c.distance[4] == Approx(0.25f - reach).epsilon(1e-5));

  CHECK(c.oob[5] == 0);  // inactive
  CHECK(c.boundary[5] == -1);
  CHECK(std::isnan(c.distance[5]));
  for (int b = 6; b < 9; ++b) {  // fewer than 3 points: conservatively out, no geometry
    CHECK(c.oob[b] == 1);
    CHECK(c.boundary[b] == -1);
    CHECK(std::isnan(c.distance[b]));
    CHECK(std::isnan(c.normal[b].x));
  }
}

TEMPLATE_TEST_CASE("CollisionChecker sdf: the square band within a texel of the exact distances",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = square_bands<Space>();
  CollisionChecker<Space> exact(Space(), track, 3);
  CollisionChecker<Space> sdf(Space(), track, 3, CollisionMethod::sdf, GridOptions{128, std::nullopt});
  const TestBoxes<Space> in(box_cases());
  const HostContact<Space> a(exact.query(in.position, in.orientation, in.half));
  const HostContact<Space> b(sdf.query(in.position, in.orientation, in.half));
  const float texel = 3.0f / 128.0f;  // the box [-1.25, 1.25]^2 padded by 10% of its side
  const auto lo = tt::to_vector(sdf.sdf().lo), hi = tt::to_vector(sdf.sdf().hi);
  CHECK(lo[0].x == -1.5f);
  CHECK(hi[0].y == 1.5f);
  for (const int box : {0, 4}) {  // in bounds: the field's minimum over the corners is the clearance
    INFO("box " << box);
    CHECK(b.oob[box] == 0);
    CHECK(std::fabs(b.distance[box] - a.distance[box]) <= texel);
  }
  CHECK(b.boundary[0] == 1);
  CHECK(b.oob[3] == 1);  // the field is deepest at the box centre there, the exact backend reports the corners
  CHECK(b.boundary[3] == 0);
  CHECK(b.normal[0].x == Approx(-1.0f).margin(1e-3));
  CHECK(b.oob[2] == 1);
  CHECK(b.oob[5] == 0);
  CHECK(b.boundary[5] == -1);
  for (int box = 6; box < 9; ++box) CHECK(b.oob[box] == 1);  // NaN field: conservatively out
  const auto phi = tt::to_vector(sdf.sdf().phi);
  CHECK(std::isnan(phi[2 * 128 * 128]));
}

TEMPLATE_TEST_CASE("CollisionChecker sdf agrees with segments away from the border on generated tracks",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig cfg;
  cfg.num_envs = 6;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 11));
  const auto& track = gen.generate();
  const auto h = track.to_host();
  // Boxes along each centerline at lateral offsets from -2 hw to 2 hw, yawed with the track.
  constexpr int kBoxes = 40;
  std::vector<BoxCase> cases;
  for (int e = 0; e < cfg.num_envs; ++e) {
    for (int b = 0; b < kBoxes; ++b) {
      const int i = (b * 7) % h.count(e);
      const Vec3f c = h.center(std::size_t(e) * cfg.N_max + i), t = h.tangent(std::size_t(e) * cfg.N_max + i);
      const float off = cfg.half_width * (-2.0f + 4.0f * float(b) / (kBoxes - 1));
      cases.push_back({{c.x - t.y * off, c.y + t.x * off, 0}, std::atan2(t.y, t.x), {0.02f, 0.01f}});
    }
  }
  const TestBoxes<Space> in(cases);
  CollisionChecker<Space> exact(Space(), track, kBoxes);
  CollisionChecker<Space> sdf(Space(), track, kBoxes, CollisionMethod::sdf);
  const HostContact<Space> a(exact.query(in.position, in.orientation, in.half));
  const HostContact<Space> b(sdf.query(in.position, in.orientation, in.half));
  const auto lo = tt::to_vector(sdf.sdf().lo), hi = tt::to_vector(sdf.sdf().hi);
  int compared = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const int e = static_cast<int>(k) / kBoxes;
    const float texel = std::max(hi[e].x - lo[e].x, hi[e].y - lo[e].y) / 128.0f;
    if (std::fabs(a.distance[k]) < 2.0f * texel) continue;
    INFO("box " << k << " exact " << a.distance[k] << " sdf " << b.distance[k] << " texel " << texel);
    CHECK(b.oob[k] == a.oob[k]);
    CHECK(std::fabs(b.distance[k] - a.distance[k]) <= texel);
    ++compared;
  }
  CHECK(compared > cfg.num_envs * kBoxes / 2);
}

namespace {

/// The segments backend's contact of one box by a plain scan of every
/// segment of both borders in order (the documented rule, without the chunk
/// pruning): inner border 0, outer 1, ties to the lowest (border, index).
struct PlainContact {
  int oob = 0, boundary = 2;
  float distance = 0;
  Vec2f nearest, normal;
};

PlainContact plain_contact(const Track<Kokkos::HostSpace>& h, int e, int n_max, Vec2f centre, float yaw, Vec2f half) {
  const int m = h.count(e);
  const std::size_t base = std::size_t(e) * n_max;
  const geom::Box2 box = geom::make_box(centre, yaw, half);
  Vec2f corner[4];
  for (int k = 0; k < 4; ++k) corner[k] = geom::box_corner(box, k);
  bool violates[2][4];
  float corner_min2[2][4];
  float best2 = 3e38f;
  int best_border = 2, best_index = 0;
  Vec2f best_point = nan2();
  bool cut = false;
  for (int border = 0; border < 2; ++border) {
    const auto point = [&](int i) {
      const Vec3f q = border == 0 ? h.inner(base + i) : h.outer(base + i);
      return Vec2f{q.x, q.y};
    };
    bool odd[4] = {false, false, false, false};
    for (int k = 0; k < 4; ++k) corner_min2[border][k] = 3e38f;
    for (int i = 0; i < m; ++i) {
      const Vec2f a = point(i), c = point(i + 1 < m ? i + 1 : 0);
      float d2_seg = 3e38f;
      Vec2f q_seg = a;
      for (int k = 0; k < 4; ++k) {
        if (geom::ray_crosses(corner[k], a, c)) odd[k] = !odd[k];
        const Vec2f q = geom::closest_point_on_segment(corner[k], a, c);
        const float d2 = length_sq(corner[k] - q);
        corner_min2[border][k] = std::min(corner_min2[border][k], d2);
        if (d2 < d2_seg) d2_seg = d2, q_seg = q;
      }
      const float dv = geom::point_box_distance(a, box);
      if (dv * dv < d2_seg) d2_seg = dv * dv, q_seg = a;
      if (geom::segment_hits_box(a, c, box)) {
        cut = true;
        d2_seg = 0.0f;
        q_seg = geom::closest_point_on_segment(box.center, a, c);
      }
      if (d2_seg < best2) best2 = d2_seg, best_border = border, best_index = i, best_point = q_seg;
    }
    for (int k = 0; k < 4; ++k) violates[border][k] = odd[k] == (border == 0);
  }
  bool any = false;
  float penetration2 = 0.0f;
  for (int border = 0; border < 2; ++border) {
    for (int k = 0; k < 4; ++k) {
      if (violates[border][k]) any = true, penetration2 = std::max(penetration2, corner_min2[border][k]);
    }
  }
  PlainContact r;
  r.oob = any || cut ? 1 : 0;
  const float penetration = std::sqrt(penetration2);
  r.distance = r.oob ? (penetration > 0.0f ? -penetration : 0.0f) : std::sqrt(best2);
  r.nearest = best_point;
  r.boundary = best_border;
  const auto at = [&](int i) {
    const Vec3f q = best_border == 0 ? h.inner(base + i) : h.outer(base + i);
    return Vec2f{q.x, q.y};
  };
  const Vec2f seg = at(best_index + 1 < m ? best_index + 1 : 0) - at(best_index);
  const Vec3f c = h.center(base + best_index);
  const Vec2f to_center = Vec2f{c.x, c.y} - best_point;
  Vec2f n = length_sq(seg) > 1e-12f ? Vec2f{-seg.y, seg.x} : to_center;
  n = geom::safe_norm2(n);
  r.normal = dot(n, to_center) < 0.0f ? -n : n;
  return r;
}

}  // namespace

TEMPLATE_TEST_CASE("CollisionChecker segments: the chunk pruning gives the contacts of a plain scan",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig cfg;
  cfg.num_envs = 6;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 5));
  const auto& track = gen.generate();
  const auto h = track.to_host();
  // Boxes anywhere over each track's bounding square, any yaw, from car size
  // to boxes wider than the band (they span several chunks and cut borders).
  constexpr int kBoxes = 200;
  tt::Lcg rng{777u};
  std::vector<BoxCase> cases;
  for (int e = 0; e < cfg.num_envs; ++e) {
    Vec2f lo{3e38f, 3e38f}, hi{-3e38f, -3e38f};
    for (int i = 0; i < h.count(e); ++i) {
      const Vec3f q = h.outer(std::size_t(e) * cfg.N_max + i);
      lo = {std::min(lo.x, q.x), std::min(lo.y, q.y)}, hi = {std::max(hi.x, q.x), std::max(hi.y, q.y)};
    }
    for (int b = 0; b < kBoxes; ++b) {
      const float x = lo.x - 0.1f + (hi.x - lo.x + 0.2f) * rng.uniformf(),
                  y = lo.y - 0.1f + (hi.y - lo.y + 0.2f) * rng.uniformf();
      const float size = b % 4 == 0 ? 0.3f : 0.05f;
      cases.push_back(
          {{x, y, 0}, 6.2831853f * rng.uniformf(), {size * (0.2f + rng.uniformf()), size * (0.2f + rng.uniformf())}});
    }
  }
  const TestBoxes<Space> in(cases);
  CollisionChecker<Space> exact(Space(), track, kBoxes);
  const HostContact<Space> got(exact.query(in.position, in.orientation, in.half));
  const auto q = tt::to_vector(in.orientation);
  int oob = 0, cut_or_out = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const int e = static_cast<int>(k) / kBoxes;
    const auto& c = cases[k];
    const PlainContact want =
        plain_contact(h, e, cfg.N_max, Vec2f{c.position.x, c.position.y}, geom::yaw_of(q[k]), c.half);
    INFO("env " << e << " box " << k << " distance " << got.distance[k] << " plain " << want.distance);
    REQUIRE(got.oob[k] == want.oob);
    REQUIRE(std::fabs(got.distance[k] - want.distance) <= 1e-5f * (1.0f + std::fabs(want.distance)));
    REQUIRE(got.boundary[k] == want.boundary);
    REQUIRE(std::fabs(got.nearest[k].x - want.nearest.x) <= 1e-5f * (1.0f + std::fabs(want.nearest.x)));
    REQUIRE(std::fabs(got.nearest[k].y - want.nearest.y) <= 1e-5f * (1.0f + std::fabs(want.nearest.y)));
    REQUIRE(dot(got.normal[k], want.normal) > 0.9999f);
    oob += want.oob, cut_or_out += want.oob && want.distance < 0.0f;
  }
  // Both kinds of boxes occur: in the band and out of it, corners outside.
  CHECK(oob > 100);
  CHECK(oob < static_cast<int>(cases.size()) - 100);
  CHECK(cut_or_out > 50);
}

TEMPLATE_TEST_CASE("CollisionChecker: bound mode, per-call mode, rebind warning", "[runtime][collision]",
                   TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  const auto track = square_bands<Space>();
  CollisionChecker<Space> checker(Space(), track, 3);
  const TestBoxes<Space> a(box_cases()), b(box_cases());
  CHECK_THROWS_WITH(checker.query(), Catch::Contains("no inputs bound"));
  const auto per_call = HostContact<Space>(checker.query(a.position, a.orientation, a.half));
  checker.bind_inputs(a.position, a.orientation, a.half);
  const auto& r = checker.query();
  CHECK(&r == &checker.query());  // results by identity
  CHECK(tt::bitwise_equal(HostContact<Space>(r).distance, per_call.distance));
  CHECK_THROWS_WITH(checker.query(a.position, a.orientation, a.half), Catch::Contains("bound mode"));

  const tt::WarningLog log;
  checker.bind_inputs(b.position, b.orientation, b.half);  // nothing recorded: silent
  CHECK(log.messages.empty());
  HostGraph caller;
  checker.query(LaunchContext<Space>::capture(caller));
  CHECK(caller.launch_nodes() == 1);
  checker.bind_inputs(b.position, b.orientation, b.half);  // the same Views: silent
  CHECK(log.messages.empty());
  checker.bind_inputs(a.position, a.orientation, a.half);
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0].find("CollisionChecker::bind_inputs") != std::string::npos);
  const auto snapshot = checker.contacts().clone();
  CHECK(snapshot.oob.data() != checker.contacts().oob.data());
}

TEMPLATE_TEST_CASE("CollisionChecker and DiscChecker: bad input throws before any device work",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = square_bands<Space>();
  const TestBoxes<Space> in(box_cases());
  const auto discs = tt::filled<Space>(6, Vec3f{0, 0, 0});
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(CollisionChecker<Space>(Space(), track, 0), Catch::Contains("max_boxes must be >= 1, got 0"));
  CHECK_THROWS_WITH(CollisionChecker<Space>(Space(), Track<typename Space::memory_space>(), 1),
                    Catch::Contains("track must be an allocated Track"));
  CHECK_THROWS_WITH(CollisionChecker<Space>(Space(), track, 1, CollisionMethod::sdf, GridOptions{4, std::nullopt}),
                    Catch::Contains("resolution must be >= 8, got 4"));
  CHECK_THROWS_WITH(CollisionChecker<Space>(Space(), track, 1, CollisionMethod::sdf, GridOptions{16, -1.0f}),
                    Catch::Contains("padding must be finite and > 0"));
  CHECK_THROWS_WITH(DiscChecker<Space>(Space(), discs, 0.0f, 1, 3), Catch::Contains("radius must be finite and > 0"));
  CHECK_THROWS_WITH(DiscChecker<Space>(Space(), discs, 0.1f, 1, 4), Catch::Contains("discs must be"));
  CHECK_THROWS_WITH(DiscChecker<Space>(Space(), discs, 0.1f, 0, 3), Catch::Contains("max_boxes must be >= 1"));
  CHECK_THROWS_WITH(DiscChecker<Space>(Space(), discs, 0.1f, 1, DView<std::int32_t, Space>()),
                    Catch::Contains("count must be"));
  CHECK(tt::LaunchCounter::launches == 0);

  CollisionChecker<Space> checker(Space(), track, 3);
  DiscChecker<Space> disc_checker(Space(), discs, 0.1f, 3, 3);
  const auto short_q = DView<Quatf, Space>("short", 8);
  const auto short_p = DView<Vec3f, Space>("p", 2);
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(checker.bind_inputs(in.position, short_q, in.half),
                    Catch::Contains("orientation must be a View of extent E*max_boxes = 9, got 8"));
  CHECK_THROWS_WITH(checker.query(in.position, in.orientation, DView<Vec2f, Space>()),
                    Catch::Contains("half_extents must be a View of extent E*max_boxes = 9, got an unallocated View"));
  CHECK_THROWS_WITH(checker.bake(), Catch::Contains("nothing to bake"));
  CHECK_THROWS_WITH(disc_checker.bind_inputs(short_p, in.orientation, in.half),
                    Catch::Contains("position must be a View of extent E*max_boxes = 9, got 2"));
  CHECK(tt::LaunchCounter::launches == 0);
  CHECK_THROWS_AS(checker.query(), ConfigError);  // still unbound: the failed bind bound nothing
}

TEMPLATE_TEST_CASE("DiscChecker: deepest disc, saturation, counts and NaN slots", "[runtime][collision]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const float nan = nanf();
  // Two envs of 4 disc slots; env 1 uses only its first 2.
  const auto discs = tt::to_device<Space>(std::vector<Vec3f>{{0.3f, 0, 0},
                                                             {0.22f, 0, 0},
                                                             {nan, nan, 0},
                                                             {0, 0, 0},
                                                             {5, 5, 0},
                                                             {0.25f, 0, 0},
                                                             {0, 0, 0},
                                                             {0, 0, 0}},
                                          "discs");
  const auto count = tt::to_device<Space>(std::vector<std::int32_t>{4, 2}, "count");
  DiscChecker<Space> checker(Space(), discs, 0.1f, 1, count);
  // Box [-0.2, 0.2] x [-0.1, 0.1] in both envs.
  const auto pos = tt::filled<Space>(2, Vec3f{0, 0, 0});
  const auto q = tt::filled<Space>(2, tt::no_rotation());
  const auto half = tt::filled<Space>(2, Vec2f{0.2f, 0.1f});
  const auto& r = checker.query(pos, q, half);
  const auto hit = tt::to_vector(r.hit), disc = tt::to_vector(r.disc);
  const auto depth = tt::to_vector(r.depth);
  const auto nearest = tt::to_vector(r.nearest);
  // Env 0: disc 3 has its centre inside the box (depth saturates at the radius);
  // disc 1 is 0.02 from the box (depth 0.08), disc 0 0.1 (touching, depth 0).
  CHECK(hit[0] == 1);
  CHECK(disc[0] == 3);
  CHECK(depth[0] == 0.1f);
  CHECK(nearest[0].x == 0.0f);
  // Env 1: only slots 0 and 1 count (the discs at the origin are past count);
  // slot 1 at 0.05 from the box: depth 0.05, rim point towards the box.
  CHECK(hit[1] == 1);
  CHECK(disc[1] == 1);
  CHECK(depth[1] == Approx(0.05f));
  CHECK(nearest[1].x == Approx(0.15f));
  CHECK(nearest[1].y == 0.0f);
}
