// TrackGenConfig: every runtime field of the reference's TrackGenConfig
// (reference section 1.2) with the same names, meanings and defaults.
//
// Not carried over: `device` (the execution space is chosen at configure time and
// by the instance passed to TrackGenerator), the oracle-only fields
// (`max_regen_iters`, `relax_chunk_size`, `relax_use_warp`, `energy_*`, `tp_*`,
// `smooth_finish*`) and the experimental Fourier fields.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace trackgen {

/// A closed float range `(lo, hi)`.
using FloatRange = std::array<float, 2>;

struct TrackGenConfig {
  // --- selection and batching (1.2.1)
  std::string generator = "bezier";  ///< registered generator name
  int num_envs = 1;                  ///< batch size E, >= 1

  // --- point-family sampler, bezier + hull (1.2.2)
  int min_num_points = 9;              ///< min corner count, >= 2
  int max_num_points = 13;             ///< max corner count, >= min; buffer stride P
  int num_points_per_segment = 30;     ///< dense samples per spline segment, >= 2
  float min_point_distance = 0.05f;    ///< grid cell = 2 * this; in (0, 0.5]
  float min_angle = 0.21816616f;       ///< 12.5 degrees; inert (kept for parity)
  float rad = 0.4f;                    ///< Bezier handle length as a fraction of the chord
  float edgy = 0.0f;                   ///< tangent blend: p = atan(edgy)/pi + 0.5
  float scale = 1.0f;                  ///< isotropic coordinate scale, > 0
  float handle_clamp_frac = 0.4f;      ///< handle cap as a fraction of the shorter incident edge
  float hull_displacement = 0.15f;     ///< hull: max radial midpoint displacement fraction

  // --- bezier per-env style sampling (1.2.3)
  bool style_sampling = false;
  std::optional<FloatRange> rad_range;                ///< None: constant `rad`
  std::optional<FloatRange> scale_range;              ///< None: constant `scale`
  std::optional<FloatRange> handle_clamp_frac_range;  ///< None: constant `handle_clamp_frac`

  // --- checkpoint generator (1.2.4)
  int checkpoint_count = 12;                   ///< C, >= 3
  float checkpoint_radius_min_frac = 0.33f;    ///< in [0, 1)
  float checkpoint_angle_jitter = 0.55f;       ///< fraction of the slot 2*pi/C, in [0, 1)
  float checkpoint_turn_rate = 0.42f;          ///< per-step heading clamp (rad), in (0, pi]
  float checkpoint_steer_gain = 0.65f;         ///< proportional steering gain, in (0, 1]
  float checkpoint_lookahead_frac = 0.16f;     ///< advance radius as a fraction of R, in (0, 1]
  int checkpoint_best_of_k = 4;                ///< candidates per env, >= 1
  bool checkpoint_clip_fallback = false;       ///< opt-in single-crossing clip

  // --- polar generator (1.2.5)
  int polar_num_knots = 12;           ///< effective K = max(this, 4)
  float polar_radial_jitter = 0.60f;  ///< clamped to [0, 0.85] at use
  float polar_angular_jitter = 0.30f; ///< fraction of a knot cell, clamped to [0, 0.45] at use

  // --- voronoi generator (1.2.6)
  int voronoi_num_sites = 256;                    ///< S >= K
  std::string voronoi_site_layout = "void_ring";  ///< ring | void_ring | clustered | mixed
  int voronoi_control_points = 18;                ///< K >= 6
  float voronoi_radial_variation = 0.62f;         ///< >= 0
  float voronoi_angular_jitter = 0.08f;           ///< radians, >= 0

  // --- repulsive generator (1.2.7)
  float repulsive_grow_mult_min = 4.5f;
  float repulsive_grow_mult_max = 5.5f;
  float repulsive_domain_frac = 0.35f;
  float repulsive_domain_init_ratio = 4.0f;
  int repulsive_obstacle_count_min = 8;
  int repulsive_obstacle_count_max = 12;
  float repulsive_obstacle_radius_min_frac = 0.02f;
  float repulsive_obstacle_radius_max_frac = 0.045f;
  float repulsive_ratchet_rate = 0.012f;
  float repulsive_alpha = 3.0f;
  float repulsive_beta = 6.0f;
  float repulsive_tau = 0.4f;
  float repulsive_w_len = 30.0f;
  std::vector<int> repulsive_stages{64, 128, 256};
  int repulsive_settle_iters = 40;
  int repulsive_resample_every = 25;
  int repulsive_stall_window = 16;
  float repulsive_stall_area_tol = 0.05f;
  bool repulsive_deactivate_obstacles = true;

