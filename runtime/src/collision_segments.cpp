// The segments backend of CollisionChecker (see collision.hpp and
// docs/algorithms.md#collision).
//
// One thread per box. The contact is defined by a plain scan of every segment
// of both borders (inner first, each closing m-1 -> 0): each corner's
// ray-crossing parity per border, and the candidates of every segment
// (corners to the segment, the segment's start vertex to the solid box, 0 when
// it cuts the box) with ties to the lowest (border, index), within a segment
// to the first candidate. The query reads only the part of the env's border
// grid (detail/border_grid.hpp) near the box:
//  1. parities: each corner from its own cell (the cell's bit and terms of the
//     cell's segments, the same parity as counting every segment; even
//     outside the grid);
//  2. distances: the segments listed in the cells the box covers, then in the
//     cells within the distance that could still improve on the nearest so far
//     (and on the nearest of every corner outside its border), each segment
//     once, skipped when its bounding box shows it cannot change a result.
// A box with no corner outside its borders reads its cells in a near pass
// (every segment of a round measured in one vectorized loop) and keeps the
// first round's cells and segments, its NearSet; the next query of the box
// reads only that set while the set decides its contact (from_near_set), so
// an agent that moves a little per step reads a few hundred sequential bytes
// instead of scattered grid cells and border points.
// An env without a grid (an odd track, detail/border_grid.hpp) scans every
// segment instead, chunk by chunk with the same bounds: the same contacts.
// A box with a non-finite corner, or so far away that no squared distance is
// finite, is out of bounds without geometry (NaN, boundary -1).
#include <trackgen/core/detail/host_clones.hpp>
#include <trackgen/runtime/detail/border_grid.hpp>
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/common.hpp>

namespace trackgen::detail {
namespace {

KOKKOS_INLINE_FUNCTION void grow(ChunkBox& b, Vec2f q) {
  b.lo = Vec2f{kmath::min(b.lo.x, q.x), kmath::min(b.lo.y, q.y)};
  b.hi = Vec2f{kmath::max(b.hi.x, q.x), kmath::max(b.hi.y, q.y)};
}

/// The box under test: its geometry, corners and bounding box, and the
/// slack of the bounds on its distances (cannot_improve's tol): the rounding
/// of a distance at the track's magnitude, and of the box frame at the box's
/// (geom::point_box_distance and geom::segment_hits_box subtract its centre).
struct BoxShape {
  geom::Box2 box;
  Vec2f corner[4];
  ChunkBox extent;
  float tol;
};

/// The least squared distance a lower bound must exceed to show that what it
/// bounds cannot reach `bound` (cannot_improve's threshold).
KOKKOS_INLINE_FUNCTION float threshold(float bound, float tol) {
  return bound * (1.0f + 1e-4f) + 1e-12f + tol * (bound + 1.0f + tol);
}

/// What the distance pass accumulates (squared distances).
struct Nearest {
  float corner_min2[2][4];
  float best2 = 3e38f;
  float best_threshold = 3e38f;  // threshold(best2, tol)
  int border = 2, index = 0;
  Vec2f point = nan2();
  Vec2f start = nan2(), end = nan2();  // the nearest segment
  bool cut = false;

