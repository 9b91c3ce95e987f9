// TrackGenConfig: reference defaults, validation of every field, the JSON format.
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
using trackgen::TrackGenConfig;
using json = nlohmann::json;

namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

/// Every float field of TrackGenConfig (the test's own list, checked against the
/// JSON keys below so that a new float field cannot be missed).
const std::vector<std::pair<const char*, float TrackGenConfig::*>>& float_fields() {
  static const std::vector<std::pair<const char*, float TrackGenConfig::*>> fields = {
      {"min_point_distance", &TrackGenConfig::min_point_distance},
      {"min_angle", &TrackGenConfig::min_angle},
      {"rad", &TrackGenConfig::rad},
      {"edgy", &TrackGenConfig::edgy},
      {"scale", &TrackGenConfig::scale},
      {"handle_clamp_frac", &TrackGenConfig::handle_clamp_frac},
      {"hull_displacement", &TrackGenConfig::hull_displacement},
      {"checkpoint_radius_min_frac", &TrackGenConfig::checkpoint_radius_min_frac},
      {"checkpoint_angle_jitter", &TrackGenConfig::checkpoint_angle_jitter},
      {"checkpoint_turn_rate", &TrackGenConfig::checkpoint_turn_rate},
      {"checkpoint_steer_gain", &TrackGenConfig::checkpoint_steer_gain},
      {"checkpoint_lookahead_frac", &TrackGenConfig::checkpoint_lookahead_frac},
      {"polar_radial_jitter", &TrackGenConfig::polar_radial_jitter},
      {"polar_angular_jitter", &TrackGenConfig::polar_angular_jitter},
      {"voronoi_radial_variation", &TrackGenConfig::voronoi_radial_variation},
      {"voronoi_angular_jitter", &TrackGenConfig::voronoi_angular_jitter},
      {"repulsive_grow_mult_min", &TrackGenConfig::repulsive_grow_mult_min},
      {"repulsive_grow_mult_max", &TrackGenConfig::repulsive_grow_mult_max},
      {"repulsive_domain_frac", &TrackGenConfig::repulsive_domain_frac},
      {"repulsive_domain_init_ratio", &TrackGenConfig::repulsive_domain_init_ratio},
      {"repulsive_obstacle_radius_min_frac", &TrackGenConfig::repulsive_obstacle_radius_min_frac},
      {"repulsive_obstacle_radius_max_frac", &TrackGenConfig::repulsive_obstacle_radius_max_frac},
      {"repulsive_ratchet_rate", &TrackGenConfig::repulsive_ratchet_rate},
      {"repulsive_alpha", &TrackGenConfig::repulsive_alpha},
      {"repulsive_beta", &TrackGenConfig::repulsive_beta},
      {"repulsive_tau", &TrackGenConfig::repulsive_tau},
      {"repulsive_w_len", &TrackGenConfig::repulsive_w_len},
      {"repulsive_stall_area_tol", &TrackGenConfig::repulsive_stall_area_tol},
      {"half_width", &TrackGenConfig::half_width},
      {"turning_tol", &TrackGenConfig::turning_tol},
      {"w_floor", &TrackGenConfig::w_floor},
      {"relax_tol", &TrackGenConfig::relax_tol},
      {"relax_cheby_rho", &TrackGenConfig::relax_cheby_rho},
      {"relax_cheby_gamma", &TrackGenConfig::relax_cheby_gamma},
      {"relax_sep_cache_skin", &TrackGenConfig::relax_sep_cache_skin},
      {"relax_sep_relax", &TrackGenConfig::relax_sep_relax},
      {"relax_spc_relax", &TrackGenConfig::relax_spc_relax},
      {"relax_bend_relax", &TrackGenConfig::relax_bend_relax},
      {"relax_margin", &TrackGenConfig::relax_margin},
      {"z_base", &TrackGenConfig::z_base},
      {"z_min", &TrackGenConfig::z_min},
      {"z_max", &TrackGenConfig::z_max},
      {"z_max_step", &TrackGenConfig::z_max_step},
      {"z_noise_amplitude", &TrackGenConfig::z_noise_amplitude},
      {"z_valid_grade", &TrackGenConfig::z_valid_grade},
  };
  return fields;
}

/// One invalid value: the field the error must name and how to break a default config.
struct Invalid {
  const char* field;
  std::function<void(TrackGenConfig&)> set;
};

/// Bit pattern of a float (for bit-exact comparisons).
std::uint32_t bits(float v) { return std::bit_cast<std::uint32_t>(v); }

