// The `polar` centerline generator (docs/algorithms.md#polar), declared here so
// that the registry and tests can name it.
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <string>

namespace trackgen::detail {

/// The polar generator's parameters, resolved on the host from a config.
struct PolarParams {
  int num_envs = 0;
  int num_points = 0;  ///< N
  int num_knots = 0;   ///< K = max(polar_num_knots, 4)
  int npseg = 0;
  float radial_jitter = 0.0f;   ///< clamped to [0, 0.85]
  float angular_jitter = 0.0f;  ///< clamped to [0, 0.45]
  float target = 0.0f;          ///< normalized_extent * scale

  /// Resolves a config that passed its field table's checks
  /// (TrackGenConfig::validate, or GateGenConfig::validate for the
  /// track_config() of a gate source): the bounds live there only.
  static PolarParams from_config(const TrackGenConfig& config);
};

// Kernels shared with the gate anchor sources (generators/src/gate_sources.cpp).

/// Step 1, thread per env: per knot i, dr = (2u - 1) rj then da = (2u - 1) aj;
/// r = max(1 + dr, 0.1), theta = 2 pi (i + da) / K.
template <class Space>
void polar_controls(const LaunchContext<Space>& ctx, const std::string& label, const PolarParams& p,
                    const DView<std::int32_t, Space>& seeds, const DView<Vec2f, Space>& controls);

/// Launch sequence of generate() (sizes for E envs): on a host space one
/// launch, centerline (E), a thread per env running every step on its env; on
/// a device controls (E) . dense (E*K*npseg) . arc_scan (E) . arc_lookup (E*N)
/// . normalize (E teams) . valid (E). Both write the same floats.
template <class Space>
class PolarGenerator final : public BuiltinGenerator<Space, PolarParams> {
  using Base = BuiltinGenerator<Space, PolarParams>;

 public:
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config` and allocates the scratch on `space`.
  PolarGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const PolarParams& p, F&& f);

 private:
  using Base::p_;
  using Base::prefix_;
  Vec2View controls_;  ///< [E*K]
  Vec2View dense_;     ///< [E*K*npseg]
  ArcScratch<Space> arc_;
};

}  // namespace trackgen::detail
