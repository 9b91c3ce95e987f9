// GateGenConfig: every runtime setting of a GateGenerator, its validation and
// its JSON form (the command-line tool's `--mode gates` configuration file).
// The gate pipeline and the fields' meaning are described in
// docs/algorithms.md#gates.
//
// Not carried over from the original system: `device` (the execution space is
// chosen at configure time and by the instance passed to GateGenerator).
#pragma once

#include <trackgen/core/config.hpp>

namespace trackgen {

/// gate_ordering: how a generator's anchors are ordered into a course.
enum class GateOrdering : std::int32_t {
  ccw,           ///< by angle around the anchors' centroid (clockwise in xy; the historical name)
  raw,           ///< in the generator's own order
  random_pairs,  ///< consecutive anchor pairs shuffled by a per-pair random key
};

/// gate_align: which frame a gate takes from its course tangent.
enum class GateAlign : std::int32_t {
  yaw_only,      ///< forward is the horizontal projection of the tangent (upright gates)
  full_tangent,  ///< forward is the 3D tangent (gates pitched with the course)
};

template <>
struct SettingNames<GateOrdering> {
  static constexpr std::array<SettingName<GateOrdering>, 3> values{{{GateOrdering::ccw, "ccw"},
                                                                     {GateOrdering::raw, "raw"},
                                                                     {GateOrdering::random_pairs, "random_pairs"}}};
};
template <>
struct SettingNames<GateAlign> {
  static constexpr std::array<SettingName<GateAlign>, 2> values{
      {{GateAlign::yaw_only, "yaw_only"}, {GateAlign::full_tangent, "full_tangent"}}};
};

struct GateGenConfig {
  // --- selection and batching
  std::string generator = "bezier";  ///< registered gate generator name
  int num_envs = 1;                  ///< batch size E, >= 1

  // --- the gate course (docs/algorithms.md#gates)
  int min_gates = 4;                          ///< >= 2; a course with fewer real gates is invalid
  int max_gates = 32;                         ///< G >= min_gates: the output stride per env
  float gate_radius = 0.025f;                 ///< >= 0; separation target 2 * gate_radius (0: no separation)
  int gate_solve_iters = 8;                   ///< >= 0; Gauss-Seidel separation rounds at most
  float gate_width = 0.0f;                    ///< >= 0; FULL opening width (half_size = gate_width / 2)
  GateOrdering gate_ordering = GateOrdering::ccw;
  GateAlign gate_align = GateAlign::yaw_only;

  // --- point-family anchors, bezier + hull (docs/algorithms.md#bezier)
  int min_num_points = 9;            ///< min anchor count, >= 2
  int max_num_points = 13;           ///< max anchor count, >= min
  float min_point_distance = 0.05f;  ///< grid cell = 2 * this; in (0, 0.5]
  float scale = 1.0f;                ///< isotropic coordinate scale, > 0
  int num_points_per_segment = 30;   ///< inert for gates (kept for parity with TrackGenConfig), >= 2
  float rad = 0.4f;                  ///< inert for gates
  float edgy = 0.0f;                 ///< inert for gates
  float handle_clamp_frac = 0.4f;    ///< inert for gates
  float hull_displacement = 0.15f;   ///< inert for gates

  // --- polar anchors (docs/algorithms.md#polar)
  int polar_num_knots = 12;            ///< K = max(this, 4) gates; >= 1
  float polar_radial_jitter = 0.60f;   ///< clamped to [0, 0.85] at use
  float polar_angular_jitter = 0.30f;  ///< fraction of a knot cell, clamped to [0, 0.45] at use

  // --- voronoi anchors (docs/algorithms.md#voronoi)
  int voronoi_num_sites = 256;  ///< S >= K
  VoronoiLayout voronoi_site_layout = VoronoiLayout::void_ring;
  int voronoi_control_points = 18;         ///< K gates, >= 3
  float voronoi_radial_variation = 0.62f;  ///< >= 0
  float voronoi_angular_jitter = 0.08f;    ///< radians, >= 0

  // --- checkpoint anchors (docs/algorithms.md#checkpoint)
  int checkpoint_count = 12;                 ///< C gates, >= 3
  float checkpoint_radius_min_frac = 0.33f;  ///< in [0, 1)
  float checkpoint_angle_jitter = 0.55f;     ///< fraction of the slot 2 pi / C, in [0, 1)

  // --- elevation (docs/algorithms.md#elevation), one height per gate
  ZProfile z_profile = ZProfile::flat;
  float z_base = 0.0f;
  float z_min = 0.0f;
  float z_max = 0.0f;
  float z_max_step = 0.0f;
  float z_noise_amplitude = 0.0f;
  int z_noise_harmonics = 3;
  float z_valid_grade = 0.0f;

  /// Throws trackgen::ConfigError "GateGenConfig.<field>: <value> is invalid;
  /// must be <rule>" for the first invalid field: every float field is checked
  /// for finiteness first, then the fields in declaration order. When
  /// non-empty, `available_generators` is the list `generator` must belong to.
  void validate(const std::vector<std::string>& available_generators = {}) const;

  /// The TrackGenConfig holding this config's shared fields (batch, anchor
  /// samplers, elevation), the rest at their defaults: what the anchor
  /// sources resolve the centerline generators' parameters from.
  TrackGenConfig track_config() const;
};

/// JSON round trip with the rules of TrackGenConfig's: unknown keys and wrong
/// types throw ConfigError naming the key; missing keys keep their defaults;
/// enum-like settings are their names.
void to_json(nlohmann::json& j, const GateGenConfig& c);
void from_json(const nlohmann::json& j, GateGenConfig& c);

/// Reads a GateGenConfig from a JSON file (ConfigError on I/O or parse errors).
GateGenConfig load_gate_config(const std::string& path);

}  // namespace trackgen
