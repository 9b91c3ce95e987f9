// The collision kernels (internal; see collision.hpp).
#pragma once

#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/detail/border_grid.hpp>
#include <trackgen/runtime/detail/polyline.hpp>

namespace trackgen::detail {

/// Writes box b's contact without geometry: `oob`, NaN distance, nearest and
/// normal, boundary -1 (an inactive box, or a track too short to test against).
template <class Space>
KOKKOS_INLINE_FUNCTION void no_geometry(const BoxContact<Space>& out, int b, int oob) {
  out.oob(b) = oob;
  out.distance(b) = nanf();
  out.nearest(b) = nan2();
  out.normal(b) = nan2();
  out.boundary(b) = -1;
}

/// The segments backend: one thread per box, reading the border grid `grid`
/// of `track` (built since the track last changed).
template <class Space>
void query_segments(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                    const BorderGrid<Space>& grid, const DView<Vec3f, Space>& position,
                    const DView<Quatf, Space>& orientation, const DView<Vec2f, Space>& half_extents,
                    const BoxContact<Space>& out, int boxes);

/// Bakes the signed distance field of the envs with mask[e] != 0 (all without
/// a mask) from their border grids `grid` (built since the track last
/// changed): the field boxes, then one team per env over its texels.
template <class Space>
void bake_sdf(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
              const BorderGrid<Space>& grid, float padding, const SignedDistanceField<Space>& sdf,
              const DView<std::int32_t, Space>& mask);

/// The sdf backend: one thread per box.
template <class Space>
void query_sdf(const LaunchContext<Space>& ctx, const SignedDistanceField<Space>& sdf, const DView<Vec3f, Space>& position,
               const DView<Quatf, Space>& orientation, const DView<Vec2f, Space>& half_extents,
               const BoxContact<Space>& out, int boxes);

}  // namespace trackgen::detail
