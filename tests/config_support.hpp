// Support of the TrackGenConfig tests: the list of float fields, bit patterns,
// a JSON round trip and the message of a ConfigError.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace trackgen::test::config {

using json = nlohmann::json;

inline constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
inline constexpr float inf_f = std::numeric_limits<float>::infinity();

/// Every float field of trackgen::TrackGenConfig (the test's own list, checked against the
/// JSON keys below so that a new float field cannot be missed).
inline const std::vector<std::pair<const char*, float trackgen::TrackGenConfig::*>>& float_fields() {
  static const std::vector<std::pair<const char*, float trackgen::TrackGenConfig::*>> fields = {
      {"min_point_distance", &trackgen::TrackGenConfig::min_point_distance},
      {"min_angle", &trackgen::TrackGenConfig::min_angle},
      {"rad", &trackgen::TrackGenConfig::rad},
      {"edgy", &trackgen::TrackGenConfig::edgy},
      {"scale", &trackgen::TrackGenConfig::scale},
      {"handle_clamp_frac", &trackgen::TrackGenConfig::handle_clamp_frac},
      {"hull_displacement", &trackgen::TrackGenConfig::hull_displacement},
      {"checkpoint_radius_min_frac", &trackgen::TrackGenConfig::checkpoint_radius_min_frac},
      {"checkpoint_angle_jitter", &trackgen::TrackGenConfig::checkpoint_angle_jitter},
      {"checkpoint_turn_rate", &trackgen::TrackGenConfig::checkpoint_turn_rate},
      {"checkpoint_steer_gain", &trackgen::TrackGenConfig::checkpoint_steer_gain},
      {"checkpoint_lookahead_frac", &trackgen::TrackGenConfig::checkpoint_lookahead_frac},
      {"polar_radial_jitter", &trackgen::TrackGenConfig::polar_radial_jitter},
      {"polar_angular_jitter", &trackgen::TrackGenConfig::polar_angular_jitter},
      {"voronoi_radial_variation", &trackgen::TrackGenConfig::voronoi_radial_variation},
      {"voronoi_angular_jitter", &trackgen::TrackGenConfig::voronoi_angular_jitter},
      {"repulsive_grow_mult_min", &trackgen::TrackGenConfig::repulsive_grow_mult_min},
      {"repulsive_grow_mult_max", &trackgen::TrackGenConfig::repulsive_grow_mult_max},
      {"repulsive_domain_frac", &trackgen::TrackGenConfig::repulsive_domain_frac},
      {"repulsive_domain_init_ratio", &trackgen::TrackGenConfig::repulsive_domain_init_ratio},
      {"repulsive_obstacle_radius_min_frac", &trackgen::TrackGenConfig::repulsive_obstacle_radius_min_frac},
      {"repulsive_obstacle_radius_max_frac", &trackgen::TrackGenConfig::repulsive_obstacle_radius_max_frac},
      {"repulsive_ratchet_rate", &trackgen::TrackGenConfig::repulsive_ratchet_rate},
      {"repulsive_alpha", &trackgen::TrackGenConfig::repulsive_alpha},
      {"repulsive_beta", &trackgen::TrackGenConfig::repulsive_beta},
      {"repulsive_tau", &trackgen::TrackGenConfig::repulsive_tau},
      {"repulsive_w_len", &trackgen::TrackGenConfig::repulsive_w_len},
      {"repulsive_stall_area_tol", &trackgen::TrackGenConfig::repulsive_stall_area_tol},
      {"half_width", &trackgen::TrackGenConfig::half_width},
      {"turning_tol", &trackgen::TrackGenConfig::turning_tol},
      {"w_floor", &trackgen::TrackGenConfig::w_floor},
      {"relax_tol", &trackgen::TrackGenConfig::relax_tol},
      {"relax_cheby_rho", &trackgen::TrackGenConfig::relax_cheby_rho},
      {"relax_cheby_gamma", &trackgen::TrackGenConfig::relax_cheby_gamma},
      {"relax_sep_cache_skin", &trackgen::TrackGenConfig::relax_sep_cache_skin},
      {"relax_sep_relax", &trackgen::TrackGenConfig::relax_sep_relax},
      {"relax_spc_relax", &trackgen::TrackGenConfig::relax_spc_relax},
      {"relax_bend_relax", &trackgen::TrackGenConfig::relax_bend_relax},
      {"relax_margin", &trackgen::TrackGenConfig::relax_margin},
      {"z_base", &trackgen::TrackGenConfig::z_base},
      {"z_min", &trackgen::TrackGenConfig::z_min},
      {"z_max", &trackgen::TrackGenConfig::z_max},
      {"z_max_step", &trackgen::TrackGenConfig::z_max_step},
      {"z_noise_amplitude", &trackgen::TrackGenConfig::z_noise_amplitude},
      {"z_valid_grade", &trackgen::TrackGenConfig::z_valid_grade},
  };
  return fields;
}

/// One invalid value: the field the error must name and how to break a default config.
struct Invalid {
  const char* field;
  std::function<void(trackgen::TrackGenConfig&)> set;
};

/// Bit pattern of a float (for bit-exact comparisons).
inline std::uint32_t bits(float v) { return std::bit_cast<std::uint32_t>(v); }

/// A JSON text through the file format: dump, then parse.
inline trackgen::TrackGenConfig through_json(const trackgen::TrackGenConfig& c) {
  return json::parse(json(c).dump()).get<trackgen::TrackGenConfig>();
}

/// The message of the ConfigError that `f` throws ("" if it throws none).
template <class F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const trackgen::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace trackgen::test::config
