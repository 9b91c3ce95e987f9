// The runtime's device geometry: boxes, ray crossings, box clipping, the
// checkpoint plane-pass test. Hand-computed cases, evaluated in kernels.
#include "runtime_support.hpp"

#include <array>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

struct Probe {
  float yaw, dist_out, dist_in;
  Vec2f c0, c1, c2, c3, closest;
  int hits_cut, hits_touch, hits_miss, hits_degenerate_in, hits_degenerate_out;
};

template <class Space>
Probe box_probe() {
  return tt::on_device<Space>([] {
    Probe p{};
    // A box of half extents (2, 1) at (1, 1), yawed 90 degrees.
    const Quatf q = geom::quat_from_yaw(geom::pi_f / 2);
    p.yaw = geom::yaw_of(q);
    const geom::Box2 b = geom::make_box(Vec2f{1, 1}, p.yaw, Vec2f{2, 1});
    p.c0 = geom::box_corner(b, 0);
    p.c1 = geom::box_corner(b, 1);
    p.c2 = geom::box_corner(b, 2);
    p.c3 = geom::box_corner(b, 3);
    // World extent of the yawed box: x in [0, 2], y in [-1, 3].
    p.dist_out = geom::point_box_distance(Vec2f{5, 7}, b);  // (3, 4) beyond the corner (2, 3): 5
    p.dist_in = geom::point_box_distance(Vec2f{1.5f, 0}, b);
    p.closest = geom::box_closest_point(Vec2f{5, 1}, b);
    // Clipping against an axis-aligned box: x in [-1, 3], y in [0, 2].
    const geom::Box2 a = geom::make_box(Vec2f{1, 1}, 0.0f, Vec2f{2, 1});
    p.hits_cut = geom::segment_hits_box(Vec2f{-5, 1}, Vec2f{5, 1}, a);
    p.hits_touch = geom::segment_hits_box(Vec2f{3, -5}, Vec2f{3, 5}, a);  // along the edge x = 3
    p.hits_miss = geom::segment_hits_box(Vec2f{3.5f, -5}, Vec2f{3.5f, 5}, a);
    p.hits_degenerate_in = geom::segment_hits_box(Vec2f{1, 1}, Vec2f{1, 1}, a);
    p.hits_degenerate_out = geom::segment_hits_box(Vec2f{4, 1}, Vec2f{4, 1}, a);
    return p;
  });
}

}  // namespace

TEMPLATE_TEST_CASE("runtime geometry: yawed boxes, distances and clipping", "[runtime][geometry]",
                   TRACKGEN_TEST_SPACES) {
  const Probe p = box_probe<TestType>();
  CHECK(p.yaw == Approx(geom::pi_f / 2));
  // Corners counter-clockwise in the box frame: (+,+), (-,+), (-,-), (+,-) with
  // the box x axis along world +y.
  CHECK(p.c0.x == Approx(0.0f).margin(1e-6));
  CHECK(p.c0.y == Approx(3.0f));
  CHECK(p.c1.x == Approx(0.0f).margin(1e-6));
  CHECK(p.c1.y == Approx(-1.0f));
  CHECK(p.c2.x == Approx(2.0f));
  CHECK(p.c2.y == Approx(-1.0f));
  CHECK(p.c3.x == Approx(2.0f));
  CHECK(p.c3.y == Approx(3.0f));
  CHECK(p.dist_out == Approx(5.0f));
  CHECK(p.dist_in == 0.0f);
  CHECK(p.closest.x == Approx(2.0f));
  CHECK(p.closest.y == Approx(1.0f));
  CHECK(p.hits_cut == 1);
  CHECK(p.hits_touch == 1);
  CHECK(p.hits_miss == 0);
  CHECK(p.hits_degenerate_in == 1);
  CHECK(p.hits_degenerate_out == 0);
}

TEMPLATE_TEST_CASE("runtime geometry: the half-open ray-crossing rule", "[runtime][geometry]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // p = (0, 0) against vertical segments at x = 1: counted when one end is
  // above y = 0 and the other at or below it (half-open), never left of p.
  const std::vector<std::array<Vec2f, 2>> segs{{Vec2f{1, -1}, Vec2f{1, 1}}, {Vec2f{1, 0}, Vec2f{1, 1}},
                                              {Vec2f{1, -1}, Vec2f{1, 0}}, {Vec2f{-1, -1}, Vec2f{-1, 1}},
                                              {Vec2f{0, -1}, Vec2f{0, 1}}};
  const auto got = tt::map_on_device<Space>(
      segs, KOKKOS_LAMBDA(const std::array<Vec2f, 2>& s) { return geom::ray_crosses(Vec2f{0, 0}, s[0], s[1]) ? 1 : 0; });
  CHECK(got == std::vector<int>{1, 1, 0, 0, 0});
}

TEMPLATE_TEST_CASE("runtime geometry: plane passes forward, backward, outside the gate", "[runtime][geometry]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // A gate at x = 0 from (0, -1) to (0, 1) facing +x, open +-0.5 vertically.
  struct Move {
    Vec3f from, to;
  };
  const std::vector<Move> moves{
      {{-1, 0, 0}, {1, 0, 0}},      // forward through the middle: +1
      {{1, 0.5f, 0}, {-1, 0.5f, 0}},  // backward: -1
      {{-1, 0, 0}, {0, 0, 0}},      // onto the plane: d1 = 0 counts as forward
      {{0, 0, 0}, {1, 0, 0}},       // starting on the plane: no pass
      {{-1, 2, 0}, {1, 2, 0}},      // beside the post
      {{-1, 0, 1}, {1, 0, 1}},      // above the vertical opening
      {{-1, -1, 0}, {1, -1, 0}},    // exactly at the post: |u| = half width, counts
      {{-1, 0, 0}, {-0.5f, 0, 0}},  // not reaching the plane
  };
  const auto got = tt::map_on_device<Space>(
      moves, KOKKOS_LAMBDA(const Move& m) {
        return geom::plane_pass(m.from, m.to, Vec3f{1, 0, 0}, Vec3f{0, -1, 0}, Vec3f{0, 1, 0}, 0.5f);
      });
  CHECK(got == std::vector<int>{1, -1, 1, 0, 0, 0, 1, 0});
}