  /// Segment (border, i) = [a, c] with candidate squared distance d2 at
  /// point q (none unless d2 < 3e38: a candidate that far, or overflowing, is
  /// no candidate); whether it is the nearest now.
  KOKKOS_FUNCTION bool offer(int b, int i, float d2, Vec2f q, Vec2f a, Vec2f c, float tol) {
    if (!(d2 < 3e38f)) return false;
    if (!(d2 < best2 || (d2 == best2 && (b < border || (b == border && i < index))))) return false;
    best2 = d2;
    best_threshold = threshold(d2, tol);
    border = b;
    index = i;
    point = q;
    start = a;
    end = c;
    return true;
  }
};

/// The candidates of a segment [a, c] before its cut test: each corner's
/// squared distance to the segment (geom::closest_point_on_segment), the
/// least of them and of the start vertex's to the solid box
/// (geom::point_box_distance) with its point (the first on ties: corners in
/// order, then the vertex), and whether the cut test is needed (the bounding
/// boxes meet, with slack). The same operations in the same order as those
/// functions, so the same floats; the choices are selects, so a loop over
/// segments vectorizes (measure()).
struct Candidates {
  float corner2[4];
  float d2;
  Vec2f point;
  bool may_cut;
};

KOKKOS_INLINE_FUNCTION Candidates candidates(const BoxShape& s, Vec2f a, Vec2f c) {
  Candidates k;
  const float abx = c.x - a.x, aby = c.y - a.y;
  const float l2 = abx * abx + aby * aby;
  const bool point = l2 <= 1e-12f;  // closest_point_on_segment returns the start
  float best = 3e38f, bx = a.x, by = a.y;
  for (int j = 0; j < 4; ++j) {
    const float px = s.corner[j].x, py = s.corner[j].y;
    const float t = kmath::clamp(((px - a.x) * abx + (py - a.y) * aby) / l2, 0.0f, 1.0f);
    const float qx = point ? a.x : a.x + t * abx, qy = point ? a.y : a.y + t * aby;
    const float ex = px - qx, ey = py - qy;
    const float d2 = ex * ex + ey * ey;
    k.corner2[j] = d2;
    const bool nearer = d2 < best;
    best = nearer ? d2 : best;
    bx = nearer ? qx : bx;
    by = nearer ? qy : by;
  }
  const float dv = geom::point_box_distance(a, s.box);
  const bool vertex = dv * dv < best;
  k.d2 = vertex ? dv * dv : best;
  k.point = Vec2f{vertex ? a.x : bx, vertex ? a.y : by};
  k.may_cut = !cannot_improve(box_gap2(segment_box(a, c), s.extent), 0.0f, s.tol);
  return k;
}

/// Whether segment [a, c] cuts the box (tested only when may_cut); its
/// least candidate d2 at `point` then becomes 0 at the box centre's nearest
/// point.
KOKKOS_INLINE_FUNCTION bool cuts(const BoxShape& s, Vec2f a, Vec2f c, bool may_cut, float& d2, Vec2f& point) {
  if (!may_cut || !geom::segment_hits_box(a, c, s.box)) return false;
  d2 = 0.0f;
  point = geom::closest_point_on_segment(s.box.center, a, c);
  return true;
}

/// The candidates of segment [a, c] (index i of `border`): corners to the
/// segment, its start vertex to the solid box, 0 when it cuts the box; every
/// corner's nearest distance to the border kept.
KOKKOS_INLINE_FUNCTION void visit(const BoxShape& s, int border, int i, Vec2f a, Vec2f c, Nearest& r) {
  Candidates k = candidates(s, a, c);
  for (int j = 0; j < 4; ++j) r.corner_min2[border][j] = kmath::min(r.corner_min2[border][j], k.corner2[j]);
  if (cuts(s, a, c, k.may_cut, k.d2, k.point)) r.cut = true;
  r.offer(border, i, k.d2, k.point, a, c, s.tol);
}

/// Lanes the vectorized loops take at once: their segment counts are padded
/// to a multiple with far segments (NearSegments::pad()).
inline constexpr int lane_width = 8;

KOKKOS_INLINE_FUNCTION int padded(int n) { return (n + lane_width - 1) / lane_width * lane_width; }

/// Listed segments a round of the near pass reads at most (the lists of 3 x 3
/// cells; after the first round a segment once per cell listing it).
inline constexpr int near_capacity = 128;
static_assert(near_capacity % lane_width == 0 && near_set_capacity % lane_width == 0, "whole blocks of lanes");

/// The segments of a round of the near pass side by side.
struct NearSegments {
  float ax[near_capacity], ay[near_capacity], cx[near_capacity], cy[near_capacity];
  std::uint16_t ref[near_capacity];
  int n = 0;
  /// Fills lanes [n, padded(n)) with a far, degenerate segment: no candidate
  /// (its squared distances overflow), no cut test, no parity term.
  KOKKOS_FUNCTION void pad() {
    for (int k = n; k < padded(n); ++k) ax[k] = ay[k] = cx[k] = cy[k] = 3e37f, ref[k] = 0;
  }
};

/// Segments side by side (those of a NearSegments or of a NearSet), n of
/// them, padded.
struct Lanes {
  const float *ax, *ay, *cx, *cy;
  const std::uint16_t* ref;
  int n;
  KOKKOS_FUNCTION Vec2f a(int k) const { return Vec2f{ax[k], ay[k]}; }
  KOKKOS_FUNCTION Vec2f c(int k) const { return Vec2f{cx[k], cy[k]}; }
};

KOKKOS_INLINE_FUNCTION Lanes lanes(const NearSegments& v) { return {v.ax, v.ay, v.cx, v.cy, v.ref, v.n}; }
KOKKOS_INLINE_FUNCTION Lanes lanes(const NearSet& v) { return {v.ax, v.ay, v.cx, v.cy, v.ref, v.n}; }

/// What measure() gives for each lane (candidates(), less the corners'
/// distances; a candidate of 3e38 or more, or NaN, is none).
struct Measures {
  float d2[near_capacity], qx[near_capacity], qy[near_capacity];
  int may_cut[near_capacity];
};

/// candidates() of the lanes of v from lane `from` (a multiple of
/// lane_width), lane_width at a time (a loop a compiler vectorizes; per
/// instruction-set level on a host).
TRACKGEN_HOST_CLONES KOKKOS_INLINE_FUNCTION void measure(const BoxShape& s, const Lanes& v, Measures& out, int from) {
  for (int k0 = from; k0 < padded(v.n); k0 += lane_width) {
    for (int k = k0; k < k0 + lane_width; ++k) {
      const Candidates c = candidates(s, v.a(k), v.c(k));
      out.d2[k] = c.d2;
      out.qx[k] = c.point.x;
      out.qy[k] = c.point.y;
      out.may_cut[k] = c.may_cut ? 1 : 0;
    }
  }
}

/// Lane k's key for least(): the bits of its candidate (a square, never
/// negative, so its bits order as it does; 3e38 or more, and NaN, above every
/// candidate) above its segment (border, index: its grid_ref).
KOKKOS_INLINE_FUNCTION std::int64_t least_key(const Lanes& v, const Measures& m, int k) {
  std::uint32_t bits = 0;
  memcpy(&bits, &m.d2[k], sizeof(bits));
  return static_cast<std::int64_t>(bits) << 16 | v.ref[k];
}

/// The lane of the least (candidate, segment) of the lanes of v from lane
/// `from`, or -1 when none has a candidate: the least candidate, then the
/// least segment among the lanes giving it, the first such lane (an integer
/// minimum over lanes of least_key, vectorized).
TRACKGEN_HOST_CLONES KOKKOS_INLINE_FUNCTION int least(const Lanes& v, const Measures& m, int from) {
  std::int64_t low = INT64_MAX;
  for (int k = from; k < padded(v.n); ++k) {
    const std::int64_t key = least_key(v, m, k);
    low = key < low ? key : low;
  }
  constexpr float none = 3e38f;
  std::uint32_t none_bits = 0;
  memcpy(&none_bits, &none, sizeof(none_bits));
  if ((low >> 16) >= static_cast<std::int64_t>(none_bits)) return -1;
  int k = from;
  while (least_key(v, m, k) != low) ++k;
  return k;
}

/// Every segment of v from lane `from` (a multiple of lane_width) measured
/// (into m) and offered to r, as visit() one by one would (less the corners'
/// distances): the cut tests, then the least (distance, border, index)
/// offered; its lane when r took it, else -1.
KOKKOS_INLINE_FUNCTION int offer_all(const BoxShape& s, const Lanes& v, Nearest& r, Measures& m, int from = 0) {
  measure(s, v, m, from);
  for (int k = from; k < v.n; ++k) {
    if (m.may_cut[k] == 0) continue;
    Vec2f q{m.qx[k], m.qy[k]};
    if (cuts(s, v.a(k), v.c(k), true, m.d2[k], q)) r.cut = true;
    m.qx[k] = q.x, m.qy[k] = q.y;
  }
  const int k = least(v, m, from);
  return k >= 0 && r.offer(ref_border(v.ref[k]), ref_index(v.ref[k]), m.d2[k], Vec2f{m.qx[k], m.qy[k]}, v.a(k),
                           v.c(k), s.tol)
             ? k
             : -1;
}

/// The parity terms (parity_term with x*) of the segments of v for point p,
/// xor-ed per border: bit b for border b (a loop a compiler vectorizes).
TRACKGEN_HOST_CLONES KOKKOS_INLINE_FUNCTION int parity_terms(Vec2f p, const Lanes& v, float x_star) {
  int terms[near_capacity];  // per lane, then shifted to their borders and xor-ed: loops a compiler vectorizes
  for (int k0 = 0; k0 < padded(v.n); k0 += lane_width) {
    for (int k = k0; k < k0 + lane_width; ++k) terms[k] = parity_term(p, v.a(k), v.c(k), x_star) ? 1 : 0;
  }
  int t = 0;
  for (int k = 0; k < padded(v.n); ++k) t ^= terms[k] << (v.ref[k] >> 15);
  return t;
}

/// Per lane of v, a lower bound of the exact distance between its segment
/// and the solid box, from its measured candidate m.d2 (no cut): the least of
/// that and its end vertex's distance to the box, less tol (the rounding of
/// a distance); 0 when that is not positive or NaN (a loop a compiler
/// vectorizes).
TRACKGEN_HOST_CLONES KOKKOS_INLINE_FUNCTION void lower_bounds(const BoxShape& s, const Lanes& v, const Measures& m,
                                                               float* lo) {
  for (int k0 = 0; k0 < padded(v.n); k0 += lane_width) {
    for (int k = k0; k < k0 + lane_width; ++k) {
      const float d = kmath::min(kmath::sqrt(m.d2[k]), geom::point_box_distance(v.c(k), s.box)) - s.tol;
      lo[k] = d > 0.0f ? d : 0.0f;
    }
  }
}

/// Swaps a[i] and a[j].
template <class T>
KOKKOS_INLINE_FUNCTION void swap_at(T* a, int i, int j) {
  const T t = a[i];
  a[i] = a[j], a[j] = t;
}

/// What the distance pass needs besides the box: which corners lie outside
/// which border (their nearest distance to it must be exact) and the slack of
/// the bounds.
struct Search {
  bool violates[2][4];
  bool violated[2];  // some corner violates the border

