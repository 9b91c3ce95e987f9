// The sdf backend of CollisionChecker: bake and query (see collision.hpp).
#include <trackgen/core/detail/host_clones.hpp>
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/detail/grid_bounds.hpp>

namespace trackgen::detail {
namespace {

template <class Space>
using TeamMember = typename Kokkos::TeamPolicy<Space>::member_type;

/// +infinity (the start of a least square).
KOKKOS_INLINE_FUNCTION constexpr float infinityf() { return __builtin_inff(); }

/// The distance from q to segment [a, a + ab] (l2 = |ab|^2) as the bakes
/// have always computed it (nearest_on_polyline), so that every texel keeps
/// its bits.
KOKKOS_INLINE_FUNCTION float texel_distance(Vec2f q, Vec2f a, Vec2f ab, float l2) {
  const float u = l2 <= 1e-12f ? 0.0f : kmath::clamp(dot(q - a, ab) / l2, 0.0f, 1.0f);
  return length(q - (a + u * ab));
}

/// A segment [a, a + ab] that may be the nearest to some texel of a block.
struct Candidate {
  Vec2f a, ab;
  float l2;      // |ab|^2
  ChunkBox box;  // its bounding box (segment_box of its end points)
  int border;
};

/// Candidates a block of 8 x 8 texels holds at most (a block needing more is
/// split), and a super block of 2 x 2 blocks (one needing more gathers block
/// by block).
inline constexpr int max_candidates = 48;
inline constexpr int max_super_candidates = 128;

/// The largest squared distance from a corner of `area` to point a: a bound
/// on that to the segment starting at a (every vertex starts one), up to
/// roundings the slack of cannot_improve covers.
KOKKOS_INLINE_FUNCTION float farthest2(const ChunkBox& area, Vec2f a) {
  const float dx = kmath::max(kmath::fabs(a.x - area.lo.x), kmath::fabs(a.x - area.hi.x));
  const float dy = kmath::max(kmath::fabs(a.y - area.lo.y), kmath::fabs(a.y - area.hi.y));
  return dx * dx + dy * dy;
}

/// The grid walk of an area of texels (the box of their centres): gathers
/// every segment that may be the nearest to one of them. upper2 is the least,
/// over the segments read, of farthest2 of their start: every texel has a
/// segment within it, so a segment farther than that from the area is
/// nobody's nearest.
struct GatherBlock {
  ChunkBox area;
  float tol;
  Candidate* out;
  int capacity;
  int n = 0;
  bool overflow = false;
  float upper2 = 3e38f;

  KOKKOS_FUNCTION void operator()(int b, int, Vec2f a, Vec2f c, const ChunkBox& box) {
    if (overflow || cannot_improve(box_gap2(box, area), upper2, tol)) return;
    upper2 = kmath::min(upper2, farthest2(area, a));
    if (n == capacity) {
      overflow = true;
      return;
    }
    out[n++] = Candidate{a, c - a, length_sq(c - a), box, b};
  }
  KOKKOS_FUNCTION float reach2() const { return overflow ? 0.0f : upper2; }
};

/// The fields of gathered candidates that select() reads, side by side (a
/// loop over them vectorizes): the start and the bounding box of each.
struct Lanes {
  float ax[max_super_candidates], ay[max_super_candidates];
  float lox[max_super_candidates], loy[max_super_candidates], hix[max_super_candidates], hiy[max_super_candidates];

  KOKKOS_FUNCTION void set(int k, const Candidate& c) {
    ax[k] = c.a.x, ay[k] = c.a.y;
    lox[k] = c.box.lo.x, loy[k] = c.box.lo.y, hix[k] = c.box.hi.x, hiy[k] = c.box.hi.y;
  }
};

/// far2[k] = farthest2(area, a of candidate k), gap2[k] = box_gap2(its box,
/// area), for k < n (per instruction-set level on a host).
TRACKGEN_HOST_CLONES KOKKOS_INLINE_FUNCTION void lane_bounds(const Lanes& l, int n, const ChunkBox& area,
                                                             float* __restrict__ far2, float* __restrict__ gap2) {
  for (int k = 0; k < n; ++k) {
    far2[k] = farthest2(area, Vec2f{l.ax[k], l.ay[k]});
    gap2[k] = box_gap2(ChunkBox{Vec2f{l.lox[k], l.loy[k]}, Vec2f{l.hix[k], l.hiy[k]}}, area);
  }
}

/// The indices (into keep) of the candidates that may be the nearest to a
/// texel of `area`, in their order: the bound of GatherBlock over every
/// candidate, then each candidate's gap to the area against it. Given every
/// segment that may be the nearest to a texel of an area holding `area`, it
/// keeps every one that may be for `area`; returns how many.
KOKKOS_INLINE_FUNCTION int select(const Lanes& l, int n, const ChunkBox& area, float tol, std::uint8_t* keep) {
  float far2[max_super_candidates], gap2[max_super_candidates];
  lane_bounds(l, n, area, far2, gap2);
  float upper[4] = {3e38f, 3e38f, 3e38f, 3e38f};  // four chains (the least of finite values in any order)
  for (int k = 0; k < n; ++k) upper[k % 4] = kmath::min(upper[k % 4], far2[k]);
  const float upper2 = kmath::min(kmath::min(upper[0], upper[1]), kmath::min(upper[2], upper[3]));
  int kept = 0;
  for (int k = 0; k < n; ++k) {
    if (!cannot_improve(gap2[k], upper2, tol)) keep[kept++] = static_cast<std::uint8_t>(k);
  }
  return kept;
}

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

/// One team per env: the distances block by block (texels of 8 x 8, the
/// candidates gathered once per 2 x 2 blocks; a block with too many is
/// split), then the signs row by row.
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

