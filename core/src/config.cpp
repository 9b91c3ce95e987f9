// TrackGenConfig: validation and the JSON format.
//
// One table of fields (visit_fields) drives both JSON directions and the
// finiteness sweep of validate(); per-type Codecs say how a field is written to
// and read from JSON.
#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace trackgen {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- field table

#define TRACKGEN_CONFIG_FIELD(name) v(#name, c.name)

/// Calls `v(name, member)` for every field of `c` (TrackGenConfig or const
/// TrackGenConfig), in declaration order, under its JSON name.
template <class Config, class Visitor>
void visit_fields(Config& c, Visitor&& v) {
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

#undef TRACKGEN_CONFIG_FIELD

// ------------------------------------------------------------- value display

/// The display form of a field value in error messages; for floats the shortest
/// decimal form that reads back as `v` ("nan", "inf" when not finite).
std::string show(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string show(int v) { return std::to_string(v); }
std::string show(const std::string& v) { return '"' + v + '"'; }
template <class E>
  requires std::is_enum_v<E>
std::string show(E v) {
  const char* name = setting_name(v);
  return name ? show(std::string(name)) : "(enum value " + std::to_string(static_cast<long long>(v)) + ")";
}
std::string show(const FloatRange& r) { return "[" + show(r[0]) + ", " + show(r[1]) + "]"; }
std::string show(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + show(v[i]);
  return s + "]";
}

// ------------------------------------------------------------- validation

/// Throws the ConfigError of an invalid field unless `ok`.
template <class T>
void require(bool ok, std::string_view field, const T& value, const std::string& must) {
  if (!ok) {
    throw ConfigError("TrackGenConfig." + std::string(field) + ": " + show(value) + " is invalid; must be " + must);
  }
}

/// An interval of the real line with open or closed ends (hi may be +inf).
struct Interval {
  float lo, hi;
  bool lo_closed, hi_closed;

  bool contains(float x) const { return (lo_closed ? x >= lo : x > lo) && (hi_closed ? x <= hi : x < hi); }
  std::string describe() const {
    if (std::isinf(hi)) return (lo_closed ? ">= " : "> ") + show(lo);
    return std::string("in ") + (lo_closed ? "[" : "(") + show(lo) + ", " + show(hi) + (hi_closed ? "]" : ")");
  }
};
constexpr float inf = std::numeric_limits<float>::infinity();
/// (lo, +inf)
constexpr Interval gt(float lo) { return {lo, inf, false, true}; }
/// [lo, +inf)
constexpr Interval ge(float lo) { return {lo, inf, true, true}; }
/// The interval between lo and hi with ends given as "[]", "[)", "(]" or "()".
constexpr Interval between(float lo, float hi, const char (&ends)[3]) {
  return {lo, hi, ends[0] == '[', ends[1] == ']'};
}

/// A float field within `in`.
void check(std::string_view field, float v, Interval in) { require(in.contains(v), field, v, in.describe()); }

/// An int field >= lo.
void check_at_least(std::string_view field, int v, int lo) { require(v >= lo, field, v, ">= " + show(lo)); }

/// A field >= another field.
template <class T>
void check_not_below(std::string_view field, T v, std::string_view other, T other_v) {
  require(v >= other_v, field, v, ">= " + std::string(other) + " (" + show(other_v) + ")");
}

/// "one of \"a\", \"b\"" for the names `allowed`.
std::string one_of(const std::vector<std::string>& allowed) {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + show(a);
  return "one of " + list;
}

/// A string field equal to one of `allowed`.
void check_one_of(std::string_view field, const std::string& v, const std::vector<std::string>& allowed) {
  bool found = false;
  for (const auto& a : allowed) found = found || a == v;
  require(found, field, v, one_of(allowed));
}

/// An enum-like field holding a value of its name table.
template <class E>
  requires std::is_enum_v<E>
void check_one_of(std::string_view field, E v) {
  require(setting_name(v) != nullptr, field, v, one_of(setting_names<E>()));
}

/// An optional style range: when set, lo <= hi, and both ends within `in` if given.
void check_range(std::string_view field, const std::optional<FloatRange>& r,
                 const std::optional<Interval>& in = std::nullopt) {
  if (!r) return;
  const auto [lo, hi] = *r;
  require(lo <= hi && (!in || (in->contains(lo) && in->contains(hi))), field, *r,
          "[lo, hi] with lo <= hi" + (in ? ", both " + in->describe() : std::string()));
}

/// Finite values in every float field (NaN would slip through every comparison).
void check_finite(std::string_view field, float v) { require(std::isfinite(v), field, v, "finite"); }
void check_finite(std::string_view field, const std::optional<float>& v) {
  if (v) check_finite(field, *v);
}
void check_finite(std::string_view field, const std::optional<FloatRange>& r) {
  if (r) require(std::isfinite((*r)[0]) && std::isfinite((*r)[1]), field, *r, "finite");
}
/// Other field types hold no float.
template <class T>
void check_finite(std::string_view, const T&) {}

/// repulsive_stages: non-empty, strictly increasing positive multiples of 4,
/// ending in num_points when the repulsive generator runs.
void check_stages(const TrackGenConfig& c) {
  const auto& s = c.repulsive_stages;
  bool ok = !s.empty();
  for (std::size_t i = 0; ok && i < s.size(); ++i) ok = s[i] > 0 && s[i] % 4 == 0 && (i == 0 || s[i] > s[i - 1]);
  require(ok, "repulsive_stages", s, "a non-empty, strictly increasing list of positive multiples of 4");
  if (c.generator == "repulsive") {
    require(s.back() == c.num_points, "repulsive_stages", s,
            "a list ending in num_points (" + show(c.num_points) + ") when generator is \"repulsive\"");
  }
}

// ------------------------------------------------------------------- JSON

/// How a field type is written to and read from JSON: `type()` names the
/// expected JSON type, `holds(j)` checks it, `read`/`write` convert.
template <class T>
struct Codec;

template <>
struct Codec<std::string> {
  static std::string type() { return "a string"; }
  static bool holds(const json& j) { return j.is_string(); }
  static std::string read(const json& j) { return j.get<std::string>(); }
  static json write(const std::string& v) { return v; }
};

template <>
struct Codec<bool> {
  static std::string type() { return "a boolean"; }
  static bool holds(const json& j) { return j.is_boolean(); }
  static bool read(const json& j) { return j.get<bool>(); }
  static json write(bool v) { return v; }
};

template <>
struct Codec<int> {
  static std::string type() { return "an integer in the int32 range"; }
  static bool holds(const json& j) {
    constexpr auto lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    if (j.is_number_unsigned()) return j.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
    return j.is_number_integer() && j.get<std::int64_t>() >= lo && j.get<std::int64_t>() <= hi;
  }
  static int read(const json& j) { return static_cast<int>(j.get<std::int64_t>()); }
  static json write(int v) { return v; }
};

template <>
struct Codec<float> {
  static std::string type() { return "a number"; }
  static bool holds(const json& j) { return j.is_number(); }
  static float read(const json& j) { return static_cast<float>(j.get<double>()); }
  /// The double of v's shortest decimal form (0.1f is written as 0.1), or v's
  /// exact value in the rare case where that double would not read back as v:
  /// either way read(write(v)) is bit-identical to v.
  static json write(float v) {
    const std::string s = show(v);
    double d = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    const bool exact = r.ec == std::errc() && std::bit_cast<std::uint32_t>(static_cast<float>(d)) ==
                                                   std::bit_cast<std::uint32_t>(v);
    return exact ? d : static_cast<double>(v);
  }
};

template <>
struct Codec<FloatRange> {
  static std::string type() { return "an array [lo, hi] of 2 numbers"; }
  static bool holds(const json& j) {
    return j.is_array() && j.size() == 2 && Codec<float>::holds(j[0]) && Codec<float>::holds(j[1]);
  }
  static FloatRange read(const json& j) { return {Codec<float>::read(j[0]), Codec<float>::read(j[1])}; }
  static json write(const FloatRange& r) { return json::array({Codec<float>::write(r[0]), Codec<float>::write(r[1])}); }
};

template <>
struct Codec<std::vector<int>> {
  static std::string type() { return "an array of integers"; }
  static bool holds(const json& j) {
    if (!j.is_array()) return false;
    for (const auto& e : j) {
      if (!Codec<int>::holds(e)) return false;
    }
    return true;
  }
  static std::vector<int> read(const json& j) {
    std::vector<int> v;
    for (const auto& e : j) v.push_back(Codec<int>::read(e));
    return v;
  }
  static json write(const std::vector<int>& v) { return v; }
};

/// Enum-like settings: their names in the setting's table.
template <class E>
  requires std::is_enum_v<E>
struct Codec<E> {
  static std::string type() { return "a string, " + one_of(setting_names<E>()); }
  static bool holds(const json& j) { return j.is_string(); }
  static E read(const json& j) { return *parse_setting<E>(j.get<std::string>()); }
  static json write(E v) {
    const char* name = setting_name(v);
    return name ? json(name) : json(nullptr);
  }
};

/// Optional fields: null means unset.
template <class T>
struct Codec<std::optional<T>> {
  static std::string type() { return Codec<T>::type() + " or null"; }
  static bool holds(const json& j) { return j.is_null() || Codec<T>::holds(j); }
  static std::optional<T> read(const json& j) {
    if (j.is_null()) return std::nullopt;
    return Codec<T>::read(j);
  }
  static json write(const std::optional<T>& v) { return v ? Codec<T>::write(*v) : json(nullptr); }
};

}  // namespace

void TrackGenConfig::validate(const std::vector<std::string>& available_generators) const {
  visit_fields(*this, [](const char* name, const auto& field) { check_finite(name, field); });

  // The checks of the original system, in its order.
  check_at_least("num_envs", num_envs, 1);
  check("half_width", half_width, gt(0));
  check_at_least("min_num_points", min_num_points, 2);
  check_not_below("max_num_points", max_num_points, "min_num_points", min_num_points);
  check("min_point_distance", min_point_distance, between(0, 0.5f, "(]"));
  check_at_least("num_points_per_segment", num_points_per_segment, 2);
  check_at_least("voronoi_control_points", voronoi_control_points, 6);
  check_not_below("voronoi_num_sites", voronoi_num_sites, "voronoi_control_points", voronoi_control_points);
  check_one_of("voronoi_site_layout", voronoi_site_layout);
  check("voronoi_radial_variation", voronoi_radial_variation, ge(0));
  check("voronoi_angular_jitter", voronoi_angular_jitter, ge(0));
  check("repulsive_grow_mult_min", repulsive_grow_mult_min, ge(1));
  check("repulsive_grow_mult_max", repulsive_grow_mult_max, gt(1));
  check_not_below("repulsive_grow_mult_max", repulsive_grow_mult_max, "repulsive_grow_mult_min",
                  repulsive_grow_mult_min);
  check("repulsive_domain_frac", repulsive_domain_frac, gt(0));
  check("repulsive_domain_init_ratio", repulsive_domain_init_ratio, gt(1));
  check_at_least("repulsive_obstacle_count_min", repulsive_obstacle_count_min, 1);
  check_not_below("repulsive_obstacle_count_max", repulsive_obstacle_count_max, "repulsive_obstacle_count_min",
                  repulsive_obstacle_count_min);
  check("repulsive_obstacle_radius_min_frac", repulsive_obstacle_radius_min_frac, gt(0));
  check_not_below("repulsive_obstacle_radius_max_frac", repulsive_obstacle_radius_max_frac,
                  "repulsive_obstacle_radius_min_frac", repulsive_obstacle_radius_min_frac);
  check("repulsive_ratchet_rate", repulsive_ratchet_rate, gt(0));
  check("repulsive_alpha", repulsive_alpha, gt(0));
  check("repulsive_beta", repulsive_beta, gt(0));
  check_stages(*this);
  check_at_least("repulsive_settle_iters", repulsive_settle_iters, 1);
  check_at_least("repulsive_resample_every", repulsive_resample_every, 1);
  check_at_least("repulsive_stall_window", repulsive_stall_window, 1);
  check_at_least("relax_sep_every", relax_sep_every, 1);
  check_at_least("relax_sep_cache_slots", relax_sep_cache_slots, 0);
  check("relax_sep_cache_skin", relax_sep_cache_skin, ge(0));
  check_one_of("relax_accel", relax_accel);
  check("relax_cheby_rho", relax_cheby_rho, between(0, 1, "[)"));
  check("relax_cheby_gamma", relax_cheby_gamma, between(0, 1, "(]"));
  check_at_least("relax_cheby_start", relax_cheby_start, 1);
  check_at_least("relax_smooth_passes", relax_smooth_passes, 0);
  check_at_least("relax_smooth_spacing_iters", relax_smooth_spacing_iters, 0);
  check_at_least("checkpoint_count", checkpoint_count, 3);
  check_at_least("checkpoint_best_of_k", checkpoint_best_of_k, 1);
  check("checkpoint_radius_min_frac", checkpoint_radius_min_frac, between(0, 1, "[)"));
  check_one_of("output_mode", output_mode);
  check("spacing", resolved_spacing(), gt(0));
  check_one_of("z_profile", z_profile);
  check_not_below("z_max", z_max, "z_min", z_min);
  check("z_max_step", z_max_step, ge(0));
  check("z_noise_amplitude", z_noise_amplitude, ge(0));
  check_at_least("z_noise_harmonics", z_noise_harmonics, 1);
  check("z_valid_grade", z_valid_grade, ge(0));
  check_at_least("z_control_points", z_control_points, 3);

  // The checks it lacked or left to its consumers (docs/differences.md#validation).
  if (!available_generators.empty()) check_one_of("generator", generator, available_generators);
  check("scale", scale, gt(0));
  check_range("rad_range", rad_range);
  check_range("scale_range", scale_range, gt(0));
  check_range("handle_clamp_frac_range", handle_clamp_frac_range);
  check("checkpoint_angle_jitter", checkpoint_angle_jitter, between(0, 1, "[)"));
  check("checkpoint_turn_rate", checkpoint_turn_rate, between(0, geom::pi_f, "(]"));
  check("checkpoint_steer_gain", checkpoint_steer_gain, between(0, 1, "(]"));
  check("checkpoint_lookahead_frac", checkpoint_lookahead_frac, between(0, 1, "(]"));
  check_one_of("relax_solver", relax_solver);
  check_at_least("relax_iters", relax_iters, 0);
  if (relax_band) check_at_least("relax_band", *relax_band, 1);
  check_at_least("num_points", num_points, 4);
  check_at_least("N_max", N_max, 3);
  check_at_least("polar_num_knots", polar_num_knots, 1);
  check("polar_radial_jitter", polar_radial_jitter, ge(0));
  check("polar_angular_jitter", polar_angular_jitter, ge(0));
}

void to_json(json& j, const TrackGenConfig& c) {
  j = json::object();
  visit_fields(c, [&j](const char* name, const auto& field) {
    j[name] = Codec<std::decay_t<decltype(field)>>::write(field);
  });
}

void from_json(const json& j, TrackGenConfig& c) {
  if (!j.is_object()) {
    throw ConfigError("TrackGenConfig: expected a JSON object of fields, got " + std::string(j.type_name()));
  }
  TrackGenConfig out;  // defaults; `c` is only assigned once every key has been read
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    visit_fields(out, [&](const char* name, auto& field) {
      if (key != name) return;
      using Field = std::decay_t<decltype(field)>;
      if constexpr (std::is_enum_v<Field>) {
        if (value.is_string()) {
          const std::string name = value.get<std::string>();
          require(parse_setting<Field>(name).has_value(), key, name, one_of(setting_names<Field>()));
        }
      }
      if (!Codec<Field>::holds(value)) {
        throw ConfigError("TrackGenConfig." + key + ": " + value.dump(-1, ' ', false, json::error_handler_t::replace) +
                          " has the wrong type; expected " + Codec<Field>::type());
      }
      field = Codec<Field>::read(value);
      known = true;
    });
    if (!known) throw ConfigError("TrackGenConfig: unknown key \"" + key + "\"");
  }
  c = std::move(out);
}

TrackGenConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("trackgen::load_config: cannot open \"" + path + "\"");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ConfigError("trackgen::load_config: \"" + path + "\" is not valid JSON: " + e.what());
  }
  try {
    return j.get<TrackGenConfig>();
  } catch (const ConfigError& e) {
    throw ConfigError("trackgen::load_config: \"" + path + "\": " + e.what());
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