  /// Whether a segment (or chunk) of `border` with bounding box b may change
  /// the result: nearer than the nearest so far, or than the nearest of a
  /// corner violating the border.
  KOKKOS_FUNCTION bool may_improve(const BoxShape& s, int border, const ChunkBox& b, const Nearest& r) const {
    if (!(box_gap2(b, s.extent) > r.best_threshold)) return true;
    if (!violated[border]) return false;
    for (int k = 0; k < 4; ++k) {
      if (violates[border][k] && !cannot_improve(point_gap2(s.corner[k], b), r.corner_min2[border][k], s.tol)) {
        return true;
      }
    }
    return false;
  }

  /// The squared distance every unread segment lies beyond for the search to
  /// end: the largest bound it still has to beat (3e38 while one is unset).
  KOKKOS_FUNCTION float reach2(const Nearest& r) const {
    float need = r.best2;
    for (int b = 0; b < 2; ++b) {
      for (int k = 0; k < 4; ++k) {
        if (violates[b][k]) need = kmath::max(need, r.corner_min2[b][k]);
      }
    }
    return need;
  }
};

template <class Space>
struct QuerySegments {
  Track<typename Space::memory_space> track;
  BorderGrid<Space> grid;
  DView<NearSet, Space> near;
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  BoxContact<Space> out;
  int boxes = 1;

