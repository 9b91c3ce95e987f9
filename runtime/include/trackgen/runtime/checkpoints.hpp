// Checkpoints: gates across the road that a ProgressTracker counts passes of.
//
// CheckpointSet holds them flat, [E*M] with stride M (env e owns slots
// [e*M, (e+1)*M), the first count[e] real, the rest NaN): each checkpoint is a
// segment left -> right across the road at `position`, facing `tangent`
// (the direction of travel), open vertically by +-up_half. A set either owns
// its Views or wraps a caller's (zero-copy, so a producer rewriting them in
// place, e.g. a gate sequence, is seen by every later reader; a
// ProgressTracker sees the change in the envs it resets, see progress.hpp).
//
// CheckpointSampler places evenly spaced checkpoints along a Track's
// centerline: env e gets n = round(length / spacing) of them (at least 3;
// capped at the capacity M, which then spaces them length / M apart and raises
// truncated[e]), checkpoint k at arc length k * length / n, its ends the inner
// (left) and outer (right) borders at the same segment and parameter (the
// borders are index-aligned with the centerline), vertically unbounded
// (up_half = 1e30).
#pragma once

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <optional>
#include <string>

namespace trackgen {

template <class Space = Kokkos::DefaultExecutionSpace>
struct CheckpointSet {
  using Vec3View = DView<Vec3f, Space>;
  using FloatView = DView<float, Space>;
  using IntView = DView<std::int32_t, Space>;

  Vec3View position;  ///< [E*M] middle of the checkpoint
  Vec3View left;      ///< [E*M] left end
  Vec3View right;     ///< [E*M] right end
  Vec3View tangent;   ///< [E*M] unit direction of travel through it (the plane's normal)
  FloatView up_half;  ///< [E*M] vertical half opening
  IntView count;      ///< [E] real checkpoints per env

  CheckpointSet() = default;

  /// An owned set of `num_envs` envs of `stride` slots on `space`: no
  /// checkpoint yet (count 0, NaN slots). ConfigError unless both are >= 1.
  CheckpointSet(const Space& space, int num_envs, int stride);

  /// A set aliasing the caller's Views (no copy). Shapes are checked
  /// (ConfigError naming the argument, the expected and the actual extent):
  /// count [E] (E >= 1), the others [E*M] with M >= 1.
  static CheckpointSet wrap(const Vec3View& position, const Vec3View& left, const Vec3View& right,
                            const Vec3View& tangent, const FloatView& up_half, const IntView& count);

  /// The gates of `seq` as checkpoints, aliased (no copy): position, left and
  /// right, tangent = seq.forward (the gate plane's normal), up_half =
  /// seq.half_size (square gates), count. A regenerated sequence is seen
  /// without a copy (a ProgressTracker's after resetting the regenerated envs,
  /// as Course::regenerate does).
  static CheckpointSet from_gates(const GateSequence<typename Space::memory_space>& seq) {
    return wrap(seq.position, seq.left, seq.right, seq.forward, seq.half_size, seq.count);
  }

  /// Envs E.
  int num_envs() const { return static_cast<int>(count.extent(0)); }
  /// Slots per env M.
  int stride() const { return num_envs() > 0 ? static_cast<int>(position.extent(0)) / num_envs() : 0; }

  /// An independent deep copy.
  CheckpointSet clone() const;

  /// Throws ConfigError (naming `api`) unless the Views form a consistent set.
  void check(const std::string& api) const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class CheckpointSampler {
 public:
  using track_type = Track<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;
  using FloatView = DView<float, Space>;

  /// Checkpoints every `spacing` (> 0) along `track`'s centerline, on `space`.
  /// `max_checkpoints` (>= 3) is the capacity M; without it M = max(3,
  /// ceil(1.25 * N_max * s / spacing)) with s the largest point spacing
  /// length / count of a valid env of the batch (host read here; ConfigError
  /// if no env is valid): the longest centerline a track of that stride can
  /// have, with headroom, so later batches fit as well as this one. Samples
  /// once (the set is valid after construction).
  CheckpointSampler(Space space, const track_type& track, float spacing,
                    std::optional<int> max_checkpoints = std::nullopt);

  /// Re-places every env's checkpoints from the Track (after it was
  /// regenerated); returns the set (the same object every call).
  const CheckpointSet<Space>& sample();
  /// Same on `ctx` (recorded when ctx records), only for the envs with
  /// mask[e] != 0 when `mask` (an [E] int32 View) is given.
  const CheckpointSet<Space>& sample(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The checkpoints written by sample().
  const CheckpointSet<Space>& checkpoints() const { return set_; }
  /// [E] 1 where the env needed more than the capacity (its checkpoints are
  /// then spaced length / M apart).
  const IntView& truncated() const { return truncated_; }
  /// [E] arc length between consecutive checkpoints (NaN for envs with fewer
  /// than 3 track points).
  const FloatView& step() const { return step_; }
  /// The capacity M.
  int capacity() const { return set_.stride(); }
  /// The spacing asked for.
  float spacing() const { return spacing_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  LaunchContext<Space> ctx_;
  track_type track_;
  float spacing_;
  CheckpointSet<Space> set_;
  IntView truncated_;
  FloatView step_;
};

}  // namespace trackgen