/// A JSON text through the file format: dump, then parse.
TrackGenConfig through_json(const TrackGenConfig& c) {
  return json::parse(json(c).dump()).get<TrackGenConfig>();
}

/// The message of the ConfigError that `f` throws ("" if it throws none).
template <class F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("TrackGenConfig defaults equal the reference table", "[config]") {
  const TrackGenConfig c;
  // 1.2.1
  CHECK(c.generator == "bezier");
  CHECK(c.num_envs == 1);
  // 1.2.2
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
  // 1.2.3
  CHECK_FALSE(c.style_sampling);
  CHECK_FALSE(c.rad_range.has_value());
  CHECK_FALSE(c.scale_range.has_value());
  CHECK_FALSE(c.handle_clamp_frac_range.has_value());
  // 1.2.4
  CHECK(c.checkpoint_count == 12);
  CHECK(c.checkpoint_radius_min_frac == 0.33f);
  CHECK(c.checkpoint_angle_jitter == 0.55f);
  CHECK(c.checkpoint_turn_rate == 0.42f);
  CHECK(c.checkpoint_steer_gain == 0.65f);
  CHECK(c.checkpoint_lookahead_frac == 0.16f);
  CHECK(c.checkpoint_best_of_k == 4);
  CHECK_FALSE(c.checkpoint_clip_fallback);
  // 1.2.5
  CHECK(c.polar_num_knots == 12);
  CHECK(c.polar_radial_jitter == 0.60f);
  CHECK(c.polar_angular_jitter == 0.30f);
  // 1.2.6
  CHECK(c.voronoi_num_sites == 256);
  CHECK(c.voronoi_site_layout == "void_ring");
  CHECK(c.voronoi_control_points == 18);
  CHECK(c.voronoi_radial_variation == 0.62f);
  CHECK(c.voronoi_angular_jitter == 0.08f);
  // 1.2.7
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
  // 1.2.8
  CHECK(c.half_width == 0.1f);
  CHECK(c.num_points == 256);
  CHECK(c.output_mode == "constant_spacing");
  CHECK_FALSE(c.spacing.has_value());
  CHECK(c.N_max == 384);
  CHECK(c.turning_tol == 0.1f);
  CHECK(c.w_floor == 1e-3f);
  CHECK_FALSE(c.validity_border_check);
  // 1.2.9
  CHECK(c.relax_enable);
  CHECK(c.relax_solver == "xpbd");
  CHECK(c.relax_tol == 0.02f);
  CHECK_FALSE(c.relax_band.has_value());
  CHECK(c.relax_iters == 50);
  CHECK(c.relax_accel == "chebyshev");
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
  // 1.2.10
  CHECK(c.z_profile == "flat");
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
  // In double from the decimal 0.1, as the reference's Python: 0.06f, while the
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
  c.z_profile = "random_walk";
  c.z_min = -1.0f;
  c.z_max = 1.0f;
  c.spacing = 0.01f;
  c.relax_iters = 0;
  CHECK_NOTHROW(c.validate({"bezier", "repulsive"}));
}

TEST_CASE("TrackGenConfig::validate names every invalid field", "[config]") {
  const std::vector<Invalid> cases = {
      // the reference's checks
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
      {"voronoi_site_layout", [](TrackGenConfig& c) { c.voronoi_site_layout = "grid"; }},
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
      {"relax_accel", [](TrackGenConfig& c) { c.relax_accel = "anderson"; }},
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
      {"output_mode", [](TrackGenConfig& c) { c.output_mode = "fixed_count"; }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = 0.0f; }},
      {"spacing", [](TrackGenConfig& c) { c.spacing = -0.06f; }},
      {"z_profile", [](TrackGenConfig& c) { c.z_profile = "sine"; }},
      {"z_max", [](TrackGenConfig& c) { c.z_min = 0.5f; }},
      {"z_max_step", [](TrackGenConfig& c) { c.z_max_step = -0.1f; }},
      {"z_noise_amplitude", [](TrackGenConfig& c) { c.z_noise_amplitude = -0.1f; }},
      {"z_noise_harmonics", [](TrackGenConfig& c) { c.z_noise_harmonics = 0; }},
      {"z_valid_grade", [](TrackGenConfig& c) { c.z_valid_grade = -0.1f; }},
      {"z_control_points", [](TrackGenConfig& c) { c.z_control_points = 2; }},
      // the checks the reference lacks
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
      {"relax_solver", [](TrackGenConfig& c) { c.relax_solver = "energy"; }},
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
        "TrackGenConfig.min_point_distance: 0.75 is invalid; must be in (0, 0.5]");
  c = TrackGenConfig{};
  c.max_num_points = 4;
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.max_num_points: 4 is invalid; must be >= min_num_points (9)");
  c = TrackGenConfig{};
  c.relax_accel = "fast";
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.relax_accel: \"fast\" is invalid; must be one of \"none\", \"chebyshev\"");
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

