// TrackGenConfig: every runtime setting of a TrackGenerator, its validation and
// its JSON form (the command-line tool's configuration file). The fields and
// their defaults are described in docs/algorithms.md, stage by stage.
//
// Not carried over from the original system: `device` (the execution space is
// chosen at configure time and by the instance passed to TrackGenerator), its
// oracle-only fields (`max_regen_iters`, `relax_chunk_size`, `relax_use_warp`,
// `energy_*`, `tp_*`, `smooth_finish*`) and its experimental Fourier fields.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trackgen {

/// A closed float range `(lo, hi)`.
using FloatRange = std::array<float, 2>;

// ---------------------------------------------------------------------------
// Enum-like settings. Each is an enum with one name table (SettingNames), the
// only place its JSON names are spelled: the JSON codec, validate() and the
// error messages all read the table.

/// output_mode: how the generator's loop becomes the pipeline's chain.
enum class OutputMode : std::int32_t {
  constant_spacing,  ///< resample at a constant arc step (the only mode)
};

/// relax_solver: the relaxation solver.
enum class RelaxSolver : std::int32_t {
  xpbd,  ///< the position-projection Jacobi solve (docs/algorithms.md#relaxation)
};

/// relax_accel: acceleration of the relaxation sweeps.
enum class RelaxAccel : std::int32_t {
  none,       ///< plain Jacobi sweeps
  chebyshev,  ///< Chebyshev semi-iterative blend from relax_cheby_start on
};

/// voronoi_site_layout: how the voronoi generator scatters its sites.
enum class VoronoiLayout : std::int32_t {
  ring,       ///< uniform fill of the box (the historical name)
  void_ring,  ///< annulus
  clustered,  ///< six clusters on a ring, 22% of the sites in the annulus
  mixed,      ///< 65% annulus, 35% box
};

/// z_profile: the elevation profile of a track (docs/algorithms.md#elevation).
enum class ZProfile : std::int32_t {
  flat,         ///< every point at z_base
  uniform,      ///< random knot heights in [z_min, z_max]
  random_walk,  ///< a closed random walk of knot heights
  noise,        ///< a sum of sine harmonics
};

/// One entry of a name table.
template <class E>
struct SettingName {
  E value;
  const char* name;
};

/// The name table of an enum-like setting: `values`, every enumerator with its
/// JSON name, in declaration order. Specialized once per setting below.
template <class E>
struct SettingNames;

template <>
struct SettingNames<OutputMode> {
  static constexpr std::array<SettingName<OutputMode>, 1> values{{{OutputMode::constant_spacing, "constant_spacing"}}};
};
template <>
struct SettingNames<RelaxSolver> {
  static constexpr std::array<SettingName<RelaxSolver>, 1> values{{{RelaxSolver::xpbd, "xpbd"}}};
};
template <>
struct SettingNames<RelaxAccel> {
  static constexpr std::array<SettingName<RelaxAccel>, 2> values{
      {{RelaxAccel::none, "none"}, {RelaxAccel::chebyshev, "chebyshev"}}};
};
template <>
struct SettingNames<VoronoiLayout> {
  static constexpr std::array<SettingName<VoronoiLayout>, 4> values{{{VoronoiLayout::ring, "ring"},
                                                                      {VoronoiLayout::void_ring, "void_ring"},
                                                                      {VoronoiLayout::clustered, "clustered"},
                                                                      {VoronoiLayout::mixed, "mixed"}}};
};
template <>
struct SettingNames<ZProfile> {
  static constexpr std::array<SettingName<ZProfile>, 4> values{{{ZProfile::flat, "flat"},
                                                                 {ZProfile::uniform, "uniform"},
                                                                 {ZProfile::random_walk, "random_walk"},
                                                                 {ZProfile::noise, "noise"}}};
};

/// The JSON name of `v`, or nullptr for a value outside the table.
template <class E>
constexpr const char* setting_name(E v) {
  for (const auto& n : SettingNames<E>::values) {
    if (n.value == v) return n.name;
  }
  return nullptr;
}

/// The value named `name`, or nullopt when the table has no such name.
template <class E>
constexpr std::optional<E> parse_setting(std::string_view name) {
  for (const auto& n : SettingNames<E>::values) {
    if (name == n.name) return n.value;
  }
  return std::nullopt;
}

/// The names of the table, in order.
template <class E>
std::vector<std::string> setting_names() {
  std::vector<std::string> names;
  for (const auto& n : SettingNames<E>::values) names.emplace_back(n.name);
  return names;
}

struct TrackGenConfig {
  // --- selection and batching
  std::string generator = "bezier";  ///< registered generator name
  int num_envs = 1;                  ///< batch size E, >= 1

  // --- point-family sampler, bezier + hull (docs/algorithms.md#bezier)
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

  // --- bezier per-env style sampling
  bool style_sampling = false;
  std::optional<FloatRange> rad_range;                ///< None: constant `rad`
  std::optional<FloatRange> scale_range;              ///< None: constant `scale`
  std::optional<FloatRange> handle_clamp_frac_range;  ///< None: constant `handle_clamp_frac`

  // --- checkpoint generator (docs/algorithms.md#checkpoint)
  int checkpoint_count = 12;                   ///< C, >= 3
  float checkpoint_radius_min_frac = 0.33f;    ///< in [0, 1)
  float checkpoint_angle_jitter = 0.55f;       ///< fraction of the slot 2*pi/C, in [0, 1)
  float checkpoint_turn_rate = 0.42f;          ///< per-step heading clamp (rad), in (0, pi]
  float checkpoint_steer_gain = 0.65f;         ///< proportional steering gain, in (0, 1]
  float checkpoint_lookahead_frac = 0.16f;     ///< advance radius as a fraction of R, in (0, 1]
  int checkpoint_best_of_k = 4;                ///< candidates per env, >= 1
  bool checkpoint_clip_fallback = false;       ///< opt-in single-crossing clip

