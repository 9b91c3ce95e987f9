// The sdf backend of CollisionChecker: bake and query (see collision.hpp).
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/detail/grid_bounds.hpp>

namespace trackgen::detail {
namespace {

template <class Space>
using TeamMember = typename Kokkos::TeamPolicy<Space>::member_type;

/// The distance from q to segment [a, a + ab] (l2 = |ab|^2) as the bakes
/// have always computed it (nearest_on_polyline), so that every texel keeps
/// its bits.
KOKKOS_INLINE_FUNCTION float texel_distance(Vec2f q, Vec2f a, Vec2f ab, float l2) {
  const float u = l2 <= 1e-12f ? 0.0f : kmath::clamp(dot(q - a, ab) / l2, 0.0f, 1.0f);
  return length(q - (a + u * ab));
}

/// A segment that may be the nearest to some texel of a block.
struct Candidate {
  Vec2f a, ab;
  float l2, lower2;  // |ab|^2; squared gap between its box and the block's
  int border;
};

/// Candidates a block holds at most (a block needing more is split).
inline constexpr int max_candidates = 48;

/// The grid walk of a block of texels (the box of their centres): gathers
/// every segment that may be the nearest to one of them. upper2 is the least,
/// over the segments read, of the largest squared distance from a corner of
/// the box to the segment: every texel has a segment within it, so a segment
/// farther than that from the box is nobody's nearest.
struct GatherBlock {
  ChunkBox area;
  float tol;
  Candidate* out;
  int n = 0;
  bool overflow = false;
  float upper2 = 3e38f;

  KOKKOS_FUNCTION void operator()(int b, int, Vec2f a, Vec2f c, const ChunkBox& box) {
    const float lower2 = box_gap2(box, area);
    if (overflow || cannot_improve(lower2, upper2, tol)) return;
    const Vec2f ab = c - a;
    const float l2 = length_sq(ab);
    float far2 = 0.0f;
    const Vec2f corner[4] = {area.lo, {area.hi.x, area.lo.y}, area.hi, {area.lo.x, area.hi.y}};
    for (int k = 0; k < 4; ++k) {
      const float d = texel_distance(corner[k], a, ab, l2);
      far2 = kmath::max(far2, d * d);
    }
    upper2 = kmath::min(upper2, far2);
    if (n == max_candidates) {
      overflow = true;
      return;
    }
    out[n++] = Candidate{a, ab, l2, lower2, b};
  }
  KOKKOS_FUNCTION float reach2() const { return overflow ? 0.0f : upper2; }
};

/// The grid walk of one texel: its distance to each border, read from the
/// segments that may be nearer than the nearest so far.
struct NearestOfTexel {
  Vec2f q;
  float tol;
  float d[2] = {3.0e38f, 3.0e38f};

  KOKKOS_FUNCTION void operator()(int b, int, Vec2f a, Vec2f c, const ChunkBox& box) {
    const float best = kmath::min(d[0], d[1]);
    if (cannot_improve(point_gap2(q, box), best * best, tol)) return;
    const float dist = texel_distance(q, a, c - a, length_sq(c - a));
    if (dist < d[b]) d[b] = dist;
  }
  KOKKOS_FUNCTION float reach2() const {
    const float best = kmath::min(d[0], d[1]);
    return best < 1e19f ? best * best : 3e38f;
  }
};

/// One team per env: the distances block by block (texels of 8 x 8, split
/// when a block has too many candidates), then the signs row by row.
/// Each texel gets the distance to the nearer border and whether it lies
/// inside the band (the outer border's crossing count odd, the inner one's
/// even), bitwise as a scan of every segment computes them.
template <class Space>
struct BakeSdf {
  Track<typename Space::memory_space> track;
  BorderGrid<Space> grid;
  SignedDistanceField<Space> sdf;
  DView<std::int32_t, Space> mask;

  /// What a bake of one env reads.
  struct Env {
    GridHeader g;
    const std::uint32_t* cells;
    const std::uint16_t* refs;
    const Vec3f* borders[2];
    int m, res;
    Vec2f lo, hi;
    float* phi;
    std::int8_t* bid;
  };

