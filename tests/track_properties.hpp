// Geometric properties of a finished track, checked on the host in double and
// written independently of the library's own validity code (no library geometry
// is used here): whether a closed polyline is simple, how close a border comes
// to the centre line, whether a border folds back, and how far each border point
// is from its own centre point. The pair searches use a uniform grid of segment
// bounding boxes (cells listed in a sorted vector): O(n log n), not O(n^2).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace trackgen::test::props {

struct P {
  double x = 0, y = 0;
};

inline P sub(P a, P b) { return {a.x - b.x, a.y - b.y}; }
inline double cross(P a, P b) { return a.x * b.y - a.y * b.x; }
inline double dot(P a, P b) { return a.x * b.x + a.y * b.y; }
inline double dist(P a, P b) { return std::hypot(a.x - b.x, a.y - b.y); }

/// Sign of the turn o -> a -> b: +1, -1 or 0 (collinear).
inline int side(P o, P a, P b) {
  const double v = cross(sub(a, o), sub(b, o));
  return (v > 0) - (v < 0);
}

/// Whether q, known to be collinear with [a, b], lies on the closed segment.
inline bool on_segment(P a, P b, P q) {
  return std::min(a.x, b.x) <= q.x && q.x <= std::max(a.x, b.x) && std::min(a.y, b.y) <= q.y &&
         q.y <= std::max(a.y, b.y);
}

/// Whether the closed segments [a0, a1] and [b0, b1] share a point (a proper
/// crossing, a touch, or a collinear overlap).
inline bool segments_meet(P a0, P a1, P b0, P b1) {
  const int d1 = side(b0, b1, a0), d2 = side(b0, b1, a1), d3 = side(a0, a1, b0), d4 = side(a0, a1, b1);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && on_segment(b0, b1, a0)) || (d2 == 0 && on_segment(b0, b1, a1)) ||
         (d3 == 0 && on_segment(a0, a1, b0)) || (d4 == 0 && on_segment(a0, a1, b1));
}

/// Distance from q to the closed segment [a, b].
inline double point_segment_distance(P q, P a, P b) {
  const P ab = sub(b, a);
  const double l2 = dot(ab, ab);
  const double t = l2 > 0 ? std::clamp(dot(sub(q, a), ab) / l2, 0.0, 1.0) : 0.0;
  return dist(q, {a.x + t * ab.x, a.y + t * ab.y});
}

/// The segments of a closed polyline p[0..n) (segment i joins p_i and p_{i+1 mod n})
/// binned into square cells of side `cell`: every cell a segment's bounding box
/// overlaps lists it.
class SegmentGrid {
 public:
  SegmentGrid(const std::vector<P>& p, double cell) : p_(p), cell_(cell) {
    const int n = static_cast<int>(p.size());
    for (int i = 0; i < n; ++i) {
      const P a = p[i], b = p[(i + 1) % n];
      const std::int64_t x0 = coord(std::min(a.x, b.x)), x1 = coord(std::max(a.x, b.x));
      const std::int64_t y0 = coord(std::min(a.y, b.y)), y1 = coord(std::max(a.y, b.y));
      for (std::int64_t x = x0; x <= x1; ++x) {
        for (std::int64_t y = y0; y <= y1; ++y) entries_.push_back({key(x, y), i});
      }
    }
    std::sort(entries_.begin(), entries_.end());
  }

  /// Calls f(i) for every segment listed in the cell of (x, y) coordinates.
  template <class F>
  void for_cell(std::int64_t x, std::int64_t y, F&& f) const {
    const auto lo = std::lower_bound(entries_.begin(), entries_.end(), std::make_pair(key(x, y), -1));
    for (auto it = lo; it != entries_.end() && it->first == key(x, y); ++it) f(it->second);
  }

  /// Calls f(i, j) for every pair i < j of segments that share a cell (a pair
  /// sharing several cells is reported once per cell).
  template <class F>
  void for_pairs(F&& f) const {
    for (std::size_t s = 0; s < entries_.size();) {
      std::size_t t = s;
      while (t < entries_.size() && entries_[t].first == entries_[s].first) ++t;
      for (std::size_t a = s; a < t; ++a) {
        for (std::size_t b = a + 1; b < t; ++b) f(entries_[a].second, entries_[b].second);
      }
      s = t;
    }
  }

  std::int64_t coord(double v) const { return static_cast<std::int64_t>(std::floor(v / cell_)); }

