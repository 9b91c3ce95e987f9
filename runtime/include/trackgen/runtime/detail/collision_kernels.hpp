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

/// Segments a NearSet holds at most.
inline constexpr int near_set_capacity = 32;

/// What the segments query keeps of a box between queries
/// (docs/algorithms.md#collision): a rectangle of cells of its env's grid
/// (as built at `stamp`), every segment listed there once (padded with far
/// segments to a multiple of 8), and the parity bits that give any point of
/// the rectangle its ray-crossing parities from these segments alone. A
/// later query of a box whose corners lie in the rectangle and whose nearest
/// segment's reach stays inside it reads only this. Once a query has measured
/// every segment of the set and decided the box, the set is anchored: the
/// box's corners then and, per segment, a lower bound of its exact distance
/// to that box, the 8 segments of least bound first; a later query measures
/// the others only when the box's motion since could bring one nearest.
struct NearSet {
  std::uint32_t stamp = 0;                             ///< the grid's stamp it was taken from (0: none)
  std::int16_t x0 = 0, x1 = -1, y0 = 0, y1 = -1;       ///< the cells (inclusive)
  std::uint8_t n = 0;                                  ///< segments
  std::uint8_t bits = 0;                               ///< bit b: the parity bit of border b
  std::uint8_t anchored = 0;                           ///< 1: rx, ry, lo, first_lo and rest_lo hold
  std::uint8_t age = 0;                                ///< queries decided since the anchor (at most 255)
  float rx[4], ry[4];                                  ///< the corners of the box at the anchor
  float first_lo = 0.0f, rest_lo = 0.0f;               ///< the least lo of segments 0-7 and of the others
  float ax[near_set_capacity], ay[near_set_capacity];  ///< segment starts
  float cx[near_set_capacity], cy[near_set_capacity];  ///< segment ends
  std::uint16_t ref[near_set_capacity];                ///< segments (grid_ref)
  float ox[near_set_capacity], oy[near_set_capacity];  ///< the centerline point of each segment's index
  float lo[near_set_capacity];                         ///< a lower bound of each segment's exact distance to it
};

/// The NearSets of a checker's boxes ([E*B]; every stamp 0 when allocated).
template <class Space>
struct NearSets {
  DView<NearSet, Space> sets;
};

/// The segments backend: one thread per box, reading the border grid `grid`
/// of `track` (built since the track last changed) and keeping each box's
/// NearSet in `near` ([E*B]).
template <class Space>
void query_segments(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                    const BorderGrid<Space>& grid, const DView<NearSet, Space>& near,
                    const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
                    const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes);

/// Bakes the signed distance field of the envs with mask[e] != 0 (all without
/// a mask) from their border grids `grid` (built since the track last
/// changed): the field boxes, then one team per env over its texels.
template <class Space>
void bake_sdf(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
              const BorderGrid<Space>& grid, float padding, const SignedDistanceField<Space>& sdf,
              const DView<std::int32_t, Space>& mask);

/// The sdf backend: one thread per box.
template <class Space>
void query_sdf(const LaunchContext<Space>& ctx, const SignedDistanceField<Space>& sdf,
               const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
               const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes);

}  // namespace trackgen::detail
