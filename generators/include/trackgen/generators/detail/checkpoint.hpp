// The `checkpoint` centerline generator (docs/algorithms.md#checkpoint), declared here
// so that tests can read its scratch (candidate crossings, clip flags).
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <string>

namespace trackgen::detail {

/// The checkpoint generator's parameters, resolved on the host from a config.
struct CheckpointParams {
  int num_envs = 0;
  int num_points = 0;       ///< N
  int num_checkpoints = 0;  ///< C
  int num_candidates = 0;   ///< K = checkpoint_best_of_k
  bool clip = false;        ///< checkpoint_clip_fallback
  float radius_min_frac = 0.0f;
  float angle_jitter = 0.0f;  ///< fraction of the slot 2 pi / C
  float turn_rate = 0.0f;     ///< rad per step
  float steer_gain = 0.0f;
  float lookahead_frac = 0.0f;
  float target = 0.0f;  ///< normalized_extent * scale

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static CheckpointParams from_config(const TrackGenConfig& config);
  /// Candidate slots E * K.
  int num_slots() const { return num_envs * num_candidates; }
};

// Kernels shared with the gate anchor sources (generators/src/gate_sources.cpp).

/// Step 1, thread per slot (env e, candidate k): stream
/// seed_e * 4099 + k * 2741 + 1; per checkpoint c the jitter
/// (2u - 1) * angle_jitter * sigma, then the radius rmin + u (1 - rmin) (R = 1);
/// checkpoint = r (cos theta, sin theta), theta = c sigma + jit.
template <class Space>
void checkpoint_rings(const LaunchContext<Space>& ctx, const std::string& label, const CheckpointParams& p,
                      const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& checkpoints);

/// Launch sequence of generate() (sizes for E envs, K candidates;
/// K == 1 and the clip are construction-time branches, nothing else depends on
/// data):
///   checkpoints (E*K) . [walk (E) . closure (E) . [K > 1: score (E teams)]] x K .
///   [K > 1: select (E*N)] .
///   [clip: clip (E teams) . arc_scan_selected (E) . arc_lookup_selected (E*N)] .
///   normalize (E teams) . valid (E).
/// With K == 1 the walk and the closure write straight into the output (the
/// original system's copy of the single candidate). The clip writes the kept sub-loop
/// of the envs with a crossing into an [E*(N+2)] NaN-padded buffer and the
/// selected ARC resamples only those envs back to N, so the others pass through
/// untouched. Candidate k is walked, closed and counted only while no earlier
/// candidate of the env is crossing-free (the selection is unchanged: ties go
/// to the lowest k), which skips most of the O(K N^2) XCOUNT work and most
/// walks and closures (their N atan2, cos and sin each); the rows of skipped
/// candidates keep whatever they held.
template <class Space>
class CheckpointGenerator final : public BuiltinGenerator<Space, CheckpointParams> {
  using Base = BuiltinGenerator<Space, CheckpointParams>;

 public:
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config` and allocates the scratch on `space`.
  CheckpointGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const CheckpointParams& p, F&& f);

  /// Checkpoints [E*K*C] (candidate k of env e at slot e*K + k).
  const Vec2View& checkpoints() const { return checkpoints_; }
  /// Closed candidate loops [E*K*N] before the selection (K > 1; empty for
  /// K == 1); only the candidates counted (candidate_crossings() >= 0) are current.
  const Vec2View& candidates() const { return candidates_; }
  /// XCOUNT of every candidate [E*K], -1 for candidates not counted because an
  /// earlier candidate of the env has no crossing (K > 1; empty for K == 1).
  const IntView& candidate_crossings() const { return crossings_; }
  /// Per env, 1 if the clip cut the selected loop at its first crossing (clip
  /// enabled; empty otherwise).
  const IntView& clipped() const { return clipped_; }

 private:
  using Base::p_;
  using Base::prefix_;
  Vec2View checkpoints_;   ///< [E*K*C]
  Vec2View candidates_;    ///< [E*K*N] walk, then closed candidate (K > 1; empty for K == 1)
  IntView crossings_;      ///< [E*K] (K > 1)
  Vec2View clip_loops_;    ///< [E*(N+2)] the kept sub-loops of the clipped envs (clip)
  IntView clipped_;        ///< [E] (clip)
  ArcScratch<Space> arc_;  ///< stride N+2 (clip)
};

}  // namespace trackgen::detail