  /// d[k] = min(d[k], the distance from texel k (qx[k], qy[k]) to candidate c)
  /// for k < texels, each distance as texel_distance computes it, in a loop a
  /// compiler vectorizes.
  KOKKOS_FUNCTION static void nearer(const float* __restrict__ qx, const float* __restrict__ qy, int texels,
                                     const Candidate& c, float* __restrict__ d) {
    const float ax = c.a.x, ay = c.a.y, abx = c.ab.x, aby = c.ab.y, l2 = c.l2;
    if (l2 <= 1e-12f) {  // u = 0
      for (int k = 0; k < texels; ++k) {
        const float ex = qx[k] - (ax + 0.0f * abx), ey = qy[k] - (ay + 0.0f * aby);
        const float dist = kmath::sqrt(ex * ex + ey * ey);
        d[k] = dist < d[k] ? dist : d[k];
      }
      return;
    }
    for (int k = 0; k < texels; ++k) {
      float u = ((qx[k] - ax) * abx + (qy[k] - ay) * aby) / l2;
      u = 0.0f > u ? 0.0f : u;  // kmath::clamp(u, 0, 1), as max and min instructions
      u = 1.0f < u ? 1.0f : u;
      const float ex = qx[k] - (ax + u * abx), ey = qy[k] - (ay + u * aby);
      const float dist = kmath::sqrt(ex * ex + ey * ey);
      d[k] = dist < d[k] ? dist : d[k];
    }
  }

  /// Writes the distance and nearer border of every texel of [x0, x1) x
  /// [y0, y1) from its candidates; false (nothing written) when it has too
  /// many.
  KOKKOS_FUNCTION static bool block(const Env& v, int x0, int x1, int y0, int y1) {
    const Vec2f c0 = texel_center(y0 * v.res + x0, v.res, v.lo, v.hi);
    const Vec2f c1 = texel_center((y1 - 1) * v.res + x1 - 1, v.res, v.lo, v.hi);
    Candidate cand[max_candidates];
    GatherBlock gather{ChunkBox{c0, c1}, v.g.tol, cand};
    walk_cells(v.g, v.cells, v.refs, v.borders, v.m, gather.area, v.g.tol, gather);
    if (gather.overflow) return false;
    int n = 0;
    for (int k = 0; k < gather.n; ++k) {
      if (!cannot_improve(cand[k].lower2, gather.upper2, v.g.tol)) cand[n++] = cand[k];
    }
    // Candidate by candidate over the block's texels.
    constexpr int most = block_side * block_side;
    const int w = x1 - x0, texels = w * (y1 - y0);
    float qx[most], qy[most], d0[most], d1[most];
    const float r = static_cast<float>(v.res);
    for (int y = y0, k = 0; y < y1; ++y) {  // texel_center's coordinates, row by row
      const float fy = (static_cast<float>(y) + 0.5f) / r, py = v.lo.y + fy * (v.hi.y - v.lo.y);
      for (int x = x0; x < x1; ++x, ++k) {
        const float fx = (static_cast<float>(x) + 0.5f) / r;
        qx[k] = v.lo.x + fx * (v.hi.x - v.lo.x), qy[k] = py, d0[k] = 3.0e38f, d1[k] = 3.0e38f;
      }
    }
    for (int c = 0; c < n; ++c) nearer(qx, qy, texels, cand[c], cand[c].border == 0 ? d0 : d1);
    for (int y = y0, k = 0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x, ++k) {
        v.phi[y * v.res + x] = kmath::min(d0[k], d1[k]);
        v.bid[y * v.res + x] = d0[k] <= d1[k] ? 0 : 1;
      }
    }
    return true;
  }

  /// The same for texel t alone (any number of candidates).
  KOKKOS_FUNCTION static void texel(const Env& v, int t) {
    NearestOfTexel near{texel_center(t, v.res, v.lo, v.hi), v.g.tol};
    walk_cells(v.g, v.cells, v.refs, v.borders, v.m, ChunkBox{near.q, near.q}, v.g.tol, near);
    v.phi[t] = kmath::min(near.d[0], near.d[1]);
    v.bid[t] = near.d[0] <= near.d[1] ? 0 : 1;
  }

