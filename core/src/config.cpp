// TrackGenConfig: validation and the JSON format.
//
// One table of fields (ConfigFields<TrackGenConfig>) drives both JSON
// directions and the finiteness sweep of validate(); config_fields.hpp holds
// the per-type Codecs and the field checks shared with GateGenConfig.
#include <trackgen/core/geometry.hpp>

#include "config_fields.hpp"

namespace trackgen {
namespace detail::config_fields {

// ---------------------------------------------------------------- field table

#define TRACKGEN_CONFIG_FIELD(name) v(#name, c.name)

/// Calls `v(name, member)` for every field of `c` (TrackGenConfig or const
/// TrackGenConfig), in declaration order, under its JSON name.
template <>
struct ConfigFields<TrackGenConfig> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
  TRACKGEN_CONFIG_FIELD(generator);
  TRACKGEN_CONFIG_FIELD(num_envs);
  TRACKGEN_CONFIG_FIELD(min_num_points);
  TRACKGEN_CONFIG_FIELD(max_num_points);
  TRACKGEN_CONFIG_FIELD(num_points_per_segment);
  TRACKGEN_CONFIG_FIELD(min_point_distance);
  TRACKGEN_CONFIG_FIELD(min_angle);
  TRACKGEN_CONFIG_FIELD(rad);
  TRACKGEN_CONFIG_FIELD(edgy);
  TRACKGEN_CONFIG_FIELD(scale);
  TRACKGEN_CONFIG_FIELD(handle_clamp_frac);
  TRACKGEN_CONFIG_FIELD(hull_displacement);
  TRACKGEN_CONFIG_FIELD(style_sampling);
  TRACKGEN_CONFIG_FIELD(rad_range);
  TRACKGEN_CONFIG_FIELD(scale_range);
  TRACKGEN_CONFIG_FIELD(handle_clamp_frac_range);
  TRACKGEN_CONFIG_FIELD(checkpoint_count);
  TRACKGEN_CONFIG_FIELD(checkpoint_radius_min_frac);
  TRACKGEN_CONFIG_FIELD(checkpoint_angle_jitter);
  TRACKGEN_CONFIG_FIELD(checkpoint_turn_rate);
  TRACKGEN_CONFIG_FIELD(checkpoint_steer_gain);
  TRACKGEN_CONFIG_FIELD(checkpoint_lookahead_frac);
  TRACKGEN_CONFIG_FIELD(checkpoint_best_of_k);
  TRACKGEN_CONFIG_FIELD(checkpoint_clip_fallback);
  TRACKGEN_CONFIG_FIELD(polar_num_knots);
  TRACKGEN_CONFIG_FIELD(polar_radial_jitter);
  TRACKGEN_CONFIG_FIELD(polar_angular_jitter);
  TRACKGEN_CONFIG_FIELD(voronoi_num_sites);
  TRACKGEN_CONFIG_FIELD(voronoi_site_layout);
  TRACKGEN_CONFIG_FIELD(voronoi_control_points);
  TRACKGEN_CONFIG_FIELD(voronoi_radial_variation);
  TRACKGEN_CONFIG_FIELD(voronoi_angular_jitter);
  TRACKGEN_CONFIG_FIELD(repulsive_grow_mult_min);
  TRACKGEN_CONFIG_FIELD(repulsive_grow_mult_max);
  TRACKGEN_CONFIG_FIELD(repulsive_domain_frac);
  TRACKGEN_CONFIG_FIELD(repulsive_domain_init_ratio);
  TRACKGEN_CONFIG_FIELD(repulsive_obstacle_count_min);
  TRACKGEN_CONFIG_FIELD(repulsive_obstacle_count_max);
  TRACKGEN_CONFIG_FIELD(repulsive_obstacle_radius_min_frac);
  TRACKGEN_CONFIG_FIELD(repulsive_obstacle_radius_max_frac);
  TRACKGEN_CONFIG_FIELD(repulsive_ratchet_rate);
  TRACKGEN_CONFIG_FIELD(repulsive_alpha);
  TRACKGEN_CONFIG_FIELD(repulsive_beta);
  TRACKGEN_CONFIG_FIELD(repulsive_tau);
  TRACKGEN_CONFIG_FIELD(repulsive_w_len);
  TRACKGEN_CONFIG_FIELD(repulsive_stages);
  TRACKGEN_CONFIG_FIELD(repulsive_settle_iters);
  TRACKGEN_CONFIG_FIELD(repulsive_resample_every);
  TRACKGEN_CONFIG_FIELD(repulsive_stall_window);
  TRACKGEN_CONFIG_FIELD(repulsive_stall_area_tol);
  TRACKGEN_CONFIG_FIELD(repulsive_deactivate_obstacles);
  TRACKGEN_CONFIG_FIELD(half_width);
  TRACKGEN_CONFIG_FIELD(num_points);
  TRACKGEN_CONFIG_FIELD(output_mode);
  TRACKGEN_CONFIG_FIELD(spacing);
  TRACKGEN_CONFIG_FIELD(N_max);
  TRACKGEN_CONFIG_FIELD(turning_tol);
  TRACKGEN_CONFIG_FIELD(w_floor);
  TRACKGEN_CONFIG_FIELD(validity_border_check);
  TRACKGEN_CONFIG_FIELD(relax_enable);
  TRACKGEN_CONFIG_FIELD(relax_solver);
  TRACKGEN_CONFIG_FIELD(relax_tol);
  TRACKGEN_CONFIG_FIELD(relax_band);
  TRACKGEN_CONFIG_FIELD(relax_iters);
  TRACKGEN_CONFIG_FIELD(relax_accel);
  TRACKGEN_CONFIG_FIELD(relax_cheby_rho);
  TRACKGEN_CONFIG_FIELD(relax_cheby_gamma);
  TRACKGEN_CONFIG_FIELD(relax_cheby_start);
  TRACKGEN_CONFIG_FIELD(relax_smooth_passes);
  TRACKGEN_CONFIG_FIELD(relax_smooth_spacing_iters);
  TRACKGEN_CONFIG_FIELD(relax_sep_every);
  TRACKGEN_CONFIG_FIELD(relax_sep_cache_slots);
  TRACKGEN_CONFIG_FIELD(relax_sep_cache_skin);
  TRACKGEN_CONFIG_FIELD(relax_sep_relax);
  TRACKGEN_CONFIG_FIELD(relax_spc_relax);
  TRACKGEN_CONFIG_FIELD(relax_bend_relax);
  TRACKGEN_CONFIG_FIELD(relax_margin);
  TRACKGEN_CONFIG_FIELD(z_profile);
  TRACKGEN_CONFIG_FIELD(z_base);
  TRACKGEN_CONFIG_FIELD(z_min);
  TRACKGEN_CONFIG_FIELD(z_max);
  TRACKGEN_CONFIG_FIELD(z_max_step);
  TRACKGEN_CONFIG_FIELD(z_noise_amplitude);
  TRACKGEN_CONFIG_FIELD(z_noise_harmonics);
  TRACKGEN_CONFIG_FIELD(z_control_points);
  TRACKGEN_CONFIG_FIELD(z_valid_grade);
  }
};

