// Support of the metrics tests: analytic closed loops (circle, square, figure
// eight, sine wiggle) and flat batches of them.
#pragma once

#include "support.hpp"

#include <trackgen/core/geometry.hpp>

#include <cmath>
#include <vector>

namespace trackgen::test::metrics {

using Loop = std::vector<Vec2f>;
using geom::pi_d;

// ---------------------------------------------------------------------------
// Analytic shapes (closed loops, no repeated end point)

/// n points on a circle of radius r; CCW unless `cw`; starting at `phase`.
inline Loop circle(int n, double r, bool cw = false, double phase = 0.0, double cx = 0.0, double cy = 0.0) {
  Loop p;
  for (int i = 0; i < n; ++i) {
    const double t = phase + (cw ? -1.0 : 1.0) * 2.0 * pi_d * i / n;
    p.push_back({float(cx + r * std::cos(t)), float(cy + r * std::sin(t))});
  }
  return p;
}

/// Axis-aligned square of side `side`, `per_edge` points per edge (corners
/// included once), CCW.
inline Loop square(double side, int per_edge) {
  const double h = side / 2;
  const double cx[4] = {-h, h, h, -h}, cy[4] = {-h, -h, h, h};
  Loop p;
  for (int k = 0; k < 4; ++k) {
    const int k1 = (k + 1) % 4;
    for (int i = 0; i < per_edge; ++i) {
      const double f = double(i) / per_edge;
      p.push_back({float(cx[k] + f * (cx[k1] - cx[k])), float(cy[k] + f * (cy[k1] - cy[k]))});
    }
  }
  return p;
}

/// Lemniscate of Gerono x = sin t, y = sin t cos t: one crossing at the origin
/// (sampled off-vertex).
inline Loop figure_eight(int n) {
  Loop p;
  for (int i = 0; i < n; ++i) {
    const double t = 2.0 * pi_d * (i + 0.5) / n;
    p.push_back({float(std::sin(t)), float(std::sin(t) * std::cos(t))});
  }
  return p;
}

/// Polar loop r(theta) = r0 * (1 + amp * sin(k theta)): alternating left and
/// right bends when amp * k^2 is large enough.
inline Loop wiggle(int n, double r0, double amp, int k) {
  Loop p;
  for (int i = 0; i < n; ++i) {
    const double t = 2.0 * pi_d * i / n;
    const double r = r0 * (1.0 + amp * std::sin(k * t));
    p.push_back({float(r * std::cos(t)), float(r * std::sin(t))});
  }
  return p;
}

/// A flat [E*stride] batch: env e holds loops[e] then `pad` in its padding.
struct HostBatch {
  int stride = 0;
  std::vector<Vec2f> points;
  std::vector<int> count;
  int num_envs() const { return static_cast<int>(count.size()); }
};

inline HostBatch make_batch(const std::vector<Loop>& loops, int stride, Vec2f pad = nan2()) {
  HostBatch b;
  b.stride = stride;
  for (const auto& l : loops) {
    REQUIRE(static_cast<int>(l.size()) <= stride);
    for (int i = 0; i < stride; ++i) b.points.push_back(i < static_cast<int>(l.size()) ? l[i] : pad);
    b.count.push_back(static_cast<int>(l.size()));
  }
  return b;
}

/// Writes `loop` (z = 0) into env e of a host [E*n_max] Vec3f View.
template <class H>
void set_env(const H& center, int e, int n_max, const Loop& loop) {
  for (int i = 0; i < static_cast<int>(loop.size()); ++i) center(e * n_max + i) = {loop[i].x, loop[i].y, 0.0f};
}

}  // namespace trackgen::test::metrics