  /// The corners' parities from their cells: each distinct cell's list read
  /// once for the corners in it; a corner outside the grid (cell -1) has
  /// even parities (docs/algorithms.md#border-grid).
  KOKKOS_FUNCTION static void grid_parity(const GridHeader& g, const std::uint32_t* cells, const std::uint16_t* refs,
                                          const Vec3f* const* borders, int m, const BoxShape& s, const int (&cell)[4],
                                          bool (&odd)[2][4]) {
    for (int k = 0; k < 4; ++k) odd[0][k] = odd[1][k] = false;
    for (int k = 0; k < 4; ++k) {
      if (cell[k] < 0) continue;
      bool first = true;
      for (int j = 0; j < k; ++j) first = first && cell[j] != cell[k];
      if (!first) continue;
      const std::uint32_t word = cells[cell[k]], end = cells[cell[k] + 1] >> 2;
      for (int j = k; j < 4; ++j) {
        if (cell[j] != cell[k]) continue;
        odd[0][j] = (word & 1u) != 0;
        odd[1][j] = (word & 2u) != 0;
      }
      const float x_star = parity_x(g, cell[k] % g.gx);
      for (std::uint32_t t = word >> 2; t < end; ++t) {
        const int b = ref_border(refs[t]), i = ref_index(refs[t]);
        const Vec2f a = geom::xy(borders[b][i]), c = geom::xy(borders[b][i + 1 < m ? i + 1 : 0]);
        for (int j = k; j < 4; ++j) {
          if (cell[j] == cell[k] && parity_term(s.corner[j], a, c, x_star)) odd[b][j] = !odd[b][j];
        }
      }
    }
  }

  /// The corners' parities by a scan of every segment: a segment crosses a
  /// corner's ray only if it straddles the box's y range (chunks wholly above
  /// or below it are skipped).
  KOKKOS_FUNCTION static void scan_parity(const Vec3f* const* borders, int m, const BoxShape& s, bool (&odd)[2][4]) {
    for (int b = 0; b < 2; ++b) {
      const Vec3f* const p = borders[b];
      for (int k = 0; k < 4; ++k) odd[b][k] = false;
      for (int chunk = 0; chunk < chunk_boxes(m); ++chunk) {
        const ChunkBox box = polyline_chunk_box(p, m, chunk);
        if (!(box.lo.y <= s.extent.hi.y && box.hi.y > s.extent.lo.y)) continue;
        const int first = chunk * polyline_chunk, last = kmath::min(first + polyline_chunk, m);
        for (int i = first; i < last; ++i) {
          const Vec2f a = geom::xy(p[i]), c = geom::xy(p[i + 1 < m ? i + 1 : 0]);
          if ((a.y > s.extent.hi.y && c.y > s.extent.hi.y) || (a.y <= s.extent.lo.y && c.y <= s.extent.lo.y)) continue;
          for (int k = 0; k < 4; ++k) {
            if (geom::ray_crosses(s.corner[k], a, c)) odd[b][k] = !odd[b][k];
          }
        }
      }
    }
  }

