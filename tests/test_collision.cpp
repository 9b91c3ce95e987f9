// CollisionChecker (segments and sdf backends) and DiscChecker: hand-computed
// contacts on square bands, the segments backend against a plain scan and the
// sdf against the segments backend on generated tracks, bound and per-call
// modes, and bad input.
#include "runtime_support.hpp"

#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/runtime/detail/border_grid.hpp>
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/grid_bounds.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

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

/// Whether two values have the same bits (NaN payloads included).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

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

TEMPLATE_TEST_CASE("CollisionChecker sdf: the bake gives the field of a plain scan, bit for bit",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // R = 8: the smallest allowed (one partial super block); 24: super blocks
  // of 2 x 2 blocks and blocks with too many candidates (split down to single
  // texels) and partial blocks at the edges; 128: the default resolution.
  const int R = GENERATE(8, 24, 64, 128);
  for (const std::string generator : {"bezier", "hull", "polar", "voronoi", "checkpoint"}) {
    DYNAMIC_SECTION(generator << " R=" << R) {
      TrackGenConfig cfg;
      cfg.generator = generator;
      cfg.num_envs = 2;
      TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 17));
      const auto& track = gen.generate();
      const auto h = track.to_host();
      CollisionChecker<Space> sdf(Space(), track, 1, CollisionMethod::sdf, GridOptions{R, std::nullopt});
      const auto phi = tt::to_vector(sdf.sdf().phi);
      const auto bid = tt::to_vector(sdf.sdf().boundary);
      const auto lo = tt::to_vector(sdf.sdf().lo), hi = tt::to_vector(sdf.sdf().hi);
      int inside = 0, mismatches = 0;
      for (int e = 0; e < cfg.num_envs; ++e) {
        const int m = h.count(e);
        const std::size_t base = std::size_t(e) * cfg.N_max;
        for (int t = 0; t < R * R; ++t) {
          // Every segment of each border: the distance as the bakes compute it, and the crossings.
          const Vec2f q = detail::texel_center(t, R, lo[e], hi[e]);
          float d[2] = {3.0e38f, 3.0e38f};
          int crossings[2] = {0, 0};
          for (int b = 0; b < 2; ++b) {
            for (int i = 0; i < m; ++i) {
              const Vec3f a3 = b == 0 ? h.inner(base + i) : h.outer(base + i);
              const Vec3f c3 = b == 0 ? h.inner(base + (i + 1) % m) : h.outer(base + (i + 1) % m);
              const Vec2f a{a3.x, a3.y}, c{c3.x, c3.y}, ab = c - a;
              const float l2 = length_sq(ab);
              const float u = l2 <= 1e-12f ? 0.0f : std::clamp(dot(q - a, ab) / l2, 0.0f, 1.0f);
              const float dist = length(q - (a + u * ab));
              if (dist < d[b]) d[b] = dist;
              crossings[b] += geom::ray_crosses(q, a, c) ? 1 : 0;
            }
          }
          const bool in = crossings[1] % 2 == 1 && crossings[0] % 2 == 0;
          const float want = in ? std::min(d[0], d[1]) : -std::min(d[0], d[1]);
          const std::size_t k = std::size_t(e) * R * R + t;
          const bool ok = same_bits(phi[k], want) && bid[k] == (d[0] <= d[1] ? 0 : 1);
          if (!ok && mismatches++ < 5) {
            UNSCOPED_INFO("env " << e << " texel " << t << ": phi " << phi[k] << " plain " << want << ", boundary "
                                 << int(bid[k]));
          }
          inside += in ? 1 : 0;
        }
      }
      CHECK(mismatches == 0);
      CHECK(inside > 0);
    }
  }
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
/// segment of both borders in order (the documented rule, without the border
/// grid or any pruning): inner border 0, outer 1, ties to the lowest (border,
/// index); a box with a non-finite corner, or without any finite squared
/// distance, is out of bounds without geometry.
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
  PlainContact none{1, -1, nanf(), nan2(), nan2()};
  for (int k = 0; k < 4; ++k) {
    if (!is_finite(corner[k])) return none;
  }
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
  if (best_border > 1) return none;
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

