// The border grid (internal; see docs/algorithms.md#border-grid): per env, a
// uniform grid of square cells over the plan-view bounding box of both
// borders, each cell listing the border segments whose bounding box meets the
// cell widened by a margin `delta`, plus one parity bit per border that lets
// the ray-crossing parity of any point of the cell be counted from the cell's
// own list. Built once per (re)generated track; the segments query and the
// signed distance field bake read only the cells near what they look at.
//
// Cell (cx, cy) of an env spans [x0(cx), x0(cx + 1)] x [y0(cy), y0(cy + 1)]
// with x0(c) = lo.x + c * h (always computed by cell_x0, so every bound is the
// same float wherever it is used); its widened region E(c) is
// [x0(cx) - delta, x0(cx + 1) + delta] x [the same in y]. A segment is listed
// in exactly the cells whose widened region its bounding box meets (closed
// intervals). Bit b of a cell is the parity of the segments of border b that
// cross the vertical line x* = x0(cx + 1) + delta (min x <= x* < max x) and
// lie wholly above the widened cell (min y > y0(cy + 1) + delta).
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/detail/polyline.hpp>
#include <trackgen/runtime/geometry.hpp>

#include <cstddef>
#include <cstdint>

namespace trackgen::detail {

/// Where an env's grid lies. gx = 0: no grid (fewer than 3 points, a
/// non-finite or zero-size border box, or more listed segments than the
/// capacity); queries of the env then read every segment.
struct GridHeader {
  Vec2f lo{0.0f, 0.0f};     ///< lower corner
  float h = 0.0f;           ///< cell side
  float inv_h = 0.0f;       ///< 1 / h
  float delta = 0.0f;       ///< registration margin (far above the rounding of the coordinates)
  float tol = 0.0f;         ///< slack of the distance lower bounds (rounding of the distances)
  int gx = 0, gy = 0;       ///< cells per axis, at most the grid's side
  std::uint32_t stamp = 0;  ///< builds of this env's grid so far (wrapping past 0 to 1; 0: never built)
};

/// The border grids of a batch: cells[e * (side^2 + 1) + c] holds
/// (first listed segment << 2) | parity bits of cell c = cy * gx + cx (the
/// entry after the last cell: the list's end << 2); refs[e * capacity + k] a
/// listed segment: border << 15 | index (the segment index -> index + 1,
/// closing m - 1 -> 0).
template <class Space>
struct BorderGrid {
  DView<GridHeader, Space> header;    ///< [E]
  DView<std::uint32_t, Space> cells;  ///< [E * (side^2 + 1)]
  DView<std::uint16_t, Space> refs;   ///< [E * capacity]
  int side = 0;                       ///< cells per axis at most
  int capacity = 0;                   ///< listed segments per env at most

