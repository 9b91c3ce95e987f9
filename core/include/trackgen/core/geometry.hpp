// Device geometry primitives of the pipeline and the generators
// (docs/algorithms.md#pipeline): the closed Catmull-Rom basis, normalization,
// curvature, bands, crossings, areas, turning and arc-length lookup.
// Header-only KOKKOS_INLINE_FUNCTIONs; per-env routines take a raw pointer to the
// env's first point and a count, so a kernel (thread or team per env) composes
// them over any flat [E*stride] buffer.
#pragma once

#include <trackgen/core/vec.hpp>

#include <cfloat>

namespace trackgen::geom {

/// pi and 2 pi in float and double: the one definition every part uses.
inline constexpr float pi_f = 3.14159265358979323846f;
inline constexpr double pi_d = 3.14159265358979323846;
inline constexpr float two_pi_f = 2.0f * pi_f;
inline constexpr double two_pi_d = 2.0 * pi_d;

/// The uniform Catmull-Rom segment (docs/algorithms.md#generator-conventions)
/// through p1..p2 (with p0 before, p3 after)
/// as its cubic's coefficients, which a segment's samples share.
struct CatmullRom {
  Vec2f a, b, c, d;
  KOKKOS_INLINE_FUNCTION CatmullRom(Vec2f p0, Vec2f p1, Vec2f p2, Vec2f p3)
      : a(2.0f * p1), b(p2 - p0), c(2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3), d(-p0 + 3.0f * p1 - 3.0f * p2 + p3) {}
  /// 0.5 [2p1 + (p2-p0)u + (2p0 - 5p1 + 4p2 - p3)u^2 + (-p0 + 3p1 - 3p2 + p3)u^3].
  KOKKOS_INLINE_FUNCTION Vec2f at(float u) const {
    const float u2 = u * u, u3 = u2 * u;
    return 0.5f * (a + b * u + c * u2 + d * u3);
  }
};

/// Uniform Catmull-Rom through p1..p2 at u (CatmullRom::at).
KOKKOS_INLINE_FUNCTION Vec2f catmull_rom(Vec2f p0, Vec2f p1, Vec2f p2, Vec2f p3, float u) {
  return CatmullRom(p0, p1, p2, p3).at(u);
}

/// v / max(|v|, 1e-8) (NaN in, NaN out).
KOKKOS_INLINE_FUNCTION Vec2f safe_norm2(Vec2f v) {
  const float l = length(v);
  return v / kmath::max(l, 1e-8f);
}

/// 0 if |v| < 1e-12, else v / |v|.
KOKKOS_INLINE_FUNCTION Vec3f safe_norm3(Vec3f v) {
  const float l = length(v);
  if (l < 1e-12f) return {0.0f, 0.0f, 0.0f};
  return v * (1.0f / l);
}

/// Round half away from zero. (Not floor(|x| + 0.5): that sum rounds up for
/// the largest double below 0.5 and for odd integers in [2^52, 2^53).)
KOKKOS_INLINE_FUNCTION double round_half_away(double x) {
  const double a = x < 0.0 ? -x : x;
  double r = kmath::floor(a);
  if (a - r >= 0.5) r += 1.0;
  return x < 0.0 ? -r : r;
}

/// Angle wrapped to (-pi, pi] via atan2(sin a, cos a).
KOKKOS_INLINE_FUNCTION float wrap_angle(float a) { return kmath::atan2(kmath::sin(a), kmath::cos(a)); }

/// The largest difference between turn_estimate(a, b) and the wrapped heading
/// change wrap_angle(atan2(b) - atan2(a)) of the same float edges where the
/// estimate is not NaN: the estimate's own error is a few float roundings
/// (about 1e-6 rad), libm's atan2f, sinf and cosf add a few units in the last
/// place each, and the bound leaves a factor of several above their sum
/// (tests/test_geometry.cpp measures the difference).
inline constexpr float turn_estimate_error = 2e-5f;

/// The signed angle from edge a to edge b, atan2(cross(a, b), dot(a, b)),
/// estimated without libm: the octant reduction of the pair to z in [0, 1], an
/// angle shift by pi / 6 above tan(pi / 12), and the Taylor series of atan to
/// r^11 (truncation below 3e-9 for |r| <= tan(pi / 12)). Within
/// turn_estimate_error of the wrapped heading change of the two edges, or NaN
/// where that change is not pinned down by the edges' directions alone: a
/// zero, tiny, huge or non-finite edge (the larger of |cross| and |dot| not in
/// (1e-30, 1e30)) and a turn within 0.01 of +-pi (where the wrap may land on
/// either side).
KOKKOS_INLINE_FUNCTION float turn_estimate(Vec2f a, Vec2f b) {
  const float y = cross(a, b), x = dot(a, b);
  const float ax = kmath::fabs(x), ay = kmath::fabs(y);
  const float hi = kmath::max(ax, ay), lo = kmath::min(ax, ay);
  if (!(hi > 1e-30f && hi < 1e30f)) return nanf();
  const float z = lo / hi;  // tan of the angle to the nearer axis, in [0, 1]
  const float sqrt3 = 1.7320508075688772f;
  const bool shifted = z > 0.2679491924311227f;  // tan(pi / 12)
  const float r = shifted ? (z * sqrt3 - 1.0f) / (z + sqrt3) : z;
  const float r2 = r * r;
  const float series =
      r * (1.0f + r2 * (-1.0f / 3.0f + r2 * (1.0f / 5.0f + r2 * (-1.0f / 7.0f + r2 * (1.0f / 9.0f - r2 / 11.0f)))));
  float t = (shifted ? pi_f / 6.0f : 0.0f) + series;  // atan(z)
  if (ay > ax) t = 0.5f * pi_f - t;
  if (x < 0.0f) t = pi_f - t;
  if (y < 0.0f) t = -t;
  return kmath::fabs(t) > pi_f - 0.01f ? nanf() : t;
}

/// Circular index distance min(|i-j|, n-|i-j|).
KOKKOS_INLINE_FUNCTION int circ_dist(int i, int j, int n) {
  const int d = i > j ? i - j : j - i;
  return kmath::min(d, n - d);
}

/// Menger curvature of three consecutive points: 4*area / (|a||b||c|) with
/// a = p1 - p0, b = p2 - p1, c = p2 - p0, the denominator floored at 1e-12.
KOKKOS_INLINE_FUNCTION float menger_curvature(Vec2f p0, Vec2f p1, Vec2f p2) {
  const Vec2f a = p1 - p0, b = p2 - p1, c = p2 - p0;
  const float area = 0.5f * kmath::fabs(cross(a, b));
  return 4.0f * area / kmath::max(length(a) * length(b) * length(c), 1e-12f);
}

/// Separation exclusion band: max(round(w / max(l, 1e-9)), 1), 1 if not finite.
KOKKOS_INLINE_FUNCTION int sep_band(float l, float w) {
  const float r = w / kmath::max(l, 1e-9f);
  if (!kmath::isfinite(r)) return 1;
  const double b = round_half_away(static_cast<double>(r));
  return b < 1.0 ? 1 : (b > 1.0e9 ? 1000000000 : static_cast<int>(b));
}

/// orient(o, p, q) = (q.y - o.y)(p.x - o.x) - (p.y - o.y)(q.x - o.x).
KOKKOS_INLINE_FUNCTION float orient(Vec2f o, Vec2f p, Vec2f q) {
  return (q.y - o.y) * (p.x - o.x) - (p.y - o.y) * (q.x - o.x);
}

/// The tolerant crossing predicate of XCOUNT (docs/algorithms.md#xcount): segments
/// (ai, bi) and (aj, bj) cross properly, with tolerances 1e-3 * |segment|^2.
KOKKOS_INLINE_FUNCTION bool segments_cross_tol(Vec2f ai, Vec2f bi, Vec2f aj, Vec2f bj) {
  const float d1 = orient(aj, bj, ai), d2 = orient(aj, bj, bi);
  const float d3 = orient(ai, bi, aj), d4 = orient(ai, bi, bj);
  const float ej = 1e-3f * length_sq(bj - aj), ei = 1e-3f * length_sq(bi - ai);
  const bool s1 = (d1 > ej && d2 < -ej) || (d1 < -ej && d2 > ej);
  const bool s2 = (d3 > ei && d4 < -ei) || (d3 < -ei && d4 > ei);
  return s1 && s2;
}

/// Strict proper crossing, no tolerance: (d1 > 0) != (d2 > 0) and
/// (d3 > 0) != (d4 > 0) with all four nonzero (collinear, touching and
/// degenerate segments do not cross).
KOKKOS_INLINE_FUNCTION bool segments_cross_strict(Vec2f a0, Vec2f a1, Vec2f b0, Vec2f b1) {
  const float d1 = orient(b0, b1, a0), d2 = orient(b0, b1, a1);
  const float d3 = orient(a0, a1, b0), d4 = orient(a0, a1, b1);
  if (d1 == 0.0f || d2 == 0.0f || d3 == 0.0f || d4 == 0.0f) return false;
  return ((d1 > 0.0f) != (d2 > 0.0f)) && ((d3 > 0.0f) != (d4 > 0.0f));
}

/// The tolerance-free sign predicate: segments (a0, a1) and (b0, b1) cross iff
/// (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0), d1, d2 = orient(b0, b1, a0 / a1),
/// d3, d4 = orient(a0, a1, b0 / b1), in float. A zero orientation counts as the
/// non-positive side (no zero check): an end point lying exactly on the other
/// segment's line (a vertex touching a non-adjacent edge, exactly collinear
/// points) can count as a crossing. The predicate of the checkpoint clip and of
/// the metrics' self-intersection test (docs/algorithms.md#metrics).
KOKKOS_INLINE_FUNCTION bool segments_cross_sign(Vec2f a0, Vec2f a1, Vec2f b0, Vec2f b1) {
  const float d1 = orient(b0, b1, a0), d2 = orient(b0, b1, a1);
  const float d3 = orient(a0, a1, b0), d4 = orient(a0, a1, b1);
  return ((d1 > 0.0f) != (d2 > 0.0f)) && ((d3 > 0.0f) != (d4 > 0.0f));
}

/// Closest point to p on segment [a, b]; parameter clamped to [0, 1]; a
/// degenerate segment (|ab|^2 <= 1e-12) gives a.
KOKKOS_INLINE_FUNCTION Vec2f closest_point_on_segment(Vec2f p, Vec2f a, Vec2f b) {
  const Vec2f ab = b - a;
  const float l2 = length_sq(ab);
  if (l2 <= 1e-12f) return a;
  const float t = kmath::clamp(dot(p - a, ab) / l2, 0.0f, 1.0f);
  return a + t * ab;
}

/// Twice the signed (shoelace) area of the closed loop p[0..n), in double:
/// sum of p_i x p_{i+1}. Positive for CCW loops.
KOKKOS_INLINE_FUNCTION double shoelace2(const Vec2f* p, int n) {
  double a = 0.0;
  for (int i = 0; i < n; ++i) {
    const Vec2f u = p[i], v = p[(i + 1) % n];
    a += static_cast<double>(u.x) * v.y - static_cast<double>(u.y) * v.x;
  }
  return a;
}

/// Total turning of the closed loop p[0..n): sum of wrap(theta_i - theta_{i-1})
/// over edge headings theta_i = atan2(e_i), e_i = p_{i+1} - p_i (a zero edge has
/// heading 0). About +-2pi for a simple loop, 0 for a figure eight.
KOKKOS_INLINE_FUNCTION float total_turning(const Vec2f* p, int n) {
  if (n < 2) return 0.0f;
  float turn = 0.0f;
  const Vec2f e_last = p[0] - p[n - 1];
  float prev = kmath::atan2(e_last.y, e_last.x);
  for (int i = 0; i < n; ++i) {
    const Vec2f e = p[(i + 1) % n] - p[i];
    const float th = kmath::atan2(e.y, e.x);
    turn += wrap_angle(th - prev);
    prev = th;
  }
  return turn;
}

/// Point read as 0 where a coordinate is NaN (XCOUNT's convention).
KOKKOS_INLINE_FUNCTION Vec2f nan_to_zero(Vec2f p) {
  return {kmath::isnan(p.x) ? 0.0f : p.x, kmath::isnan(p.y) ? 0.0f : p.y};
}

/// XCOUNT restricted to segment i: proper crossings (tolerant predicate of
/// segments_cross_tol, same float expressions) of segment i with every segment
/// j > i, circ(i, j, n) > 1, of the closed loop p[0..n). NaN coordinates read as
/// 0. Summing over i gives XCOUNT. Written for speed (XCOUNT is the O(N^2) cost
/// of generators and the border check): no modulo or circ_dist per pair (for
/// j >= i + 2, circ(i, j, n) <= 1 only at i == 0, j == n - 1), each point read
/// and NaN-cleaned once, and the straddle test of segment i against line j
/// before the rarely needed one of j against line i.
KOKKOS_INLINE_FUNCTION int xcount_segment(const Vec2f* p, int n, int i) {
  const int jend = i == 0 ? n - 1 : n;
  if (i + 2 >= jend) return 0;
  const Vec2f ai = nan_to_zero(p[i]), bi = nan_to_zero(p[i + 1 < n ? i + 1 : 0]);
  const float ei = 1e-3f * length_sq(bi - ai);
  int c = 0;
  Vec2f aj = nan_to_zero(p[i + 2]);
  for (int j = i + 2; j < jend; ++j) {
    const Vec2f bj = nan_to_zero(p[j + 1 < n ? j + 1 : 0]);
    const float d1 = orient(aj, bj, ai), d2 = orient(aj, bj, bi);
    const float ej = 1e-3f * length_sq(bj - aj);
    if ((d1 > ej && d2 < -ej) || (d1 < -ej && d2 > ej)) {
      const float d3 = orient(ai, bi, aj), d4 = orient(ai, bi, bj);
      if ((d3 > ei && d4 < -ei) || (d3 < -ei && d4 > ei)) ++c;
    }
    aj = bj;
  }
  return c;
}

/// XCOUNT: number of proper crossings between non-adjacent segments of the
/// closed loop p[0..n) (docs/algorithms.md#xcount).
KOKKOS_INLINE_FUNCTION int xcount(const Vec2f* p, int n) {
  int c = 0;
  for (int i = 0; i < n; ++i) c += xcount_segment(p, n, i);
  return c;
}

/// Closed axis-aligned box [x0, x1] x [y0, y1].
struct Box2f {
  float x0, y0, x1, y1;
};

/// The box of segment (a, b): min and max are exact, so it holds every point of
/// the segment.
KOKKOS_INLINE_FUNCTION Box2f segment_box(Vec2f a, Vec2f b) {
  return {kmath::min(a.x, b.x), kmath::min(a.y, b.y), kmath::max(a.x, b.x), kmath::max(a.y, b.y)};
}

/// The smallest box holding `a` and `b`.
KOKKOS_INLINE_FUNCTION Box2f box_union(const Box2f& a, const Box2f& b) {
  return {kmath::min(a.x0, b.x0), kmath::min(a.y0, b.y0), kmath::max(a.x1, b.x1), kmath::max(a.y1, b.y1)};
}

/// Whether two closed boxes share a point.
KOKKOS_INLINE_FUNCTION bool boxes_touch(const Box2f& a, const Box2f& b) {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1;
}

/// Whether XCOUNT's box broadphase is exact on a loop whose NaN-cleaned points
/// span a box of squared diagonal `diag2` and whose shortest segment has squared
/// length `lmin2` (docs/algorithms.md#xcount). The float orientation of three
/// points o, p, q is within 4.0001 * 2^-24 * |q - o| |p - o| of its exact value;
/// with every point within diag of every other and every segment at least lmin
/// long, that error stays below the predicate's tolerance 1e-3 * lmin^2
/// whenever diag < 4194 * lmin. Then a pair the float predicate counts crosses
/// exactly, at a point inside both segments' boxes. Here diag < 1000 * lmin, and
/// lmin2 >= 1e-30 and diag2 <= 1e30 keep subnormal products and overflow out.
/// NaN or infinite extents fail the test.
KOKKOS_INLINE_FUNCTION bool xcount_broadphase_exact(float diag2, float lmin2) {
  return lmin2 >= 1e-30f && diag2 <= 1e30f && diag2 < 1e6f * lmin2;
}

namespace detail {
/// XCOUNT pairs (i, j) with segment i in [i0, i1) and j in [j0, j1), j > i + 1,
/// circ(i, j, n) > 1, whose segment boxes touch, tested with the XCOUNT predicate.
/// `jbox` holds every segment of [j0, j1).
KOKKOS_INLINE_FUNCTION int xcount_block_pair(const Vec2f* p, int n, int i0, int i1, int j0, int j1,
                                             const Box2f& jbox) {
  int c = 0;
  for (int i = i0; i < i1; ++i) {
    const Vec2f ai = nan_to_zero(p[i]), bi = nan_to_zero(p[i + 1 < n ? i + 1 : 0]);
    const Box2f si = segment_box(ai, bi);
    if (!boxes_touch(si, jbox)) continue;
    const int jlo = kmath::max(j0, i + 2), jhi = kmath::min(j1, i == 0 ? n - 1 : n);
    for (int j = jlo; j < jhi; ++j) {
      const Vec2f aj = nan_to_zero(p[j]), bj = nan_to_zero(p[j + 1 < n ? j + 1 : 0]);
      if (boxes_touch(si, segment_box(aj, bj)) && segments_cross_tol(ai, bi, aj, bj)) ++c;
    }
  }
  return c;
}
}  // namespace detail

/// XCOUNT of the closed loop p[0..n) by one thread with a box broadphase, equal
/// to xcount(p, n) (docs/algorithms.md#xcount): the segments are cut into at
/// most 64 runs of consecutive segments with their boxes; only pairs of runs
/// whose boxes touch, then only pairs of segments whose boxes touch, reach the
/// predicate. A pair the predicate counts always has touching boxes when
/// xcount_broadphase_exact holds for the loop; otherwise (and for n < 16) every
/// pair is tested, as xcount does.
KOKKOS_INLINE_FUNCTION int xcount_broadphase(const Vec2f* p, int n) {
  constexpr int max_runs = 64;
  if (n < 16) return xcount(p, n);
  const int run = kmath::max(8, (n + max_runs - 1) / max_runs);
  const int runs = (n + run - 1) / run;
  Box2f box[max_runs];
  const Vec2f first = nan_to_zero(p[0]);
  Box2f all{first.x, first.y, first.x, first.y};
  float lmin2 = 3.0e38f;
  for (int r = 0; r < runs; ++r) {
    const int s1 = kmath::min((r + 1) * run, n);
    Vec2f a = nan_to_zero(p[r * run]);
    Box2f b{a.x, a.y, a.x, a.y};
    for (int s = r * run; s < s1; ++s) {
      const Vec2f e = nan_to_zero(p[s + 1 < n ? s + 1 : 0]);
      b = box_union(b, segment_box(a, e));
      lmin2 = kmath::min(lmin2, length_sq(e - a));
      a = e;
    }
    box[r] = b;
    all = box_union(all, b);
  }
  const float dx = all.x1 - all.x0, dy = all.y1 - all.y0;
  if (!xcount_broadphase_exact(dx * dx + dy * dy, lmin2)) return xcount(p, n);
  int c = 0;
  for (int r = 0; r < runs; ++r) {
    for (int q = r; q < runs; ++q) {
      if (!boxes_touch(box[r], box[q])) continue;
      c += detail::xcount_block_pair(p, n, r * run, kmath::min((r + 1) * run, n), q * run,
                                     kmath::min((q + 1) * run, n), box[q]);
    }
  }
  return c;
}

/// Arc-length lookup: the first j in [0, m-1] with s[j+1] >= target for a
/// non-decreasing cumulative table s[0..m] (binary search, clamped to m-1).
KOKKOS_INLINE_FUNCTION int arc_segment(const float* s, int m, float target) {
  int lo = 0, hi = m - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (s[mid + 1] >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

/// Whether the table s[0..m] never falls (and holds no NaN): the tables for which
/// arc_segment_from walks to arc_segment's answer.
KOKKOS_INLINE_FUNCTION bool arc_table_rises(const float* s, int m) {
  unsigned falls = 0u;  // an integer mask, no early exit: the loop vectorizes
  for (int j = 0; j < m; ++j) falls |= s[j + 1] >= s[j] ? 0u : 1u;
  return falls == 0u;
}

/// arc_segment(s, m, target) given j = arc_segment(s, m, prev) for an earlier
/// target `prev`, on a table for which arc_table_rises: when target >= prev the
/// answer cannot be below j, so a walk up from j finds it (a few steps for the
/// evenly spaced targets of a resample, without the search's unpredictable
/// branches); otherwise (a falling or NaN target) it is searched afresh.
KOKKOS_INLINE_FUNCTION int arc_segment_from(const float* s, int m, float target, float prev, int j) {
  if (!(target >= prev)) return arc_segment(s, m, target);
  while (j < m - 1 && !(s[j + 1] >= target)) ++j;
  return j;
}

/// arc_segment's answers for a run of targets on one table s[0..m], each walked
/// up from the previous one (arc_segment_from) when arc_table_rises: the
/// resamplers' lookups on a host space, where one thread places an env's points
/// in order.
struct ArcWalk {
  const float* s;
  int m;
  bool rises;
  int j = 0;             // at or below every answer, so the first target walks from it
  float prev = -FLT_MAX;
  KOKKOS_INLINE_FUNCTION ArcWalk(const float* table, int segments)
      : s(table), m(segments), rises(arc_table_rises(table, segments)) {}
  /// arc_segment(s, m, target).
  KOKKOS_INLINE_FUNCTION int segment(float target) {
    j = rises ? arc_segment_from(s, m, target, prev, j) : arc_segment(s, m, target);
    prev = target;
    return j;
  }
};

/// The point of arc_point on segment j (the one arc_segment gives for `target`).
KOKKOS_INLINE_FUNCTION Vec2f arc_point_on(const Vec2f* p, const float* s, int m, float target, int j) {
  const Vec2f a = p[j], b = p[j + 1 < m ? j + 1 : 0];  // j is in [0, m - 1]: no division
  const float seg = length(b - a);
  const float frac = kmath::clamp((target - s[j]) / kmath::max(seg, 1e-12f), 0.0f, 1.0f);
  return a + frac * (b - a);
}

/// Point at arc length `target` on the closed polyline p[0..m) with cumulative
/// table s[0..m] (s[m] = perimeter): lerp on the segment from arc_segment with
/// frac = clamp((target - s_j) / max(seg_j, 1e-12), 0, 1), seg_j = |p_{j+1} - p_j|
/// (the float32 segment length the table was built from).
KOKKOS_INLINE_FUNCTION Vec2f arc_point(const Vec2f* p, const float* s, int m, float target) {
  return arc_point_on(p, s, m, target, arc_segment(s, m, target));
}

}  // namespace trackgen::geom
