// ProgressTracker: lap progress of one agent per env through a CheckpointSet.
//
// State per env: the previous position (NaN: none yet), the next checkpoint to
// pass (0 at the start), laps and checkpoints passed. update(), one thread per
// env, with n = count[e] checkpoints and g = the next one:
//  - n < 1: only the position is stored (no events, distance NaN);
//  - with a finite previous position: the motion prev -> pos is tested against
//    checkpoint g (geom::plane_pass): a forward pass advances next to g + 1
//    (0 and one more lap after the last checkpoint) and counts one checkpoint
//    of progress; a backward pass through g raises wrong_way; the first other
//    checkpoint passed in either direction is reported as wrong_checkpoint;
//  - the position becomes the previous one (a NaN position therefore pauses the
//    env: the next finite position starts a new motion without events), and
//    dist_to_next = |position of the next checkpoint - pos|.
// reset(mask) restarts masked envs (no previous position, next 0, 0 laps, 0
// progress).
//
// The wrong-checkpoint search does not test every checkpoint every step: each
// env keeps a near index, the near_slots checkpoints nearest (by
// geom::gate_reach, a lower bound on the distance to any crossing point the
// pass test accepts) to the position where it was built, and as its radius
// the least reach of the others. While both ends of the motion lie strictly
// within the radius, only the indexed checkpoints can be passed, and of those
// only the ones whose own reach a motion end does not lie strictly within, so
// only they are tested (in ascending order: the same first one as a full
// scan; an agent at rest where the index was built tests none); a motion
// leaving it, or a change of count[e], rebuilds the index around the new
// position in one loop over all n, which also tests for a pass the checkpoints
// whose reach from the new position is within the motion's length (no other
// can be passed). The events are those of testing every checkpoint.
// The index holds copies of its checkpoints' planes and positions (the update
// reads them in one run per env). It is derived from the checkpoints'
// coordinates: after changing an env's checkpoints in place, reset the env
// (Course::regenerate does), which also drops its index.
//
// A reward per step is dist_to_next[t-1] - dist_to_next[t] + bonus * passed;
// mask the difference on the step after a reset.
#pragma once

#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/checkpoints.hpp>
#include <trackgen/runtime/inputs.hpp>

namespace trackgen {

/// The events of one update, [E] each, overwritten in place by every update.
template <class Space = Kokkos::DefaultExecutionSpace>
struct ProgressEvents {
  using IntView = DView<std::int32_t, Space>;
  IntView passed;             ///< 1 if the next checkpoint was passed forward this step
  IntView checkpoint_passed;  ///< index of the checkpoint passed, -1 if none
  IntView next_checkpoint;    ///< the checkpoint to pass next (after this step)
  IntView laps;               ///< completed laps
  IntView progress;           ///< checkpoints passed in order since the last reset
  IntView wrong_way;          ///< 1 if the next checkpoint was passed backwards
  IntView wrong_checkpoint;   ///< first other checkpoint passed (either way), -1 if none
  DView<float, Space> dist_to_next;  ///< distance to the next checkpoint's middle

  /// An independent deep copy.
  ProgressEvents clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class ProgressTracker {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec3View = DView<Vec3f, Space>;

  /// Checkpoints per env in the near index (see the file comment).
  static constexpr int near_slots = 8;

  /// An indexed checkpoint, copied beside the others of its env so that an
  /// update reads them in one run: the middle 0.5f * (left + right), the
  /// normal and the position (the posts and the opening are read from the set
  /// only when a motion crosses the plane).
  struct NearPlane {
    Vec3f mid, tangent, position;
  };

  /// The near indices of all envs (internal state, see the file comment).
  struct NearIndex {
    IntView index;                   ///< [E*near_slots] checkpoint indices, ascending
    DView<float, Space> reach;       ///< [E*near_slots] their gate_reach from center
    DView<NearPlane, Space> plane;   ///< [E*near_slots] their planes, slot by slot
    Vec3View center;                 ///< [E] where the index was built
    DView<float, Space> radius;      ///< [E] a motion strictly within it passes only indexed ones
    IntView count;                   ///< [E] count[e] when built; -1: no index
  };

  /// A tracker over `checkpoints` (aliased: a sampler refreshing them in place
  /// is seen by the next update of the envs reset since), state allocated on
  /// `space`. ConfigError for an inconsistent set.
  ProgressTracker(Space space, const CheckpointSet<Space>& checkpoints);

  /// Bound mode: binds the [E] positions every update() without arguments reads.
  /// Rebinding other Views after a caller's capture recorded update() logs a
  /// warning (that graph keeps reading the previous ones).
  void bind(const Vec3View& position);

  /// Bound mode update on the tracker's instance; returns the events (the same
  /// object every call).
  const ProgressEvents<Space>& update();
  /// Bound mode update on `ctx` (recorded when ctx records).
  const ProgressEvents<Space>& update(const LaunchContext<Space>& ctx);
  /// Per-call mode: update from `position` ([E] Vec3f). ConfigError in bound mode.
  const ProgressEvents<Space>& update(const Vec3View& position);
  /// Per-call mode on `ctx`.
  const ProgressEvents<Space>& update(const LaunchContext<Space>& ctx, const Vec3View& position);

  /// Restarts every env (and drops its near index).
  void reset();
  /// Restarts the envs with mask[e] != 0 ([E] int32; an unallocated mask: all)
  /// on `ctx`, dropping their near indices.
  void reset(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The events of the last update.
  const ProgressEvents<Space>& events() const { return events_; }
  /// [E] the checkpoint each env must pass next (the live state; read-only use).
  const IntView& next_checkpoint_state() const { return next_; }
  /// [E] the previous positions (NaN: none).
  const Vec3View& previous_position() const { return prev_; }
  /// The checkpoints tracked (aliased).
  const CheckpointSet<Space>& checkpoints() const { return set_; }
  /// Envs E.
  int num_envs() const { return set_.num_envs(); }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  void launch_update(const LaunchContext<Space>& ctx, const Vec3View& position);

  LaunchContext<Space> ctx_;
  CheckpointSet<Space> set_;
  Vec3View prev_;
  IntView next_, laps_, progress_;
  ProgressEvents<Space> events_;
  NearIndex near_;
  BoundInputs<PositionInput<Space>> inputs_;
};

}  // namespace trackgen
