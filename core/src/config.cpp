// TrackGenConfig: validation, the JSON format and the schema.
//
// One table of fields (ConfigFields<TrackGenConfig>) with each field's bounds
// and documentation drives both JSON directions, validate()'s finiteness and
// single-field checks, and config_schema(); core/detail/config_fields.hpp holds the
// per-type Codecs, the checks and the specs shared with GateGenConfig.
#include <trackgen/core/config_schema.hpp>
#include <trackgen/core/geometry.hpp>

#include <trackgen/core/detail/config_fields.hpp>

namespace trackgen {
namespace detail::config_fields {

// ---------------------------------------------------------------- field table

#define TRACKGEN_CONFIG_FIELD(name, spec) v(#name, c.name, spec)
#define TRACKGEN_SHARED_FIELD(name) v(#name, c.name, shared_spec::name)

constexpr int max_points = 16384;  // num_points, N_max, repulsive stages, relax_band
constexpr int max_sweeps = 100000;  // relax_iters and the sweep indices and periods
constexpr const char* why_sweep_index = "an index or period in the relaxation's sweeps, bounded like relax_iters";
constexpr const char* why_repulsive_iters =
    "the repulsive generator is about a thousand times slower than the others per iteration";
constexpr const char* why_obstacles = "every gradient evaluation visits the 12 points of every obstacle";

/// Calls `v(name, member, spec)` for every field of `c` (TrackGenConfig or const
/// TrackGenConfig), in declaration order, under its JSON name, with its
/// FieldSpec: the one table of the fields' names, bounds and documentation.
template <>
struct ConfigFields<TrackGenConfig> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
    TRACKGEN_CONFIG_FIELD(generator, doc("registered generator name").rule("one of the registered generators"));
    TRACKGEN_CONFIG_FIELD(num_envs,
                          shared_spec::num_envs.rule("num_envs * N_max <= 2147483647 (32-bit point indices)"));
    TRACKGEN_SHARED_FIELD(min_num_points);
    TRACKGEN_SHARED_FIELD(max_num_points);
    TRACKGEN_SHARED_FIELD(num_points_per_segment);
    TRACKGEN_SHARED_FIELD(min_point_distance);
    TRACKGEN_CONFIG_FIELD(min_angle, doc("inert (kept for parity with the original system)"));
    TRACKGEN_SHARED_FIELD(rad);
    TRACKGEN_SHARED_FIELD(edgy);
    TRACKGEN_SHARED_FIELD(scale);
    TRACKGEN_SHARED_FIELD(handle_clamp_frac);
    TRACKGEN_SHARED_FIELD(hull_displacement);
    TRACKGEN_CONFIG_FIELD(style_sampling, doc("bezier: draw rad, scale and clamp per env from the ranges"));
    TRACKGEN_CONFIG_FIELD(rad_range, doc("per-env rad range; null: constant rad"));
    TRACKGEN_CONFIG_FIELD(scale_range, doc("per-env scale range; null: constant scale").gt(0));
    TRACKGEN_CONFIG_FIELD(handle_clamp_frac_range, doc("per-env handle clamp range; null: constant handle_clamp_frac"));
    TRACKGEN_SHARED_FIELD(checkpoint_count);
    TRACKGEN_SHARED_FIELD(checkpoint_radius_min_frac);
    TRACKGEN_SHARED_FIELD(checkpoint_angle_jitter);
    TRACKGEN_CONFIG_FIELD(checkpoint_turn_rate, doc("per-step heading clamp (radians)").gt(0).le(geom::pi_f));
    TRACKGEN_CONFIG_FIELD(checkpoint_steer_gain, doc("proportional steering gain").gt(0).le(1));
    TRACKGEN_CONFIG_FIELD(checkpoint_lookahead_frac, doc("advance radius as a fraction of R").gt(0).le(1));
    TRACKGEN_CONFIG_FIELD(checkpoint_best_of_k,
                          doc("candidate walks per env")
                              .ge(1)
                              .at_most(64, "each candidate is a whole walk of num_points steps and a crossing "
                                           "count, O(num_points^2)"));
    TRACKGEN_CONFIG_FIELD(checkpoint_clip_fallback, doc("cut a crossing loop at its first crossing"));
    TRACKGEN_SHARED_FIELD(polar_num_knots);
    TRACKGEN_SHARED_FIELD(polar_radial_jitter);
    TRACKGEN_SHARED_FIELD(polar_angular_jitter);
    TRACKGEN_SHARED_FIELD(voronoi_num_sites);
    TRACKGEN_SHARED_FIELD(voronoi_site_layout);
    TRACKGEN_CONFIG_FIELD(voronoi_control_points,
                          doc("voronoi anchors K").ge(6).at_most(4096, shared_spec::why_voronoi_anchors));
    TRACKGEN_SHARED_FIELD(voronoi_radial_variation);
    TRACKGEN_SHARED_FIELD(voronoi_angular_jitter);
    TRACKGEN_CONFIG_FIELD(repulsive_grow_mult_min, doc("smallest final length as a multiple of the start").ge(1));
    TRACKGEN_CONFIG_FIELD(repulsive_grow_mult_max,
                          doc("largest final length as a multiple of the start")
                              .gt(1)
                              .at_most(100, "the run takes about 1.6 ln(repulsive_grow_mult_max) / "
                                            "ln(1 + repulsive_ratchet_rate) iterations")
                              .rule(">= repulsive_grow_mult_min"));
    TRACKGEN_CONFIG_FIELD(repulsive_domain_frac, doc("walled disc radius as a fraction of the reference length").gt(0));
    TRACKGEN_CONFIG_FIELD(repulsive_domain_init_ratio, doc("disc radius over the start circle's radius").gt(1));
    TRACKGEN_CONFIG_FIELD(repulsive_obstacle_count_min, doc("fewest obstacles").ge(1).at_most(256, why_obstacles));
    TRACKGEN_CONFIG_FIELD(repulsive_obstacle_count_max,
                          doc("most obstacles").ge(1).at_most(256, why_obstacles).rule(">= repulsive_obstacle_count_min"));
    TRACKGEN_CONFIG_FIELD(repulsive_obstacle_radius_min_frac,
                          doc("smallest obstacle radius as a fraction of the disc radius").gt(0));
    TRACKGEN_CONFIG_FIELD(repulsive_obstacle_radius_max_frac,
                          doc("largest obstacle radius as a fraction of the disc radius")
                              .rule(">= repulsive_obstacle_radius_min_frac"));
    TRACKGEN_CONFIG_FIELD(repulsive_ratchet_rate,
                          doc("relative growth of the target length per iteration; at least 0.001, since the run "
                              "takes about 1.6 ln(repulsive_grow_mult_max) / ln(1 + this) iterations")
                              .ge(0.001));
    TRACKGEN_CONFIG_FIELD(repulsive_alpha, doc("tangent-point energy exponent alpha").gt(0));
    TRACKGEN_CONFIG_FIELD(repulsive_beta, doc("tangent-point energy exponent beta").gt(0));
    TRACKGEN_CONFIG_FIELD(repulsive_tau, doc("step size"));
    TRACKGEN_CONFIG_FIELD(repulsive_w_len, doc("length penalty weight"));
    TRACKGEN_CONFIG_FIELD(repulsive_stages,
                          doc("coarse-to-fine point counts")
                              .ge(4)
                              .at_most(max_points, "the energy is O(n^2) per iteration; bounded like num_points")
                              .rule("non-empty, strictly increasing multiples of 4")
                              .rule("the last equals num_points when generator is \"repulsive\""));
    TRACKGEN_CONFIG_FIELD(repulsive_settle_iters,
                          doc("iterations after the last ratchet step").ge(1).at_most(10000, why_repulsive_iters));
    TRACKGEN_CONFIG_FIELD(repulsive_resample_every,
                          doc("iterations between uniform re-parameterizations")
                              .ge(1)
                              .at_most(10000, "a period in iterations, bounded like repulsive_settle_iters"));
    TRACKGEN_CONFIG_FIELD(repulsive_stall_window,
                          doc("iterations between stall tests")
                              .ge(1)
                              .at_most(10000, "a period in iterations, bounded like repulsive_settle_iters"));
    TRACKGEN_CONFIG_FIELD(repulsive_stall_area_tol, doc("relative area change under which an env freezes"));
    TRACKGEN_CONFIG_FIELD(repulsive_deactivate_obstacles, doc("drop obstacle points once the curve reached them"));
    TRACKGEN_CONFIG_FIELD(half_width, doc("road half-width").gt(0));
    TRACKGEN_CONFIG_FIELD(num_points,
                          doc("generator output resolution N")
                              .ge(4)
                              .at_most(max_points, "the generators' crossing count is O(N^2) per env: 16,384 "
                                                   "points take about 3 s for one env on 2 cores, 4,096 0.2 s"));
    TRACKGEN_CONFIG_FIELD(output_mode, doc("how the generator's loop becomes the chain"));
    TRACKGEN_CONFIG_FIELD(spacing, doc("bead spacing; null: 0.6 * half_width").gt(0));
    TRACKGEN_CONFIG_FIELD(N_max,
                          doc("output stride per env (beads at most)")
                              .ge(3)
                              .at_most(max_points, "without a separation cache (relax_sep_cache_slots = 0) every "
                                                   "relaxation sweep is O(N_max^2) per env")
                              .rule("num_envs * N_max <= 2147483647 (32-bit point indices)"));
    TRACKGEN_CONFIG_FIELD(turning_tol, doc("validity: ||turning| - 2 pi| <= this"));
    TRACKGEN_CONFIG_FIELD(w_floor, doc("validity: the half-width must exceed it"));
    TRACKGEN_CONFIG_FIELD(validity_border_check, doc("validity: simple loops, no folds, border clearance"));
    TRACKGEN_CONFIG_FIELD(relax_enable, doc("run the relaxation"));
    TRACKGEN_CONFIG_FIELD(relax_solver, doc("relaxation solver"));
    TRACKGEN_CONFIG_FIELD(relax_tol, doc("validity: thickness >= (1 - relax_tol) * half_width"));
    TRACKGEN_CONFIG_FIELD(relax_band,
                          doc("constant separation band; null: from the bead spacing")
                              .ge(1)
                              .at_most(max_points, "a band longer than any chain (N_max's bound) separates nothing"));
    TRACKGEN_CONFIG_FIELD(relax_iters,
                          doc("relaxation sweeps")
                              .ge(0)
                              .at_most(max_sweeps, "each sweep is O(N_max * relax_sep_cache_slots) per env: "
                                                   "100,000 sweeps are 2,000 times the default's work"));
    TRACKGEN_CONFIG_FIELD(relax_accel, doc("acceleration of the sweeps"));
    TRACKGEN_CONFIG_FIELD(relax_cheby_rho, doc("Chebyshev spectral radius estimate").ge(0).lt(1));
    TRACKGEN_CONFIG_FIELD(relax_cheby_gamma, doc("Chebyshev under-relaxation").gt(0).le(1));
    TRACKGEN_CONFIG_FIELD(relax_cheby_start,
                          doc("first Chebyshev sweep").ge(1).at_most(max_sweeps, why_sweep_index));
    TRACKGEN_CONFIG_FIELD(relax_smooth_passes,
                          doc("Taubin smoothing passes after the solve")
                              .ge(0)
                              .at_most(10000, "each pass is O(N_max) per env, 2,000 times the default's"));
    TRACKGEN_CONFIG_FIELD(relax_smooth_spacing_iters,
                          doc("spacing-only polish sweeps after smoothing")
                              .ge(0)
                              .at_most(max_sweeps, "each sweep is O(N_max) per env, bounded like relax_iters"));
    TRACKGEN_CONFIG_FIELD(relax_sep_every,
                          doc("sweeps between broadphase refreshes").ge(1).at_most(max_sweeps, why_sweep_index));
    TRACKGEN_CONFIG_FIELD(relax_sep_cache_slots,
                          doc("separation candidates cached per bead (0: no cache, all pairs)")
                              .ge(0)
                              .at_most(1024, "the cache holds num_envs * N_max * slots indices"));
    TRACKGEN_CONFIG_FIELD(relax_sep_cache_skin, doc("cache radius = target * (1 + skin)").ge(0));
    TRACKGEN_CONFIG_FIELD(relax_sep_relax, doc("separation scale"));
    TRACKGEN_CONFIG_FIELD(relax_spc_relax, doc("spacing scale"));
    TRACKGEN_CONFIG_FIELD(relax_bend_relax, doc("bending scale"));
    TRACKGEN_CONFIG_FIELD(relax_margin, doc("separation target = 2 * half_width * (1 + margin)"));
    TRACKGEN_SHARED_FIELD(z_profile);
    TRACKGEN_SHARED_FIELD(z_base);
    TRACKGEN_SHARED_FIELD(z_min);
    TRACKGEN_SHARED_FIELD(z_max);
    TRACKGEN_SHARED_FIELD(z_max_step);
    TRACKGEN_SHARED_FIELD(z_noise_amplitude);
    TRACKGEN_SHARED_FIELD(z_noise_harmonics);
    TRACKGEN_CONFIG_FIELD(z_control_points,
                          doc("elevation knots K of the uniform and random_walk profiles")
                              .ge(3)
                              .at_most(4096, "every env keeps its K knots"));
    TRACKGEN_SHARED_FIELD(z_valid_grade);
  }
};

