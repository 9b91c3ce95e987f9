// CourseLine: the centre line of a gate course (docs/algorithms.md#course-line), a
// Track-shaped polyline through the gate centres that a TrackLocalizer can
// localize on and curvature() can read.
//
// Env e's line has count = n * spg points (n real gates, spg samples per gate):
// point j lies on the uniform Catmull-Rom segment i = j / spg through the gate
// centres i-1, i, i+1, i+2 (mod n, in 3D) at t = (j mod spg) / spg, so point
// i * spg is gate i's centre. Then unit central-difference tangents, the 3D
// arc length before each point and the closed length. An env with fewer than 3
// gates or an invalid course gets count 0, valid 0 and NaN points. outer,
// inner and normal stay NaN, winding 0. Stride N_max = G * spg.
#pragma once

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>

namespace trackgen {

template <class Space = Kokkos::DefaultExecutionSpace>
class CourseLine {
 public:
  using track_type = Track<typename Space::memory_space>;
  using sequence_type = GateSequence<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;

  /// The line of `gates` (aliased) with `samples_per_gate` (>= 2) points per
  /// gate, on `space`; refreshed once (the line is valid after construction).
  CourseLine(Space space, const sequence_type& gates, int samples_per_gate = 8);

  /// Recomputes every env's line from the gates (after a regeneration);
  /// returns the line (the same object every call).
  const track_type& refresh();
  /// Same on `ctx`, only for the envs with mask[e] != 0 when `mask` ([E]
  /// int32) is given.
  const track_type& refresh(const LaunchContext<Space>& ctx, const IntView& mask = IntView());

  /// The line written by refresh().
  const track_type& line() const { return line_; }
  /// Samples per gate.
  int samples_per_gate() const { return spg_; }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

 private:
  LaunchContext<Space> ctx_;
  sequence_type gates_;
  int spg_;
  track_type line_;
};

}  // namespace trackgen