  /// The distances of the square block of side `size` at (x0, y0), split
  /// down to single texels where a block has too many candidates.
  KOKKOS_FUNCTION static void blocks(const Env& v, int x0, int y0, int size) {
    const int x1 = kmath::min(x0 + size, v.res), y1 = kmath::min(y0 + size, v.res);
    if (block(v, x0, x1, y0, y1)) return;
    const int h = size / 2;
    for (int y = y0; y < y1; y += h) {
      for (int x = x0; x < x1; x += h) {
        if (h > 1) {
          const int xe = kmath::min(x + h, v.res), ye = kmath::min(y + h, v.res);
          if (block(v, x, xe, y, ye)) continue;
          for (int yy = y; yy < ye; ++yy) {
            for (int xx = x; xx < xe; ++xx) texel(v, yy * v.res + xx);
          }
        } else {
          texel(v, y * v.res + x);
        }
      }
    }
  }

  /// The signs of row y: the crossings of the row's line with each border
  /// (every segment straddling it, read once from the grid row holding it,
  /// x of the crossing as geom::ray_crosses computes it), sorted, then swept
  /// along the row. A texel is inside the band when the crossings right of
  /// it are odd for the outer border and even for the inner one; a row
  /// outside the grid has none. false (nothing written) when a border
  /// crosses it more than `max_crossings` times.
  static constexpr int max_crossings = 64;
  KOKKOS_FUNCTION static bool signs(const Env& v, int y) {
    const float py = texel_center(y * v.res, v.res, v.lo, v.hi).y;
    const int cy = cell_row(v.g, py);
    float hit[2][max_crossings];
    int n[2] = {0, 0};
    if (cy >= 0) {
      for (int cx = 0; cx < v.g.gx; ++cx) {
        const int c = cy * v.g.gx + cx;
        const float left = cell_x0(v.g, cx) + v.g.delta;
        const std::uint32_t end = v.cells[c + 1] >> 2;
        for (std::uint32_t r = v.cells[c] >> 2; r < end; ++r) {
          const int b = ref_border(v.refs[r]), i = ref_index(v.refs[r]);
          const Vec2f a = geom::xy(v.borders[b][i]), e = geom::xy(v.borders[b][i + 1 < v.m ? i + 1 : 0]);
          if ((a.y > py) == (e.y > py)) continue;
          if (cx > 0 && kmath::min(a.x, e.x) <= left) continue;  // read in column cx - 1
          if (n[b] == max_crossings) return false;
          const float x_hit = a.x + (py - a.y) * (e.x - a.x) / (e.y - a.y);
          int k = n[b]++;
          for (; k > 0 && hit[b][k - 1] > x_hit; --k) hit[b][k] = hit[b][k - 1];
          hit[b][k] = x_hit;
        }
      }
    }
    int passed[2] = {0, 0};  // crossings at or left of the texel
    for (int x = 0; x < v.res; ++x) {
      const int t = y * v.res + x;
      const float px = texel_center(t, v.res, v.lo, v.hi).x;
      for (int b = 0; b < 2; ++b) {
        while (passed[b] < n[b] && !(px < hit[b][passed[b]])) ++passed[b];
      }
      const bool inside = (n[1] - passed[1]) % 2 == 1 && (n[0] - passed[0]) % 2 == 0;
      v.phi[t] = inside ? v.phi[t] : -v.phi[t];
    }
    return true;
  }

  /// Row y's signs by counting every segment's crossing for every texel (a
  /// border crossing the row too often for signs()).
  KOKKOS_FUNCTION static void signs_by_scan(const Env& v, int y) {
    for (int x = 0; x < v.res; ++x) {
      const int t = y * v.res + x;
      const Vec2f q = texel_center(t, v.res, v.lo, v.hi);
      int count[2] = {0, 0};
      for (int b = 0; b < 2; ++b) {
        for (int i = 0; i < v.m; ++i) {
          count[b] += geom::ray_crosses(q, geom::xy(v.borders[b][i]), geom::xy(v.borders[b][i + 1 < v.m ? i + 1 : 0]));
        }
      }
      const bool inside = count[1] % 2 == 1 && count[0] % 2 == 0;
      v.phi[t] = inside ? v.phi[t] : -v.phi[t];
    }
  }

