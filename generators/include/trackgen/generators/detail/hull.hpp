// The `hull` centerline generator (docs/algorithms.md#hull), declared here so that
// tests and users can read its scratch and its fallback diagnostics.
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <string>

namespace trackgen::detail {

/// The hull generator's parameters, resolved on the host from a config.
struct HullParams : PointFamilyParams {
  float scale = 1.0f;         ///< config.scale (no style variant)
  float displacement = 0.0f;  ///< hull_displacement

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static HullParams from_config(const TrackGenConfig& config);
  /// Augmented loop stride 2P.
  int aug_stride() const { return 2 * num_slots; }
  /// Dense samples per env, 2P * npseg.
  int dense_stride() const { return aug_stride() * npseg; }
};

// Kernels shared with the gate anchor sources (generators/src/gate_sources.cpp).

/// Steps 1-2 fused, thread per env: corner count (seed * 5119 + 1, clamped to
/// [1, P]) and all P corners (seed * 7919 + 1, the bezier sampler) into `raw`.
template <class Space>
void hull_corners(const LaunchContext<Space>& ctx, const std::string& label, const HullParams& p,
                  const DView<std::int32_t, Space>& seeds, const DView<std::int32_t, Space>& count,
                  const DView<Vec2f, Space>& raw, const DView<std::int32_t, Space>& used);

/// The hull with its fallback made safe. Launch sequence of generate()
/// (sizes for E envs; every launch always happens, data only decides what a
/// kernel writes):
///   corners (E) . sort (E teams) . displace (E) . spline (E*2P*npseg) .
///   arc_scan (E) . arc_lookup (E*N) . xcount (E teams)
///   -- fallback 1, envs with crossers > 0 (the original system's):
///   fallback (E*2P*npseg) . arc_scan_selected (E) . arc_lookup_selected (E*N) .
///   xcount_selected (E teams) -> fallback_crossing
///   -- fallback 2, envs with fallback_crossing > 0 (TrackGen's, docs/differences.md#generators):
///   corner_polygon (E*2P*npseg) . arc_scan_selected (E) .
///   arc_lookup_selected (E*N) . xcount_selected (E teams) -> residual_crossing .
///   valid (E).
///
/// Fallback 1 is the original system's linear loop through the 2m augmented
/// points (corners and displaced midpoints). The original system never re-checks
/// it (docs/differences.md#generators). It is star-shaped about the corners' centroid, hence
/// simple, while hull_displacement < 1, but from 1 on a midpoint can be pushed
/// through the centroid. Here its resample is counted again (fallback_crossing)
/// and, where it still crosses, replaced by fallback 2: the linear loop through
/// the m angle-sorted corners alone, which is simple for every displacement
/// (see hull.cpp for both arguments). The final output of those envs is counted
/// once more (residual_crossing), so an env whose output crosses is never
/// silent: residual_crossing[e] > 0 marks it.
///
/// Diagnostics, per env, of the last generate():
///   crossers[e]           XCOUNT of the Catmull-Rom resample (> 0: fallback 1 taken);
///   fallback_crossing[e]  XCOUNT of the fallback-1 resample (> 0: fallback 2 taken;
///                         0 for envs that did not take fallback 1);
///   residual_crossing[e]  XCOUNT of the fallback-2 resample (0 for envs that did
///                         not take fallback 2). The output of env e crosses
///                         itself iff residual_crossing[e] > 0.
template <class Space>
class HullGenerator final : public BuiltinGenerator<Space, HullParams> {
  using Base = BuiltinGenerator<Space, HullParams>;

 public:
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config` and allocates the scratch on `space`.
  HullGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const HullParams& p, F&& f);

  /// Per-env corner count m (after the [1, P] clamp).
  const IntView& corner_count() const { return count_; }
  /// Corners [E*P] in draw order (before the sort).
  const Vec2View& raw_corners() const { return raw_; }
  /// Angle-sorted corners [E*P]; NaN at slots >= m.
  const Vec2View& corners() const { return sorted_; }
  /// Augmented loops [E*2P]: corner i at 2i, displaced midpoint of edge i at
  /// 2i + 1; NaN at slots >= 2m.
  const Vec2View& augmented() const { return aug_; }
  /// The per-env diagnostics described above.
  const IntView& crossers() const { return crossers_; }
  const IntView& fallback_crossing() const { return fallback_crossing_; }
  const IntView& residual_crossing() const { return residual_crossing_; }

 private:
  using Base::p_;
  using Base::prefix_;
  IntView count_;                     ///< [E] m
  Vec2View raw_;                      ///< [E*P] corners in draw order
  IntView used_;                      ///< [E*P] recorded cells
  DView<std::uint64_t, Space> keys_;  ///< [E*P] composite angle keys
  Vec2View sorted_;                   ///< [E*P]
  Vec2View aug_;                      ///< [E*2P]
  IntView aug_count_;                 ///< [E] 2m
  Vec2View dense_;                    ///< [E*2P*npseg] spline, then the fallback loops of the selected envs
  IntView crossers_;                  ///< [E]
  IntView fallback_crossing_;         ///< [E]
  IntView residual_crossing_;         ///< [E]
  ArcScratch<Space> arc_;
};

}  // namespace trackgen::detail
