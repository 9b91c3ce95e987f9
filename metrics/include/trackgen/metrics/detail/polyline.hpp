// Device building blocks of the track-quality metrics (docs/algorithms.md#metrics):
// per-vertex quantities of a closed polyline p[0..n) (edge i runs p_i -> p_{(i+1) mod n}).
// Header-only KOKKOS_INLINE_FUNCTIONs in double precision, callable from host
// code and from the per-env metrics kernel alike.
#pragma once

#include <trackgen/core/geometry.hpp>

namespace trackgen::detail::metrics {

/// Angle wrapped to [-pi, pi): ((a + pi) mod 2 pi) - pi with a floored modulo,
/// as numpy's `(a + np.pi) % (2 * np.pi) - np.pi`.
KOKKOS_INLINE_FUNCTION double wrap_pi(double a) {
  constexpr double two_pi = geom::two_pi_d;
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

/// Crossings (geom::segments_cross_sign) of edge i with every later
/// non-adjacent edge j (i + 2 <= j < n, and not the pair (0, n-1)). Summing
/// over i counts each crossing pair once. This predicate, without XCOUNT's
/// tolerance, is what reproduces the pre-relax self-intersection rates of the
/// original system's quality table (bezier 3, hull 4, checkpoint 1, polar and
/// voronoi 0 of 512 at seed 0); geom::segments_cross_strict (zeros never cross)
/// gives 0, 0, 1, 0, 0.
KOKKOS_INLINE_FUNCTION int edge_crossings(const Vec2f* p, int n, int i) {
  int c = 0;
  const Vec2f a0 = p[i], a1 = p[(i + 1) % n];
  const int j_end = i == 0 ? n - 1 : n;
  for (int j = i + 2; j < j_end; ++j) {
    if (geom::segments_cross_sign(a0, a1, p[j], p[(j + 1) % n])) ++c;
  }
  return c;
}

/// Isoperimetric quotient 4 pi area / perimeter^2 (1 = circle; 0 if perimeter <= 0).
KOKKOS_INLINE_FUNCTION double compactness(double area, double perimeter) {
  return perimeter > 0.0 ? 4.0 * geom::pi_d * area / (perimeter * perimeter) : 0.0;
}

/// Perimeter of the closed polyline p[0..n): edge_length summed in index order.
KOKKOS_INLINE_FUNCTION double loop_perimeter(const Vec2f* p, int n) {
  double l = 0.0;
  for (int i = 0; i < n; ++i) l += edge_length(p, n, i);
  return l;
}

/// compactness of the closed polyline p[0..n) (area |shoelace| / 2).
KOKKOS_INLINE_FUNCTION double loop_compactness(const Vec2f* p, int n) {
  const double area = n > 0 ? 0.5 * kmath::fabs(geom::shoelace2(p, n)) : 0.0;
  return compactness(area, loop_perimeter(p, n));
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
