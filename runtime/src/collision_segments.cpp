// The segments backend of CollisionChecker (see collision.hpp).
//
// One thread per box, against both borders (inner first, each closing m-1 ->
// 0), in two passes over the env's border points:
//  1. crossings: the segments straddling the box's y range are tested against
//     each corner's ray (geom::ray_crosses; the others cannot cross it). This
//     decides which border each corner violates. Meanwhile the bounding box of
//     every chunk of polyline_chunk segments gives its gap to the box.
//  2. distances, chunk by chunk: the nearest chunk first, then the others in
//     order, skipping a chunk (and within a chunk a segment) whose bounding box
//     is farther from the box than the nearest segment found so far, unless it
//     may be nearer to a corner violating its border than that corner's nearest
//     distance to the border so far (it could not change any result).
//     Distances are compared squared.
// Ties between segments go to the lowest (border, index), as a plain scan in
// order would; within a segment to the first candidate (corners 0..3, then the
// segment's start vertex, then a cut).
#include <trackgen/runtime/detail/collision_kernels.hpp>

namespace trackgen::detail {
namespace {

/// Squared distance between two plan-view boxes (0 when they overlap).
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

/// Whether `lower` (a squared lower bound) cannot improve on `bound` (a squared
/// distance), with a margin for the rounding of the distances it bounds.
KOKKOS_INLINE_FUNCTION bool cannot_improve(float lower, float bound) {
  return lower > bound * (1.0f + 1e-4f) + 1e-12f;
}

KOKKOS_INLINE_FUNCTION void grow(ChunkBox& b, Vec2f q) {
  b.lo = Vec2f{kmath::min(b.lo.x, q.x), kmath::min(b.lo.y, q.y)};
  b.hi = Vec2f{kmath::max(b.hi.x, q.x), kmath::max(b.hi.y, q.y)};
}

/// The box under test: its geometry, corners and bounding box.
struct BoxShape {
  geom::Box2 box;
  Vec2f corner[4];
  ChunkBox extent;
};

/// What the distance pass accumulates (squared distances).
struct Nearest {
  float corner_min2[2][4];
  float best2 = 3e38f;
  int border = 2, index = 0;
  Vec2f point = nan2();
  bool cut = false;

  /// Segment (border, i) with candidate squared distance d2 at point q.
  KOKKOS_FUNCTION void offer(int b, int i, float d2, Vec2f q) {
    if (d2 < best2 || (d2 == best2 && (b < border || (b == border && i < index)))) {
      best2 = d2;
      border = b;
      index = i;
      point = q;
    }
  }
};

/// The candidates of segment [a, c] (index i of `border`): corners to the
/// segment, its start vertex to the solid box, 0 when it cuts the box.
KOKKOS_INLINE_FUNCTION void visit(const BoxShape& s, int border, int i, Vec2f a, Vec2f c, Nearest& r) {
  float d2_seg = 3e38f;
  Vec2f q_seg = a;
  for (int k = 0; k < 4; ++k) {
    const Vec2f q = geom::closest_point_on_segment(s.corner[k], a, c);
    const float d2 = length_sq(s.corner[k] - q);
    r.corner_min2[border][k] = kmath::min(r.corner_min2[border][k], d2);
    if (d2 < d2_seg) {
      d2_seg = d2;
      q_seg = q;
    }
  }
  const float dv = geom::point_box_distance(a, s.box);
  if (dv * dv < d2_seg) {
    d2_seg = dv * dv;
    q_seg = a;
  }
  ChunkBox seg{a, a};
  grow(seg, c);
  if (box_gap2(seg, s.extent) == 0.0f && geom::segment_hits_box(a, c, s.box)) {
    r.cut = true;
    d2_seg = 0.0f;
    q_seg = geom::closest_point_on_segment(s.box.center, a, c);
  }
  r.offer(border, i, d2_seg, q_seg);
}

/// Chunks per border whose gaps pass 1 keeps for pass 2 (borders of up to
/// 64 * polyline_chunk points; longer ones recompute the rest).
inline constexpr int kept_chunks = 64;

/// What pass 1 learns about one border.
struct BorderScan {
  bool odd[4];              // the corners' crossing parities
  float gap2[kept_chunks];  // squared gap between each chunk's box and the box's
  int nearest = 0;          // the chunk of smallest gap
  float nearest_gap2 = 3e38f;
};

template <class Space>
struct QuerySegments {
  Track<typename Space::memory_space> track;
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  BoxContact<Space> out;
  int boxes = 1;

