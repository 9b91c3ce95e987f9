// Device building blocks of the track-quality metrics (reference section 5.1):
// per-vertex quantities of a closed polyline p[0..n) (edge i runs p_i -> p_{(i+1) mod n}).
// Header-only KOKKOS_INLINE_FUNCTIONs in double precision, callable from host
// code and from the per-env metrics kernel alike.
#pragma once

#include <trackgen/core/geometry.hpp>

namespace trackgen::detail::metrics {

/// Angle wrapped to [-pi, pi): ((a + pi) mod 2 pi) - pi with a floored modulo,
/// as numpy's `(a + np.pi) % (2 * np.pi) - np.pi`.
KOKKOS_INLINE_FUNCTION double wrap_pi(double a) {
  constexpr double two_pi = 2.0 * geom::pi_d;
  double r = a + geom::pi_d;
  r -= two_pi * kmath::floor(r / two_pi);
  if (r >= two_pi) r -= two_pi;  // rounding of the floored modulo
  if (r < 0.0) r = 0.0;
  return r - geom::pi_d;
}

/// Edge vector p_{(i+1) mod n} - p_i in double.
KOKKOS_INLINE_FUNCTION void edge(const Vec2f* p, int n, int i, double& dx, double& dy) {
  const Vec2f a = p[i], b = p[(i + 1) % n];
  dx = static_cast<double>(b.x) - static_cast<double>(a.x);
  dy = static_cast<double>(b.y) - static_cast<double>(a.y);
}

/// Length of edge i.
KOKKOS_INLINE_FUNCTION double edge_length(const Vec2f* p, int n, int i) {
  double dx, dy;
  edge(p, n, i, dx, dy);
  return kmath::sqrt(dx * dx + dy * dy);
}

/// Heading atan2 of edge i (a zero edge has heading 0).
KOKKOS_INLINE_FUNCTION double edge_heading(const Vec2f* p, int n, int i) {
  double dx, dy;
  edge(p, n, i, dx, dy);
  return kmath::atan2(dy, dx);
}

/// Signed turn angle at vertex i: heading(outgoing edge i) - heading(incoming
/// edge i-1), wrapped to [-pi, pi). Positive turns left (CCW).
KOKKOS_INLINE_FUNCTION double turn_angle(const Vec2f* p, int n, int i) {
  const int prev = (i + n - 1) % n;
  return wrap_pi(edge_heading(p, n, i) - edge_heading(p, n, prev));
}

/// Discrete curvature at vertex i: |turn_i| / max((l_i + l_{i-1}) / 2, 1e-9).
KOKKOS_INLINE_FUNCTION double vertex_curvature(double turn, double l_out, double l_in) {
  return kmath::fabs(turn) / kmath::max(0.5 * (l_out + l_in), 1e-9);
}

/// The tolerance-free sign predicate of the reference's metrics (5.1): segments
/// (a0, a1) and (b0, b1) cross iff (d1 > 0) != (d2 > 0) and (d3 > 0) != (d4 > 0),
/// d1, d2 = orient(b0, b1, a0 / a1), d3, d4 = orient(a0, a1, b0 / b1), in float.
/// A zero orientation counts as the non-positive side (no zero check): an end
/// point lying exactly on the other segment's line (a vertex touching a
/// non-adjacent edge, exactly collinear points) can count as a crossing. This is
/// what reproduces the reference table's pre-relax self-intersection rates
/// (bezier 3, hull 4, checkpoint 1, polar and voronoi 0 of 512 at seed 0), which
/// geom::segments_cross_strict (zeros never cross) gives as 0, 0, 1, 0, 0.
KOKKOS_INLINE_FUNCTION bool segments_cross_sign(Vec2f a0, Vec2f a1, Vec2f b0, Vec2f b1) {
  const float d1 = geom::orient(b0, b1, a0), d2 = geom::orient(b0, b1, a1);
  const float d3 = geom::orient(a0, a1, b0), d4 = geom::orient(a0, a1, b1);
  return ((d1 > 0.0f) != (d2 > 0.0f)) && ((d3 > 0.0f) != (d4 > 0.0f));
}

/// Crossings (segments_cross_sign) of edge i with every later non-adjacent edge
/// j (i + 2 <= j < n, and not the pair (0, n-1)). Summing over i counts each
/// crossing pair once.
KOKKOS_INLINE_FUNCTION int edge_crossings(const Vec2f* p, int n, int i) {
  int c = 0;
  const Vec2f a0 = p[i], a1 = p[(i + 1) % n];
  const int j_end = i == 0 ? n - 1 : n;
  for (int j = i + 2; j < j_end; ++j) {
    if (segments_cross_sign(a0, a1, p[j], p[(j + 1) % n])) ++c;
  }
  return c;
}

/// Chicane count of a signed turn sequence t[0..n) (stride 1): turns with
/// |t| < min_turn are dropped, then sign changes between consecutive remaining
/// turns are counted (non-cyclic, in index order).
KOKKOS_INLINE_FUNCTION int chicane_count(const double* t, int n, double min_turn) {
  int count = 0, last = 0;
  for (int i = 0; i < n; ++i) {
    if (!(kmath::fabs(t[i]) >= min_turn)) continue;
    const int s = t[i] > 0.0 ? 1 : -1;
    if (last != 0 && s != last) ++count;
    last = s;
  }
  return count;
}

}  // namespace trackgen::detail::metrics
