// TrackGenConfig: its defaults and the validation of every field.
#include "config_support.hpp"
#include "support.hpp"

#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using trackgen::ConfigError;
using trackgen::FloatRange;
using trackgen::OutputMode;
using trackgen::RelaxAccel;
using trackgen::RelaxSolver;
using trackgen::TrackGenConfig;
using trackgen::VoronoiLayout;
using trackgen::ZProfile;
using namespace trackgen::test::config;


TEST_CASE("TrackGenConfig defaults equal the original system's", "[config]") {
  const TrackGenConfig c;
  CHECK(c.generator == "bezier");
  CHECK(c.num_envs == 1);
  CHECK(c.min_num_points == 9);
  CHECK(c.max_num_points == 13);
  CHECK(c.num_points_per_segment == 30);
  CHECK(c.min_point_distance == 0.05f);
  CHECK(c.min_angle == static_cast<float>(12.5 * 3.14159265358979323846 / 180.0));
  CHECK(c.rad == 0.4f);
  CHECK(c.edgy == 0.0f);
  CHECK(c.scale == 1.0f);
  CHECK(c.handle_clamp_frac == 0.4f);
  CHECK(c.hull_displacement == 0.15f);
  CHECK_FALSE(c.style_sampling);
  CHECK_FALSE(c.rad_range.has_value());
  CHECK_FALSE(c.scale_range.has_value());
  CHECK_FALSE(c.handle_clamp_frac_range.has_value());
  CHECK(c.checkpoint_count == 12);
  CHECK(c.checkpoint_radius_min_frac == 0.33f);
  CHECK(c.checkpoint_angle_jitter == 0.55f);
  CHECK(c.checkpoint_turn_rate == 0.42f);
  CHECK(c.checkpoint_steer_gain == 0.65f);
  CHECK(c.checkpoint_lookahead_frac == 0.16f);
  CHECK(c.checkpoint_best_of_k == 4);
  CHECK_FALSE(c.checkpoint_clip_fallback);
  CHECK(c.polar_num_knots == 12);
  CHECK(c.polar_radial_jitter == 0.60f);
  CHECK(c.polar_angular_jitter == 0.30f);
  CHECK(c.voronoi_num_sites == 256);
  CHECK(c.voronoi_site_layout == VoronoiLayout::void_ring);
  CHECK(c.voronoi_control_points == 18);
  CHECK(c.voronoi_radial_variation == 0.62f);
  CHECK(c.voronoi_angular_jitter == 0.08f);
  CHECK(c.repulsive_grow_mult_min == 4.5f);
  CHECK(c.repulsive_grow_mult_max == 5.5f);
  CHECK(c.repulsive_domain_frac == 0.35f);
  CHECK(c.repulsive_domain_init_ratio == 4.0f);
  CHECK(c.repulsive_obstacle_count_min == 8);
  CHECK(c.repulsive_obstacle_count_max == 12);
  CHECK(c.repulsive_obstacle_radius_min_frac == 0.02f);
  CHECK(c.repulsive_obstacle_radius_max_frac == 0.045f);
  CHECK(c.repulsive_ratchet_rate == 0.012f);
  CHECK(c.repulsive_alpha == 3.0f);
  CHECK(c.repulsive_beta == 6.0f);
  CHECK(c.repulsive_tau == 0.4f);
  CHECK(c.repulsive_w_len == 30.0f);
  CHECK(c.repulsive_stages == std::vector<int>{64, 128, 256});
  CHECK(c.repulsive_settle_iters == 40);
  CHECK(c.repulsive_resample_every == 25);
  CHECK(c.repulsive_stall_window == 16);
  CHECK(c.repulsive_stall_area_tol == 0.05f);
  CHECK(c.repulsive_deactivate_obstacles);
  CHECK(c.half_width == 0.1f);
  CHECK(c.num_points == 256);
  CHECK(c.output_mode == OutputMode::constant_spacing);
  CHECK_FALSE(c.spacing.has_value());
  CHECK(c.N_max == 384);
  CHECK(c.turning_tol == 0.1f);
  CHECK(c.w_floor == 1e-3f);
  CHECK(c.validity_border_check);
  CHECK(c.relax_enable);
  CHECK(c.relax_solver == RelaxSolver::xpbd);
  CHECK(c.relax_tol == 0.02f);
  CHECK_FALSE(c.relax_band.has_value());
  CHECK(c.relax_iters == 50);
  CHECK(c.relax_accel == RelaxAccel::chebyshev);
  CHECK(c.relax_cheby_rho == 0.98f);
  CHECK(c.relax_cheby_gamma == 0.9f);
  CHECK(c.relax_cheby_start == 8);
  CHECK(c.relax_smooth_passes == 5);
  CHECK(c.relax_smooth_spacing_iters == 10);
  CHECK(c.relax_sep_every == 20);
  CHECK(c.relax_sep_cache_slots == 16);
  CHECK(c.relax_sep_cache_skin == 0.5f);
  CHECK(c.relax_sep_relax == 1.0f);
  CHECK(c.relax_spc_relax == 1.0f);
  CHECK(c.relax_bend_relax == 1.5f);
  CHECK(c.relax_margin == 0.15f);
  CHECK(c.z_profile == ZProfile::flat);
  CHECK(c.z_base == 0.0f);
  CHECK(c.z_min == 0.0f);
  CHECK(c.z_max == 0.0f);
  CHECK(c.z_max_step == 0.0f);
  CHECK(c.z_noise_amplitude == 0.0f);
  CHECK(c.z_noise_harmonics == 3);
  CHECK(c.z_control_points == 10);
  CHECK(c.z_valid_grade == 0.0f);

  // Every field is in the JSON form, and nothing else.
  CHECK(json(c).size() == 86);
}

