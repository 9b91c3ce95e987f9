// HeightFieldBaker: a per-env height map of the ground under and around a track
// (a terrain for rendering or for a vehicle model on a 2.5D track).
//
// On the grid of grid.hpp, texel value = the height of the plan-view nearest
// point of the centerline (z interpolated along its segment), so the road's
// cross-sections continue sideways with no cliff at the borders. Envs whose
// track is invalid or has fewer than 3 points are NaN everywhere. Memory:
// E * R^2 * 4 bytes.
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/grid.hpp>

namespace trackgen {

/// Height maps of every env.
template <class Space = Kokkos::DefaultExecutionSpace>
struct HeightField {
  DView<float, Space> height;  ///< [E*R*R] row-major per env
  DView<Vec2f, Space> lo, hi;  ///< [E] the grid's box
  int resolution = 0;          ///< R

  /// An independent deep copy.
  HeightField clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class HeightFieldBaker {
 public:
  using track_type = Track<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;

  /// A baker of `grid` (resolution >= 8, padding > 0 or unset) for `track`
  /// (aliased), on `space`. Bakes once.
  HeightFieldBaker(Space space, const track_type& track, const GridOptions& grid = {});

  /// Re-bakes every env (the same result object every call).
  const HeightField<Space>& bake();
  /// Same on `ctx`, only for envs with mask[e] != 0 when `mask` is given.
  const HeightField<Space>& bake(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The height field written by bake().
  const HeightField<Space>& heightfield() const { return field_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  LaunchContext<Space> ctx_;
  track_type track_;
  GridOptions grid_;
  HeightField<Space> field_;
  DView<Vec2f, Space> chunks_;  // bake scratch: bounding boxes of the centerline's chunks
};

}  // namespace trackgen