/// Checks every box's contact against plain_contact, bit for bit; returns
/// how many were out of bounds, and how many of those had a corner outside.
template <class Space>
std::pair<int, int> check_against_plain(const Track<Kokkos::HostSpace>& h, const std::vector<BoxCase>& cases,
                                        const HostContact<Space>& got, const std::vector<Quatf>& q, int boxes) {
  int oob = 0, out = 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const int e = static_cast<int>(k) / boxes;
    const auto& c = cases[k];
    const PlainContact want =
        plain_contact(h, e, h.n_max(), Vec2f{c.position.x, c.position.y}, geom::yaw_of(q[k]), c.half);
    INFO("env " << e << " box " << k << " at " << c.position.x << ", " << c.position.y << " yaw " << c.yaw << " half "
                << c.half.x << ", " << c.half.y << ": distance " << got.distance[k] << " plain " << want.distance
                << ", boundary " << got.boundary[k] << " plain " << want.boundary);
    REQUIRE(got.oob[k] == want.oob);
    REQUIRE(same_bits(got.distance[k], want.distance));
    REQUIRE(got.boundary[k] == want.boundary);
    REQUIRE(same_bits(got.nearest[k], want.nearest));
    REQUIRE(same_bits(got.normal[k], want.normal));
    oob += want.oob, out += want.oob && want.distance < 0.0f;
  }
  return {oob, out};
}

}  // namespace

TEMPLATE_TEST_CASE("CollisionChecker segments: the border grid gives the contacts of a plain scan, bit for bit",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Every static generator; boxes anywhere over each track's bounding square
  // widened by half its side, any yaw, from car size to boxes wider than the
  // band (they span several cells and cut borders), and far outside.
  for (const std::string generator : {"bezier", "hull", "polar", "voronoi", "checkpoint"}) {
    DYNAMIC_SECTION(generator) {
      TrackGenConfig cfg;
      cfg.generator = generator;
      cfg.num_envs = 6;
      TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 5));
      const auto& track = gen.generate();
      const auto h = track.to_host();
      constexpr int kBoxes = 240;
      tt::Lcg rng{777u};
      std::vector<BoxCase> cases;
      for (int e = 0; e < cfg.num_envs; ++e) {
        Vec2f lo{3e38f, 3e38f}, hi{-3e38f, -3e38f};
        for (int i = 0; i < h.count(e); ++i) {
          const Vec3f q = h.outer(std::size_t(e) * cfg.N_max + i);
          lo = {std::min(lo.x, q.x), std::min(lo.y, q.y)}, hi = {std::max(hi.x, q.x), std::max(hi.y, q.y)};
        }
        const Vec2f pad = 0.5f * (hi - lo);
        for (int b = 0; b < kBoxes; ++b) {
          float x = lo.x - pad.x + (hi.x - lo.x + 2 * pad.x) * rng.uniformf(),
                y = lo.y - pad.y + (hi.y - lo.y + 2 * pad.y) * rng.uniformf();
          if (b % 3 == 0) {  // near the band: a centerline point moved sideways up to 2 half widths
            const std::size_t i = std::size_t(e) * cfg.N_max + std::size_t(rng.uniformf() * float(h.count(e)));
            const Vec3f c = h.center(i), t = h.tangent(i);
            const float off = cfg.half_width * (-2.0f + 4.0f * rng.uniformf());
            x = c.x - t.y * off, y = c.y + t.x * off;
          }
          if (b % 40 == 39) {  // far away: 1e3 .. 1e18 off, any direction
            const float far = std::pow(10.0f, 3.0f + 15.0f * rng.uniformf()), a = 6.2831853f * rng.uniformf();
            x += far * std::cos(a), y += far * std::sin(a);
          }
          const float size = b % 4 == 0 ? 0.3f : 0.05f;
          cases.push_back({{x, y, 0},
                           6.2831853f * rng.uniformf(),
                           {size * (0.2f + rng.uniformf()), size * (0.2f + rng.uniformf())}});
        }
      }
      CollisionChecker<Space> exact(Space(), track, kBoxes);
      // Round 1 queries the same boxes again; rounds 2-5 move, turn and
      // resize them a little (round 5 by more than a cell of the grid).
      for (int round = 0; round < 6; ++round) {
        INFO("round " << round);
        if (round >= 2) {
          for (auto& c : cases) {
            const float step = round == 5 ? 0.05f : 0.004f;
            c.position.x += step * (2.0f * rng.uniformf() - 1.0f);
            c.position.y += step * (2.0f * rng.uniformf() - 1.0f);
            c.yaw += 0.05f * (2.0f * rng.uniformf() - 1.0f);
            if (round == 4) c.half = c.half * 1.1f;
          }
        }
        const TestBoxes<Space> in(cases);
        const HostContact<Space> got(exact.query(in.position, in.orientation, in.half));
        const auto [oob, out] = check_against_plain(h, cases, got, tt::to_vector(in.orientation), kBoxes);
        // Both kinds of boxes occur: in the band and out of it, corners outside.
        CHECK(oob > 100);
        CHECK(oob < static_cast<int>(cases.size()) - 100);
        CHECK(out > 50);
      }
      // Every env has its grid (the query read the cells, not every segment).
      const auto header = tt::to_vector(exact.border_grid().header);
      for (const auto& g : header) CHECK(g.gx > 0);
    }
  }
}