TEST_CASE("TrackGenConfig JSON round trip is lossless", "[config][json]") {
  SECTION("defaults, optionals unset") {
    const TrackGenConfig c;
    const json j = c;
    CHECK(j.at("spacing").is_null());
    CHECK(j.at("relax_band").is_null());
    CHECK(j.at("rad_range").is_null());
    CHECK(j.at("repulsive_stages") == json::array({64, 128, 256}));
    CHECK(j.at("min_point_distance").dump() == "0.05");  // shortest form, not 0.05000000074505806
    const TrackGenConfig r = through_json(c);
    CHECK(json(r) == j);
    CHECK_FALSE(r.spacing.has_value());
    CHECK_FALSE(r.relax_band.has_value());
    CHECK_FALSE(r.scale_range.has_value());
  }
  SECTION("a float whose shortest decimal form, read as a double, rounds to a neighbour") {
    // -7.038531e-26 is the shortest form of 0x95ae43fd, but float(double("-7.038531e-26"))
    // is 0x95ae43fe (double rounding): the writer must fall back to the exact value.
    TrackGenConfig c;
    c.z_base = std::bit_cast<float>(0x95ae43fdu);
    CHECK(bits(through_json(c).z_base) == 0x95ae43fdu);
  }
  SECTION("every field changed, optionals set, arbitrary float bits") {
    TrackGenConfig c;
    c.generator = "voronoi";
    c.num_envs = 1024;
    c.style_sampling = true;
    c.checkpoint_clip_fallback = true;
    c.voronoi_site_layout = "mixed";
    c.repulsive_stages = {32, 96, 512};
    c.repulsive_deactivate_obstacles = false;
    c.output_mode = "other";  // the format does not validate
    c.relax_band = 4;
    c.relax_enable = false;
    c.z_noise_harmonics = -7;
    c.spacing = 0.0123456789f;
    c.rad_range = FloatRange{0.1f, 0.7f};
    c.scale_range = FloatRange{1e-30f, 3.4e38f};
    c.handle_clamp_frac_range = FloatRange{-0.0f, std::numeric_limits<float>::denorm_min()};
    std::mt19937 rng(12345);
    for (int round = 0; round < 50; ++round) {
      for (const auto& [name, member] : float_fields()) {
        float v;
        do {
          v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
        } while (!std::isfinite(v));
        c.*member = v;
      }
      const TrackGenConfig r = through_json(c);
      for (const auto& [name, member] : float_fields()) {
        INFO(name << " = " << c.*member);
        CHECK(bits(r.*member) == bits(c.*member));
      }
      REQUIRE(r.spacing.has_value());
      CHECK(bits(*r.spacing) == bits(*c.spacing));
      for (int k = 0; k < 2; ++k) {
        CHECK(bits((*r.rad_range)[k]) == bits((*c.rad_range)[k]));
        CHECK(bits((*r.scale_range)[k]) == bits((*c.scale_range)[k]));
        CHECK(bits((*r.handle_clamp_frac_range)[k]) == bits((*c.handle_clamp_frac_range)[k]));
      }
      CHECK(json(r) == json(c));
    }
    const TrackGenConfig r = through_json(c);
    CHECK(r.generator == "voronoi");
    CHECK(r.num_envs == 1024);
    CHECK(r.style_sampling);
    CHECK(r.checkpoint_clip_fallback);
    CHECK(r.voronoi_site_layout == "mixed");
    CHECK(r.repulsive_stages == std::vector<int>{32, 96, 512});
    CHECK_FALSE(r.repulsive_deactivate_obstacles);
    CHECK(r.output_mode == "other");
    CHECK(r.relax_band == 4);
    CHECK_FALSE(r.relax_enable);
    CHECK(r.z_noise_harmonics == -7);
  }
}

