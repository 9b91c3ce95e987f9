// Geometry primitives on analytic shapes, evaluated inside kernels on every
// backend: each probe functor computes a batch of results on the device, the
// test checks them on the host.
#include "support.hpp"

#include <trackgen/core/geometry.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using trackgen::Vec2f;
using trackgen::Vec3f;
namespace geom = trackgen::geom;

namespace {

constexpr double two_pi = 2.0 * geom::pi_d;
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

using trackgen::test::on_device;  // f() evaluated once in a kernel on a space

// ------------------------------------------------------------ closed loops

constexpr int loop_capacity = 64;

/// A closed polyline of n <= loop_capacity points, held by value (kernel-capturable).
struct Loop {
  Vec2f p[loop_capacity];
  int n = 0;
};

/// n points on a circle of radius r around (cx, cy), CCW or CW.
Loop circle(int n, float r, bool ccw = true, float cx = 0.3f, float cy = -0.2f) {
  Loop l;
  l.n = n;
  for (int i = 0; i < n; ++i) {
    const double t = (ccw ? 1.0 : -1.0) * two_pi * i / n;
    l.p[i] = {cx + r * static_cast<float>(std::cos(t)), cy + r * static_cast<float>(std::sin(t))};
  }
  return l;
}

/// A loop through the given points.
Loop loop_of(std::initializer_list<Vec2f> pts) {
  Loop l;
  for (const Vec2f& q : pts) l.p[l.n++] = q;
  return l;
}

/// Lemniscate of Gerono (sin t, sin t cos t), sampled off its self-crossing at
/// the origin so that the crossing falls inside two segments.
Loop figure_eight(int n) {
  Loop l;
  l.n = n;
  for (int i = 0; i < n; ++i) {
    const double t = two_pi * (i + 0.5) / n;
    l.p[i] = {static_cast<float>(std::sin(t)), static_cast<float>(std::sin(t) * std::cos(t))};
  }
  return l;
}

struct LoopStats {
  double area2;     ///< shoelace2
  float turning;    ///< total_turning
  int xcount;       ///< xcount
  float curv_min;   ///< min Menger curvature over the vertices
  float curv_max;   ///< max Menger curvature over the vertices
};

/// Loop-level primitives of one loop.
struct LoopProbe {
  Loop loop;
  KOKKOS_FUNCTION LoopStats operator()() const {
    const int n = loop.n;
    LoopStats s{geom::shoelace2(loop.p, n), geom::total_turning(loop.p, n), geom::xcount(loop.p, n), 1e30f, 0.0f};
    for (int i = 0; i < n; ++i) {
      const float k = geom::menger_curvature(loop.p[(i + n - 1) % n], loop.p[i], loop.p[(i + 1) % n]);
      s.curv_min = trackgen::kmath::min(s.curv_min, k);
      s.curv_max = trackgen::kmath::max(s.curv_max, k);
    }
    return s;
  }
};

// ------------------------------------------------------------ point rules

constexpr int n_norm2 = 4, n_norm3 = 5;
const Vec2f norm2_in[n_norm2] = {{3, 4}, {1e-9f, 0}, {0, 0}, {nan_f, 1}};
const Vec3f norm3_in[n_norm3] = {{0, 3, 4}, {1e-13f, 0, 0}, {0, 0, 0}, {nan_f, 0, 0}, {1e-6f, 0, 0}};

struct NormResults {
  Vec2f n2[n_norm2];
  Vec3f n3[n_norm3];
};

/// safe_norm2 / safe_norm3 of the inputs above.
struct NormProbe {
  Vec2f in2[n_norm2];
  Vec3f in3[n_norm3];
  KOKKOS_FUNCTION NormResults operator()() const {
    NormResults r{};
    for (int i = 0; i < n_norm2; ++i) r.n2[i] = geom::safe_norm2(in2[i]);
    for (int i = 0; i < n_norm3; ++i) r.n3[i] = geom::safe_norm3(in3[i]);
    return r;
  }
};

constexpr int n_round = 10, n_band = 9, n_circ = 5;
const double round_in[n_round] = {2.5, -2.5, 0.5, -0.5, 0.49999999999999994, 1.4999, -2.6, 0.0, 4503599627370497.0,
                                  -7.5};
const double round_expected[n_round] = {3, -3, 1, -1, 0, 1, -3, 0, 4503599627370497.0, -8};
/// sep_band(l, w) inputs and results.
const float band_l[n_band] = {1, 1, 1, 0.06f, 0, nan_f, 1, inf_f, 1e-12f};
const float band_w[n_band] = {2.5f, 3.5f, 0.2f, 0.2f, 1e-8f, 0.2f, inf_f, 1, 10};
const int band_expected[n_band] = {3, 4, 1, 3, 10, 1, 1, 1, 1000000000};
/// circ_dist(i, j, n) inputs and results.
const int circ_in[n_circ][3] = {{0, 9, 10}, {2, 7, 10}, {3, 3, 10}, {1, 8, 10}, {9, 0, 10}};
const int circ_expected[n_circ] = {1, 5, 0, 3, 1};

struct ScalarResults {
  double round[n_round];
  int band[n_band];
  int circ[n_circ];
  float wrap_pos, wrap_neg;
  float menger_collinear, menger_coincident, menger_right;
};

/// Rounding, separation band, circular distance, angle wrap, Menger corner cases.
struct ScalarProbe {
  double round_in[n_round];
  float band_l[n_band], band_w[n_band];
  int circ_in[n_circ][3];
  KOKKOS_FUNCTION ScalarResults operator()() const {
    ScalarResults r{};
    for (int i = 0; i < n_round; ++i) r.round[i] = geom::round_half_away(round_in[i]);
    for (int i = 0; i < n_band; ++i) r.band[i] = geom::sep_band(band_l[i], band_w[i]);
    for (int i = 0; i < n_circ; ++i) r.circ[i] = geom::circ_dist(circ_in[i][0], circ_in[i][1], circ_in[i][2]);
    r.wrap_pos = geom::wrap_angle(1.5f * geom::pi_f);
    r.wrap_neg = geom::wrap_angle(-1.5f * geom::pi_f);
    r.menger_collinear = geom::menger_curvature({0, 0}, {1, 1}, {3, 3});
    r.menger_coincident = geom::menger_curvature({1, 1}, {1, 1}, {1, 1});
    r.menger_right = geom::menger_curvature({0, 1}, {0, 0}, {1, 0});
    return r;
  }
};

// ------------------------------------------------------------ segments

constexpr int n_seg = 8;
/// Segment pairs (a0, a1, b0, b1) and whether they cross strictly / tolerantly.
const Vec2f seg_in[n_seg][4] = {
    {{0, 0}, {2, 2}, {0, 2}, {2, 0}},           // proper X
    {{0, 0}, {2, 0}, {1, 0}, {1, 2}},           // T: endpoint on the other segment
    {{0, 0}, {1, 0}, {1, 0}, {1, 1}},           // shared endpoint
    {{0, 0}, {2, 0}, {1, 0}, {3, 0}},           // collinear, overlapping
    {{0, 0}, {1, 0}, {0, 1}, {1, 1}},           // parallel
    {{0, 0}, {1, 0}, {2, -1}, {2, 1}},          // disjoint
    {{1, 0}, {1, 0}, {0, -1}, {2, 1}},          // degenerate (a point on the other segment)
    {{0, 0}, {1, 0}, {0.5f, -1e-4f}, {0.5f, 1}},  // crossing within XCOUNT's tolerance
};
const bool strict_expected[n_seg] = {true, false, false, false, false, false, false, true};
const bool tol_expected[n_seg] = {true, false, false, false, false, false, false, false};

constexpr int n_closest = 5;
/// (p, a, b) for closest_point_on_segment.
const Vec2f closest_in[n_closest][3] = {
    {{0.5f, 1}, {0, 0}, {1, 0}},       // interior
    {{-1, 1}, {0, 0}, {1, 0}},         // clamped to a
    {{3, -2}, {0, 0}, {1, 0}},         // clamped to b
    {{0, 0}, {2, 2}, {2, 2}},          // degenerate
    {{0, 0}, {2, 2}, {2 + 1e-7f, 2}},  // |ab|^2 below 1e-12: degenerate
};
const Vec2f closest_expected[n_closest] = {{0.5f, 0}, {0, 0}, {1, 0}, {2, 2}, {2, 2}};

struct SegmentResults {
  bool strict[n_seg], strict_swapped[n_seg], tol[n_seg];
  Vec2f closest[n_closest];
};

/// The crossing predicates (both argument orders) and the closest point.
struct SegmentProbe {
  Vec2f seg[n_seg][4];
  Vec2f closest[n_closest][3];
  KOKKOS_FUNCTION SegmentResults operator()() const {
    SegmentResults r{};
    for (int i = 0; i < n_seg; ++i) {
      const Vec2f* s = seg[i];
      r.strict[i] = geom::segments_cross_strict(s[0], s[1], s[2], s[3]);
      r.strict_swapped[i] = geom::segments_cross_strict(s[2], s[3], s[0], s[1]);
      r.tol[i] = geom::segments_cross_tol(s[0], s[1], s[2], s[3]);
    }
    for (int i = 0; i < n_closest; ++i) r.closest[i] = geom::closest_point_on_segment(closest[i][0], closest[i][1], closest[i][2]);
    return r;
  }
};

// ------------------------------------------------------------ arc length

constexpr int n_arc_seg = 8, n_arc_pt = 5;
const float arc_seg_targets[n_arc_seg] = {0, 0.5f, 1, 1.5f, 3.99f, 4, 5, nan_f};
const int arc_seg_expected[n_arc_seg] = {0, 0, 0, 1, 3, 3, 3, 3};
const float arc_pt_targets[n_arc_pt] = {0, 1.5f, 2.25f, 3.5f, 4};
const Vec2f arc_pt_expected[n_arc_pt] = {{0, 0}, {1, 0.5f}, {0.75f, 1}, {0, 0.5f}, {0, 0}};

struct ArcResults {
  int seg[n_arc_seg];
  Vec2f pt[n_arc_pt];
  Vec2f dup_start, dup_half;
};

/// arc_segment / arc_point on the unit square (s = 0, 1, 2, 3, 4) and on a loop
/// whose first segment has zero length.
struct ArcProbe {
  float seg_targets[n_arc_seg], pt_targets[n_arc_pt];
  KOKKOS_FUNCTION ArcResults operator()() const {
    const Vec2f square[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    const float s[5] = {0, 1, 2, 3, 4};
    ArcResults r{};
    for (int i = 0; i < n_arc_seg; ++i) r.seg[i] = geom::arc_segment(s, 4, seg_targets[i]);
    for (int i = 0; i < n_arc_pt; ++i) r.pt[i] = geom::arc_point(square, s, 4, pt_targets[i]);
    const Vec2f dup[4] = {{0, 0}, {0, 0}, {1, 0}, {1, 1}};
    const float ds[5] = {0, 0, 1, 2, 2 + 1.41421356f};
    r.dup_start = geom::arc_point(dup, ds, 4, 0.0f);
    r.dup_half = geom::arc_point(dup, ds, 4, 0.5f);
    return r;
  }
};

/// ArcWalk (arc_segment_from) over a run of targets (ascending with ties, past the end,
/// then a falling one, a NaN and ascending again) on a table with flat runs,
/// beside arc_segment's answers; and arc_table_rises on rising and broken tables.
constexpr int n_walk = 14;
struct WalkResults {
  int walked[n_walk], searched[n_walk];
  bool walks, rises, dips, has_nan;
};

struct WalkProbe {
  KOKKOS_FUNCTION WalkResults operator()() const {
    const float s[8] = {0, 0, 1, 1, 1, 2.5f, 4, 4};
    const float targets[n_walk] = {0, 0, 0.5f, 1, 1, 1.2f, 2.5f, 3, 4, 9, 2, nan_f, 0.25f, 4};
    WalkResults r{};
    geom::ArcWalk walk(s, 7);
    for (int k = 0; k < n_walk; ++k) {
      r.walked[k] = walk.segment(targets[k]);
      r.searched[k] = geom::arc_segment(s, 7, targets[k]);
    }
    r.walks = walk.rises;
    const float dip[4] = {0, 2, 1, 3}, with_nan[4] = {0, 1, nan_f, 3};
    r.rises = geom::arc_table_rises(s, 7);
    r.dips = geom::arc_table_rises(dip, 3);
    r.has_nan = geom::arc_table_rises(with_nan, 3);
    return r;
  }
};

/// Copies a fixed-size array into a probe member.
template <class T, std::size_t N>
void copy_array(T (&dst)[N], const T (&src)[N]) {
  for (std::size_t i = 0; i < N; ++i) dst[i] = src[i];
}

bool near(Vec2f a, Vec2f b, float tol = 1e-6f) { return std::fabs(a.x - b.x) <= tol && std::fabs(a.y - b.y) <= tol; }
bool near(Vec3f a, Vec3f b, float tol = 1e-6f) {
  return std::fabs(a.x - b.x) <= tol && std::fabs(a.y - b.y) <= tol && std::fabs(a.z - b.z) <= tol;
}

}  // namespace

TEMPLATE_TEST_CASE("safe_norm2 and safe_norm3 follow the Appendix A rules", "[geometry]", TRACKGEN_TEST_SPACES) {
  NormProbe probe{};
  copy_array(probe.in2, norm2_in);
  copy_array(probe.in3, norm3_in);
  const NormResults r = on_device<TestType>(probe);
  CHECK(near(r.n2[0], {0.6f, 0.8f}));
  CHECK(near(r.n2[1], {0.1f, 0.0f}));  // below the 1e-8 floor: v / 1e-8, not unit
  CHECK(near(r.n2[2], {0.0f, 0.0f}));
  CHECK(std::isnan(r.n2[3].x));  // NaN in, NaN out
  CHECK(std::isnan(r.n2[3].y));
  CHECK(near(r.n3[0], {0.0f, 0.6f, 0.8f}));
  CHECK(near(r.n3[1], {0.0f, 0.0f, 0.0f}));  // |v| < 1e-12: zero
  CHECK(near(r.n3[2], {0.0f, 0.0f, 0.0f}));
  CHECK(std::isnan(r.n3[3].x));
  CHECK(near(r.n3[4], {1.0f, 0.0f, 0.0f}));
}

TEMPLATE_TEST_CASE("Loop primitives on circles, squares and a figure eight", "[geometry]", TRACKGEN_TEST_SPACES) {
  SECTION("CCW circle: area, turning +2pi, curvature 1/r, no crossing") {
    const float r = 2.0f;
    const int n = 48;
    const LoopStats s = on_device<TestType>(LoopProbe{circle(n, r)});
    CHECK(s.area2 == Approx(n * r * r * std::sin(two_pi / n)).epsilon(1e-5));
    CHECK(s.turning == Approx(two_pi).epsilon(1e-5));
    CHECK(s.xcount == 0);
    CHECK(s.curv_min == Approx(1.0 / r).epsilon(1e-3));
    CHECK(s.curv_max == Approx(1.0 / r).epsilon(1e-3));
  }
  SECTION("CW circle: negative area, turning -2pi") {
    const LoopStats s = on_device<TestType>(LoopProbe{circle(40, 0.5f, false)});
    CHECK(s.area2 < 0.0);
    CHECK(s.turning == Approx(-two_pi).epsilon(1e-5));
    CHECK(s.xcount == 0);
    CHECK(s.curv_min == Approx(2.0).epsilon(1e-3));
  }
  SECTION("unit square: twice the area is 2, CCW positive, CW negative") {
    const LoopStats ccw = on_device<TestType>(LoopProbe{loop_of({{0, 0}, {1, 0}, {1, 1}, {0, 1}})});
    CHECK(ccw.area2 == 2.0);
    CHECK(ccw.turning == Approx(two_pi).epsilon(1e-6));
    CHECK(ccw.xcount == 0);
    CHECK(ccw.curv_max == Approx(std::sqrt(2.0)).epsilon(1e-6));  // circumradius 1/sqrt(2)
    const LoopStats cw = on_device<TestType>(LoopProbe{loop_of({{0, 0}, {0, 1}, {1, 1}, {1, 0}})});
    CHECK(cw.area2 == -2.0);
    CHECK(cw.turning == Approx(-two_pi).epsilon(1e-6));
  }
  SECTION("square with edge midpoints: zero curvature on the straight parts") {
    const LoopStats s = on_device<TestType>(
        LoopProbe{loop_of({{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}})});
    CHECK(s.area2 == 8.0);
    CHECK(s.turning == Approx(two_pi).epsilon(1e-6));
    CHECK(s.xcount == 0);
    CHECK(s.curv_min == 0.0f);
  }
  SECTION("figure eight: turning 0, one crossing, lobes cancel") {
    const LoopStats s = on_device<TestType>(LoopProbe{figure_eight(40)});
    CHECK(std::fabs(s.turning) < 1e-4);
    CHECK(s.xcount == 1);
    CHECK(std::fabs(s.area2) < 1e-6);
  }
  SECTION("bow tie, with NaN coordinates read as 0 by XCOUNT") {
    CHECK(on_device<TestType>(LoopProbe{loop_of({{0, 0}, {1, 1}, {1, 0}, {0, 1}})}).xcount == 1);
    CHECK(on_device<TestType>(LoopProbe{loop_of({{nan_f, nan_f}, {1, 1}, {1, 0}, {0, 1}})}).xcount == 1);
  }
}

TEMPLATE_TEST_CASE("Rounding, separation band, circular distance, angle wrap, Menger corner cases", "[geometry]",
                   TRACKGEN_TEST_SPACES) {
  ScalarProbe probe{};
  copy_array(probe.round_in, round_in);
  copy_array(probe.band_l, band_l);
  copy_array(probe.band_w, band_w);
  for (int i = 0; i < n_circ; ++i) copy_array(probe.circ_in[i], circ_in[i]);
  const ScalarResults r = on_device<TestType>(probe);
  for (int i = 0; i < n_round; ++i) {
    INFO("round_half_away(" << round_in[i] << ")");
    CHECK(r.round[i] == round_expected[i]);
  }
  for (int i = 0; i < n_band; ++i) {
    INFO("sep_band(" << band_l[i] << ", " << band_w[i] << ")");
    CHECK(r.band[i] == band_expected[i]);
  }
  for (int i = 0; i < n_circ; ++i) CHECK(r.circ[i] == circ_expected[i]);
  CHECK(r.wrap_pos == Approx(-0.5 * geom::pi_d).epsilon(1e-6));
  CHECK(r.wrap_neg == Approx(0.5 * geom::pi_d).epsilon(1e-6));
  CHECK(r.menger_collinear == 0.0f);
  CHECK(r.menger_coincident == 0.0f);  // denominator floored: no NaN
  CHECK(r.menger_right == Approx(std::sqrt(2.0)).epsilon(1e-6));
}

TEMPLATE_TEST_CASE("Segment crossing predicates and the closest point on a segment", "[geometry]",
                   TRACKGEN_TEST_SPACES) {
  SegmentProbe probe{};
  for (int i = 0; i < n_seg; ++i) copy_array(probe.seg[i], seg_in[i]);
  for (int i = 0; i < n_closest; ++i) copy_array(probe.closest[i], closest_in[i]);
  const SegmentResults r = on_device<TestType>(probe);
  for (int i = 0; i < n_seg; ++i) {
    INFO("segment pair " << i);
    CHECK(r.strict[i] == strict_expected[i]);
    CHECK(r.strict_swapped[i] == strict_expected[i]);
    CHECK(r.tol[i] == tol_expected[i]);
  }
  for (int i = 0; i < n_closest; ++i) {
    INFO("closest point case " << i);
    CHECK(near(r.closest[i], closest_expected[i]));
  }
}

TEMPLATE_TEST_CASE("Arc-length lookup on a square, with the segment floor", "[geometry]", TRACKGEN_TEST_SPACES) {
  ArcProbe probe{};
  copy_array(probe.seg_targets, arc_seg_targets);
  copy_array(probe.pt_targets, arc_pt_targets);
  const ArcResults r = on_device<TestType>(probe);
  for (int i = 0; i < n_arc_seg; ++i) {
    INFO("arc_segment(" << arc_seg_targets[i] << ")");
    CHECK(r.seg[i] == arc_seg_expected[i]);
  }
  for (int i = 0; i < n_arc_pt; ++i) {
    INFO("arc_point(" << arc_pt_targets[i] << ")");
    CHECK(near(r.pt[i], arc_pt_expected[i]));
  }
  CHECK(near(r.dup_start, {0, 0}));  // zero-length segment: frac 0, no NaN
  CHECK(near(r.dup_half, {0.5f, 0}));
}

TEMPLATE_TEST_CASE("Arc-length walk: ArcWalk gives arc_segment's segments", "[geometry]",
                   TRACKGEN_TEST_SPACES) {
  const WalkResults r = on_device<TestType>(WalkProbe{});
  const int expected[n_walk] = {0, 0, 1, 1, 1, 4, 4, 5, 5, 6, 4, 6, 1, 5};
  for (int k = 0; k < n_walk; ++k) {
    INFO("target " << k);
    CHECK(r.searched[k] == expected[k]);
    CHECK(r.walked[k] == r.searched[k]);
  }
  CHECK(r.walks);  // the table rises, so the answers above came from the walk
  CHECK(r.rises);
  CHECK_FALSE(r.dips);
  CHECK_FALSE(r.has_nan);
}

namespace {

/// A pair of edges (incoming a, outgoing b) and what the turn at their joint is.
struct EdgePair {
  Vec2f a, b;
};
struct TurnPair {
  float estimate;  ///< turn_estimate(a, b)
  float exact;     ///< wrap_angle(atan2(b) - atan2(a)), the inflation's former per-point term
};

/// Edge pairs of every kind: random directions over nine decades of length,
/// nearly parallel and nearly reversed pairs, the axes with signed zeros, and
/// degenerate edges (zero, tiny, huge, NaN).
std::vector<EdgePair> edge_pairs() {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> angle(-geom::pi_d, geom::pi_d), decade(-6.0, 3.0), small(-1e-3, 1e-3);
  auto edge = [&](double theta, double len) {
    return Vec2f{static_cast<float>(len * std::cos(theta)), static_cast<float>(len * std::sin(theta))};
  };
  std::vector<EdgePair> pairs;
  for (int k = 0; k < 200000; ++k) {
    const double t = angle(rng), la = std::pow(10.0, decade(rng)), lb = la * std::pow(10.0, 0.5 * decade(rng) / 3.0);
    double turn = angle(rng);
    if (k % 4 == 1) turn = small(rng);                                                             // nearly straight on
    if (k % 4 == 2) turn = (turn > 0 ? 1.0 : -1.0) * (geom::pi_d - 0.02 - std::fabs(small(rng)));  // sharp
    pairs.push_back({edge(t, la), edge(t + turn, lb)});
  }
  for (const float s : {1.0f, -1.0f}) {  // along the axes, signed zeros included
    for (const Vec2f b : {Vec2f{1, 0}, Vec2f{0, 1}, Vec2f{-1, 0.0f}, Vec2f{0, -1}, Vec2f{1, -0.0f}, Vec2f{-0.0f, 1}}) {
      pairs.push_back({Vec2f{s, 0.0f}, b});
      pairs.push_back({Vec2f{0.0f, s}, b});
    }
  }
  for (const Vec2f d : {Vec2f{0, 0}, Vec2f{1e-20f, 0}, Vec2f{3e19f, 1e19f}, Vec2f{nan_f, 1}, Vec2f{1, inf_f}}) {
    pairs.push_back({d, Vec2f{1, 1}});
    pairs.push_back({Vec2f{1, 1}, d});
  }
  return pairs;
}

}  // namespace

TEMPLATE_TEST_CASE("turn_estimate: within turn_estimate_error of the wrapped heading change, NaN where unsure",
                   "[geometry]", TRACKGEN_TEST_SPACES) {
  const std::vector<EdgePair> pairs = edge_pairs();
  const auto r = trackgen::test::map_on_device<TestType>(
      pairs, KOKKOS_LAMBDA(const EdgePair& p) {
        return TurnPair{geom::turn_estimate(p.a, p.b),
                        geom::wrap_angle(trackgen::kmath::atan2(p.b.y, p.b.x) - trackgen::kmath::atan2(p.a.y, p.a.x))};
      });
  double worst = 0.0;
  int estimated = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const EdgePair& p = pairs[k];
    INFO("pair " << k << ": a (" << p.a.x << ", " << p.a.y << "), b (" << p.b.x << ", " << p.b.y << "), estimate "
                 << r[k].estimate << ", exact " << r[k].exact);
    const float hi = std::max(std::fabs(trackgen::cross(p.a, p.b)), std::fabs(trackgen::dot(p.a, p.b)));
    const bool clear = hi > 1e-30f && hi < 1e30f && std::fabs(r[k].exact) < geom::pi_f - 0.011f;
    if (std::isnan(r[k].estimate)) {
      CHECK_FALSE(clear);  // unsure only for a degenerate pair or a turn near +-pi
      continue;
    }
    ++estimated;
    // a quarter of the bound, so that the bound keeps a margin over every platform's libm
    CHECK(std::fabs(r[k].estimate - r[k].exact) <= 0.25 * geom::turn_estimate_error);
    worst = std::max(worst, static_cast<double>(std::fabs(r[k].estimate - r[k].exact)));
  }
  INFO("largest difference " << worst);
  CHECK(estimated > 190000);
  CHECK(worst < 1e-5);
}