  /// Texel t of an env without a grid: a scan of every segment.
  KOKKOS_FUNCTION static void texel_by_scan(const Env& v, int t) {
    const Vec2f q = texel_center(t, v.res, v.lo, v.hi);
    float d[2] = {3.0e38f, 3.0e38f};
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < v.m; ++i) {
        const Vec2f a = geom::xy(v.borders[b][i]), c = geom::xy(v.borders[b][i + 1 < v.m ? i + 1 : 0]);
        const float dist = texel_distance(q, a, c - a, length_sq(c - a));
        if (dist < d[b]) d[b] = dist;
      }
    }
    v.phi[t] = kmath::min(d[0], d[1]);
    v.bid[t] = d[0] <= d[1] ? 0 : 1;
  }

  /// Texels per side of a block.
  static constexpr int block_side = 8;

  KOKKOS_FUNCTION void operator()(const TeamMember<Space>& team) const {
    const int e = team.league_rank();
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max(), res = sdf.resolution;
    const int m = kmath::clamp(track.count(e), 0, n_max);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const std::size_t texels = static_cast<std::size_t>(res) * res;
    Env v{grid.header(e),
          grid.cells.data() + static_cast<std::size_t>(e) * (grid.side * grid.side + 1),
          grid.refs.data() + static_cast<std::size_t>(e) * grid.capacity,
          {track.inner.data() + base, track.outer.data() + base},
          m,
          res,
          sdf.lo(e),
          sdf.hi(e),
          sdf.phi.data() + e * texels,
          sdf.boundary.data() + e * texels};
    if (m < 3) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(texels)), [&](const int t) {
        v.phi[t] = nanf();
        v.bid[t] = -1;
      });
      return;
    }
    if (v.g.gx == 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(texels)),
                           [&](const int t) { texel_by_scan(v, t); });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, res), [&](const int y) { signs_by_scan(v, y); });
      return;
    }
    const int per_side = (res + block_side - 1) / block_side;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, per_side * per_side), [&](const int k) {
      blocks(v, (k % per_side) * block_side, (k / per_side) * block_side, block_side);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, res), [&](const int y) {
      if (!signs(v, y)) signs_by_scan(v, y);
    });
  }
};

/// One thread per box: the field at the box centre and corners.
template <class Space>
struct QuerySdf {
  SignedDistanceField<Space> sdf;
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  BoxContact<Space> out;
  int boxes = 1;
  /// How many boxes ahead a query prefetches the texels it will read.
  static constexpr int prefetch_ahead = 8;

  /// Prefetches the texels box b reads (its corners and their gradient
  /// neighbours: the rows of its bounding square, widened by two texels, at
  /// most 8 rows), so that the scattered grid reads of large batches overlap.
  KOKKOS_FUNCTION void prefetch_texels(const int b) const {
    if (b >= static_cast<int>(position.extent(0))) return;
    const Vec3f pos = position(b);
    if (!kmath::isfinite(pos.x) || !kmath::isfinite(pos.y)) return;
    const int e = b / boxes, res = sdf.resolution;
    const Vec2f lo = sdf.lo(e), hi = sdf.hi(e), h = half(b);
    const Vec2f g = grid_coord(geom::xy(pos), lo, hi, res);
    const float r = kmath::fabs(h.x) + kmath::fabs(h.y);
    const float rg = kmath::min(r * static_cast<float>(res) / kmath::min(hi.x - lo.x, hi.y - lo.y), 2.0f) + 2.0f;
    const float top = static_cast<float>(res - 1);
    const auto texel = [&](float v) { return v >= 0.0f ? static_cast<int>(kmath::min(v, top)) : 0; };  // NaN: 0
    const int x0 = texel(g.x - rg), x1 = texel(g.x + rg + 1.0f), y0 = texel(g.y - rg), y1 = texel(g.y + rg + 1.0f);
    const std::size_t base = static_cast<std::size_t>(e) * res * res;
    for (int y = y0; y <= y1; ++y) {
      const std::size_t row = base + static_cast<std::size_t>(y) * res;
      detail::prefetch(sdf.phi.data() + row + x0, sizeof(float) * (x1 - x0 + 1));
      detail::prefetch(sdf.boundary.data() + row + x0, x1 - x0 + 1);
    }
  }

