// The `bezier` centerline generator (docs/algorithms.md#bezier), declared here so
// that tests can inspect its scratch (corner counts, sorted corners, crossers).
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <string>

namespace trackgen::detail {

/// The bezier generator's parameters, resolved on the host from a config.
struct BezierParams : PointFamilyParams {
  float edgy = 0.0f;
  bool styled = false;  ///< per-env style sampling
  FloatRange rad{};     ///< (lo, hi); (v, v) for a constant
  FloatRange scale{};
  FloatRange clamp{};

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static BezierParams from_config(const TrackGenConfig& config);
  /// Dense samples per env, M = P * npseg.
  int dense_stride() const { return num_slots * npseg; }
};

// Kernels shared with the gate anchor sources (generators/src/gate_sources.cpp).

/// Steps 1-2 fused, thread per env: corner count (seed * 6151, clamped to
/// [1, P]) and all P corners (seed * 9781) into `raw`, in draw order. Step 3
/// (prune and stable angle sort) is the shared team kernel sort_by_angle.
template <class Space>
void bezier_corners(const LaunchContext<Space>& ctx, const std::string& label, const BezierParams& p,
                    const DView<std::int32_t, Space>& seeds, const DView<float, Space>& style_scale,
                    const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& raw,
                    const DView<std::int32_t, Space>& used);

/// Launch sequence of generate() (sizes for E envs):
///   [style (E), only with style_sampling] . corners (E) . sort (E teams) . tangents (E*P) .
///   assemble (E*M) . arc_scan (E) . arc_lookup (E*N) . xcount (E teams) .
///   polygon (E*M, crossers only) . arc_scan_selected (E) .
///   arc_lookup_selected (E*N) . valid (E).
/// The Bezier resample goes straight into the output and the selected polygon
/// resample overwrites the rows of the crossing envs: the "select" step of
/// docs/algorithms.md#bezier without a separate buffer and copy.
template <class Space>
class BezierGenerator final : public BuiltinGenerator<Space, BezierParams> {
  using Base = BuiltinGenerator<Space, BezierParams>;

 public:
  using typename Base::FloatView;
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config` and allocates the scratch on `space`.
  BezierGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const BezierParams& p, F&& f);

  /// Per-env corner count m (after the [1, P] clamp) of the last generate().
  const IntView& corner_count() const { return count_; }
  /// Corners [E*P] of the last generate() in draw order (before the sort).
  const Vec2View& raw_corners() const { return raw_; }
  /// Angle-sorted corners [E*P] of the last generate(); NaN at slots >= m.
  const Vec2View& corners() const { return corners_; }
  /// Per-env XCOUNT of the Bezier resample of the last generate() (> 0: the
  /// env took the polygon fallback).
  const IntView& crossers() const { return crossers_; }

 private:
  using Base::p_;
  using Base::prefix_;
  FloatView style_rad_, style_scale_, style_clamp_;  ///< [E] with style sampling, else empty
  IntView count_;                                    ///< [E]
  Vec2View raw_;                                     ///< [E*P] corners in draw order
  Vec2View corners_;                                 ///< [E*P] angle-sorted, NaN at slots >= m
  IntView used_;                                     ///< [E*P] recorded cells
  DView<std::uint64_t, Space> keys_;                 ///< [E*P] composite angle keys (compat::sort_key)
  Vec2View tangents_;                                ///< [E*P]
  FloatView shorter_edge_;                           ///< [E*P] shorter incident edge of each corner
  Vec2View dense_;                                   ///< [E*M]
  Vec2View poly_;                                    ///< [E*M]
  IntView crossers_;                                 ///< [E]
  ArcScratch<Space> arc_;
};

}  // namespace trackgen::detail