  /// An independent deep copy.
  BorderGrid clone() const;
};

/// The grid side for tracks of n_max points: cells of about a track width
/// for the default tracks (about 1.5 border segments per cell).
inline int border_grid_side(int n_max) {
  int s = 8;
  while (s < 128 && 3 * s * s < 2 * n_max) ++s;
  return s;
}

/// Listed segments an env's grid holds at most (a border segment meets about 2
/// cells; an env needing more gets no grid).
inline int border_grid_capacity(int n_max) { return 6 * n_max + 64; }

/// Bytes of a BorderGrid of `num_envs` envs of tracks of n_max points.
std::size_t border_grid_bytes(std::size_t num_envs, int n_max);

/// Allocates the grids of `num_envs` envs on `space` (every env without a grid
/// until built).
template <class Space>
BorderGrid<Space> make_border_grid(const Space& space, int num_envs, int n_max);

/// Builds the grids of the envs with mask[e] != 0 (every env without a mask)
/// from the Track's borders: one thread per env.
template <class Space>
void build_border_grid(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                       const BorderGrid<Space>& grid, const DView<std::int32_t, Space>& mask);

/// The encoding of a listed segment.
KOKKOS_INLINE_FUNCTION constexpr std::uint16_t grid_ref(int border, int index) {
  return static_cast<std::uint16_t>((border << 15) | index);
}
KOKKOS_INLINE_FUNCTION constexpr int ref_border(std::uint16_t r) { return r >> 15; }
KOKKOS_INLINE_FUNCTION constexpr int ref_index(std::uint16_t r) { return r & 0x7fff; }

/// The lower x bound of cell column c (c = gx: the grid's upper x bound).
KOKKOS_INLINE_FUNCTION float cell_x0(const GridHeader& g, int c) { return g.lo.x + static_cast<float>(c) * g.h; }
/// The lower y bound of cell row c.
KOKKOS_INLINE_FUNCTION float cell_y0(const GridHeader& g, int c) { return g.lo.y + static_cast<float>(c) * g.h; }

/// The line x* = x0(cx + 1) + delta of the parity rule for the cells of
/// column cx (or a rectangle of cells whose right column is cx): the widened
/// right edge of the column.
KOKKOS_INLINE_FUNCTION float parity_x(const GridHeader& g, int cx) { return cell_x0(g, cx + 1) + g.delta; }

/// The widened region of a rectangle of cells [x0, x1] x [y0, y1] (inclusive
/// cell indices).
KOKKOS_INLINE_FUNCTION ChunkBox widened(const GridHeader& g, int x0, int x1, int y0, int y1) {
  return {Vec2f{cell_x0(g, x0) - g.delta, cell_y0(g, y0) - g.delta},
          Vec2f{cell_x0(g, x1 + 1) + g.delta, cell_y0(g, y1 + 1) + g.delta}};
}

/// Whether two closed boxes meet.
KOKKOS_INLINE_FUNCTION bool boxes_meet(const ChunkBox& a, const ChunkBox& b) {
  return a.hi.x >= b.lo.x && a.lo.x <= b.hi.x && a.hi.y >= b.lo.y && a.lo.y <= b.hi.y;
}

/// The bounding box of segment [a, b].
KOKKOS_INLINE_FUNCTION ChunkBox segment_box(Vec2f a, Vec2f b) {
  return {Vec2f{kmath::min(a.x, b.x), kmath::min(a.y, b.y)}, Vec2f{kmath::max(a.x, b.x), kmath::max(a.y, b.y)}};
}

/// The cell column of coordinate x, or -1 outside the grid (also for NaN).
KOKKOS_INLINE_FUNCTION int cell_column(const GridHeader& g, float x) {
  const float f = (x - g.lo.x) * g.inv_h;
  return f >= 0.0f && f < static_cast<float>(g.gx) ? kmath::min(static_cast<int>(f), g.gx - 1) : -1;
}
/// The cell row of coordinate y, or -1 outside the grid.
KOKKOS_INLINE_FUNCTION int cell_row(const GridHeader& g, float y) {
  const float f = (y - g.lo.y) * g.inv_h;
  return f >= 0.0f && f < static_cast<float>(g.gy) ? kmath::min(static_cast<int>(f), g.gy - 1) : -1;
}

/// The column of coordinate x clamped to the grid (for ranges; x finite or +-inf).
KOKKOS_INLINE_FUNCTION int clamped_column(const GridHeader& g, float x) {
  const float f = (x - g.lo.x) * g.inv_h;
  if (!(f >= 0.0f)) return 0;  // also NaN
  return f >= static_cast<float>(g.gx - 1) ? g.gx - 1 : static_cast<int>(f);
}
/// The row of coordinate y clamped to the grid.
KOKKOS_INLINE_FUNCTION int clamped_row(const GridHeader& g, float y) {
  const float f = (y - g.lo.y) * g.inv_h;
  if (!(f >= 0.0f)) return 0;
  return f >= static_cast<float>(g.gy - 1) ? g.gy - 1 : static_cast<int>(f);
}

/// Whether `lower` (a squared lower bound of the distances of some segments,
/// from bounding boxes) shows that none of them reaches `bound` (a squared
/// distance): with margins for the rounding of the distances it bounds
/// (relative 1e-4, and `tol`, the absolute error of a distance at the
/// coordinates' magnitude; 2 tol sqrt(bound) <= tol (bound + 1)).
KOKKOS_INLINE_FUNCTION bool cannot_improve(float lower, float bound, float tol) {
  return lower > bound * (1.0f + 1e-4f) + 1e-12f + tol * (bound + 1.0f + tol);
}

/// Squared distance between two plan-view boxes (0 when they meet).
KOKKOS_INLINE_FUNCTION float box_gap2(const ChunkBox& a, const ChunkBox& b) {
  const float dx = kmath::max(kmath::max(a.lo.x - b.hi.x, b.lo.x - a.hi.x), 0.0f);
  const float dy = kmath::max(kmath::max(a.lo.y - b.hi.y, b.lo.y - a.hi.y), 0.0f);
  return dx * dx + dy * dy;
}

/// Squared distance from q to a box (0 inside).
KOKKOS_INLINE_FUNCTION float point_gap2(Vec2f q, const ChunkBox& b) {
  const float dx = kmath::max(kmath::max(b.lo.x - q.x, q.x - b.hi.x), 0.0f);
  const float dy = kmath::max(kmath::max(b.lo.y - q.y, q.y - b.hi.y), 0.0f);
  return dx * dx + dy * dy;
}

/// The term of one listed segment [a, b] of a cell (or of a rectangle of
/// cells, the segments meeting its widened region listed) whose right column
/// is cx, in the ray-crossing parity of point p of that cell (x* = x0(cx + 1)
/// + delta): the segment's own crossing of p's ray (geom::ray_crosses, as a
/// plain count evaluates it), xor, when it straddles p.y and lies right of
/// x*, 1, xor, when it crosses the line x*, whether its endpoint right of x*
/// lies above p. The parity of a point is the cell's bit xor these terms over
/// the cell's segments of the border: it equals the count of every segment of
/// the border crossing p's ray (docs/algorithms.md#border-grid). Written
/// without branches or selects of loads (the crossing's x computed even when
/// unused, the tests combined bitwise) so that a loop over segments
/// vectorizes.
KOKKOS_INLINE_FUNCTION bool parity_term(Vec2f p, Vec2f a, Vec2f b, float x_star) {
  const float xmin = kmath::min(a.x, b.x), xmax = kmath::max(a.x, b.x);
  const bool a_above = a.y > p.y, b_above = b.y > p.y, a_right = a.x > b.x;
  const float x_hit = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);  // geom::ray_crosses'
  const bool own = (a_above != b_above) & ((p.x < x_hit) != (xmin > x_star));
  // The right end above p, from both ends' tests (bitwise, not a select of loads).
  const bool right_above = (a_right & a_above) | (!a_right & b_above);
  const bool line = (xmin <= x_star) & (x_star < xmax) & right_above;
  return own != line;
}