  /// Texels per side of a block, and a block's texels at most.
  static constexpr int block_side = 8, block_texels = block_side * block_side;

  /// The distance of a least square (started at +inf): the texel's distance
  /// to the border, or 3e38 (as a scan that found none) when no candidate
  /// gave a finite square.
  KOKKOS_FUNCTION static float distance(float d2) { return d2 < infinityf() ? kmath::sqrt(d2) : 3.0e38f; }

  /// phi[k] and bid[k] of each texel k (qx[k], qy[k]) of a block from the
  /// candidates cand[keep[0..n)]: per border the least squared distance, each
  /// the square texel_distance roots, candidate by candidate over the texels
  /// (loops a compiler vectorizes; compiled per instruction-set level on a
  /// host), then its root. A correctly rounded root is monotonic, so the root
  /// of the least square is the least distance texel_distance gives, bit for
  /// bit, at one root per texel and border.
  TRACKGEN_HOST_CLONES KOKKOS_FUNCTION static void nearest(const float* __restrict__ qx, const float* __restrict__ qy,
                                                           const Candidate* cand, const std::uint8_t* keep, int n,
                                                           float* __restrict__ phi, std::int8_t* __restrict__ bid) {
    float least[2][block_texels];
    for (int k = 0; k < block_texels; ++k) least[0][k] = least[1][k] = infinityf();
    for (int j = 0; j < n; ++j) {
      const Candidate& c = cand[keep[j]];
      float* __restrict__ d2 = least[c.border];
      const float ax = c.a.x, ay = c.a.y, abx = c.ab.x, aby = c.ab.y, l2 = c.l2;
      if (l2 <= 1e-12f) {  // u = 0
        for (int k = 0; k < block_texels; ++k) {
          const float ex = qx[k] - (ax + 0.0f * abx), ey = qy[k] - (ay + 0.0f * aby);
          const float s = ex * ex + ey * ey;
          d2[k] = s < d2[k] ? s : d2[k];
        }
        continue;
      }
      for (int k = 0; k < block_texels; ++k) {
        float u = ((qx[k] - ax) * abx + (qy[k] - ay) * aby) / l2;
        u = 0.0f > u ? 0.0f : u;  // kmath::clamp(u, 0, 1), as max and min instructions
        u = 1.0f < u ? 1.0f : u;
        const float ex = qx[k] - (ax + u * abx), ey = qy[k] - (ay + u * aby);
        const float s = ex * ex + ey * ey;
        d2[k] = s < d2[k] ? s : d2[k];
      }
    }
    for (int k = 0; k < block_texels; ++k) {
      const float inner = distance(least[0][k]), outer = distance(least[1][k]);
      phi[k] = inner < outer ? inner : outer;  // kmath::min
      bid[k] = inner <= outer ? 0 : 1;
    }
  }

  /// The x of the texel centres of column x, and the y of those of row y
  /// (texel_center's).
  KOKKOS_FUNCTION static float column_x(const Env& v, int x) {
    return v.lo.x + ((static_cast<float>(x) + 0.5f) / static_cast<float>(v.res)) * (v.hi.x - v.lo.x);
  }
  KOKKOS_FUNCTION static float row_y(const Env& v, int y) {
    return v.lo.y + ((static_cast<float>(y) + 0.5f) / static_cast<float>(v.res)) * (v.hi.y - v.lo.y);
  }

  /// The area of [x0, x1) x [y0, y1): the box of its texels' centres.
  KOKKOS_FUNCTION static ChunkBox area(const Env& v, int x0, int x1, int y0, int y1) {
    return {texel_center(y0 * v.res + x0, v.res, v.lo, v.hi),
            texel_center((y1 - 1) * v.res + x1 - 1, v.res, v.lo, v.hi)};
  }

  /// Gathers into `out` (and `lanes`) the segments that may be the nearest
  /// to a texel of [x0, x1) x [y0, y1): how many, or -1 when there are more
  /// than `capacity`.
  KOKKOS_FUNCTION static int gather(const Env& v, int x0, int x1, int y0, int y1, Candidate* out, int capacity,
                                    Lanes& lanes) {
    GatherBlock g{area(v, x0, x1, y0, y1), v.g.tol, out, capacity};
    walk_cells(v.g, v.cells, v.refs, v.borders, v.m, g.area, v.g.tol, g);
    if (g.overflow) return -1;
    for (int k = 0; k < g.n; ++k) lanes.set(k, out[k]);
    return g.n;
  }