TEMPLATE_TEST_CASE("CollisionChecker segments: boxes queried again read what they kept, until a bake of their env",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig cfg;
  cfg.num_envs = 4;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 9));
  const auto& track = gen.generate();
  const auto first = track.to_host();
  // Car-size boxes on and beside the centerline of the first tracks, turned
  // along it; the last 8 of each env against an outer border segment, turned
  // along it, their near side 0 to 1e-3 inside it (1e-5 outside): at and
  // around the 2 tol below which a set does not decide a box's parities.
  constexpr int kBoxes = 64;
  constexpr float gaps[8] = {0.0f, 1e-7f, 1e-6f, 1e-5f, 5e-5f, 1e-4f, 1e-3f, -1e-5f};
  tt::Lcg rng{31u};
  std::vector<BoxCase> cases;
  for (int e = 0; e < cfg.num_envs; ++e) {
    for (int b = 0; b < kBoxes; ++b) {
      const std::size_t i = std::size_t(e) * cfg.N_max + std::size_t(b) * std::size_t(first.count(e)) / kBoxes;
      const Vec3f c = first.center(i), t = first.tangent(i);
      if (b >= kBoxes - 8) {
        const std::size_t next = std::size_t(e) * cfg.N_max + (i - std::size_t(e) * cfg.N_max + 1) % first.count(e);
        const Vec3f a = first.outer(i), d = first.outer(next) - a;
        Vec2f inward = geom::safe_norm2(Vec2f{-d.y, d.x});
        if (dot(inward, Vec2f{c.x - a.x, c.y - a.y}) < 0.0f) inward = -inward;
        const float off = 0.02f + gaps[b - (kBoxes - 8)];
        cases.push_back({{a.x + 0.5f * d.x + inward.x * off, a.y + 0.5f * d.y + inward.y * off, 0},
                         std::atan2(d.y, d.x),
                         {0.01f, 0.02f}});
        continue;
      }
      const float off = cfg.half_width * (-0.6f + 1.2f * rng.uniformf());
      cases.push_back({{c.x - t.y * off, c.y + t.x * off, 0}, std::atan2(t.y, t.x), {0.04f, 0.02f}});
    }
  }
  CollisionChecker<Space> checker(Space(), track, kBoxes);
  // How many boxes of env e have a set kept from the env's current grid.
  const auto kept = [&](int e) {
    const auto sets = tt::to_vector(checker.near_sets().sets);
    const auto header = tt::to_vector(checker.border_grid().header);
    int n = 0;
    for (int b = 0; b < kBoxes; ++b) n += sets[std::size_t(e) * kBoxes + b].stamp == header[e].stamp ? 1 : 0;
    return n;
  };
  const auto check = [&](const Track<Kokkos::HostSpace>& h) {
    const TestBoxes<Space> in(cases);
    const HostContact<Space> got(checker.query(in.position, in.orientation, in.half));
    const auto [oob, out] = check_against_plain(h, cases, got, tt::to_vector(in.orientation), kBoxes);
    return oob;
  };
  for (int round = 0; round < 4; ++round) {  // the same boxes, then moved a little along
    INFO("round " << round);
    CHECK(check(first) < static_cast<int>(cases.size()) / 4);
    for (int e = 0; e < cfg.num_envs; ++e) CHECK(kept(e) > kBoxes / 2);
    for (auto& c : cases) c.position.x += 0.003f, c.position.y += 0.002f;
  }
  // Envs 0 and 2 get a narrower band (the inner border moved 40% of the way
  // to the outer one: the same grid cells, fewer boxes inside), their grids
  // rebuilt: their boxes' sets are stale, the other envs' still serve.
  auto inner = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.inner);
  for (const int e : {0, 2}) {
    for (int i = 0; i < first.count(e); ++i) {
      const std::size_t k = std::size_t(e) * cfg.N_max + i;
      inner(k) = inner(k) + 0.4f * (first.outer(k) - inner(k));
    }
  }
  Kokkos::deep_copy(track.inner, inner);
  const auto mask = tt::to_device<Space>(std::vector<std::int32_t>{1, 0, 1, 0}, "mask");
  checker.bake(LaunchContext<Space>(), mask);
  CHECK(kept(0) == 0);
  CHECK(kept(1) > kBoxes / 2);
  CHECK(kept(2) == 0);
  const int oob = check(track.to_host());
  CHECK(oob > static_cast<int>(cases.size()) / 4);  // the narrowed envs' boxes near the inner border
  CHECK(kept(1) > kBoxes / 2);
}