  KOKKOS_FUNCTION void operator()(const int b) const {
    prefetch_texels(b + prefetch_ahead);
    const Vec3f pos = position(b);
    if (!kmath::isfinite(pos.x) || !kmath::isfinite(pos.y)) return no_geometry(out, b, 0);
    const int e = b / boxes, res = sdf.resolution;
    const float* const phi = sdf.phi.data() + static_cast<std::size_t>(e) * res * res;
    const Vec2f lo = sdf.lo(e), hi = sdf.hi(e);
    const auto sample = [&](Vec2f p) { return grid_sample(phi, res, grid_coord(p, lo, hi, res)); };
    const geom::Box2 box = geom::make_box(geom::xy(pos), geom::yaw_of(orientation(b)), half(b));
    for (int k = 0; k < 4; ++k) {  // non-finite corners (orientation or half extents): no defined contact
      if (!is_finite(geom::box_corner(box, k))) return no_geometry(out, b, 1);
    }
    Vec2f pmin = box.center;
    float phimin = sample(pmin);
    bool nan = kmath::isnan(phimin);
    for (int k = 0; k < 4; ++k) {
      const Vec2f c = geom::box_corner(box, k);
      const float v = sample(c);
      nan = nan || kmath::isnan(v);
      if (v < phimin) {
        phimin = v;
        pmin = c;
      }
    }
    if (nan) return no_geometry(out, b, 1);
    const float hx = (hi.x - lo.x) / static_cast<float>(res), hy = (hi.y - lo.y) / static_cast<float>(res);
    const Vec2f grad{(sample(pmin + Vec2f{hx, 0.0f}) - sample(pmin - Vec2f{hx, 0.0f})) / (2.0f * hx),
                     (sample(pmin + Vec2f{0.0f, hy}) - sample(pmin - Vec2f{0.0f, hy})) / (2.0f * hy)};
    const Vec2f n = geom::safe_norm2(grad);
    out.oob(b) = phimin < 0.0f ? 1 : 0;
    out.distance(b) = phimin;
    out.normal(b) = n;
    out.nearest(b) = pmin - phimin * n;
    const Vec2f g = grid_coord(pmin, lo, hi, res);
    const int tx = static_cast<int>(geom::round_half_away(g.x)), ty = static_cast<int>(geom::round_half_away(g.y));
    out.boundary(b) = sdf.boundary(static_cast<std::size_t>(e) * res * res + static_cast<std::size_t>(ty) * res + tx);
  }
};

}  // namespace

template <class Space>
void bake_sdf(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
              const BorderGrid<Space>& grid, float padding, const SignedDistanceField<Space>& sdf,
              const DView<std::int32_t, Space>& mask) {
  ctx.for_each("TrackGen::runtime::sdf::bounds", sdf.lo.extent(0),
               GridBounds<Space>{track, sdf.lo, sdf.hi, mask, padding});
  ctx.for_each_team("TrackGen::runtime::sdf::bake", static_cast<int>(sdf.lo.extent(0)), 0,
                    BakeSdf<Space>{track, grid, sdf, mask});
}

template <class Space>
void query_sdf(const LaunchContext<Space>& ctx, const SignedDistanceField<Space>& sdf,
               const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
               const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes) {
  ctx.for_each("TrackGen::runtime::sdf::query", position.extent(0),
               QuerySdf<Space>{sdf, position, orientation, half_extents, out, boxes});
}

#define TRACKGEN_INSTANTIATE_SDF(S)                                                                                \
  template void bake_sdf<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&, const BorderGrid<S>&, \
                            float, const SignedDistanceField<S>&, const DView<std::int32_t, S>&);                  \
  template void query_sdf<S>(const LaunchContext<S>&, const SignedDistanceField<S>&, const DView<Vec3f, S>&,       \
                             const DView<Quatf, S>&, const DView<Vec2f, S>&, const BoxContact<S>&, int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_SDF)

}  // namespace trackgen::detail