#undef TRACKGEN_CONFIG_FIELD

/// repulsive_stages: non-empty, strictly increasing positive multiples of 4,
/// ending in num_points when the repulsive generator runs.
void check_stages(const FieldRules& rules, const TrackGenConfig& c) {
  const auto& s = c.repulsive_stages;
  bool ok = !s.empty();
  for (std::size_t i = 0; ok && i < s.size(); ++i) ok = s[i] > 0 && s[i] % 4 == 0 && (i == 0 || s[i] > s[i - 1]);
  rules.require(ok, "repulsive_stages", s, "a non-empty, strictly increasing list of positive multiples of 4");
  if (c.generator == "repulsive") {
    rules.require(s.back() == c.num_points, "repulsive_stages", s,
            "a list ending in num_points (" + show(c.num_points) + ") when generator is \"repulsive\"");
  }
}

}  // namespace detail::config_fields

using namespace detail::config_fields;

void TrackGenConfig::validate(const std::vector<std::string>& available_generators) const {
  const FieldRules r{"TrackGenConfig"};
  r.check_all_finite(*this);

  // The checks of the original system, in its order.
  r.check_at_least("num_envs", num_envs, 1);
  r.check("half_width", half_width, gt(0));
  r.check_at_least("min_num_points", min_num_points, 2);
  r.check_not_below("max_num_points", max_num_points, "min_num_points", min_num_points);
  r.check("min_point_distance", min_point_distance, between(0, 0.5f, "(]"));
  r.check_at_least("num_points_per_segment", num_points_per_segment, 2);
  r.check_at_least("voronoi_control_points", voronoi_control_points, 6);
  r.check_not_below("voronoi_num_sites", voronoi_num_sites, "voronoi_control_points", voronoi_control_points);
  r.check_one_of("voronoi_site_layout", voronoi_site_layout);
  r.check("voronoi_radial_variation", voronoi_radial_variation, ge(0));
  r.check("voronoi_angular_jitter", voronoi_angular_jitter, ge(0));
  r.check("repulsive_grow_mult_min", repulsive_grow_mult_min, ge(1));
  r.check("repulsive_grow_mult_max", repulsive_grow_mult_max, gt(1));
  r.check_not_below("repulsive_grow_mult_max", repulsive_grow_mult_max, "repulsive_grow_mult_min",
                  repulsive_grow_mult_min);
  r.check("repulsive_domain_frac", repulsive_domain_frac, gt(0));
  r.check("repulsive_domain_init_ratio", repulsive_domain_init_ratio, gt(1));
  r.check_at_least("repulsive_obstacle_count_min", repulsive_obstacle_count_min, 1);
  r.check_not_below("repulsive_obstacle_count_max", repulsive_obstacle_count_max, "repulsive_obstacle_count_min",
                  repulsive_obstacle_count_min);
  r.check("repulsive_obstacle_radius_min_frac", repulsive_obstacle_radius_min_frac, gt(0));
  r.check_not_below("repulsive_obstacle_radius_max_frac", repulsive_obstacle_radius_max_frac,
                  "repulsive_obstacle_radius_min_frac", repulsive_obstacle_radius_min_frac);
  r.check("repulsive_ratchet_rate", repulsive_ratchet_rate, gt(0));
  r.check("repulsive_alpha", repulsive_alpha, gt(0));
  r.check("repulsive_beta", repulsive_beta, gt(0));
  check_stages(r, *this);
  r.check_at_least("repulsive_settle_iters", repulsive_settle_iters, 1);
  r.check_at_least("repulsive_resample_every", repulsive_resample_every, 1);
  r.check_at_least("repulsive_stall_window", repulsive_stall_window, 1);
  r.check_at_least("relax_sep_every", relax_sep_every, 1);
  r.check_at_least("relax_sep_cache_slots", relax_sep_cache_slots, 0);
  r.check("relax_sep_cache_skin", relax_sep_cache_skin, ge(0));
  r.check_one_of("relax_accel", relax_accel);
  r.check("relax_cheby_rho", relax_cheby_rho, between(0, 1, "[)"));
  r.check("relax_cheby_gamma", relax_cheby_gamma, between(0, 1, "(]"));
  r.check_at_least("relax_cheby_start", relax_cheby_start, 1);
  r.check_at_least("relax_smooth_passes", relax_smooth_passes, 0);
  r.check_at_least("relax_smooth_spacing_iters", relax_smooth_spacing_iters, 0);
  r.check_at_least("checkpoint_count", checkpoint_count, 3);
  r.check_at_least("checkpoint_best_of_k", checkpoint_best_of_k, 1);
  r.check("checkpoint_radius_min_frac", checkpoint_radius_min_frac, between(0, 1, "[)"));
  r.check_one_of("output_mode", output_mode);
  r.check("spacing", resolved_spacing(), gt(0));
  r.check_one_of("z_profile", z_profile);
  r.check_not_below("z_max", z_max, "z_min", z_min);
  r.check("z_max_step", z_max_step, ge(0));
  r.check("z_noise_amplitude", z_noise_amplitude, ge(0));
  r.check_at_least("z_noise_harmonics", z_noise_harmonics, 1);
  r.check("z_valid_grade", z_valid_grade, ge(0));
  r.check_at_least("z_control_points", z_control_points, 3);

  // The checks it lacked or left to its consumers (docs/differences.md#validation).
  if (!available_generators.empty()) r.check_one_of("generator", generator, available_generators);
  r.check("scale", scale, gt(0));
  r.check_range("rad_range", rad_range);
  r.check_range("scale_range", scale_range, gt(0));
  r.check_range("handle_clamp_frac_range", handle_clamp_frac_range);
  r.check("checkpoint_angle_jitter", checkpoint_angle_jitter, between(0, 1, "[)"));
  r.check("checkpoint_turn_rate", checkpoint_turn_rate, between(0, geom::pi_f, "(]"));
  r.check("checkpoint_steer_gain", checkpoint_steer_gain, between(0, 1, "(]"));
  r.check("checkpoint_lookahead_frac", checkpoint_lookahead_frac, between(0, 1, "(]"));
  r.check_one_of("relax_solver", relax_solver);
  r.check_at_least("relax_iters", relax_iters, 0);
  if (relax_band) r.check_at_least("relax_band", *relax_band, 1);
  r.check_at_least("num_points", num_points, 4);
  r.check_at_least("N_max", N_max, 3);
  r.check_at_least("polar_num_knots", polar_num_knots, 1);
  r.check("polar_radial_jitter", polar_radial_jitter, ge(0));
  r.check("polar_angular_jitter", polar_angular_jitter, ge(0));
}

void to_json(json& j, const TrackGenConfig& c) { write_fields(j, c); }

void from_json(const json& j, TrackGenConfig& c) { read_fields(j, c, "TrackGenConfig"); }

TrackGenConfig load_config(const std::string& path) {
  return load_fields<TrackGenConfig>(path, "trackgen::load_config");
}

double as_python_double(float v) {
  if (!std::isfinite(v)) return static_cast<double>(v);
  char buf[64];
  const auto w = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form
  double d = static_cast<double>(v);
  if (w.ec == std::errc()) std::from_chars(buf, w.ptr, d);  // locale-independent
  return d;
}

float TrackGenConfig::resolved_spacing() const {
  return spacing ? *spacing : static_cast<float>(0.6 * as_python_double(half_width));
}

}  // namespace trackgen