TEMPLATE_TEST_CASE("CollisionChecker segments: boxes walking across the band in small steps, every step a plain scan's",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Boxes that cross the band sideways, from 1.6 half widths on one side of
  // the centerline to 1.6 on the other (past both borders), in 64 steps of
  // 0.005, drifting along the track and turned a little differently every
  // step: their sets are anchored and measured in part while they move
  // little, and their corners cross the borders one step at a time, both
  // ways (half of the boxes walks the other way).
  TrackGenConfig cfg;
  cfg.num_envs = 3;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 21));
  const auto& track = gen.generate();
  const auto h = track.to_host();
  constexpr int kBoxes = 24, kSteps = 64;
  tt::Lcg rng{5u};
  struct Walk {
    Vec2f from, side, along;
    float yaw;
    Vec2f half;
  };
  std::vector<Walk> walks;
  for (int e = 0; e < cfg.num_envs; ++e) {
    for (int b = 0; b < kBoxes; ++b) {
      const std::size_t i = std::size_t(e) * cfg.N_max + std::size_t(b) * std::size_t(h.count(e)) / kBoxes;
      const Vec3f c = h.center(i), t = h.tangent(i);
      const float dir = b < kBoxes / 2 ? 1.0f : -1.0f;
      const Vec2f side{-t.y * dir, t.x * dir};
      const Vec2f half = b % 3 == 0 ? Vec2f{0.04f, 0.02f} : Vec2f{0.015f, 0.01f};
      walks.push_back({Vec2f{c.x, c.y} - 1.6f * cfg.half_width * side, side, Vec2f{t.x, t.y}, std::atan2(t.y, t.x),
                       half});
    }
  }
  CollisionChecker<Space> checker(Space(), track, kBoxes);
  int entered = 0, left = 0, anchored = 0;
  std::vector<int> was(walks.size(), -1);
  for (int step = 0; step <= kSteps; ++step) {
    INFO("step " << step);
    std::vector<BoxCase> cases;
    for (const auto& w : walks) {
      const float across = 3.2f * cfg.half_width * float(step) / kSteps, drift = 0.001f * float(step);
      const Vec2f p = w.from + across * w.side + drift * w.along;
      cases.push_back({{p.x, p.y, 0}, w.yaw + 0.03f * (rng.uniformf() - 0.5f), w.half});
    }
    const TestBoxes<Space> in(cases);
    const HostContact<Space> got(checker.query(in.position, in.orientation, in.half));
    check_against_plain(h, cases, got, tt::to_vector(in.orientation), kBoxes);
    for (std::size_t k = 0; k < cases.size(); ++k) {
      entered += was[k] == 1 && got.oob[k] == 0 ? 1 : 0;
      left += was[k] == 0 && got.oob[k] == 1 ? 1 : 0;
      was[k] = got.oob[k];
    }
    for (const auto& set : tt::to_vector(checker.near_sets().sets)) anchored += set.anchored;
  }
  // Every box entered the band and left it; sets were anchored throughout.
  CHECK(entered >= static_cast<int>(walks.size()));
  CHECK(left >= static_cast<int>(walks.size()));
  CHECK(anchored > kSteps * static_cast<int>(walks.size()) / 4);
}