/// A rectangle of cells (inclusive indices; x0 > x1: empty).
struct CellRect {
  int x0 = 0, x1 = -1, y0 = 0, y1 = -1;
  KOKKOS_FUNCTION bool empty() const { return x0 > x1; }
  KOKKOS_FUNCTION bool contains(const CellRect& o) const {
    return o.x0 >= x0 && o.x1 <= x1 && o.y0 >= y0 && o.y1 <= y1;
  }
  /// The least rectangle holding both (neither empty).
  KOKKOS_FUNCTION CellRect united(const CellRect& o) const {
    return {kmath::min(x0, o.x0), kmath::max(x1, o.x1), kmath::min(y0, o.y0), kmath::max(y1, o.y1)};
  }
};

/// The cells covering `area` widened by r (clamped to the grid).
KOKKOS_INLINE_FUNCTION CellRect covering(const GridHeader& g, const ChunkBox& area, float r) {
  return {clamped_column(g, area.lo.x - r), clamped_column(g, area.hi.x + r), clamped_row(g, area.lo.y - r),
          clamped_row(g, area.hi.y + r)};
}

/// How far around the area walk_cells reads for v.reach2() = need2 (< 1e38):
/// every segment whose box lies farther lies beyond what cannot_improve
/// (with `tol`) allows for need2, and the margin delta of the listing.
KOKKOS_INLINE_FUNCTION float walk_reach(const GridHeader& g, float need2, float tol) {
  return kmath::sqrt(need2 * (1.0f + 1e-4f) + 1e-12f + tol * (need2 + 1.0f + tol)) + g.delta;
}

