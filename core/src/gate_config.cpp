// GateGenConfig: validation and the JSON format (the field table drives both).
#include <trackgen/core/gate_config.hpp>

#include "config_fields.hpp"

namespace trackgen {
namespace detail::config_fields {

#define TRACKGEN_GATE_FIELD(name) v(#name, c.name)

/// Calls `v(name, member)` for every field of `c`, in declaration order.
template <>
struct ConfigFields<GateGenConfig> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
    TRACKGEN_GATE_FIELD(generator);
    TRACKGEN_GATE_FIELD(num_envs);
    TRACKGEN_GATE_FIELD(min_gates);
    TRACKGEN_GATE_FIELD(max_gates);
    TRACKGEN_GATE_FIELD(gate_radius);
    TRACKGEN_GATE_FIELD(gate_solve_iters);
    TRACKGEN_GATE_FIELD(gate_width);
    TRACKGEN_GATE_FIELD(gate_ordering);
    TRACKGEN_GATE_FIELD(gate_align);
    TRACKGEN_GATE_FIELD(min_num_points);
    TRACKGEN_GATE_FIELD(max_num_points);
    TRACKGEN_GATE_FIELD(min_point_distance);
    TRACKGEN_GATE_FIELD(scale);
    TRACKGEN_GATE_FIELD(num_points_per_segment);
    TRACKGEN_GATE_FIELD(rad);
    TRACKGEN_GATE_FIELD(edgy);
    TRACKGEN_GATE_FIELD(handle_clamp_frac);
    TRACKGEN_GATE_FIELD(hull_displacement);
    TRACKGEN_GATE_FIELD(polar_num_knots);
    TRACKGEN_GATE_FIELD(polar_radial_jitter);
    TRACKGEN_GATE_FIELD(polar_angular_jitter);
    TRACKGEN_GATE_FIELD(voronoi_num_sites);
    TRACKGEN_GATE_FIELD(voronoi_site_layout);
    TRACKGEN_GATE_FIELD(voronoi_control_points);
    TRACKGEN_GATE_FIELD(voronoi_radial_variation);
    TRACKGEN_GATE_FIELD(voronoi_angular_jitter);
    TRACKGEN_GATE_FIELD(checkpoint_count);
    TRACKGEN_GATE_FIELD(checkpoint_radius_min_frac);
    TRACKGEN_GATE_FIELD(checkpoint_angle_jitter);
    TRACKGEN_GATE_FIELD(z_profile);
    TRACKGEN_GATE_FIELD(z_base);
    TRACKGEN_GATE_FIELD(z_min);
    TRACKGEN_GATE_FIELD(z_max);
    TRACKGEN_GATE_FIELD(z_max_step);
    TRACKGEN_GATE_FIELD(z_noise_amplitude);
    TRACKGEN_GATE_FIELD(z_noise_harmonics);
    TRACKGEN_GATE_FIELD(z_valid_grade);
  }
};

#undef TRACKGEN_GATE_FIELD

}  // namespace detail::config_fields

using namespace detail::config_fields;

void GateGenConfig::validate(const std::vector<std::string>& available_generators) const {
  const FieldRules r{"GateGenConfig"};
  r.check_all_finite(*this);
  if (!available_generators.empty()) r.check_one_of("generator", generator, available_generators);
  r.check_at_least("num_envs", num_envs, 1);
  r.check_at_least("min_gates", min_gates, 2);
  r.check_not_below("max_gates", max_gates, "min_gates", min_gates);
  r.check("gate_radius", gate_radius, ge(0));
  r.check_at_least("gate_solve_iters", gate_solve_iters, 0);
  r.check("gate_width", gate_width, ge(0));
  r.check_one_of("gate_ordering", gate_ordering);
  r.check_one_of("gate_align", gate_align);
  r.check_at_least("min_num_points", min_num_points, 2);
  r.check_not_below("max_num_points", max_num_points, "min_num_points", min_num_points);
  // (0, 0.5]: the anchor grid needs at least one cell (docs/differences.md#gates).
  r.check("min_point_distance", min_point_distance, between(0, 0.5f, "(]"));
  r.check("scale", scale, gt(0));
  r.check_at_least("num_points_per_segment", num_points_per_segment, 2);
  r.check_at_least("polar_num_knots", polar_num_knots, 1);
  r.check("polar_radial_jitter", polar_radial_jitter, ge(0));
  r.check("polar_angular_jitter", polar_angular_jitter, ge(0));
  r.check_at_least("voronoi_control_points", voronoi_control_points, 3);
  r.check_not_below("voronoi_num_sites", voronoi_num_sites, "voronoi_control_points", voronoi_control_points);
  r.check_one_of("voronoi_site_layout", voronoi_site_layout);
  r.check("voronoi_radial_variation", voronoi_radial_variation, ge(0));
  r.check("voronoi_angular_jitter", voronoi_angular_jitter, ge(0));
  r.check_at_least("checkpoint_count", checkpoint_count, 3);
  r.check("checkpoint_radius_min_frac", checkpoint_radius_min_frac, between(0, 1, "[)"));
  r.check("checkpoint_angle_jitter", checkpoint_angle_jitter, between(0, 1, "[)"));
  r.check_one_of("z_profile", z_profile);
  r.check_not_below("z_max", z_max, "z_min", z_min);
  r.check("z_max_step", z_max_step, ge(0));
  r.check("z_noise_amplitude", z_noise_amplitude, ge(0));
  r.check_at_least("z_noise_harmonics", z_noise_harmonics, 1);
  r.check("z_valid_grade", z_valid_grade, ge(0));
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