TEST_CASE("TrackGenConfig spacing resolves to 0.6 * half_width", "[config]") {
  TrackGenConfig c;
  // In double from the decimal 0.1, as the original system's Python: 0.06f, while the
  // float product 0.6f * 0.1f is one ulp above.
  CHECK(c.resolved_spacing() == 0.06f);
  CHECK(0.6f * 0.1f != 0.06f);
  c.half_width = 0.5f;
  CHECK(c.resolved_spacing() == 0.3f);
  c.spacing = 0.07f;
  CHECK(c.resolved_spacing() == 0.07f);
}

TEST_CASE("config floats are read as the Python doubles they stand for", "[config]") {
  CHECK(trackgen::as_python_double(0.05f) == 0.05);
  CHECK(trackgen::as_python_double(0.1f) == 0.1);
  CHECK(trackgen::as_python_double(-2.5f) == -2.5);
  CHECK(std::isinf(trackgen::as_python_double(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(trackgen::as_python_double(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("TrackGenConfig defaults and valid edge values validate", "[config]") {
  TrackGenConfig c;
  CHECK_NOTHROW(c.validate());
  CHECK_NOTHROW(c.validate({"bezier", "hull"}));
  c.generator = "anything";
  CHECK_NOTHROW(c.validate());  // no list: the name is checked by the registry
  c = TrackGenConfig{};
  c.generator = "repulsive";
  c.num_points = 256;  // == last stage
  c.min_point_distance = 0.5f;
  c.checkpoint_turn_rate = 3.14159265358979323846f;
  c.checkpoint_steer_gain = 1.0f;
  c.checkpoint_lookahead_frac = 1.0f;
  c.relax_cheby_gamma = 1.0f;
  c.relax_cheby_rho = 0.0f;
  c.relax_band = 1;
  c.rad_range = FloatRange{0.2f, 0.2f};
  c.scale_range = FloatRange{0.5f, 2.0f};
  c.handle_clamp_frac_range = FloatRange{-0.1f, 0.4f};
  c.z_profile = ZProfile::random_walk;
  c.z_min = -1.0f;
  c.z_max = 1.0f;
  c.spacing = 0.01f;
  c.relax_iters = 0;
  CHECK_NOTHROW(c.validate({"bezier", "repulsive"}));
}

TEST_CASE("TrackGenConfig::validate names every invalid field", "[config]") {
  const std::vector<Invalid> cases = {
      // the original system's checks
      {"num_envs", [](TrackGenConfig& c) { c.num_envs = 0; }},
      {"half_width", [](TrackGenConfig& c) { c.half_width = 0.0f; }},
      {"half_width", [](TrackGenConfig& c) { c.half_width = -0.1f; }},
      {"min_num_points", [](TrackGenConfig& c) { c.min_num_points = 1; }},
      {"max_num_points", [](TrackGenConfig& c) { c.max_num_points = 8; }},
      {"min_point_distance", [](TrackGenConfig& c) { c.min_point_distance = 0.0f; }},
      {"min_point_distance", [](TrackGenConfig& c) { c.min_point_distance = 0.51f; }},
      {"num_points_per_segment", [](TrackGenConfig& c) { c.num_points_per_segment = 1; }},
      {"voronoi_control_points", [](TrackGenConfig& c) { c.voronoi_control_points = 5; }},
      {"voronoi_num_sites", [](TrackGenConfig& c) { c.voronoi_num_sites = 17; }},
      {"voronoi_site_layout", [](TrackGenConfig& c) { c.voronoi_site_layout = static_cast<VoronoiLayout>(9); }},
      {"voronoi_radial_variation", [](TrackGenConfig& c) { c.voronoi_radial_variation = -0.1f; }},
      {"voronoi_angular_jitter", [](TrackGenConfig& c) { c.voronoi_angular_jitter = -0.1f; }},
      {"repulsive_grow_mult_min", [](TrackGenConfig& c) { c.repulsive_grow_mult_min = 0.5f; }},
      {"repulsive_grow_mult_max", [](TrackGenConfig& c) {
         c.repulsive_grow_mult_min = 1.0f;
         c.repulsive_grow_mult_max = 1.0f;
       }},
      {"repulsive_grow_mult_max", [](TrackGenConfig& c) { c.repulsive_grow_mult_max = 4.0f; }},
      {"repulsive_domain_frac", [](TrackGenConfig& c) { c.repulsive_domain_frac = 0.0f; }},
      {"repulsive_domain_init_ratio", [](TrackGenConfig& c) { c.repulsive_domain_init_ratio = 1.0f; }},
      {"repulsive_obstacle_count_min", [](TrackGenConfig& c) { c.repulsive_obstacle_count_min = 0; }},
      {"repulsive_obstacle_count_max", [](TrackGenConfig& c) { c.repulsive_obstacle_count_max = 7; }},
      {"repulsive_obstacle_radius_min_frac", [](TrackGenConfig& c) { c.repulsive_obstacle_radius_min_frac = 0.0f; }},
      {"repulsive_obstacle_radius_max_frac", [](TrackGenConfig& c) { c.repulsive_obstacle_radius_max_frac = 0.01f; }},
      {"repulsive_ratchet_rate", [](TrackGenConfig& c) { c.repulsive_ratchet_rate = 0.0f; }},
      {"repulsive_alpha", [](TrackGenConfig& c) { c.repulsive_alpha = 0.0f; }},
      {"repulsive_beta", [](TrackGenConfig& c) { c.repulsive_beta = -1.0f; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {}; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {64, 64, 256}; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {128, 64, 256}; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {64, 130, 256}; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {0, 128, 256}; }},
      {"repulsive_stages", [](TrackGenConfig& c) { c.repulsive_stages = {-4, 128, 256}; }},
      {"repulsive_stages", [](TrackGenConfig& c) {
         c.generator = "repulsive";
         c.num_points = 200;
       }},
      {"repulsive_settle_iters", [](TrackGenConfig& c) { c.repulsive_settle_iters = 0; }},
      {"repulsive_resample_every", [](TrackGenConfig& c) { c.repulsive_resample_every = 0; }},
      {"repulsive_stall_window", [](TrackGenConfig& c) { c.repulsive_stall_window = 0; }},
      {"relax_sep_every", [](TrackGenConfig& c) { c.relax_sep_every = 0; }},
      {"relax_sep_cache_slots", [](TrackGenConfig& c) { c.relax_sep_cache_slots = -1; }},
      {"relax_sep_cache_skin", [](TrackGenConfig& c) { c.relax_sep_cache_skin = -0.5f; }},
      {"relax_accel", [](TrackGenConfig& c) { c.relax_accel = static_cast<RelaxAccel>(9); }},
      {"relax_cheby_rho", [](TrackGenConfig& c) { c.relax_cheby_rho = 1.0f; }},
      {"relax_cheby_rho", [](TrackGenConfig& c) { c.relax_cheby_rho = -0.1f; }},
      {"relax_cheby_gamma", [](TrackGenConfig& c) { c.relax_cheby_gamma = 0.0f; }},
      {"relax_cheby_gamma", [](TrackGenConfig& c) { c.relax_cheby_gamma = 1.5f; }},
      {"relax_cheby_start", [](TrackGenConfig& c) { c.relax_cheby_start = 0; }},
      {"relax_smooth_passes", [](TrackGenConfig& c) { c.relax_smooth_passes = -1; }},
      {"relax_smooth_spacing_iters", [](TrackGenConfig& c) { c.relax_smooth_spacing_iters = -1; }},
      {"checkpoint_count", [](TrackGenConfig& c) { c.checkpoint_count = 2; }},
      {"checkpoint_best_of_k", [](TrackGenConfig& c) { c.checkpoint_best_of_k = 0; }},
      {"checkpoint_radius_min_frac", [](TrackGenConfig& c) { c.checkpoint_radius_min_frac = 1.0f; }},
      {"checkpoint_radius_min_frac", [](TrackGenConfig& c) { c.checkpoint_radius_min_frac = -0.1f; }},
      {"output_mode", [](TrackGenConfig& c) { c.output_mode = static_cast<OutputMode>(9); }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = 0.0f; }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = -0.06f; }},
      {"z_profile", [](TrackGenConfig& c) { c.z_profile = static_cast<ZProfile>(9); }},
      {"z_max", [](TrackGenConfig& c) { c.z_min = 0.5f; }},
      {"z_max_step", [](TrackGenConfig& c) { c.z_max_step = -0.1f; }},
      {"z_noise_amplitude", [](TrackGenConfig& c) { c.z_noise_amplitude = -0.1f; }},
      {"z_noise_harmonics", [](TrackGenConfig& c) { c.z_noise_harmonics = 0; }},
      {"z_valid_grade", [](TrackGenConfig& c) { c.z_valid_grade = -0.1f; }},
      {"z_control_points", [](TrackGenConfig& c) { c.z_control_points = 2; }},
      // the checks the original system lacks
      {"scale", [](TrackGenConfig& c) { c.scale = 0.0f; }},
      {"rad_range", [](TrackGenConfig& c) { c.rad_range = FloatRange{0.5f, 0.3f}; }},
      {"rad_range", [](TrackGenConfig& c) { c.rad_range = FloatRange{nan_f, 0.3f}; }},
      {"scale_range", [](TrackGenConfig& c) { c.scale_range = FloatRange{2.0f, 1.0f}; }},
      {"scale_range", [](TrackGenConfig& c) { c.scale_range = FloatRange{0.0f, 1.0f}; }},
      {"scale_range", [](TrackGenConfig& c) { c.scale_range = FloatRange{1.0f, inf_f}; }},
      {"handle_clamp_frac_range", [](TrackGenConfig& c) { c.handle_clamp_frac_range = FloatRange{0.5f, 0.2f}; }},
      {"checkpoint_angle_jitter", [](TrackGenConfig& c) { c.checkpoint_angle_jitter = 1.0f; }},
      {"checkpoint_angle_jitter", [](TrackGenConfig& c) { c.checkpoint_angle_jitter = -0.1f; }},
      {"checkpoint_turn_rate", [](TrackGenConfig& c) { c.checkpoint_turn_rate = 0.0f; }},
      {"checkpoint_turn_rate", [](TrackGenConfig& c) { c.checkpoint_turn_rate = 3.2f; }},
      {"checkpoint_steer_gain", [](TrackGenConfig& c) { c.checkpoint_steer_gain = 0.0f; }},
      {"checkpoint_steer_gain", [](TrackGenConfig& c) { c.checkpoint_steer_gain = 1.01f; }},
      {"checkpoint_lookahead_frac", [](TrackGenConfig& c) { c.checkpoint_lookahead_frac = 0.0f; }},
      {"checkpoint_lookahead_frac", [](TrackGenConfig& c) { c.checkpoint_lookahead_frac = 1.5f; }},
      {"relax_solver", [](TrackGenConfig& c) { c.relax_solver = static_cast<RelaxSolver>(9); }},
      {"relax_iters", [](TrackGenConfig& c) { c.relax_iters = -1; }},
      {"relax_band", [](TrackGenConfig& c) { c.relax_band = 0; }},
      {"num_points", [](TrackGenConfig& c) { c.num_points = 3; }},
      {"N_max", [](TrackGenConfig& c) { c.N_max = 2; }},
      {"polar_num_knots", [](TrackGenConfig& c) { c.polar_num_knots = 0; }},
      {"polar_radial_jitter", [](TrackGenConfig& c) { c.polar_radial_jitter = -0.1f; }},
      {"polar_angular_jitter", [](TrackGenConfig& c) { c.polar_angular_jitter = -0.1f; }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = nan_f; }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = inf_f; }},
  };
  for (const auto& bad : cases) {
    TrackGenConfig c;
    bad.set(c);
    const std::string msg = config_error([&] { c.validate(); });
    INFO("field " << bad.field << ": message \"" << msg << "\"");
    CHECK(msg.rfind(std::string("TrackGenConfig.") + bad.field + ": ", 0) == 0);
    CHECK(msg.find(" is invalid; must be ") != std::string::npos);
  }
}

TEST_CASE("TrackGenConfig::validate rejects NaN and infinity in every float field", "[config]") {
  // The list covers every float field of the JSON form.
  const json defaults = TrackGenConfig{};
  std::size_t float_keys = 0;
  for (const auto& [key, value] : defaults.items()) float_keys += value.is_number_float();
  CHECK(float_keys == float_fields().size());

  for (const auto& [name, member] : float_fields()) {
    for (const float bad : {nan_f, inf_f, -inf_f}) {
      TrackGenConfig c;
      c.*member = bad;
      const std::string msg = config_error([&] { c.validate(); });
      INFO("field " << name << " = " << bad << ": message \"" << msg << "\"");
      CHECK(msg.rfind(std::string("TrackGenConfig.") + name + ": ", 0) == 0);
      CHECK(msg.find("must be finite") != std::string::npos);
    }
  }
}

TEST_CASE("TrackGenConfig::validate messages name the value and the allowed range", "[config]") {
  TrackGenConfig c;
  c.min_point_distance = 0.75f;
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.min_point_distance: 0.75 is invalid; must be in [1e-04, 0.5]");
  c = TrackGenConfig{};
  c.max_num_points = 4;
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.max_num_points: 4 is invalid; must be >= min_num_points (9)");
  c = TrackGenConfig{};
  c.relax_accel = static_cast<RelaxAccel>(5);
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.relax_accel: (enum value 5) is invalid; must be one of \"none\", \"chebyshev\"");
  c = TrackGenConfig{};
  c.scale_range = FloatRange{0.0f, 2.0f};
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.scale_range: [0, 2] is invalid; must be [lo, hi] with lo <= hi, both > 0");

  // An unknown generator lists the available ones.
  c = TrackGenConfig{};
  c.generator = "fourier";
  const std::string msg = config_error([&] { c.validate({"bezier", "hull", "polar"}); });
  CHECK(msg == "TrackGenConfig.generator: \"fourier\" is invalid; must be one of \"bezier\", \"hull\", \"polar\"");
}