  // --- width, output and robustness (1.2.8)
  float half_width = 0.1f;                        ///< road half-width, > 0
  int num_points = 256;                           ///< generator output resolution N
  std::string output_mode = "constant_spacing";   ///< the only accepted value
  std::optional<float> spacing;                   ///< None: 0.6 * half_width
  int N_max = 384;                                ///< output stride per env
  float turning_tol = 0.1f;                       ///< validity: ||turn| - 2pi| <= tol
  float w_floor = 1e-3f;                          ///< validity: half-width must exceed it
  bool validity_border_check = false;             ///< explicit outer/inner crossing check

  // --- relaxation (1.2.9)
  bool relax_enable = true;
  std::string relax_solver = "xpbd";    ///< the only runtime solver
  float relax_tol = 0.02f;              ///< thickness >= (1 - relax_tol) * hw
  std::optional<int> relax_band;        ///< constant separation band override
  int relax_iters = 50;
  std::string relax_accel = "chebyshev";  ///< none | chebyshev
  float relax_cheby_rho = 0.98f;          ///< [0, 1)
  float relax_cheby_gamma = 0.9f;         ///< (0, 1]
  int relax_cheby_start = 8;              ///< >= 1
  int relax_smooth_passes = 5;            ///< Taubin passes, >= 0
  int relax_smooth_spacing_iters = 10;    ///< spacing-only polish sweeps, >= 0
  int relax_sep_every = 20;               ///< broadphase refresh period, >= 1
  int relax_sep_cache_slots = 16;         ///< candidates per bead (0: no cache)
  float relax_sep_cache_skin = 0.5f;      ///< cache radius = target * (1 + skin)
  float relax_sep_relax = 1.0f;           ///< separation scale sr
  float relax_spc_relax = 1.0f;           ///< spacing scale pr
  float relax_bend_relax = 1.5f;          ///< bending scale br
  float relax_margin = 0.15f;             ///< target = 2 hw (1 + margin)

  // --- elevation (1.2.10)
  std::string z_profile = "flat";  ///< flat | uniform | random_walk | noise
  float z_base = 0.0f;
  float z_min = 0.0f;
  float z_max = 0.0f;
  float z_max_step = 0.0f;
  float z_noise_amplitude = 0.0f;
  int z_noise_harmonics = 3;
  int z_control_points = 10;
  float z_valid_grade = 0.0f;

  /// `spacing`, or its default 0.6 * half_width evaluated as the reference does
  /// (in double from the decimal values, see as_python_double): 0.06f at hw 0.1.
  float resolved_spacing() const;

  /// Throws trackgen::ConfigError naming the field, the value and the allowed
  /// range for the first invalid field: every float field is checked for
  /// finiteness first, then come the reference's checks in its order, then the
  /// ones it lacks. `available_generators` (when non-empty) is the list
  /// `generator` must belong to.
  void validate(const std::vector<std::string>& available_generators = {}) const;
};

/// The double a Python user meant when a float32 config field holds `v`: the
/// shortest decimal that round-trips to `v`, read back as a double (0.05f ->
/// 0.05, 0.1f -> 0.1). The reference computes its host-side constants from the
/// config in double (`int(1 / (2 * min_point_distance))`, `0.6 * half_width`),
/// where the float's own value can land on the other side of an integer or of a
/// rounding boundary (0.05f -> 9.99999985 cells -> 9, not 10). Non-finite values
/// pass through.
double as_python_double(float v);

/// JSON round trip (the command-line tool's configuration file format). Unknown
/// keys and wrong types throw trackgen::ConfigError naming the key. Missing keys
/// keep their defaults; `null` means "unset" for the optional fields.
void to_json(nlohmann::json& j, const TrackGenConfig& c);
void from_json(const nlohmann::json& j, TrackGenConfig& c);

/// Reads a config from a JSON file (ConfigError on I/O or parse errors).
TrackGenConfig load_config(const std::string& path);

}  // namespace trackgen
