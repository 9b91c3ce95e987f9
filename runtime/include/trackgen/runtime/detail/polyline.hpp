// Nearest points on closed polylines with bounding-box culling (internal
// device helpers of the grid bakes: every texel of every env searches the
// env's borders or centerline).
//
// The m segments of a polyline (the last one closing m-1 -> 0) are grouped in
// chunks of polyline_chunk consecutive segments; a chunk whose plan-view
// bounding box is farther from the query point than the best distance so far
// is skipped whole. The result is the minimum over every segment that can
// improve on it, the same on every backend.
#pragma once

#include <trackgen/core/geometry.hpp>
#include <trackgen/runtime/geometry.hpp>

namespace trackgen::detail {

/// Segments per chunk.
inline constexpr int polyline_chunk = 8;

/// A plan-view bounding box.
struct ChunkBox {
  Vec2f lo, hi;
};

/// Chunks of a polyline of at most n points.
KOKKOS_INLINE_FUNCTION constexpr int chunk_boxes(int n) { return (n + polyline_chunk - 1) / polyline_chunk; }

/// Chunk boxes are stored as pairs of Vec2f (lo, hi): box c at [2c, 2c + 1].
KOKKOS_INLINE_FUNCTION ChunkBox chunk_box(const Vec2f* boxes, int c) { return {boxes[2 * c], boxes[2 * c + 1]}; }

/// The plan-view bounding box of chunk c of the closed polyline p[0..m): its
/// points c * polyline_chunk up to the end of its last segment (the point
/// after it, 0 for the closing segment).
KOKKOS_INLINE_FUNCTION ChunkBox polyline_chunk_box(const Vec3f* p, int m, int c) {
  const int first = c * polyline_chunk, last = kmath::min(first + polyline_chunk, m);
  ChunkBox b{geom::xy(p[first]), geom::xy(p[first])};
  for (int i = first + 1; i <= last; ++i) {
    const Vec2f q = geom::xy(p[i < m ? i : 0]);
    b.lo = Vec2f{kmath::min(b.lo.x, q.x), kmath::min(b.lo.y, q.y)};
    b.hi = Vec2f{kmath::max(b.hi.x, q.x), kmath::max(b.hi.y, q.y)};
  }
  return b;
}

/// Writes the chunk boxes of the closed polyline p[0..m) into boxes[0..2 chunk_boxes(m)).
KOKKOS_INLINE_FUNCTION void build_chunk_boxes(const Vec3f* p, int m, Vec2f* boxes) {
  for (int c = 0; c < chunk_boxes(m); ++c) {
    const ChunkBox b = polyline_chunk_box(p, m, c);
    boxes[2 * c] = b.lo;
    boxes[2 * c + 1] = b.hi;
  }
}

/// Distance from q to the box (0 inside).
KOKKOS_INLINE_FUNCTION float box_distance(Vec2f q, const ChunkBox& b) {
  const float dx = kmath::max(kmath::max(b.lo.x - q.x, q.x - b.hi.x), 0.0f);
  const float dy = kmath::max(kmath::max(b.lo.y - q.y, q.y - b.hi.y), 0.0f);
  return kmath::sqrt(dx * dx + dy * dy);
}

/// The plan-view nearest point to q on the closed polyline p[0..m) (chunk boxes
/// `boxes`), improving on `best` (in/out distance): on improvement sets
/// `segment` and the segment parameter `t`. First segment wins ties.
KOKKOS_INLINE_FUNCTION void nearest_on_polyline(const Vec3f* p, int m, const Vec2f* boxes, Vec2f q, float& best,
                                                int& segment, float& t) {
  for (int c = 0; c < chunk_boxes(m); ++c) {
    if (box_distance(q, chunk_box(boxes, c)) >= best) continue;
    const int last = kmath::min((c + 1) * polyline_chunk, m);
    for (int i = c * polyline_chunk; i < last; ++i) {
      const Vec2f a = geom::xy(p[i]), b = geom::xy(p[i + 1 < m ? i + 1 : 0]);
      const Vec2f ab = b - a;
      const float l2 = length_sq(ab);
      const float u = l2 <= 1e-12f ? 0.0f : kmath::clamp(dot(q - a, ab) / l2, 0.0f, 1.0f);
      const float d = length(q - (a + u * ab));
      if (d < best) {
        best = d;
        segment = i;
        t = u;
      }
    }
  }
}

/// Ray crossings (geom::ray_crosses) of q's +x ray with the closed polyline,
/// skipping chunks whose y range cannot straddle q.y.
KOKKOS_INLINE_FUNCTION int polyline_crossings(const Vec3f* p, int m, const Vec2f* boxes, Vec2f q) {
  int n = 0;
  for (int c = 0; c < chunk_boxes(m); ++c) {
    const ChunkBox b = chunk_box(boxes, c);
    if (b.lo.y > q.y || b.hi.y <= q.y) continue;
    const int last = kmath::min((c + 1) * polyline_chunk, m);
    for (int i = c * polyline_chunk; i < last; ++i) {
      n += geom::ray_crosses(q, geom::xy(p[i]), geom::xy(p[i + 1 < m ? i + 1 : 0])) ? 1 : 0;
    }
  }
  return n;
}

}  // namespace trackgen::detail