TEST_CASE("TrackGenConfig from_json accepts subsets, ints for floats and null for optionals", "[config][json]") {
  const auto c = json::parse(R"({"num_envs": 8, "half_width": 1, "spacing": null, "relax_band": 3,
                                 "scale_range": [1, 2.5]})")
                     .get<TrackGenConfig>();
  CHECK(c.num_envs == 8);
  CHECK(c.half_width == 1.0f);
  CHECK_FALSE(c.spacing.has_value());
  CHECK(c.relax_band == 3);
  CHECK(c.scale_range == FloatRange{1.0f, 2.5f});
  CHECK(c.generator == "bezier");  // untouched fields keep their defaults
  CHECK(c.N_max == 384);
  CHECK(json::object().get<TrackGenConfig>().num_envs == 1);
}

TEST_CASE("TrackGenConfig from_json rejects unknown keys and wrong types, naming the key", "[config][json]") {
  const auto error_of = [](const char* text) {
    return config_error([&] { (void)json::parse(text).get<TrackGenConfig>(); });
  };
  CHECK(error_of(R"({"num_envs": 2, "num_env": 2})") == "TrackGenConfig: unknown key \"num_env\"");
  CHECK(error_of(R"({"device": "cuda"})") == "TrackGenConfig: unknown key \"device\"");

  const std::vector<std::pair<const char*, const char*>> wrong = {
      {R"({"num_envs": 1.5})", "num_envs: 1.5 has the wrong type; expected an integer"},
      {R"({"num_envs": 4294967296})", "num_envs: 4294967296 has the wrong type; expected an integer"},
      {R"({"num_envs": -2147483649})", "num_envs: -2147483649 has the wrong type; expected an integer"},
      {R"({"num_envs": "4"})", "num_envs: \"4\" has the wrong type; expected an integer"},
      {R"({"num_envs": true})", "num_envs: true has the wrong type; expected an integer"},
      {R"({"half_width": "0.1"})", "half_width: \"0.1\" has the wrong type; expected a number"},
      {R"({"half_width": null})", "half_width: null has the wrong type; expected a number"},
      {R"({"style_sampling": 1})", "style_sampling: 1 has the wrong type; expected a boolean"},
      {R"({"generator": 3})", "generator: 3 has the wrong type; expected a string"},
      {R"({"spacing": "auto"})", "spacing: \"auto\" has the wrong type; expected a number or null"},
      {R"({"relax_band": 2.5})", "relax_band: 2.5 has the wrong type; expected an integer in the int32 range or null"},
      {R"({"rad_range": [0.1]})", "rad_range: [0.1] has the wrong type; expected an array [lo, hi] of 2 numbers"},
      {R"({"rad_range": [0.1, "x"]})", "rad_range: [0.1,\"x\"] has the wrong type; expected an array"},
      {R"({"repulsive_stages": [64, 128.5]})", "repulsive_stages: [64,128.5] has the wrong type; expected an array of integers"},
      {R"({"repulsive_stages": 64})", "repulsive_stages: 64 has the wrong type; expected an array of integers"},
  };
  for (const auto& [text, expected] : wrong) {
    const std::string msg = error_of(text);
    INFO(text << " -> \"" << msg << "\"");
    CHECK(msg.rfind(std::string("TrackGenConfig.") + expected, 0) == 0);
  }
  CHECK(error_of("[1, 2]") == "TrackGenConfig: expected a JSON object of fields, got array");

  // A failed read leaves the target untouched.
  TrackGenConfig c;
  c.num_envs = 7;
  CHECK_THROWS_AS(trackgen::from_json(json::parse(R"({"num_envs": 3, "zz_bogus": 1})"), c), ConfigError);
  CHECK(c.num_envs == 7);
}

TEST_CASE("load_config reads a JSON file and names the path on errors", "[config][json]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("trackgen_test_config_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    const fs::path p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  };

  TrackGenConfig c;
  c.generator = "polar";
  c.num_envs = 16;
  c.spacing = 0.05f;
  const TrackGenConfig r = trackgen::load_config(write("good.json", json(c).dump(2)));
  CHECK(json(r) == json(c));

  const std::string missing = (dir / "missing.json").string();
  CHECK_THAT(config_error([&] { trackgen::load_config(missing); }), Catch::Contains(missing));
  const std::string broken = write("broken.json", "{\"num_envs\": ");
  CHECK_THAT(config_error([&] { trackgen::load_config(broken); }), Catch::Contains(broken));
  const std::string unknown = write("unknown.json", R"({"colour": "red"})");
  const std::string msg = config_error([&] { trackgen::load_config(unknown); });
  CHECK_THAT(msg, Catch::Contains(unknown) && Catch::Contains("colour"));

  fs::remove_all(dir);
}
