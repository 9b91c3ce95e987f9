// FrameChecker: a sphere (the drone) against the square frames of a gate
// course (docs/algorithms.md#frame-collision).
//
// Each gate is four solid boxes in its own frame (x forward, y left, z up;
// hs = half_size, t = frame_thickness, d = frame_depth): two posts centred at
// (0, +-(hs + t/2), 0) with half extents (d/2, t/2, hs + t) and two bars
// centred at (0, 0, +-(hs + t/2)) with half extents (d/2, hs + t, t/2), so the
// opening is the square of side 2 hs. Per env (skipped when the course is
// invalid, has no gate, or the position is NaN) only a window of gates around
// the progress target is examined: (next - 1 + k) mod n for k < min(window, n).
// The sphere hits a box when its signed distance to the box is below radius;
// depth = the deepest penetration radius - distance.
#pragma once

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/exec/launch_context.hpp>

namespace trackgen {

/// Frame contacts of every env, [E] each, overwritten in place by every query.
template <class Space = Kokkos::DefaultExecutionSpace>
struct FrameContact {
  DView<std::int32_t, Space> hit;  ///< 1 if the sphere touches a frame of the window
  DView<float, Space> depth;       ///< its deepest penetration (0 without a hit)

  /// An independent deep copy.
  FrameContact clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class FrameChecker {
 public:
  using sequence_type = GateSequence<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;
  using Vec3View = DView<Vec3f, Space>;

  /// A checker of the gates of `gates` (aliased: a regenerated sequence is
  /// seen by the next query) for a sphere of `radius`, frames of
  /// `frame_thickness` and `frame_depth` (all finite and > 0), examining
  /// `window` (>= 1) gates per env. ConfigError naming the argument otherwise.
  FrameChecker(Space space, const sequence_type& gates, float radius, float frame_thickness, float frame_depth,
               int window = 4);

  /// Binds the [E] sphere centres every query reads.
  void bind_inputs(const Vec3View& position);
  /// Binds the [E] progress targets (ProgressTracker::next_checkpoint_state()).
  void bind_window(const IntView& next);

  /// Queries every env on the checker's instance; ConfigError unless both
  /// inputs are bound. Returns the contacts (the same object every call).
  const FrameContact<Space>& query();
  /// Same on `ctx` (recorded when ctx records).
  const FrameContact<Space>& query(const LaunchContext<Space>& ctx);

  /// The contacts of the last query.
  const FrameContact<Space>& contacts() const { return contacts_; }
  /// Gates examined per env.
  int window() const { return window_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  LaunchContext<Space> ctx_;
  sequence_type gates_;
  float radius_, thickness_, depth_;
  int window_;
  Vec3View position_;
  IntView next_;
  FrameContact<Space> contacts_;
};

}  // namespace trackgen
