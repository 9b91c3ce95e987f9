// The collision kernels (internal; see collision.hpp).
#pragma once

#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/detail/polyline.hpp>

namespace trackgen::detail {

/// The segments backend: one thread per box.
template <class Space>
void query_segments(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                    const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
                    const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes);

/// Bakes the signed distance field of the envs with mask[e] != 0 (all without
/// a mask): the grid boxes, then one team per env over its texels. `chunks`
/// ([E * 2 * chunk_boxes(n_max)] boxes) is scratch.
template <class Space>
void bake_sdf(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track, float padding,
              const SignedDistanceField<Space>& sdf, const DView<ChunkBox, Space>& chunks,
              const DView<std::int32_t, Space>& mask);

/// The sdf backend: one thread per box.
template <class Space>
void query_sdf(const LaunchContext<Space>& ctx, const SignedDistanceField<Space>& sdf, const DView<Vec3f, Space>& position,
               const DView<Quatf, Space>& orientation, const DView<Vec2f, Space>& half_extents,
               const BoxContact<Space>& out, int boxes);

}  // namespace trackgen::detail