  /// The distances by a scan of every segment, chunk by chunk.
  KOKKOS_FUNCTION static void scan_distances(const Vec3f* const* borders, int m, const BoxShape& s, const Search& q,
                                             Nearest& r) {
    for (int b = 0; b < 2; ++b) {
      const Vec3f* const p = borders[b];
      for (int chunk = 0; chunk < chunk_boxes(m); ++chunk) {
        if (!q.may_improve(s, b, polyline_chunk_box(p, m, chunk), r)) continue;
        const int first = chunk * polyline_chunk, last = kmath::min(first + polyline_chunk, m);
        for (int i = first; i < last; ++i) {
          const Vec2f a = geom::xy(p[i]), c = geom::xy(p[i + 1 < m ? i + 1 : 0]);
          if (q.may_improve(s, b, segment_box(a, c), r)) visit(s, b, i, a, c, r);
        }
      }
    }
  }

  /// What the grid walk of the distances does with each segment.
  struct Distances {
    const BoxShape& s;
    const Search& q;
    Nearest& r;
    KOKKOS_FUNCTION void operator()(int b, int i, Vec2f a, Vec2f c, const ChunkBox& box) const {
      if (q.may_improve(s, b, box, r)) visit(s, b, i, a, c, r);
    }
    KOKKOS_FUNCTION float reach2() const { return q.reach2(r); }
  };

  /// The distances of a box with no corner outside its borders, read in
  /// rounds like walk_cells (the cells within a cell of the box's extent,
  /// then those within the reach of the nearest so far, until the cells read
  /// cover it), each round's new segments measured together (offer_all(); in
  /// the first round each segment once, in the first cell listing it, as
  /// visit_cells does; later a segment listed in several cells gives the same
  /// candidate again) and offered in the walk's terms. The cells read cover
  /// what walk_cells would read for the nearest found, so the result is
  /// walk_cells' with visit() (every candidate that ties or beats it is among
  /// those offered), without a branch on every segment. The rounds it took (v
  /// holds the first's segments when 1), or 0 (r unchanged) when a round's
  /// lists hold more than near_capacity, or after three rounds: the walk
  /// decides.
  KOKKOS_FUNCTION static int near_pass(const GridHeader& g, const std::uint32_t* cells, const std::uint16_t* refs,
                                       const Vec3f* const* borders, int m, const BoxShape& s, NearSegments& v,
                                       Nearest& r) {
    Nearest near_r = r;
    CellRect done;
    CellRect now = covering(g, s.extent, g.h);
    for (int round = 0; round < 3; ++round) {
      v.n = 0;
      // The new cells, row by row: left and right of `done` in its rows, the whole row elsewhere.
      for (int row = now.y0; row <= now.y1; ++row) {
        const bool old_row = !done.empty() && row >= done.y0 && row <= done.y1;
        const int from[2] = {now.x0, done.x1 + 1}, to[2] = {old_row ? done.x0 - 1 : now.x1, now.x1};
        const float below = cell_y0(g, row) + g.delta;  // the widened top of the row below
        for (int run = 0; run < (old_row ? 2 : 1); ++run) {
          if (from[run] > to[run]) continue;
          const std::uint32_t first = cells[row * g.gx + from[run]] >> 2, last = cells[row * g.gx + to[run] + 1] >> 2;
          if (static_cast<int>(last - first) > near_capacity - v.n) return 0;
          for (int col = from[run]; col <= to[run]; ++col) {
            const float left = cell_x0(g, col) + g.delta;  // the widened right of the column to the left
            for (std::uint32_t t = cells[row * g.gx + col] >> 2, end = cells[row * g.gx + col + 1] >> 2; t < end; ++t) {
              const std::uint16_t ref = refs[t];
              const Vec3f* const p = borders[ref_border(ref)];
              const int i = ref_index(ref);
              const Vec3f a = p[i], c = p[i + 1 < m ? i + 1 : 0];
              // In the first round, a segment listed in a cell before (it meets that cell's widened region).
              if (round == 0 &&
                  ((col > now.x0 && kmath::min(a.x, c.x) <= left) || (row > now.y0 && kmath::min(a.y, c.y) <= below)))
                continue;
              v.ax[v.n] = a.x, v.ay[v.n] = a.y, v.cx[v.n] = c.x, v.cy[v.n] = c.y, v.ref[v.n] = ref;
              ++v.n;
            }
          }
        }
      }
      v.pad();
      Measures m;
      offer_all(s, lanes(v), near_r, m);
      done = now;
      if (!(near_r.best2 < 1e38f)) return 0;
      const CellRect want = covering(g, s.extent, walk_reach(g, near_r.best2, s.tol));
      if (done.contains(want)) {
        r = near_r;
        return round + 1;
      }
      now = done.united(want);
    }
    return 0;
  }