TEMPLATE_TEST_CASE("CollisionChecker segments: huge, tiny, infinite and NaN boxes give defined contacts",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig cfg;
  cfg.num_envs = 2;
  TrackGenerator<Space> gen(cfg, SeedState<Space>(cfg.num_envs, 3));
  const auto& track = gen.generate();
  const auto h = track.to_host();
  const Vec3f c = h.center(0);
  const float inf = std::numeric_limits<float>::infinity(), nan = nanf();
  std::vector<Vec3f> positions;
  for (const float v : {1e20f, -1e20f, 1e30f, -1e30f, 1e18f, 3e38f, 1e-30f, -1e-38f, 0.0f}) {
    positions.push_back({v, v, 0}), positions.push_back({c.x + v, c.y, 0});
  }
  std::vector<std::pair<Quatf, Vec2f>> shapes;
  for (const Quatf q : {tt::no_rotation(), geom::quat_from_yaw(1.0f), Quatf{0, 0, 1e30f, 1e30f}, Quatf{0, 0, 0, 0},
                        Quatf{nan, 0, 0, 1}, Quatf{0, 0, inf, 1}}) {
    for (const Vec2f half : {Vec2f{0.04f, 0.02f}, Vec2f{0, 0}, Vec2f{1e-30f, 1e-30f}, Vec2f{1e30f, 1e30f},
                             Vec2f{inf, 0.02f}, Vec2f{nan, 0.02f}, Vec2f{-0.04f, 0.02f}}) {
      shapes.push_back({q, half});
    }
  }
  std::vector<Vec3f> p;
  std::vector<Quatf> q;
  std::vector<Vec2f> hx;
  for (const Vec3f& pos : positions) {
    for (const auto& [o, half] : shapes) p.push_back(pos), q.push_back(o), hx.push_back(half);
  }
  for (const float v : {inf, -inf, nan}) {  // non-finite positions: inactive slots
    p.push_back({v, 0, 0}), q.push_back(tt::no_rotation()), hx.push_back({0.04f, 0.02f});
  }
  const int boxes = static_cast<int>(p.size());
  p.resize(2 * p.size(), Vec3f{nan, nan, nan});  // env 1: every slot inactive
  q.resize(p.size(), tt::no_rotation());
  hx.resize(p.size(), Vec2f{0.04f, 0.02f});
  CollisionChecker<Space> checker(Space(), track, boxes);
  const HostContact<Space> got(
      checker.query(tt::to_device<Space>(p, "p"), tt::to_device<Space>(q, "q"), tt::to_device<Space>(hx, "h")));
  int defined = 0, without = 0;
  for (int k = 0; k < boxes; ++k) {
    INFO("box " << k << " at " << p[k].x << ", " << p[k].y << " q " << q[k].z << ", " << q[k].w << " half " << hx[k].x
                << ", " << hx[k].y << ": distance " << got.distance[k] << " nearest " << got.nearest[k].x << ", "
                << got.nearest[k].y);
    if (!std::isfinite(p[k].x)) {
      CHECK(got.oob[k] == 0);
      CHECK(got.boundary[k] == -1);
      continue;
    }
    const PlainContact want = plain_contact(h, 0, cfg.N_max, Vec2f{p[k].x, p[k].y}, geom::yaw_of(q[k]), hx[k]);
    REQUIRE(got.oob[k] == want.oob);
    REQUIRE(got.boundary[k] == want.boundary);
    REQUIRE(same_bits(got.distance[k], want.distance));
    REQUIRE(same_bits(got.nearest[k], want.nearest));
    REQUIRE(same_bits(got.normal[k], want.normal));
    if (got.boundary[k] == -1) {
      ++without;
      CHECK(got.oob[k] == 1);
      CHECK(std::isnan(got.distance[k]));
    } else {
      ++defined;
    }
  }
  CHECK(defined > 100);
  CHECK(without > 100);
  for (int k = boxes; k < 2 * boxes; ++k) CHECK(got.boundary[k] == -1);
}

