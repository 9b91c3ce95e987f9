// The loop operations the gate pipeline (pipeline/src/gate_*.cpp) shares with
// the centerline generators: the team angle sort of the point family and the
// bbox normalization NORM(target), kernel launchers over flat [E*stride]
// buffers (explicitly instantiated for every enabled execution space in
// generators/src/common.cpp), and the normalized extent of the families that
// normalize. Internal (in-tree, not installed).
#pragma once

#include <trackgen/core/vec.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstdint>
#include <string>

namespace trackgen::detail {

/// The longest bounding-box side, per unit of `scale`, of the generators that
/// normalize their loops (polar, voronoi, checkpoint): about the longest
/// extent of a bezier loop at scale 1, so every family has a similar size.
inline constexpr float normalized_extent = 1.44f;

/// Prune-then-sort of the point family (the angle sort), one team per
/// env: m = clamp(count[e], 1, stride); the angle keys of raw[e*stride, +m)
/// (angle_sort_keys) into keys[e*stride, +m), compat::team_sort of them, then
/// sorted[e*stride + i] = the raw corner of the i-th key for i < m, NaN for
/// i >= m. The same result as the original system's per-thread stable insertion
/// sort, bit for bit. Label: `label`.
template <class Space>
void sort_by_angle(const LaunchContext<Space>& ctx, const std::string& label, const DView<std::int32_t, Space>& count,
                   const DView<Vec2f, Space>& raw, const DView<std::uint64_t, Space>& keys,
                   const DView<Vec2f, Space>& sorted, int stride);

/// NORM(target) (docs/algorithms.md#generator-conventions) of pts[e*stride, e*stride + n),
/// e < pts.extent(0) / stride, in place: bbox
/// of the env's finite points, centre c, extent = max(w, h),
/// s = target / max(extent, 1e-8), p <- (p - c) * s (NaN points stay NaN). One
/// team per env (min/max reductions are exact, hence order-independent).
/// Label: <prefix>normalize.
template <class Space>
void normalize_bbox(const LaunchContext<Space>& ctx, const std::string& prefix, const DView<Vec2f, Space>& pts,
                    int stride, int n, float target);

}  // namespace trackgen::detail