#undef TRACKGEN_SHARED_FIELD
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
  r.check_all_fields(*this);  // every field's own bounds, from the field table

  // The cross-field rules (the `rules` of the schema), in the original system's order.
  r.check_not_below("max_num_points", max_num_points, "min_num_points", min_num_points);
  r.check_not_below("voronoi_num_sites", voronoi_num_sites, "voronoi_control_points", voronoi_control_points);
  r.check_not_below("repulsive_grow_mult_max", repulsive_grow_mult_max, "repulsive_grow_mult_min",
                    repulsive_grow_mult_min);
  r.check_not_below("repulsive_obstacle_count_max", repulsive_obstacle_count_max, "repulsive_obstacle_count_min",
                    repulsive_obstacle_count_min);
  r.check_not_below("repulsive_obstacle_radius_max_frac", repulsive_obstacle_radius_max_frac,
                    "repulsive_obstacle_radius_min_frac", repulsive_obstacle_radius_min_frac);
  check_stages(r, *this);
  r.require(resolved_spacing() > 0.0f, "spacing", resolved_spacing(), "> 0 (when null: 0.6 * half_width)");
  check_z_range(r, z_profile, z_min, z_max);
  check_point_count(r, num_envs, "N_max", N_max);

  // The ones the original system lacked (docs/differences.md#validation).
  if (!available_generators.empty()) r.check_one_of("generator", generator, available_generators);
}

nlohmann::json config_schema(const std::vector<std::string>& available_generators) {
  return schema_of<TrackGenConfig>("TrackGenConfig", {{"TrackGenConfig", available_generators}});
}

void to_json(json& j, const TrackGenConfig& c) { write_fields(j, c); }

void from_json(const json& j, TrackGenConfig& c) { read_fields(j, c, "TrackGenConfig"); }

TrackGenConfig load_config(const std::string& path) {
  return load_fields<TrackGenConfig>(path, "trackgen::load_config");
}

json parse_config_json(std::string_view text, const std::string& where) {
  try {
    return parse_strict(text, where);
  } catch (const json::exception& e) {
    throw ConfigError(where + ": not valid JSON: " + e.what());
  }
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