  /// Keeps box b's NearSet: the first round's cells `rect` of a near pass
  /// and their segments v (each once), with the parity bits that give corner
  /// 0 its parities `odd` (found from the grid; a rectangle's bits serve
  /// every point of it).
  KOKKOS_FUNCTION void keep(int b, std::size_t base, const GridHeader& g, const BoxShape& s, const CellRect& rect,
                            const NearSegments& v, const bool (&odd)[2][4]) const {
    NearSet& k = near(b);
    if (v.n > near_set_capacity) {
      k.stamp = 0;
      return;
    }
    for (int t = 0; t < padded(v.n); ++t) {
      k.ax[t] = v.ax[t], k.ay[t] = v.ay[t], k.cx[t] = v.cx[t], k.cy[t] = v.cy[t], k.ref[t] = v.ref[t];
      const Vec2f o = t < v.n ? geom::xy(track.center(base + ref_index(v.ref[t]))) : Vec2f{0.0f, 0.0f};
      k.ox[t] = o.x, k.oy[t] = o.y;
    }
    k.n = static_cast<std::uint8_t>(v.n);
    const int odd0 = (odd[0][0] ? 1 : 0) | (odd[1][0] ? 2 : 0);
    k.bits = static_cast<std::uint8_t>(odd0 ^ parity_terms(s.corner[0], lanes(k), parity_x(g, rect.x1)));
    k.x0 = static_cast<std::int16_t>(rect.x0), k.x1 = static_cast<std::int16_t>(rect.x1);
    k.y0 = static_cast<std::int16_t>(rect.y0), k.y1 = static_cast<std::int16_t>(rect.y1);
    k.anchored = 0;
    k.stamp = g.stamp;
  }

  /// Anchors set k at box s, whose query measured every segment of the set
  /// (m) and found none within 2 tol: per segment a lower bound of its exact
  /// distance to the solid box (lower_bounds), the lane_width segments of
  /// least bound moved into the first block, the least bound of that block
  /// and of the others, and the corners.
  KOKKOS_FUNCTION static void anchor(NearSet& k, const BoxShape& s, const Measures& m) {
    const int n = k.n;
    lower_bounds(s, lanes(k), m, k.lo);
    for (int t = lane_width; t < n; ++t) {  // a segment below the first block's largest bound takes its lane
      int top = 0;
      for (int i = 1; i < lane_width; ++i) top = k.lo[i] > k.lo[top] ? i : top;
      if (k.lo[t] < k.lo[top]) swap_lanes(k, top, t);
    }
    k.first_lo = k.rest_lo = 3e38f;
    for (int t = 0; t < n; ++t) {
      float& least = t < lane_width ? k.first_lo : k.rest_lo;
      least = kmath::min(least, k.lo[t]);
    }
    for (int j = 0; j < 4; ++j) k.rx[j] = s.corner[j].x, k.ry[j] = s.corner[j].y;
    k.anchored = 1;
    k.age = 0;
  }

  /// Swaps lanes i and j of set k.
  KOKKOS_FUNCTION static void swap_lanes(NearSet& k, int i, int j) {
    swap_at(k.lo, i, j), swap_at(k.ax, i, j), swap_at(k.ay, i, j), swap_at(k.cx, i, j), swap_at(k.cy, i, j);
    swap_at(k.ref, i, j), swap_at(k.ox, i, j), swap_at(k.oy, i, j);
  }

