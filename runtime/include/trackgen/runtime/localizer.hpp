// Where an agent is on its track (TrackLocalizer), and how fast the track can
// be driven (curvature, speed profile).
//
// TrackLocalizer, one thread per env: the nearest point q of the centerline (a
// closed 3D polyline) to the position p; its arc length s (in [0, length)),
// the signed lateral offset n = (p - q) . right (positive to the right of
// travel, right = tangent x +z, normalized; (1, 0, 0) when the tangent is
// vertical), the vertical offset n_up = (p - q) . up (up = right x tangent)
// and the segment index. Cold localization searches every segment; warm
// localization (a window W) searches the 2W + 1 segments around the env's last
// segment, and falls back to the whole ring when the best one lies on the
// window's edge (the agent may have left the window) or farther than the
// relock distance (a teleport, or the nearest branch at a pinch point), so a
// warm localizer cannot stay locked on a stale branch. A non-finite position,
// one so far away that no squared distance to the centerline is finite, or a
// track of fewer than 3 points gives NaN, segment -1 and forgets the last
// segment. reset(mask) forgets it too (after a regeneration or a teleport).
//
// curvature: per point, the signed turn of the centerline there, atan2((v1 x
// v2).z, v1 . v2) / max((|v1| + |v2|) / 2, 1e-9) with v1 = c_i - c_(i-1),
// v2 = c_(i+1) - c_i (counter-clockwise turns positive), averaged over the
// 2 window + 1 points around i (every point once if that exceeds the count);
// NaN past the count and for tracks of fewer than 3 points.
//
// speed profile: per point, v = min(sqrt(a_lat_max / |kappa|), v_cap) (v_cap
// where |kappa| <= 1e-9 or kappa is NaN), then twice a forward pass bounding
// v_(i+1) by sqrt(v_i^2 + 2 a_accel ds_i) around the loop and a backward pass
// bounding v_i by sqrt(v_(i+1)^2 + 2 a_brake ds_i), ds_i the arc length of
// segment i: the fastest speed at every point from which the car can brake in
// time for every later point, and that it can reach from earlier ones.
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/inputs.hpp>

#include <optional>
#include <string>

namespace trackgen {

/// The localization of every env, [E] each, overwritten in place by every query.
template <class Space = Kokkos::DefaultExecutionSpace>
struct TrackFrame {
  DView<float, Space> s;                ///< arc length of the nearest centerline point
  DView<float, Space> n;                ///< lateral offset, positive to the right of travel
  DView<float, Space> n_up;             ///< vertical offset
  DView<std::int32_t, Space> segment;   ///< centerline segment of the nearest point, -1 if none

  /// An independent deep copy.
  TrackFrame clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class TrackLocalizer {
 public:
  using track_type = Track<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;
  using Vec3View = DView<Vec3f, Space>;

  /// A localizer on `track` (aliased), on `space`: cold without `warm_window`,
  /// warm with a window W >= 1; `relock_distance` (> 0; unset: none) bounds the
  /// distance a warm result may have before the whole ring is searched.
  TrackLocalizer(Space space, const track_type& track, std::optional<int> warm_window = std::nullopt,
                 std::optional<float> relock_distance = std::nullopt);

  /// Bound mode: binds the [E] positions every query() without arguments reads.
  void bind(const Vec3View& position);
  /// Bound-mode query on the localizer's instance (the same result object every call).
  const TrackFrame<Space>& query();
  /// Bound-mode query on `ctx`.
  const TrackFrame<Space>& query(const LaunchContext<Space>& ctx);
  /// Per-call mode ([E] Vec3f). ConfigError in bound mode.
  const TrackFrame<Space>& query(const Vec3View& position);
  /// Per-call mode on `ctx`.
  const TrackFrame<Space>& query(const LaunchContext<Space>& ctx, const Vec3View& position);

  /// Forgets every env's last segment.
  void reset();
  /// Forgets the last segment of envs with mask[e] != 0 (all without a mask) on `ctx`.
  void reset(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The frames of the last query.
  const TrackFrame<Space>& frame() const { return frame_; }
  /// [E] the segment each env was last localized on (-1: none; warm state).
  const IntView& last_segment() const { return last_; }
  /// The warm window W (unset: cold).
  std::optional<int> warm_window() const { return window_ > 0 ? std::optional<int>(window_) : std::nullopt; }
  /// Envs E (the Track's).
  int num_envs() const { return track_.num_envs(); }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  void launch_query(const LaunchContext<Space>& ctx, const Vec3View& position);

  LaunchContext<Space> ctx_;
  track_type track_;
  int window_;      // 0: cold
  float relock_;    // +inf: none
  IntView last_;
  TrackFrame<Space> frame_;
  BoundInputs<PositionInput<Space>> inputs_;
};

/// Limits of the speed profile. Its fields, their bounds and its JSON form
/// (an object of the four fields, CourseConfig.speed_limits) are one table in
/// runtime/src/course_config.cpp.
struct SpeedLimits {
  float a_lat_max = 2.0f;  ///< lateral acceleration bound, > 0
  float a_accel = 1.0f;    ///< longitudinal acceleration, >= 0
  float a_brake = 2.0f;    ///< braking deceleration, >= 0
  float v_cap = 1.5f;      ///< top speed, > 0

  /// Throws ConfigError "<api>: SpeedLimits.<field>: <value> is invalid; must
  /// be <rule>" for the first field out of its bounds or not finite.
  void validate(const std::string& api) const;
};

/// Writes the curvature of every point of `track` (see the file comment) into
/// `out` ([E*N_max]) on `ctx`, only for envs with mask[e] != 0 when `mask` is
/// given. `window` >= 0 (0: no smoothing).
template <class Space>
void compute_curvature(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                       const DView<float, Space>& out, int window = 2,
                       const DView<std::int32_t, Space>& mask = DView<std::int32_t, Space>());

/// The curvature of every point of `track`, in a new [E*N_max] View (on `space`, which it fences).
template <class Space>
DView<float, Space> curvature(const Space& space, const Track<typename Space::memory_space>& track, int window = 2);

/// Writes the speed profile of every point of `track` from its curvature
/// `kappa` ([E*N_max]) into `out` ([E*N_max]) on `ctx`, only for envs with
/// mask[e] != 0 when `mask` is given.
template <class Space>
void compute_speed_profile(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                           const SpeedLimits& limits, const DView<float, Space>& kappa, const DView<float, Space>& out,
                           const DView<std::int32_t, Space>& mask = DView<std::int32_t, Space>());

/// The speed profile of `track` in a new [E*N_max] View, from its curvature
/// (computed with `window`), on `space`, which it fences.
template <class Space>
DView<float, Space> speed_profile(const Space& space, const Track<typename Space::memory_space>& track,
                                  const SpeedLimits& limits, int window = 2);

}  // namespace trackgen
