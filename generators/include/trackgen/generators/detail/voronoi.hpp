// The `voronoi` centerline generator (reference section 2.4), declared here so
// that tests can read its scratch (sites, anchors, crossers).
#pragma once

#include <trackgen/generators/detail/common.hpp>
#include <trackgen/generators/generator.hpp>

#include <string>

namespace trackgen::detail {

/// voronoi_site_layout.
enum class VoronoiLayout : int {
  ring = 0,       ///< uniform box fill (the name is the reference's)
  void_ring = 1,  ///< annulus
  clustered = 2,  ///< six clusters on a ring, 22% of the sites in the annulus
  mixed = 3,      ///< 65% annulus, 35% box
};

/// The voronoi generator's parameters, resolved on the host from a config.
struct VoronoiParams {
  int num_envs = 0;
  int num_points = 0;   ///< N
  int num_sites = 0;    ///< S
  int num_anchors = 0;  ///< K = voronoi_control_points
  int npseg = 0;
  VoronoiLayout layout = VoronoiLayout::void_ring;
  float amplitude = 0.0f;       ///< A = clamp(radial_variation * boost(layout), 0, 0.85)
  float angular_jitter = 0.0f;  ///< radians
  float target = 0.0f;          ///< 1.44 * scale

  /// Resolves and checks (ConfigError naming the field) a config.
  static VoronoiParams from_config(const TrackGenConfig& config);
  /// Chaikin loop stride 2K.
  int aug_stride() const { return 2 * num_anchors; }
  /// Dense samples per env, 2K * npseg.
  int dense_stride() const { return aug_stride() * npseg; }
};

/// The layout named `name` (ConfigError listing the four names otherwise).
VoronoiLayout voronoi_layout(const std::string& name);

/// Reference 2.4. Launch sequence of generate() (sizes for E envs):
///   sites (E) . targets (E) . anchors (E teams) . chaikin (E*2K) .
///   spline (E*2K*npseg) . arc_scan (E) . arc_lookup (E*N) . normalize (E teams) .
///   xcount (E teams) . fallback (E*2K*npseg, crossers only) .
///   arc_scan_selected (E) . arc_lookup_selected (E*N) . normalize (E teams) .
///   valid (E).
///
/// The anchor snap runs one team per env: the K anchors in order (each depends
/// on the sites used before it), each a team min-reduction over the S sites of
/// compat::sort_key(cost, site), so that the winner is the first strict minimum
/// (the lowest index among equal costs) whatever the team size or scheduling.
template <class Space>
class VoronoiGenerator final : public Generator<Space> {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec2View = DView<Vec2f, Space>;

  VoronoiGenerator(const TrackGenConfig& config, const Space& space);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;

  const VoronoiParams& params() const { return p_; }
  /// Sites [E*S] of the last generate().
  const Vec2View& sites() const { return sites_; }
  /// (theta, r_t) of each anchor [E*K]: its target angle and radius.
  const Vec2View& targets() const { return targets_; }
  /// Index of the site snapped to by each anchor [E*K].
  const IntView& anchor_sites() const { return anchor_site_; }
  /// The snapped anchors [E*K], in anchor (CCW) order.
  const Vec2View& anchors() const { return selected_; }
  /// Per-env XCOUNT of the spline resample (> 0: the linear fallback was taken).
  const IntView& crossers() const { return crossers_; }

 private:
  VoronoiParams p_;
  std::string prefix_;   ///< "TrackGen::generators::voronoi::"
  Vec2View sites_;       ///< [E*S]
  Vec2View site_polar_;  ///< [E*S] (atan2(y, x), |s|) of each site
  IntView used_;         ///< [E*S]
  Vec2View targets_;     ///< [E*K] (theta, r_t) of each anchor
  IntView anchor_site_;  ///< [E*K]
  Vec2View selected_;    ///< [E*K]
  Vec2View aug_;         ///< [E*2K] Chaikin points
  Vec2View dense_;       ///< [E*2K*npseg] spline, then the fallback loops of the crossers
  IntView crossers_;     ///< [E]
  ArcScratch<Space> arc_;
};

}  // namespace trackgen::detail