  /// Box b's contact from its NearSet, when the set decides it
  /// (docs/algorithms.md#collision): kept from the env's current grid, every
  /// corner in its cells, the cells covering what walk_cells would read for
  /// the nearest of its segments (near_pass' test), that nearest more than 2
  /// tol away (so no segment cuts the box or comes near a corner: each
  /// corner's ray-crossing parities, as a plain count evaluates them, equal
  /// corner 0's), and corner 0 inside the band. false (nothing written)
  /// otherwise. An anchored set bounds how far every point of the box moved
  /// since its anchor (`moved`: the farthest corner's move, plus rounding),
  /// so each segment's exact distance to the box now is at least its lo less
  /// that: the first block (the segments of least lo at the anchor) is
  /// measured, and the rest only when their least lo less `moved` does not
  /// show that none of them can reach the nearest so far (cannot_improve,
  /// the walk's test); and corner 0 stayed inside the band when no segment
  /// came within `moved` of the anchored box (its path crossed no border),
  /// else its parities are the set's bits xor the terms of its segments. A
  /// query that measured every segment anchors the set anew, unless the set
  /// is one block.
  KOKKOS_FUNCTION bool from_near_set(int b, const GridHeader& g, const BoxShape& s) const {
    NearSet& k = near(b);
    if (k.stamp != g.stamp) return false;
    const CellRect rect{k.x0, k.x1, k.y0, k.y1};
    for (int j = 0; j < 4; ++j) {
      const int cx = cell_column(g, s.corner[j].x), cy = cell_row(g, s.corner[j].y);
      if (cx < rect.x0 || cx > rect.x1 || cy < rect.y0 || cy > rect.y1) return false;
    }
    const int n = k.n;
    float moved = 3e38f;
    if (k.anchored != 0) {
      float d2 = 0.0f;
      for (int j = 0; j < 4; ++j) {
        const float dx = s.corner[j].x - k.rx[j], dy = s.corner[j].y - k.ry[j];
        d2 = kmath::max(d2, dx * dx + dy * dy);
      }
      moved = kmath::sqrt(d2) * (1.0f + 1e-5f) + s.tol;
    }
    Lanes v = lanes(k);
    Measures m;
    Nearest r;
    // The first block alone when the rest's bounds lie beyond it by more than twice the motion.
    v.n = k.anchored != 0 && n > lane_width && k.rest_lo - k.first_lo > 2.0f * moved ? lane_width : n;
    int lane = offer_all(s, v, r, m);
    if (v.n < n) {
      const float gap = k.rest_lo - moved;
      if (!(gap > 0.0f && cannot_improve(gap * gap, r.best2, s.tol))) {
        v.n = n;
        const int took = offer_all(s, v, r, m, lane_width);
        lane = took >= 0 ? took : lane;
      }
    }
    if (!(r.best2 > 4.0f * s.tol * s.tol && r.best2 < 1e38f)) return false;
    if (!rect.contains(covering(g, s.extent, walk_reach(g, r.best2, s.tol)))) return false;
    // Inside the band: even for the inner border, odd for the outer.
    const bool stayed = k.anchored != 0 && moved < kmath::min(k.first_lo, k.rest_lo);
    if (!stayed && (k.bits ^ parity_terms(s.corner[0], lanes(k), parity_x(g, rect.x1))) != 2) return false;
    const bool none[2][4] = {};
    write(b, none, r, Vec2f{k.ox[lane], k.oy[lane]});
    // Anchoring again pays when the next query, moving as fast as the box did
    // since the anchor, can leave the rest out.
    const float pace = moved / static_cast<float>(k.age + 1);
    if (v.n == n && (k.anchored == 0 || (n > lane_width && 2.0f * pace < k.rest_lo - k.first_lo))) {
      anchor(k, s, m);
    } else if (k.age < 255) {
      ++k.age;
    }
    return true;
  }