  /// Writes the distance and nearer border of every texel of the block
  /// [x0, x1) x [y0, y1) (at most block_side per side) from the n gathered
  /// candidates (those that may be nearest to one of its texels, select()),
  /// candidate by candidate over the block's texels.
  KOKKOS_FUNCTION static void evaluate(const Env& v, int x0, int x1, int y0, int y1, const Candidate* cand,
                                       const Lanes& lanes, int n) {
    std::uint8_t keep[max_super_candidates];
    const int kept = select(lanes, n, area(v, x0, x1, y0, y1), v.g.tol, keep);
    const int w = x1 - x0, texels = w * (y1 - y0);
    float px[block_side], qx[block_texels], qy[block_texels], phi[block_texels];
    std::int8_t bid[block_texels];
    for (int x = x0; x < x1; ++x) px[x - x0] = column_x(v, x);
    for (int y = y0, k = 0; y < y1; ++y) {
      const float py = row_y(v, y);
      for (int x = 0; x < w; ++x, ++k) qx[k] = px[x], qy[k] = py;
    }
    for (int k = texels; k < block_texels; ++k) qx[k] = qx[0], qy[k] = qy[0];  // a partial block: unused
    nearest(qx, qy, cand, keep, kept, phi, bid);
    for (int y = y0, k = 0; y < y1; ++y) {
      float* const phi_row = v.phi + y * v.res;
      std::int8_t* const bid_row = v.bid + y * v.res;
      for (int x = x0; x < x1; ++x, ++k) phi_row[x] = phi[k], bid_row[x] = bid[k];
    }
  }

  /// The block [x0, x1) x [y0, y1) from its own gather; false (nothing
  /// written) when it has too many candidates.
  KOKKOS_FUNCTION static bool block(const Env& v, int x0, int x1, int y0, int y1) {
    Candidate cand[max_candidates];
    Lanes lanes;
    const int n = gather(v, x0, x1, y0, y1, cand, max_candidates, lanes);
    if (n < 0) return false;
    evaluate(v, x0, x1, y0, y1, cand, lanes, n);
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

  /// The super block of 2 x 2 blocks at (x0, y0): one gather for all four,
  /// each block selecting its candidates from it (or, when it has too many,
  /// blocks() block by block).
  KOKKOS_FUNCTION static void super_block(const Env& v, int x0, int y0) {
    const int x1 = kmath::min(x0 + 2 * block_side, v.res), y1 = kmath::min(y0 + 2 * block_side, v.res);
    Candidate cand[max_super_candidates];
    Lanes lanes;
    const int n = gather(v, x0, x1, y0, y1, cand, max_super_candidates, lanes);
    for (int y = y0; y < y1; y += block_side) {
      for (int x = x0; x < x1; x += block_side) {
        if (n < 0) {
          blocks(v, x, y, block_side);
          continue;
        }
        evaluate(v, x, kmath::min(x + block_side, v.res), y, kmath::min(y + block_side, v.res), cand, lanes, n);
      }
    }
  }

  /// The signs of row y: the crossings of the row's line with each border
  /// (every segment straddling it, read once from the grid row holding it,
  /// x of the crossing as geom::ray_crosses computes it), sorted, each turned
  /// into the first column at or right of it, then swept along the row. A
  /// texel is inside the band when the crossings right of it are odd for the
  /// outer border and even for the inner one; a row outside the grid has
  /// none. false (nothing written) when a border crosses it more than
  /// `max_crossings` times.
  static constexpr int max_crossings = 64;
  KOKKOS_FUNCTION static bool signs(const Env& v, int y) {
    const float py = row_y(v, y);
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
    int from[2][max_crossings];  // the first column each crossing lies at or left of
    for (int b = 0; b < 2; ++b) {
      for (int k = 0; k < n[b]; ++k) from[b][k] = first_column_from(v, hit[b][k]);
    }
    int passed[2] = {0, 0};  // crossings at or left of the texel
    float* const phi = v.phi + y * v.res;
    for (int x = 0; x < v.res; ++x) {
      for (int b = 0; b < 2; ++b) {
        while (passed[b] < n[b] && from[b][passed[b]] <= x) ++passed[b];
      }
      const bool inside = (n[1] - passed[1]) % 2 == 1 && (n[0] - passed[0]) % 2 == 0;
      phi[x] = inside ? phi[x] : -phi[x];
    }
    return true;
  }

  /// The first column whose texel centres do not lie left of h (!(x < h);
  /// res when none): a guess, then steps, the centres' x growing with the
  /// column.
  KOKKOS_FUNCTION static int first_column_from(const Env& v, float h) {
    const float r = static_cast<float>(v.res), f = (h - v.lo.x) / (v.hi.x - v.lo.x) * r - 0.5f;
    int x = f >= 0.0f ? (f < r ? static_cast<int>(f) : v.res) : 0;  // NaN: 0
    while (x > 0 && !(column_x(v, x - 1) < h)) --x;
    while (x < v.res && column_x(v, x) < h) ++x;
    return x;
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
    const int side = 2 * block_side, per_side = (res + side - 1) / side;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, per_side * per_side),
                         [&](const int k) { super_block(v, (k % per_side) * side, (k / per_side) * side); });
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