/// visit_cells for the cells of `part` (within `now`): a segment is visited
/// in the first cell of `now` (by row, then column) listing it, unless it
/// meets `old` (when `has_old`).
template <class Visitor>
KOKKOS_FUNCTION void visit_part(const GridHeader& g, const std::uint32_t* cells, const std::uint16_t* refs,
                                const Vec3f* const* borders, int m, const CellRect& part, const CellRect& now,
                                bool has_old, const ChunkBox& old, Visitor& v) {
  for (int cy = part.y0; cy <= part.y1; ++cy) {
    const float below = cell_y0(g, cy) + g.delta;  // the widened top of row cy - 1
    for (int cx = part.x0; cx <= part.x1; ++cx) {
      const float left = cell_x0(g, cx) + g.delta;  // the widened right of column cx - 1
      const int c = cy * g.gx + cx;
      const std::uint32_t end = cells[c + 1] >> 2;
      for (std::uint32_t t = cells[c] >> 2; t < end; ++t) {
        const int b = ref_border(refs[t]), i = ref_index(refs[t]);
        const Vec2f a = geom::xy(borders[b][i]), e = geom::xy(borders[b][i + 1 < m ? i + 1 : 0]);
        const ChunkBox sb = segment_box(a, e);
        if ((cx > now.x0 && sb.lo.x <= left) || (cy > now.y0 && sb.lo.y <= below)) continue;
        if (has_old && boxes_meet(sb, old)) continue;
        v(b, i, a, e, sb);
      }
    }
  }
}

/// Calls v(border, index, a, b, box) once for every segment [a, b] listed in
/// the cells of `now` and not in those of `before` (before within now; a
/// segment meeting the widened region of `before` was listed there; one
/// listed in several cells of `now` is visited in the first, by row then
/// column).
template <class Visitor>
KOKKOS_FUNCTION void visit_cells(const GridHeader& g, const std::uint32_t* cells, const std::uint16_t* refs,
                                 const Vec3f* const* borders, int m, const CellRect& now, const CellRect& before,
                                 Visitor& v) {
  if (before.empty()) return visit_part(g, cells, refs, borders, m, now, now, false, ChunkBox{}, v);
  const ChunkBox old = widened(g, before.x0, before.x1, before.y0, before.y1);
  // The new cells: the rows below and above `before`, then left and right of it.
  visit_part(g, cells, refs, borders, m, CellRect{now.x0, now.x1, now.y0, before.y0 - 1}, now, true, old, v);
  visit_part(g, cells, refs, borders, m, CellRect{now.x0, now.x1, before.y1 + 1, now.y1}, now, true, old, v);
  visit_part(g, cells, refs, borders, m, CellRect{now.x0, before.x0 - 1, before.y0, before.y1}, now, true, old, v);
  visit_part(g, cells, refs, borders, m, CellRect{before.x1 + 1, now.x1, before.y0, before.y1}, now, true, old, v);
}

/// Visits (as visit_cells) every segment of the env that may lie within the
/// distance v.reach2() asks for of `area`: the cells covering the area first,
/// then, while v.reach2() (a squared distance; >= 1e38: not known yet, one
/// more ring of cells) reaches unread cells, those. Every segment not
/// visited lies farther from the area than cannot_improve (with `tol`)
/// allows for v.reach2() at the end.
template <class Visitor>
KOKKOS_FUNCTION void walk_cells(const GridHeader& g, const std::uint32_t* cells, const std::uint16_t* refs,
                                const Vec3f* const* borders, int m, const ChunkBox& area, float tol, Visitor& v) {
  CellRect done;
  CellRect now = covering(g, area, 0.0f);
  for (;;) {
    visit_cells(g, cells, refs, borders, m, now, done, v);
    done = now;
    const float need2 = v.reach2();
    if (need2 < 1e38f) {
      const CellRect want = covering(g, area, walk_reach(g, need2, tol));
      if (done.contains(want)) return;
      now = done.united(want);
    } else {
      now = {kmath::max(done.x0 - 1, 0), kmath::min(done.x1 + 1, g.gx - 1), kmath::max(done.y0 - 1, 0),
             kmath::min(done.y1 + 1, g.gy - 1)};
      if (done.contains(now)) return;
    }
  }
}

}  // namespace trackgen::detail