  KOKKOS_FUNCTION void operator()(const int b) const {
    const Vec3f pos = position(b);
    if (!kmath::isfinite(pos.x) || !kmath::isfinite(pos.y)) return no_geometry(out, b, 0);
    const int e = b / boxes, n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    if (m < 3) return no_geometry(out, b, 1);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const Vec3f* const borders[2] = {track.inner.data() + base, track.outer.data() + base};
    BoxShape s;
    s.box = geom::make_box(geom::xy(pos), geom::yaw_of(orientation(b)), half(b));
    s.extent = ChunkBox{geom::box_corner(s.box, 0), geom::box_corner(s.box, 0)};
    for (int k = 0; k < 4; ++k) {
      s.corner[k] = geom::box_corner(s.box, k);
      grow(s.extent, s.corner[k]);
    }
    // Non-finite corners (orientation or half extents): no defined contact.
    if (!is_finite(s.extent.lo) || !is_finite(s.extent.hi)) return no_geometry(out, b, 1);
    const GridHeader g = grid.header(e);
    s.tol = g.tol + 0x1p-16f * (kmath::max(kmath::fabs(s.box.center.x), kmath::fabs(s.box.center.y)) +
                                kmath::max(kmath::fabs(s.box.half.x), kmath::fabs(s.box.half.y)));
    const bool has_grid = g.gx > 0;
    if (has_grid && from_near_set(b, g, s)) return;
    int cell[4];
    for (int k = 0; k < 4 && has_grid; ++k) {
      const int cx = cell_column(g, s.corner[k].x), cy = cell_row(g, s.corner[k].y);
      cell[k] = cx >= 0 && cy >= 0 ? cy * g.gx + cx : -1;
    }
    const std::uint32_t* const cells = grid.cells.data() + static_cast<std::size_t>(e) * (grid.side * grid.side + 1);
    const std::uint16_t* const refs = grid.refs.data() + static_cast<std::size_t>(e) * grid.capacity;
    // A corner violates the inner border inside it (odd), the outer one outside it (even).
    bool odd[2][4];
    if (has_grid) {
      grid_parity(g, cells, refs, borders, m, s, cell, odd);
    } else {
      scan_parity(borders, m, s, odd);
    }
    Search q;
    for (int border = 0; border < 2; ++border) {
      q.violated[border] = false;
      for (int k = 0; k < 4; ++k) {
        q.violates[border][k] = odd[border][k] == (border == 0);
        q.violated[border] = q.violated[border] || q.violates[border][k];
      }
    }
    Nearest r;
    r.best_threshold = threshold(r.best2, s.tol);
    for (int border = 0; border < 2; ++border) {
      for (int k = 0; k < 4; ++k) r.corner_min2[border][k] = 3e38f;
    }
    if (has_grid && !q.violated[0] && !q.violated[1]) {
      NearSegments v;
      const int rounds = near_pass(g, cells, refs, borders, m, s, v, r);
      if (rounds == 1) keep(b, base, g, s, covering(g, s.extent, g.h), v, odd);
      if (rounds > 0) return write(b, q.violates, r, center_of(base, r));
    }
    if (!has_grid) {
      scan_distances(borders, m, s, q, r);
    } else {
      Distances d{s, q, r};
      walk_cells(g, cells, refs, borders, m, s.extent, s.tol, d);
    }
    write(b, q.violates, r, center_of(base, r));
  }

  /// The centerline point of r's nearest segment's index (NaN without one).
  KOKKOS_FUNCTION Vec2f center_of(std::size_t base, const Nearest& r) const {
    return r.border > 1 ? nan2() : geom::xy(track.center(base + r.index));
  }

  /// The contact: out of bounds when a corner violates a border or a segment
  /// cuts the box; distance the clearance, or minus the deepest violating
  /// corner's distance to the border(s) it violates; the normal of the nearest
  /// segment, pointing towards its centerline point. A box so far away that
  /// no squared distance is finite (or not finite itself) is out of bounds
  /// without geometry.
  /// `center`: the centerline point of the nearest segment's index.
  KOKKOS_FUNCTION void write(int b, const bool (&violates)[2][4], const Nearest& r, Vec2f center) const {
    if (r.border > 1) return no_geometry(out, b, 1);
    bool any = false;
    float penetration2 = 0.0f;
    for (int border = 0; border < 2; ++border) {
      for (int k = 0; k < 4; ++k) {
        if (!violates[border][k]) continue;
        any = true;
        penetration2 = kmath::max(penetration2, r.corner_min2[border][k]);
      }
    }
    const bool oob = any || r.cut;
    const float penetration = kmath::sqrt(penetration2);
    const Vec2f seg = r.end - r.start;
    const Vec2f to_center = center - r.point;
    Vec2f n = length_sq(seg) > 1e-12f ? Vec2f{-seg.y, seg.x} : to_center;
    n = geom::safe_norm2(n);
    if (dot(n, to_center) < 0.0f) n = -n;
    out.oob(b) = oob ? 1 : 0;
    out.distance(b) = oob ? (penetration > 0.0f ? -penetration : 0.0f) : kmath::sqrt(r.best2);
    out.nearest(b) = r.point;
    out.normal(b) = n;
    out.boundary(b) = r.border;
  }
};

}  // namespace

template <class Space>
void query_segments(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                    const BorderGrid<Space>& grid, const DView<NearSet, Space>& near,
                    const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
                    const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes) {
  ctx.for_each("TrackGen::runtime::collision::segments", position.extent(0),
               QuerySegments<Space>{track, grid, near, position, orientation, half_extents, out, boxes});
}

#define TRACKGEN_INSTANTIATE_SEGMENTS(S)                                                                  \
  template void query_segments<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&,        \
                                  const BorderGrid<S>&, const DView<NearSet, S>&, const DView<Vec3f, S>&, \
                                  const DView<Quatf, S>&, const DView<Vec2f, S>&, const BoxContact<S>&, int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_SEGMENTS)

}  // namespace trackgen::detail