  // --- polar generator (docs/algorithms.md#polar)
  int polar_num_knots = 12;           ///< effective K = max(this, 4)
  float polar_radial_jitter = 0.60f;  ///< clamped to [0, 0.85] at use
  float polar_angular_jitter = 0.30f; ///< fraction of a knot cell, clamped to [0, 0.45] at use

  // --- voronoi generator (docs/algorithms.md#voronoi)
  int voronoi_num_sites = 256;                    ///< S >= K
  VoronoiLayout voronoi_site_layout = VoronoiLayout::void_ring;
  int voronoi_control_points = 18;                ///< K >= 6
  float voronoi_radial_variation = 0.62f;         ///< >= 0
  float voronoi_angular_jitter = 0.08f;           ///< radians, >= 0

  // --- repulsive generator (docs/algorithms.md#repulsive)
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

  // --- width, output and robustness (docs/algorithms.md#constant-spacing, #validity)
  float half_width = 0.1f;                        ///< road half-width, > 0
  int num_points = 256;                           ///< generator output resolution N
  OutputMode output_mode = OutputMode::constant_spacing;
  std::optional<float> spacing;                   ///< None: 0.6 * half_width
  int N_max = 384;                                ///< output stride per env
  float turning_tol = 0.1f;                       ///< validity: ||turn| - 2pi| <= tol
  float w_floor = 1e-3f;                          ///< validity: half-width must exceed it
  bool validity_border_check = true;              ///< loop check: simple loops, no folds, border clearance

  // --- relaxation (docs/algorithms.md#relaxation)
  bool relax_enable = true;
  RelaxSolver relax_solver = RelaxSolver::xpbd;
  float relax_tol = 0.02f;              ///< thickness >= (1 - relax_tol) * hw
  std::optional<int> relax_band;        ///< constant separation band override
  int relax_iters = 50;
  RelaxAccel relax_accel = RelaxAccel::chebyshev;
  float relax_cheby_rho = 0.98f;          ///< [0, 1)
  float relax_cheby_gamma = 0.9f;         ///< (0, 1]
  int relax_cheby_start = 8;              ///< >= 1
  int relax_smooth_passes = 5;            ///< Taubin passes, >= 0
  int relax_smooth_spacing_iters = 10;    ///< spacing-only polish sweeps, >= 0
  int relax_sep_every = 20;               ///< broadphase refresh period, >= 1
  int relax_sep_cache_slots = 16;         ///< candidates per bead (0: no cache)
  float relax_sep_cache_skin = 0.5f;      ///< cache radius = target * (1 + skin)
  float relax_sep_relax = 1.0f;           ///< separation scale
  float relax_spc_relax = 1.0f;           ///< spacing scale
  float relax_bend_relax = 1.5f;          ///< bending scale
  float relax_margin = 0.15f;             ///< target = 2 hw (1 + margin)

  // --- elevation (docs/algorithms.md#elevation)
  ZProfile z_profile = ZProfile::flat;
  float z_base = 0.0f;
  float z_min = 0.0f;
  float z_max = 0.0f;
  float z_max_step = 0.0f;
  float z_noise_amplitude = 0.0f;
  int z_noise_harmonics = 3;
  int z_control_points = 10;
  float z_valid_grade = 0.0f;

  /// `spacing`, or its default 0.6 * half_width evaluated in double from the
  /// decimal values (see as_python_double): 0.06f at hw 0.1.
  float resolved_spacing() const;

  /// Throws trackgen::ConfigError naming the field, the value and the allowed
  /// range for the first invalid field: every float field's finiteness, then
  /// every field's own bounds (those of config_schema(), config_schema.hpp),
  /// then the cross-field rules (docs/design.md#config-schema). When non-empty,
  /// `available_generators` is the list `generator` must belong to.
  void validate(const std::vector<std::string>& available_generators = {}) const;
};

/// The double a Python user meant when a float32 config field holds `v`: the
/// shortest decimal that round-trips to `v`, read back as a double (0.05f ->
/// 0.05, 0.1f -> 0.1). The original system computes its host-side constants from
/// the config in double (`int(1 / (2 * min_point_distance))`, `0.6 * half_width`),
/// where the float's own value can land on the other side of an integer or of a
/// rounding boundary (0.05f -> 9.99999985 cells -> 9, not 10). Non-finite values
/// pass through.
double as_python_double(float v);

/// JSON round trip (the command-line tool's configuration file format). Unknown
/// keys and wrong types throw trackgen::ConfigError naming the key. Missing keys
/// keep their defaults; `null` means "unset" for the optional fields; enum-like
/// settings are their names (SettingNames), an unknown name throws.
void to_json(nlohmann::json& j, const TrackGenConfig& c);
void from_json(const nlohmann::json& j, TrackGenConfig& c);

/// Reads a config from a JSON file (ConfigError on I/O or parse errors).
TrackGenConfig load_config(const std::string& path);

/// Parses the JSON text of a config (of either kind) as load_config reads a
/// file: ConfigError naming `where` for text that is not JSON (a number out of
/// the range of a double included), a key repeated within one object, or
/// nesting deeper than 64 levels. The result is not checked against any
/// config's fields (from_json does that).
nlohmann::json parse_config_json(std::string_view text, const std::string& where);

}  // namespace trackgen