TEMPLATE_TEST_CASE("CollisionChecker segments: an env without a grid scans every segment, the same contacts",
                   "[runtime][collision]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // A star of long spikes: its border segments meet far more cells than an
  // env's grid holds, so env 0 has no grid; env 1 (a circle) has one.
  std::vector<Vec3f> star;
  for (int i = 0; i < 24; ++i) {
    const double t = 2.0 * 3.14159265358979323846 * i / 24, r = i % 2 == 0 ? 1.0 : 0.08;
    star.push_back({static_cast<float>(r * std::cos(t)), static_cast<float>(r * std::sin(t)), 0.0f});
  }
  const auto track = tt::band_track<Space>({{star, 0.9f, 1.1f}, {tt::circle_loop(1.0, 24), 0.8f, 1.2f}}, 24);
  const auto h = track.to_host();
  constexpr int kBoxes = 200;
  tt::Lcg rng{99u};
  std::vector<BoxCase> cases;
  for (int e = 0; e < 2; ++e) {
    for (int b = 0; b < kBoxes; ++b) {
      cases.push_back({{-1.3f + 2.6f * rng.uniformf(), -1.3f + 2.6f * rng.uniformf(), 0},
                       6.2831853f * rng.uniformf(),
                       {0.02f + 0.1f * rng.uniformf(), 0.02f + 0.1f * rng.uniformf()}});
    }
  }
  const TestBoxes<Space> in(cases);
  CollisionChecker<Space> checker(Space(), track, kBoxes);
  const auto header = tt::to_vector(checker.border_grid().header);
  CHECK(header[0].gx == 0);
  CHECK(header[1].gx > 0);
  const HostContact<Space> got(checker.query(in.position, in.orientation, in.half));
  check_against_plain(h, cases, got, tt::to_vector(in.orientation), kBoxes);
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

TEMPLATE_TEST_CASE("CollisionChecker and DiscChecker: bad input throws before any device work", "[runtime][collision]",
                   TRACKGEN_TEST_SPACES) {
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
  const auto short_mask = DView<std::int32_t, Space>("mask", 2);
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(checker.bind_inputs(in.position, short_q, in.half),
                    Catch::Contains("orientation must be a View of extent E*max_boxes = 9, got 8"));
  CHECK_THROWS_WITH(checker.query(in.position, in.orientation, DView<Vec2f, Space>()),
                    Catch::Contains("half_extents must be a View of extent E*max_boxes = 9, got an unallocated View"));
  CHECK_THROWS_WITH(checker.bake(LaunchContext<Space>(), short_mask),
                    Catch::Contains("mask must be a View of extent E = 3, got 2"));
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
  const auto discs = tt::to_device<Space>(
      std::vector<Vec3f>{
          {0.3f, 0, 0}, {0.22f, 0, 0}, {nan, nan, 0}, {0, 0, 0}, {5, 5, 0}, {0.25f, 0, 0}, {0, 0, 0}, {0, 0, 0}},
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

namespace {

/// Bytes of every View a CollisionChecker allocated.
template <class Space>
std::size_t checker_bytes(const CollisionChecker<Space>& c) {
  const auto bytes = [](const auto& v) { return v.span() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
  const auto& k = c.contacts();
  const auto& g = c.border_grid();
  const auto& f = c.sdf();
  return bytes(k.oob) + bytes(k.distance) + bytes(k.nearest) + bytes(k.normal) + bytes(k.boundary) + bytes(g.header) +
         bytes(g.cells) + bytes(g.refs) + bytes(c.near_sets().sets) + bytes(f.phi) + bytes(f.boundary) + bytes(f.lo) +
         bytes(f.hi);
}

/// Sets TRACKGEN_MEMORY_LIMIT_MB for the scope of the object.
struct MemoryLimit {
  explicit MemoryLimit(const char* mb) { setenv("TRACKGEN_MEMORY_LIMIT_MB", mb, 1); }
  ~MemoryLimit() { unsetenv("TRACKGEN_MEMORY_LIMIT_MB"); }
};

}  // namespace

TEMPLATE_TEST_CASE("CollisionChecker: the memory estimate is what it allocates; over the limit it is refused first",
                   "[runtime][collision][memory]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = square_bands<Space>();
  for (const CollisionMethod method : {CollisionMethod::segments, CollisionMethod::sdf}) {
    const GridOptions grid{32, std::nullopt};
    CollisionChecker<Space> checker(Space(), track, 3, method, grid);
    CHECK(CollisionChecker<Space>::estimate_bytes(track.num_envs(), track.n_max(), 3, method, grid) ==
          checker_bytes(checker));
  }
  // 4096 envs of the default field (128^2 texels, 5 bytes each): about 320 MiB.
  const auto many = tt::band_track<Space>(std::vector<tt::BandEnv>(4096, tt::BandEnv{tt::circle_loop(1.0, 16)}), 16);
  const MemoryLimit limit("64");
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(CollisionChecker<Space>(Space(), many, 1, CollisionMethod::sdf),
                    Catch::StartsWith("trackgen::CollisionChecker: the collision sdf of num_envs = 4096 envs needs an "
                                      "estimated ") &&
                        Catch::Contains("above the memory limit of 64.0 MiB") && Catch::Contains("envs fit"));
  // A Course counts its checker (estimate_course_memory) with everything else, before allocating anything.
  CourseConfig c;
  c.gen.num_envs = 4096;
  c.checkpoint_spacing = 0.3f;
  c.collision = CollisionMethod::sdf;
  CHECK_THROWS_WITH(Course<Space>(Space(), c), Catch::StartsWith("trackgen::Course: the Course needs an estimated ") &&
                                                   Catch::Contains("envs of this config fit"));
  CHECK(tt::LaunchCounter::launches == 0);
}
