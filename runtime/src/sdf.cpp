// The sdf backend of CollisionChecker: bake and query (see collision.hpp).
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/detail/grid_bounds.hpp>

namespace trackgen::detail {
namespace {

template <class Space>
using TeamMember = typename Kokkos::TeamPolicy<Space>::member_type;

/// One team per env: chunk boxes of both borders, then one texel per thread:
/// unsigned distance to the nearer border, inside the band iff the outer
/// crossing count is odd and the inner one even.
template <class Space>
struct BakeSdf {
  Track<typename Space::memory_space> track;
  SignedDistanceField<Space> sdf;
  DView<Vec2f, Space> chunks;
  DView<std::int32_t, Space> mask;

  KOKKOS_FUNCTION void operator()(const TeamMember<Space>& team) const {
    const int e = team.league_rank();
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max(), res = sdf.resolution;
    const int m = kmath::clamp(track.count(e), 0, n_max);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const std::size_t texels = static_cast<std::size_t>(res) * res;
    float* const phi = sdf.phi.data() + e * texels;
    std::int8_t* const bid = sdf.boundary.data() + e * texels;
    if (m < 3) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(texels)), [&](const int t) {
        phi[t] = nanf();
        bid[t] = -1;
      });
      return;
    }
    const int per_border = chunk_boxes(n_max);
    Vec2f* const boxes = chunks.data() + static_cast<std::size_t>(e) * 4 * per_border;
    const Vec3f* const inner = track.inner.data() + base;
    const Vec3f* const outer = track.outer.data() + base;
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      build_chunk_boxes(inner, m, boxes);
      build_chunk_boxes(outer, m, boxes + 2 * per_border);
    });
    team.team_barrier();
    const Vec2f lo = sdf.lo(e), hi = sdf.hi(e);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(texels)), [&](const int t) {
      const Vec2f q = texel_center(t, res, lo, hi);
      float d_in = 3.0e38f, d_out = 3.0e38f, u = 0.0f;
      int seg = -1;
      nearest_on_polyline(inner, m, boxes, q, d_in, seg, u);
      nearest_on_polyline(outer, m, boxes + 2 * per_border, q, d_out, seg, u);
      const bool inside = polyline_crossings(outer, m, boxes + 2 * per_border, q) % 2 == 1 &&
                          polyline_crossings(inner, m, boxes, q) % 2 == 0;
      const float d = kmath::min(d_in, d_out);
      phi[t] = inside ? d : -d;
      bid[t] = d_in <= d_out ? 0 : 1;
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
void bake_sdf(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track, float padding,
              const SignedDistanceField<Space>& sdf, const DView<Vec2f, Space>& chunks,
              const DView<std::int32_t, Space>& mask) {
  ctx.for_each("TrackGen::runtime::sdf::bounds", sdf.lo.extent(0),
               GridBounds<Space>{track, sdf.lo, sdf.hi, mask, padding});
  ctx.for_each_team("TrackGen::runtime::sdf::bake", static_cast<int>(sdf.lo.extent(0)), 0,
                    BakeSdf<Space>{track, sdf, chunks, mask});
}

template <class Space>
void query_sdf(const LaunchContext<Space>& ctx, const SignedDistanceField<Space>& sdf, const DView<Vec3f, Space>& position,
               const DView<Quatf, Space>& orientation, const DView<Vec2f, Space>& half_extents,
               const BoxContact<Space>& out, int boxes) {
  ctx.for_each("TrackGen::runtime::sdf::query", position.extent(0),
               QuerySdf<Space>{sdf, position, orientation, half_extents, out, boxes});
}

#define TRACKGEN_INSTANTIATE_SDF(S)                                                                              \
  template void bake_sdf<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&, float,             \
                            const SignedDistanceField<S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&); \
  template void query_sdf<S>(const LaunchContext<S>&, const SignedDistanceField<S>&, const DView<Vec3f, S>&,    \
                             const DView<Quatf, S>&, const DView<Vec2f, S>&, const BoxContact<S>&, int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_SDF)

}  // namespace trackgen::detail
