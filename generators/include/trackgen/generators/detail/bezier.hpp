// The `bezier` centerline generator (reference section 2.1), declared here so
// that tests can inspect its scratch (corner counts, sorted corners, crossers).
#pragma once

#include <trackgen/generators/detail/common.hpp>
#include <trackgen/generators/generator.hpp>

#include <string>

namespace trackgen::detail {

/// The bezier generator's parameters, resolved on the host from a config.
struct BezierParams : PointFamilyParams {
  float edgy = 0.0f;
  bool styled = false;  ///< per-env style sampling
  FloatRange rad{};     ///< (lo, hi); (v, v) for a constant
  FloatRange scale{};
  FloatRange clamp{};

  /// Resolves and checks (ConfigError naming the field) a config.
  static BezierParams from_config(const TrackGenConfig& config);
  /// Dense samples per env, M = P * npseg.
  int dense_stride() const { return num_slots * npseg; }
};

/// Reference 2.1. Launch sequence of generate() (sizes for E envs):
///   [style (E), only with style_sampling] . corners (E) . sort (E teams) . tangents (E*P) .
///   assemble (E*M) . arc_scan (E) . arc_lookup (E*N) . xcount (E teams) .
///   polygon (E*M, crossers only) . arc_scan_selected (E) .
///   arc_lookup_selected (E*N) . valid (E).
/// The Bezier resample goes straight into the output and the selected polygon
/// resample overwrites the rows of the crossing envs, which is the reference's
/// "select" step without a separate buffer and copy.
template <class Space>
class BezierGenerator final : public Generator<Space> {
 public:
  using IntView = DView<std::int32_t, Space>;
  using FloatView = DView<float, Space>;
  using Vec2View = DView<Vec2f, Space>;

  BezierGenerator(const TrackGenConfig& config, const Space& space);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;

  const BezierParams& params() const { return p_; }
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
  BezierParams p_;
  std::string prefix_;                               ///< kernel label prefix "TrackGen::generators::bezier::"
  FloatView style_rad_, style_scale_, style_clamp_;  ///< [E] with style sampling, else empty
  IntView count_;                                    ///< [E]
  Vec2View raw_;                                     ///< [E*P] corners in draw order
  Vec2View corners_;                                 ///< [E*P] angle-sorted, NaN at slots >= m
  IntView used_;                                     ///< [E*P] recorded cells
  DView<std::uint64_t, Space> keys_;                 ///< [E*P] composite angle keys (compat::sort_key)
  Vec2View tangents_;                                ///< [E*P]
  FloatView lmin_;                                   ///< [E*P] shorter incident edge
  Vec2View dense_;                                   ///< [E*M]
  Vec2View poly_;                                    ///< [E*M]
  IntView crossers_;                                 ///< [E]
  ArcScratch<Space> arc_;
};

}  // namespace trackgen::detail
