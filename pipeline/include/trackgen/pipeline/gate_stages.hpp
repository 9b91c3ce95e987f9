// The stages of the gate pipeline (docs/algorithms.md#gates), as functions over
// flat [E*G] buffers that issue their work through a LaunchContext and
// allocate nothing. GateGenerator runs them in this order:
//   source anchors . order (ccw: the shared angle sort first) . [normalize] .
//   separate . lift . frames . validity.
// They are public so that tests and tools can run a stage on a constructed
// sequence (e.g. validity on hand-made gates).
#pragma once

#include <trackgen/core/elevation.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstdint>
#include <string>

namespace trackgen {

/// The scalars every gate stage reads, resolved once on the host.
struct GateParams {
  int num_envs = 0;
  int max_gates = 0;      ///< G, the sequence stride
  int anchor_stride = 0;  ///< S, the source's anchors per env (<= G)
  int min_gates = 0;
  GateOrdering ordering = GateOrdering::ccw;
  GateAlign align = GateAlign::yaw_only;
  bool normalize = false;    ///< rescale each course's bbox to norm_target
  float norm_target = 0.0f;  ///< 1.44 * scale
  float sep_target = 0.0f;   ///< 2 * gate_radius
  int solve_iters = 0;       ///< gate_solve_iters
  float gate_width = 0.0f;
  float half_size = 0.0f;  ///< gate_width / 2
  ZParams z;
  float z_valid_grade = 0.0f;

  /// The parameters of `config` for a source of `anchor_stride` anchors per
  /// env that asks for normalization or not.
  static GateParams from_config(const GateGenConfig& config, int anchor_stride, bool normalize);
};

/// Ordering into the course (thread per env after the optional team sort):
/// m = clamp(count[e], 0, S) anchors of anchors[e*S, +S) become
/// staging[e*G, +m) in the order of p.ordering (ccw: sort_by_angle into
/// `sorted`; raw: as written; random_pairs: consecutive pairs (2q, 2q+1)
/// emitted by ascending key randf(seed * 3187 + 7919 + q * 104729) + q * 1e-6,
/// ties to the lower q, using `pair_keys` [E*S]); slots >= m NaN; count[e] = m.
/// Labels TrackGen::gates::sort, TrackGen::gates::order.
template <class Space>
void order_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& seeds,
                 const DView<Vec2f, Space>& anchors, const DView<std::uint64_t, Space>& sort_keys,
                 const DView<Vec2f, Space>& sorted, const DView<float, Space>& pair_keys,
                 const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& staging);

/// Gauss-Seidel disc separation, thread per env (no launch when
/// solve_iters == 0 or sep_target == 0): up to solve_iters rounds over the
/// pairs i < j < count in order; a pair closer than d* (dist + 1e-8 < d*) is
/// pushed apart symmetrically to d*, at once (later pairs see the move), along
/// d / dist, or for coincident gates along the angle
/// 12.9898 (i+1) + 78.233 (j+1) + 37.719 (round+1) + 19.371 (e+1). Stops
/// after a round that moved nothing. Label TrackGen::gates::separate.
template <class Space>
void separate_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& count,
                    const DView<Vec2f, Space>& staging);

/// Lift, thread per env: cum[i] = cumulative plan-view chord length through
/// gates 0..i, perimeter = cum[n-1] + |p0 - p[n-1]|, z[i] from the elevation
/// profile per gate (flat: z_base; uniform: seed * 15679 + i; random_walk over
/// cum; noise at cum[i]); position = (x, y, z) for real gates, NaN after.
/// `cum` and `z` are [E*G] scratch. Label TrackGen::gates::lift.
template <class Space>
void lift_gates(const LaunchContext<Space>& ctx, const GateParams& p, const DView<std::int32_t, Space>& seeds,
                const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& staging,
                const DView<float, Space>& cum, const DView<float, Space>& z, const DView<Vec3f, Space>& position);

/// Tangents and frames, thread per env (docs/algorithms.md#gate-frames):
/// every per-gate field of `seq` but position from seq.position and
/// seq.count; fallbacks[e] = the number of gates whose forward had to fall
/// back (vertical or zero tangent). Label TrackGen::gates::frames.
template <class Space>
void gate_frames(const LaunchContext<Space>& ctx, const GateParams& p,
                 const GateSequence<typename Space::memory_space>& seq, const DView<std::int32_t, Space>& fallbacks);

/// Validity, thread per env (docs/algorithms.md#gate-validity): seq.valid[e]
/// = 1 unless the count is outside [min_gates, G], a real gate has a
/// non-finite field or a zero tangent, two real gates are closer in plan view
/// than the separation target, two gate bars intersect (gate_width > 0), or
/// consecutive gates are steeper than z_valid_grade (> 0). Label
/// TrackGen::gates::validity.
template <class Space>
void gate_validity(const LaunchContext<Space>& ctx, const GateParams& p,
                   const GateSequence<typename Space::memory_space>& seq);

}  // namespace trackgen