 private:
  static std::int64_t key(std::int64_t x, std::int64_t y) { return x * 4000037 + y; }
  const std::vector<P>& p_;
  double cell_;
  std::vector<std::pair<std::int64_t, int>> entries_;
};

/// Length of the longest segment of the closed polyline p.
inline double longest_segment(const std::vector<P>& p) {
  double m = 0;
  for (std::size_t i = 0; i < p.size(); ++i) m = std::max(m, dist(p[i], p[(i + 1) % p.size()]));
  return m;
}

/// Whether the closed polyline p is simple: no two non-adjacent segments share a
/// point. Loops of fewer than 4 points have no non-adjacent segments; non-finite
/// coordinates make a loop not simple.
inline bool is_simple_loop(const std::vector<P>& p) {
  const int n = static_cast<int>(p.size());
  for (const P& q : p) {
    if (!std::isfinite(q.x) || !std::isfinite(q.y)) return false;
  }
  if (n < 4) return true;
  const SegmentGrid grid(p, std::max(longest_segment(p), 1e-12));
  bool simple = true;
  grid.for_pairs([&](int i, int j) {
    const int d = std::abs(i - j);
    if (!simple || d <= 1 || d == n - 1) return;
    simple = !segments_meet(p[i], p[(i + 1) % n], p[j], p[(j + 1) % n]);
  });
  return simple;
}

/// Curvature of the circle through a, b, c (0 for collinear points).
inline double circle_curvature(P a, P b, P c) {
  const double d = dist(a, b) * dist(b, c) * dist(a, c);
  return d > 0 ? 2.0 * std::fabs(cross(sub(b, a), sub(c, a))) / d : 0.0;
}

/// Smallest "arc clearance" of the points of `border` from the closed polyline
/// `center`: distance to segment j plus the sagitta of that chord on the circle
/// of the larger curvature among the circles through its ends' neighbours (the
/// centre line between two points may be the chord or that arc). Searched up to
/// `reach` (returns `reach` when nothing is closer).
inline double arc_clearance(const std::vector<P>& border, const std::vector<P>& center, double reach) {
  const int n = static_cast<int>(center.size());
  std::vector<double> k(center.size()), sag(center.size());
  for (int i = 0; i < n; ++i) k[i] = circle_curvature(center[(i + n - 1) % n], center[i], center[(i + 1) % n]);
  for (int j = 0; j < n; ++j) {
    const double h = 0.5 * dist(center[j], center[(j + 1) % n]);
    const double x = std::max(k[j], k[(j + 1) % n]) * h;
    // R - sqrt(R^2 - h^2) with R = h / x; a chord longer than the diameter: h
    sag[j] = x >= 1 ? h : (x > 0 ? h * (1.0 - std::sqrt(1.0 - x * x)) / x : 0.0);
  }
  const SegmentGrid grid(center, std::max(reach, 1e-12));
  double m = reach;
  for (const P& q : border) {
    const std::int64_t cx = grid.coord(q.x), cy = grid.coord(q.y);
    for (std::int64_t x = cx - 1; x <= cx + 1; ++x) {
      for (std::int64_t y = cy - 1; y <= cy + 1; ++y) {
        grid.for_cell(x, y, [&](int j) {
          m = std::min(m, point_segment_distance(q, center[j], center[(j + 1) % n]) + sag[j]);
        });
      }
    }
  }
  return m;
}

/// Smallest advance of border segment i along centre segment i, relative to the
/// centre segment's length: dot(b_{i+1} - b_i, c_{i+1} - c_i) / |c_{i+1} - c_i|^2.
/// Negative where the border folds back.
inline double min_advance(const std::vector<P>& border, const std::vector<P>& center) {
  const std::size_t n = center.size();
  double m = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    const P dc = sub(center[(i + 1) % n], center[i]), db = sub(border[(i + 1) % n], border[i]);
    const double l2 = dot(dc, dc);
    if (l2 > 0) m = std::min(m, dot(db, dc) / l2);
  }
  return m;
}

/// Largest deviation | |border_i - center_i| - hw | / hw over the points.
inline double offset_error(const std::vector<P>& border, const std::vector<P>& center, double hw) {
  double m = 0;
  for (std::size_t i = 0; i < center.size(); ++i) m = std::max(m, std::fabs(dist(border[i], center[i]) - hw) / hw);
  return m;
}

}  // namespace trackgen::test::props
