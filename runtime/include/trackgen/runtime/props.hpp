// PropSampler: evenly spaced instances along one border of every track, for
// rendering (kerbs, barriers, lights). Nothing in the simulation reads them.
//
// sample(), per env: the 3D cumulative arc length of the border (its perimeter
// includes the closing edge, accumulated in double); n = round(perimeter /
// spacing) instances (at least 3; capped at the capacity, which raises
// truncated[e]), step = perimeter / n. Instance k:
//  - points mode: at arc length k * step: the 3D point there, the plan-view
//    unit direction of its segment and its yaw, length = step;
//  - segments mode: the chord from arc length k * step to (k + 1) * step (the
//    last one closes at 0): its 3D midpoint, plan-view direction and yaw, and
//    its 3D length.
// Slots past n are NaN; envs with fewer than 3 points get none.
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <optional>

namespace trackgen {

/// Which border the props follow.
enum class PropBoundary { inner, outer };
/// One instance per sample point, or per chord between consecutive ones.
enum class PropMode { points, segments };

/// The instances, [E*P] each (P = capacity), and per-env diagnostics [E].
template <class Space = Kokkos::DefaultExecutionSpace>
struct PropSet {
  DView<Vec3f, Space> position;  ///< [E*P] instance position
  DView<Vec2f, Space> tangent;   ///< [E*P] plan-view unit direction
  DView<float, Space> yaw;       ///< [E*P] atan2(tangent.y, tangent.x)
  DView<float, Space> length;    ///< [E*P] extent along the border
  DView<std::int32_t, Space> count;      ///< [E] instances per env
  DView<std::int32_t, Space> truncated;  ///< [E] 1 where the capacity capped the count
  DView<float, Space> step;              ///< [E] arc length between instances

  /// An independent deep copy.
  PropSet clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class PropSampler {
 public:
  using track_type = Track<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;

  /// Props every `spacing` (> 0) along `boundary` of `track` (aliased), on
  /// `space`. `max_props` (>= 3) is the capacity P; without it P = max(3,
  /// ceil(1.25 * N_max * s / spacing)) with s the largest border perimeter per
  /// point of a valid env (host read here; ConfigError if none is valid).
  /// Samples once.
  PropSampler(Space space, const track_type& track, float spacing, PropBoundary boundary = PropBoundary::outer,
              PropMode mode = PropMode::points, std::optional<int> max_props = std::nullopt);

  /// Re-samples every env (the same result object every call).
  const PropSet<Space>& sample();
  /// Same on `ctx`, only for envs with mask[e] != 0 when `mask` is given.
  const PropSet<Space>& sample(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The instances written by sample().
  const PropSet<Space>& props() const { return props_; }
  /// The capacity P.
  int capacity() const { return capacity_; }
  /// The border followed.
  PropBoundary boundary() const { return boundary_; }
  /// Points or chords.
  PropMode mode() const { return mode_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  LaunchContext<Space> ctx_;
  track_type track_;
  float spacing_;
  PropBoundary boundary_;
  PropMode mode_;
  int capacity_;
  PropSet<Space> props_;
  DView<float, Space> cumulative_;  // [E*(N_max+1)] border arc-length tables
};

}  // namespace trackgen
