// The `voronoi` centerline generator (docs/algorithms.md#voronoi), declared here so
// that tests can read its scratch (sites, anchors, crossers).
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <string>

namespace trackgen::detail {

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
  float target = 0.0f;          ///< normalized_extent * scale

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static VoronoiParams from_config(const TrackGenConfig& config);
  /// Chaikin loop stride 2K.
  int aug_stride() const { return 2 * num_anchors; }
  /// Dense samples per env, 2K * npseg.
  int dense_stride() const { return aug_stride() * npseg; }
};

// Kernels shared with the gate anchor sources (generators/src/gate_sources.cpp).

/// Step 1, thread per env, stream seed * 8171 + 19: cluster phase and radial
/// first (always), then per site the layout's draws.
/// Also stores each site's polar coordinates for the snap and clears `used`.
template <class Space>
void voronoi_sites(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                   const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& sites,
                   const DView<Vec2f, Space>& site_polar, const DView<std::int32_t, Space>& used);

/// Step 2a, thread per env, stream seed * 3911 + 31: rotation, phi0..phi3, then
/// per anchor i the jitter; targets[i] = (theta_i, r_t_i) with
/// theta_i = rotation + sigma * i + jit and the clamped harmonic radius profile.
template <class Space>
void voronoi_targets(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                     const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& targets);

/// Step 2b, one team per env: for anchor i = 0..K-1 in order, the cost of every
/// site, |wrap(angle - theta_i)| / max(sigma, 1e-6) + | |s| - r_t | /
/// max(0.13 L, 1e-6) + (used ? 1000 : 0), reduced over the team as the minimum
/// of compat::sort_key(cost, site): the first strict minimum (lowest index among
/// equal costs; costs are finite and >= 0). One thread then marks it used.
template <class Space>
void voronoi_anchors(const LaunchContext<Space>& ctx, const std::string& label, const VoronoiParams& p,
                     const DView<Vec2f, Space>& sites, const DView<Vec2f, Space>& site_polar,
                     const DView<std::int32_t, Space>& used, const DView<Vec2f, Space>& targets,
                     const DView<std::int32_t, Space>& anchor_site, const DView<Vec2f, Space>& selected);

/// Launch sequence of generate() (sizes for E envs):
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
class VoronoiGenerator final : public BuiltinGenerator<Space, VoronoiParams> {
  using Base = BuiltinGenerator<Space, VoronoiParams>;

 public:
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config` and allocates the scratch on `space`.
  VoronoiGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const VoronoiParams& p, F&& f);

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
  using Base::p_;
  using Base::prefix_;
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