  /// Pass 1 over one border: crossing parities (a segment can cross a corner's
  /// ray only if it straddles the box's y range, so the others cost two
  /// comparisons) and the chunks' gaps to the box.
  KOKKOS_FUNCTION static void scan(const Vec3f* p, int m, const BoxShape& s, BorderScan& r) {
    for (int k = 0; k < 4; ++k) r.odd[k] = false;
    for (int chunk = 0; chunk < chunk_boxes(m); ++chunk) {
      const int first = chunk * polyline_chunk, last = kmath::min(first + polyline_chunk, m);
      const ChunkBox box = polyline_chunk_box(p, m, chunk);
      // A chunk wholly above or wholly at or below the box's y range has no
      // segment straddling it (the per-segment test would skip every one).
      if (box.lo.y <= s.extent.hi.y && box.hi.y > s.extent.lo.y) {
        Vec2f a = geom::xy(p[first]);
        bool a_above = a.y > s.extent.hi.y, a_below = a.y <= s.extent.lo.y;
        for (int i = first + 1; i <= last; ++i) {
          const Vec2f c = geom::xy(p[i < m ? i : 0]);
          const bool c_above = c.y > s.extent.hi.y, c_below = c.y <= s.extent.lo.y;
          if (!(a_above && c_above) && !(a_below && c_below)) {
            for (int k = 0; k < 4; ++k) {
              if (geom::ray_crosses(s.corner[k], a, c)) r.odd[k] = !r.odd[k];
            }
          }
          a = c, a_above = c_above, a_below = c_below;
        }
      }
      const float g = box_gap2(box, s.extent);
      if (chunk < kept_chunks) r.gap2[chunk] = g;
      if (g < r.nearest_gap2) {
        r.nearest_gap2 = g;
        r.nearest = chunk;
      }
    }
  }

  /// Pass 2 over chunk `chunk` of `border`: skipped, or segment by segment
  /// skipped, when it cannot change anything.
  KOKKOS_FUNCTION static void distances(const Vec3f* p, int m, int border, int chunk, const BoxShape& s,
                                        const BorderScan& scan, const bool (&violates)[2][4], Nearest& r) {
    const int first = chunk * polyline_chunk, last = kmath::min(first + polyline_chunk, m);
    const bool violated = violates[border][0] || violates[border][1] || violates[border][2] || violates[border][3];
    float gap2 = chunk < kept_chunks ? scan.gap2[chunk] : -1.0f;
    if (gap2 < 0.0f || violated) {  // recompute the chunk's box
      const ChunkBox b = polyline_chunk_box(p, m, chunk);
      gap2 = box_gap2(b, s.extent);
      bool needed = !cannot_improve(gap2, r.best2);
      for (int k = 0; k < 4 && !needed; ++k) {
        needed = violates[border][k] && !cannot_improve(point_gap2(s.corner[k], b), r.corner_min2[border][k]);
      }
      if (!needed) return;
    } else if (cannot_improve(gap2, r.best2)) {
      return;
    }
    for (int i = first; i < last; ++i) {
      const Vec2f a = geom::xy(p[i]), c = geom::xy(p[i + 1 < m ? i + 1 : 0]);
      if (!violated) {
        ChunkBox seg{a, a};
        grow(seg, c);
        if (cannot_improve(box_gap2(seg, s.extent), r.best2)) continue;
      }
      visit(s, border, i, a, c, r);
    }
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
    // A corner violates the inner border inside it (odd), the outer one outside it (even).
    BorderScan scan[2];
    bool violates[2][4];
    for (int border = 0; border < 2; ++border) {
      scan[border].nearest_gap2 = 3e38f;
      QuerySegments::scan(borders[border], m, s, scan[border]);
      for (int k = 0; k < 4; ++k) violates[border][k] = scan[border].odd[k] == (border == 0);
    }
    Nearest r;
    for (int border = 0; border < 2; ++border) {
      for (int k = 0; k < 4; ++k) r.corner_min2[border][k] = 3e38f;
    }
    // The nearest chunk of all first, for a tight bound early.
    const int first = scan[1].nearest_gap2 < scan[0].nearest_gap2 ? 1 : 0;
    distances(borders[first], m, first, scan[first].nearest, s, scan[first], violates, r);
    for (int border = 0; border < 2; ++border) {
      for (int c = 0; c < chunk_boxes(m); ++c) {
        if (border != first || c != scan[first].nearest) {
          distances(borders[border], m, border, c, s, scan[border], violates, r);
        }
      }
    }
    write(b, base, m, borders, violates, r);
  }

  /// The contact: out of bounds when a corner violates a border or a segment
  /// cuts the box; distance the clearance, or minus the deepest violating
  /// corner's distance to the border(s) it violates; the normal of the nearest
  /// segment, pointing towards its centerline point.
  KOKKOS_FUNCTION void write(int b, std::size_t base, int m, const Vec3f* const* borders,
                             const bool (&violates)[2][4], const Nearest& r) const {
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
    const Vec3f* const p = borders[r.border];
    const Vec2f seg = geom::xy(p[r.index + 1 < m ? r.index + 1 : 0]) - geom::xy(p[r.index]);
    const Vec2f to_center = geom::xy(track.center(base + r.index)) - r.point;
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
                    const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
                    const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes) {
  ctx.for_each("TrackGen::runtime::collision::segments", position.extent(0),
               QuerySegments<Space>{track, position, orientation, half_extents, out, boxes});
}

#define TRACKGEN_INSTANTIATE_SEGMENTS(S)                                                                      \
  template void query_segments<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&,            \
                                  const DView<Vec3f, S>&, const DView<Quatf, S>&, const DView<Vec2f, S>&,     \
                                  const BoxContact<S>&, int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_SEGMENTS)

}  // namespace trackgen::detail
