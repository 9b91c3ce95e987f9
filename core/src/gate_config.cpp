// GateGenConfig: validation, the JSON format and the schema (the field table
// drives all three).
#include <trackgen/core/gate_config.hpp>

#include <trackgen/core/config_schema.hpp>

#include <trackgen/core/detail/config_fields.hpp>

namespace trackgen {
namespace detail::config_fields {

#define TRACKGEN_GATE_FIELD(name, spec) v(#name, c.name, spec)
#define TRACKGEN_SHARED_FIELD(name) v(#name, c.name, shared_spec::name)

constexpr const char* why_gates = "G gates per env; the separation solve is O(G^2) per round";
constexpr const char* inert = "inert for gates (kept for parity with TrackGenConfig)";

/// Calls `v(name, member, spec)` for every field of `c`, in declaration order,
/// with its FieldSpec (bounds and documentation).
template <>
struct ConfigFields<GateGenConfig> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
    TRACKGEN_GATE_FIELD(generator, doc("registered gate generator name").rule("one of the registered gate generators"));
    TRACKGEN_GATE_FIELD(num_envs,
                        shared_spec::num_envs.rule("num_envs * max_gates <= 2147483647 (32-bit gate indices)"));
    TRACKGEN_GATE_FIELD(min_gates, doc("fewest real gates of a valid course").ge(2).at_most(4096, why_gates));
    TRACKGEN_GATE_FIELD(max_gates,
                        doc("G, the output stride per env").ge(2).at_most(4096, why_gates).rule(">= min_gates"));
    TRACKGEN_GATE_FIELD(gate_radius, doc("separation target 2 * gate_radius (0: no separation)").ge(0));
    TRACKGEN_GATE_FIELD(gate_solve_iters,
                        doc("Gauss-Seidel separation rounds at most")
                            .ge(0)
                            .at_most(10000, "every round is O(G^2) per env"));
    TRACKGEN_GATE_FIELD(gate_width, doc("full opening width (half_size = gate_width / 2)").ge(0));
    TRACKGEN_GATE_FIELD(gate_ordering, doc("how the anchors are ordered into a course"));
    TRACKGEN_GATE_FIELD(gate_align, doc("which frame a gate takes from its course tangent"));
    TRACKGEN_SHARED_FIELD(min_num_points);
    TRACKGEN_SHARED_FIELD(max_num_points);
    TRACKGEN_SHARED_FIELD(min_point_distance);
    TRACKGEN_SHARED_FIELD(scale);
    TRACKGEN_GATE_FIELD(num_points_per_segment,
                        doc(inert).ge(2).at_most(1024, "bounded like TrackGenConfig's num_points_per_segment"));
    TRACKGEN_GATE_FIELD(rad, doc(inert));
    TRACKGEN_GATE_FIELD(edgy, doc(inert));
    TRACKGEN_GATE_FIELD(handle_clamp_frac, doc(inert));
    TRACKGEN_GATE_FIELD(hull_displacement, doc(inert));
    TRACKGEN_SHARED_FIELD(polar_num_knots);
    TRACKGEN_SHARED_FIELD(polar_radial_jitter);
    TRACKGEN_SHARED_FIELD(polar_angular_jitter);
    TRACKGEN_SHARED_FIELD(voronoi_num_sites);
    TRACKGEN_SHARED_FIELD(voronoi_site_layout);
    TRACKGEN_GATE_FIELD(voronoi_control_points,
                        doc("voronoi anchors K (gates)").ge(3).at_most(4096, shared_spec::why_voronoi_anchors));
    TRACKGEN_SHARED_FIELD(voronoi_radial_variation);
    TRACKGEN_SHARED_FIELD(voronoi_angular_jitter);
    TRACKGEN_SHARED_FIELD(checkpoint_count);
    TRACKGEN_SHARED_FIELD(checkpoint_radius_min_frac);
    TRACKGEN_SHARED_FIELD(checkpoint_angle_jitter);
    TRACKGEN_SHARED_FIELD(z_profile);
    TRACKGEN_SHARED_FIELD(z_base);
    TRACKGEN_SHARED_FIELD(z_min);
    TRACKGEN_SHARED_FIELD(z_max);
    TRACKGEN_SHARED_FIELD(z_max_step);
    TRACKGEN_SHARED_FIELD(z_noise_amplitude);
    TRACKGEN_SHARED_FIELD(z_noise_harmonics);
    TRACKGEN_SHARED_FIELD(z_valid_grade);
  }
};

#undef TRACKGEN_SHARED_FIELD
#undef TRACKGEN_GATE_FIELD

}  // namespace detail::config_fields

using namespace detail::config_fields;

void GateGenConfig::validate(const std::vector<std::string>& available_generators) const {
  const FieldRules r{"GateGenConfig"};
  r.check_all_finite(*this);
  if (!available_generators.empty()) r.check_one_of("generator", generator, available_generators);
  r.check_all_fields(*this);  // every field's own bounds, from the field table
  // The cross-field rules (the `rules` of the schema).
  r.check_not_below("max_gates", max_gates, "min_gates", min_gates);
  r.check_not_below("max_num_points", max_num_points, "min_num_points", min_num_points);
  r.check_not_below("voronoi_num_sites", voronoi_num_sites, "voronoi_control_points", voronoi_control_points);
  check_z_range(r, z_profile, z_min, z_max);
  check_point_count(r, num_envs, "max_gates", max_gates);
}

nlohmann::json gate_config_schema(const std::vector<std::string>& available_gate_generators) {
  return schema_of<GateGenConfig>("GateGenConfig", {{"GateGenConfig", available_gate_generators}});
}

TrackGenConfig GateGenConfig::track_config() const {
  TrackGenConfig t;
  t.num_envs = num_envs;
  t.min_num_points = min_num_points;
  t.max_num_points = max_num_points;
  t.min_point_distance = min_point_distance;
  t.scale = scale;
  t.num_points_per_segment = num_points_per_segment;
  t.rad = rad;
  t.edgy = edgy;
  t.handle_clamp_frac = handle_clamp_frac;
  t.hull_displacement = hull_displacement;
  t.polar_num_knots = polar_num_knots;
  t.polar_radial_jitter = polar_radial_jitter;
  t.polar_angular_jitter = polar_angular_jitter;
  t.voronoi_num_sites = voronoi_num_sites;
  t.voronoi_site_layout = voronoi_site_layout;
  t.voronoi_control_points = voronoi_control_points;
  t.voronoi_radial_variation = voronoi_radial_variation;
  t.voronoi_angular_jitter = voronoi_angular_jitter;
  t.checkpoint_count = checkpoint_count;
  t.checkpoint_radius_min_frac = checkpoint_radius_min_frac;
  t.checkpoint_angle_jitter = checkpoint_angle_jitter;
  t.checkpoint_best_of_k = 1;  // the gates take candidate 0's ring
  t.z_profile = z_profile;
  t.z_base = z_base;
  t.z_min = z_min;
  t.z_max = z_max;
  t.z_max_step = z_max_step;
  t.z_noise_amplitude = z_noise_amplitude;
  t.z_noise_harmonics = z_noise_harmonics;
  t.z_valid_grade = z_valid_grade;
  return t;
}

void to_json(json& j, const GateGenConfig& c) { write_fields(j, c); }

void from_json(const json& j, GateGenConfig& c) { read_fields(j, c, "GateGenConfig"); }

GateGenConfig load_gate_config(const std::string& path) {
  return load_fields<GateGenConfig>(path, "trackgen::load_gate_config");
}

}  // namespace trackgen
