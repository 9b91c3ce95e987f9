// Internal (in-tree, not installed): the pieces every config struct's
// validation, JSON format and schema are built from: TrackGenConfig
// (core/src/config.cpp), GateGenConfig (core/src/gate_config.cpp) and, in the
// runtime layer, CourseConfig and SpeedLimits (runtime/src/course_config.cpp).
//
// A config struct C provides ConfigFields<C>::visit(c, v), calling
// v(name, member, spec) for every field in declaration order with its
// FieldSpec (bounds, documentation, cross-field rules in words): the one table
// of its fields. From it, FieldRules checks single fields (check_all_fields,
// check_all_finite), write_fields / read_fields / load_fields do the JSON and
// schema_of the schema. A field may itself be a config struct (Nested<C>): its
// JSON is an object, its schema entry lists its own fields, and the owner's
// validate() decides when to validate it.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/config_schema.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/gate_config.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace trackgen::detail::config_fields {

using nlohmann::json;

/// The field table of a config struct C: a specialization provides
/// `template <class Config, class Visitor> static void visit(Config& c, Visitor&& v)`
/// calling v(json_name, c.member, spec) for every field, in declaration order,
/// with the field's FieldSpec (its bounds and documentation).
template <class C>
struct ConfigFields;

/// A config struct that is one field of another (CourseConfig's gen, gate_gen
/// and speed_limits): a specialization sets `is_nested`, names the struct
/// (`name`) and provides `read(j, c)` (from a JSON object, ConfigError naming
/// the key otherwise), `write(c)` (to one) and `schema(choices)` (its schema,
/// config_schema.hpp).
template <class C>
struct Nested {
  static constexpr bool is_nested = false;
};

/// The registered generator names by the name of the config struct whose
/// `generator` field they are the choices of (e.g. "TrackGenConfig"): what a
/// schema lists as that field's choices. A struct not in it lists none.
using GeneratorChoices = std::map<std::string, std::vector<std::string>, std::less<>>;

// ------------------------------------------------------------- value display

/// The display form of a field value in error messages; for floats the shortest
/// decimal form that reads back as `v` ("nan", "inf" when not finite).
inline std::string show(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
inline std::string show(int v) { return std::to_string(v); }
inline std::string show(bool v) { return v ? "true" : "false"; }
inline std::string show(const std::string& v) { return '"' + v + '"'; }
template <class E>
requires std::is_enum_v<E>
inline std::string show(E v) {
  const char* name = setting_name(v);
  return name ? show(std::string(name)) : "(enum value " + std::to_string(static_cast<long long>(v)) + ")";
}
inline std::string show(const FloatRange& r) {
  std::string s("[");  // appended piece by piece: GCC 12 misreads "[" + std::string&& as overlapping
  s += show(r[0]);
  s += ", ";
  s += show(r[1]);
  return s += "]";
}
inline std::string show(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + show(v[i]);
  return s + "]";
}
/// An optional field: its value, or null when unset.
template <class T>
std::string show(const std::optional<T>& v) {
  return v ? show(*v) : std::string("null");
}

// ------------------------------------------------------------- field specs

constexpr double unbounded = std::numeric_limits<double>::infinity();

/// What the field table says of one field besides its name and type: one line
/// of documentation, the bounds validate() enforces on the field alone (for a
/// range or a list, on each of its numbers; inclusive unless open), why the
/// upper bound is where it is, and the cross-field rules, in words (checked
/// by validate()'s own code, the memory estimate by the producers'
/// constructors). validate() and the schema (config_schema()) both read it:
/// the bounds exist once.
struct FieldSpec {
  const char* doc = "";
  double lo = -unbounded, hi = unbounded;
  bool lo_open = false, hi_open = false;
  const char* why_max = nullptr;  ///< the reason of an upper bound that limits work or memory
  std::array<const char*, 3> rules{};

  /// The field must be >= v.
  constexpr FieldSpec ge(double v) const { return bound_lo(v, false); }
  /// The field must be > v.
  constexpr FieldSpec gt(double v) const { return bound_lo(v, true); }
  /// The field must be <= v (part of its meaning).
  constexpr FieldSpec le(double v) const { return bound_hi(v, false, nullptr); }
  /// The field must be < v (part of its meaning).
  constexpr FieldSpec lt(double v) const { return bound_hi(v, true, nullptr); }
  /// The field must be <= v, a bound on the work or memory it drives, for the
  /// reason `why`.
  constexpr FieldSpec at_most(double v, const char* why) const { return bound_hi(v, false, why); }
  /// A cross-field rule, in words (checked by validate() itself).
  constexpr FieldSpec rule(const char* r) const {
    FieldSpec s = *this;
    for (auto& slot : s.rules) {
      if (slot == nullptr) {
        slot = r;
        break;
      }
    }
    return s;
  }
  /// Whether the spec bounds the field's numbers at all.
  constexpr bool bounded() const { return lo != -unbounded || hi != unbounded; }

 private:
  constexpr FieldSpec bound_lo(double v, bool open) const {
    FieldSpec s = *this;
    s.lo = v;
    s.lo_open = open;
    return s;
  }
  constexpr FieldSpec bound_hi(double v, bool open, const char* why) const {
    FieldSpec s = *this;
    s.hi = v;
    s.hi_open = open;
    s.why_max = why;
    return s;
  }
};

/// The spec of a field documented by `d`, without bounds yet.
constexpr FieldSpec doc(const char* d) { return FieldSpec{d}; }

/// The number type of a field's bounds: int for int, optional<int> and
/// vector<int> fields, float for float, optional<float> and range fields, void
/// for fields without numbers.
template <class T>
struct BoundType {
  using type = void;
};
template <>
struct BoundType<int> {
  using type = int;
};
template <>
struct BoundType<float> {
  using type = float;
};
template <>
struct BoundType<FloatRange> {
  using type = float;
};
template <>
struct BoundType<std::vector<int>> {
  using type = int;
};
template <class T>
struct BoundType<std::optional<T>> : BoundType<T> {};

/// A bound in the field's own number type: int bounds as integers, float bounds
/// rounded to float once (the value validate() compares with).
template <class N>
N bound_value(double b) {
  return static_cast<N>(b);
}

/// Whether `v` lies within the bounds of `s` (compared in N, the field's type).
template <class N>
bool within(const FieldSpec& s, N v) {
  const bool lo_ok = s.lo == -unbounded || (s.lo_open ? v > bound_value<N>(s.lo) : v >= bound_value<N>(s.lo));
  const bool hi_ok = s.hi == unbounded || (s.hi_open ? v < bound_value<N>(s.hi) : v <= bound_value<N>(s.hi));
  return lo_ok && hi_ok;
}

/// The bounds of `s` in words: "> 0", ">= 1", "<= 4", "in [1, 1048576]", "in (0, 0.5]".
template <class N>
std::string describe(const FieldSpec& s) {
  const auto lo = [&] { return show(bound_value<N>(s.lo)); };
  const auto hi = [&] { return show(bound_value<N>(s.hi)); };
  if (s.hi == unbounded) return (s.lo_open ? "> " : ">= ") + lo();
  if (s.lo == -unbounded) return (s.hi_open ? "< " : "<= ") + hi();
  return std::string("in ") + (s.lo_open ? "(" : "[") + lo() + ", " + hi() + (s.hi_open ? ")" : "]");
}

// ------------------------------------------- specs shared by both configs

/// The specs of the fields TrackGenConfig and GateGenConfig share (the same
/// meaning, the same bounds); docs/design.md#config-bounds explains the upper
/// bounds.
namespace shared_spec {

inline constexpr const char* why_corners =
    "the sampler compares each corner with every earlier one (O(P^2) per env) and the dense curve holds "
    "max_num_points * num_points_per_segment points per env";

inline constexpr FieldSpec num_envs =
    doc("batch size E")
        .ge(1)
        .at_most(1 << 20,
                 "one batch of 2^20 envs is already gigabytes; split larger runs into batches "
                 "(the memory estimate bounds E further by the machine's memory)")
        .rule("the estimated memory of the batch (trackgen::estimate_memory) within the memory limit");
inline constexpr FieldSpec min_num_points = doc("min corner count").ge(2).at_most(1024, why_corners);
inline constexpr FieldSpec max_num_points =
    doc("max corner count, the corner buffer stride P").ge(2).at_most(1024, why_corners).rule(">= min_num_points");
inline constexpr FieldSpec min_point_distance =
    doc("corner grid cell = 2 * this; at least 1e-4 so that the int(1 / (2 * this))^2 cells (25 million) "
        "count in 32 bits")
        .ge(1e-4)
        .le(0.5);
inline constexpr FieldSpec num_points_per_segment =
    doc("dense samples per spline segment")
        .ge(2)
        .at_most(1024, "the dense curve holds max_num_points * num_points_per_segment points per env");
inline constexpr FieldSpec scale = doc("isotropic coordinate scale").gt(0);
inline constexpr FieldSpec rad = doc("Bezier handle length as a fraction of the chord");
inline constexpr FieldSpec edgy = doc("tangent blend: p = atan(edgy) / pi + 0.5");
inline constexpr FieldSpec handle_clamp_frac = doc("Bezier handle cap as a fraction of the shorter incident edge");
inline constexpr FieldSpec hull_displacement = doc("hull: max radial midpoint displacement fraction");
inline constexpr FieldSpec polar_num_knots =
    doc("polar knots; K = max(this, 4)")
        .ge(1)
        .at_most(4096, "the periodic spline through K knots holds K * num_points_per_segment points per env");
inline constexpr FieldSpec polar_radial_jitter = doc("polar radial jitter, clamped to [0, 0.85] at use").ge(0);
inline constexpr FieldSpec polar_angular_jitter =
    doc("polar angular jitter as a fraction of a knot cell, clamped to [0, 0.45] at use").ge(0);
inline constexpr FieldSpec voronoi_num_sites =
    doc("voronoi sites S")
        .at_most(65536, "each of the K anchors scans every site (O(K * S) per env) and every env keeps S sites")
        .rule(">= voronoi_control_points");
inline constexpr FieldSpec voronoi_site_layout = doc("how the voronoi sites are scattered");
inline constexpr const char* why_voronoi_anchors = "each of the K anchors scans every site: O(K * S) per env";
inline constexpr FieldSpec voronoi_radial_variation = doc("voronoi radial variation of the anchor ring").ge(0);
inline constexpr FieldSpec voronoi_angular_jitter = doc("voronoi anchor angle jitter (radians)").ge(0);
inline constexpr FieldSpec checkpoint_count =
    doc("checkpoints C per ring").ge(3).at_most(4096, "every candidate ring of every env stores its C checkpoints");
inline constexpr FieldSpec checkpoint_radius_min_frac =
    doc("smallest checkpoint radius as a fraction of R").ge(0).lt(1);
inline constexpr FieldSpec checkpoint_angle_jitter =
    doc("checkpoint angle jitter as a fraction of the slot 2 pi / C").ge(0).lt(1);
inline constexpr FieldSpec z_profile = doc("elevation profile");
inline constexpr FieldSpec z_base = doc("base altitude (flat level, walk origin, noise centre)");
inline constexpr FieldSpec z_min = doc("lower end of the altitude clamp range");
inline constexpr FieldSpec z_max = doc("upper end of the altitude clamp range")
                                       .rule(">= z_min")
                                       .rule(
                                           "> z_min unless z_profile is \"flat\" (the other profiles are clamped "
                                           "to [z_min, z_max])");
inline constexpr FieldSpec z_max_step = doc("random-walk grade cap: |dz| per unit of plan-view arc length").ge(0);
inline constexpr FieldSpec z_noise_amplitude = doc("noise profile amplitude").ge(0);
inline constexpr FieldSpec z_noise_harmonics =
    doc("noise profile harmonics H").ge(1).at_most(1024, "every point sums H sines");
inline constexpr FieldSpec z_valid_grade =
    doc("validity: max |dz| / ds_xy between adjacent points; 0 disables the check").ge(0);

}  // namespace shared_spec

// ------------------------------------------------------------- validation

/// "one of \"a\", \"b\"" for the names `allowed`.
inline std::string one_of(const std::vector<std::string>& allowed) {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + show(a);
  return "one of " + list;
}

/// Field checks of one config struct: every failure throws ConfigError
/// "<owner>.<field>: <value> is invalid; must be <rule>".
struct FieldRules {
  std::string owner;  ///< the struct's name, e.g. "TrackGenConfig"

  /// Throws the ConfigError of an invalid field unless `ok`.
  template <class T>
  void require(bool ok, std::string_view field, const T& value, const std::string& must) const {
    if (!ok) throw ConfigError(owner + "." + std::string(field) + ": " + show(value) + " is invalid; must be " + must);
  }

  /// Throws "<owner>.<field>: <shown> applies only <when>" for a field set
  /// (to the value displayed as `shown`) where it does not apply.
  void check_applies(bool applies, std::string_view field, const std::string& shown, const std::string& when) const {
    if (!applies) throw ConfigError(owner + "." + std::string(field) + ": " + shown + " applies only " + when);
  }

  /// A field >= another field.
  template <class T>
  void check_not_below(std::string_view field, T v, std::string_view other, T other_v) const {
    require(v >= other_v, field, v, ">= " + std::string(other) + " (" + show(other_v) + ")");
  }

  /// A string field equal to one of `allowed`.
  void check_one_of(std::string_view field, const std::string& v, const std::vector<std::string>& allowed) const {
    bool found = false;
    for (const auto& a : allowed) found = found || a == v;
    require(found, field, v, one_of(allowed));
  }

  /// The single-field rules of `spec` for each field type: numbers within its
  /// bounds, enum-like settings within their name table, ranges ordered.
  void check_field(std::string_view field, int v, const FieldSpec& s) const {
    if (s.bounded()) require(within(s, v), field, v, describe<int>(s));
  }
  void check_field(std::string_view field, float v, const FieldSpec& s) const {
    if (s.bounded()) require(within(s, v), field, v, describe<float>(s));
  }
  template <class T>
  void check_field(std::string_view field, const std::optional<T>& v, const FieldSpec& s) const {
    if (v) check_field(field, *v, s);
  }
  /// A style range: lo <= hi, both ends within the bounds if any.
  void check_field(std::string_view field, const FloatRange& r, const FieldSpec& s) const {
    require(r[0] <= r[1] && within(s, r[0]) && within(s, r[1]), field, r,
            "[lo, hi] with lo <= hi" + (s.bounded() ? ", both " + describe<float>(s) : std::string()));
  }
  void check_field(std::string_view field, const std::vector<int>& v, const FieldSpec& s) const {
    bool ok = true;
    for (const int x : v) ok = ok && within(s, x);
    require(ok, field, v, "a list of integers, each " + describe<int>(s));
  }
  /// An enum-like field holding a value of its name table.
  template <class E>
  requires std::is_enum_v<E>
  void check_field(std::string_view field, E v, const FieldSpec&) const {
    require(setting_name(v) != nullptr, field, v, one_of(setting_names<E>()));
  }
  /// Strings and booleans have no single-field rule (the generator name is
  /// checked against the registry by check_one_of).
  void check_field(std::string_view, const std::string&, const FieldSpec&) const {}
  void check_field(std::string_view, bool, const FieldSpec&) const {}
  /// A nested config is validated by its owner's validate(), which knows when
  /// it applies.
  template <class C>
  requires Nested<C>::is_nested void check_field(std::string_view, const C&, const FieldSpec&) const {}

  /// check_field of every field of `c` (ConfigFields<C>), in declaration order.
  template <class C>
  void check_all_fields(const C& c) const {
    ConfigFields<C>::visit(
        c, [this](const char* name, const auto& field, const FieldSpec& spec) { check_field(name, field, spec); });
  }

  /// Finite values in every float field (NaN would slip through every comparison).
  void check_finite(std::string_view field, float v) const { require(std::isfinite(v), field, v, "finite"); }
  void check_finite(std::string_view field, const std::optional<float>& v) const {
    if (v) check_finite(field, *v);
  }
  void check_finite(std::string_view field, const std::optional<FloatRange>& r) const {
    if (r) require(std::isfinite((*r)[0]) && std::isfinite((*r)[1]), field, *r, "finite");
  }
  /// Other field types hold no float.
  template <class T>
  void check_finite(std::string_view, const T&) const {}

  /// check_finite of every field of `c` (ConfigFields<C>).
  template <class C>
  void check_all_finite(const C& c) const {
    ConfigFields<C>::visit(
        c, [this](const char* name, const auto& field, const FieldSpec&) { check_finite(name, field); });
  }
};

/// z_max >= z_min, and a non-empty range for every profile but flat: the
/// uniform, random_walk and noise profiles are clamped to [z_min, z_max], so
/// an empty range would silently flatten them.
inline void check_z_range(const FieldRules& r, ZProfile profile, float z_min, float z_max) {
  r.check_not_below("z_max", z_max, "z_min", z_min);
  if (profile == ZProfile::flat) return;
  r.require(z_max > z_min, "z_max", z_max,
            "> z_min (" + show(z_min) + ") when z_profile is " + show(profile) +
                ": that profile is clamped to [z_min, z_max], an empty range flattens it");
}

/// num_envs * stride <= INT32_MAX: kernels index the [E * stride] fields with
/// 32-bit integers.
inline void check_point_count(const FieldRules& r, int num_envs, std::string_view stride_field, int stride) {
  constexpr long long limit = std::numeric_limits<std::int32_t>::max();
  const long long per_env = std::max(stride, 1);
  r.require(static_cast<long long>(num_envs) * per_env <= limit, "num_envs", num_envs,
            "<= " + show(static_cast<int>(limit / per_env)) + " at " + std::string(stride_field) + " = " +
                show(stride) + " (num_envs * " + std::string(stride_field) + " <= 2147483647: 32-bit point indices)");
}

// ------------------------------------------------------------------- JSON

/// How a field type is written to and read from JSON: `type()` names the
/// expected JSON type in words, `schema_type()` as the schema does
/// (config_schema.hpp), `holds(j)` checks it, `read`/`write` convert.
template <class T>
struct Codec;

template <>
struct Codec<std::string> {
  static std::string type() { return "a string"; }
  static const char* schema_type() { return "string"; }
  static bool holds(const json& j) { return j.is_string(); }
  static std::string read(const json& j) { return j.get<std::string>(); }
  static json write(const std::string& v) { return v; }
};

template <>
struct Codec<bool> {
  static std::string type() { return "a boolean"; }
  static const char* schema_type() { return "boolean"; }
  static bool holds(const json& j) { return j.is_boolean(); }
  static bool read(const json& j) { return j.get<bool>(); }
  static json write(bool v) { return v; }
};

template <>
struct Codec<int> {
  static std::string type() { return "an integer in the int32 range"; }
  static const char* schema_type() { return "integer"; }
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
  static const char* schema_type() { return "number"; }
  static bool holds(const json& j) { return j.is_number(); }
  static float read(const json& j) { return static_cast<float>(j.get<double>()); }
  /// The double of v's shortest decimal form (0.1f is written as 0.1), or v's
  /// exact value in the rare case where that double would not read back as v:
  /// either way read(write(v)) is bit-identical to v.
  static json write(float v) {
    const std::string s = show(v);
    double d = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    const bool exact =
        r.ec == std::errc() && std::bit_cast<std::uint32_t>(static_cast<float>(d)) == std::bit_cast<std::uint32_t>(v);
    return exact ? d : static_cast<double>(v);
  }
};

template <>
struct Codec<FloatRange> {
  static std::string type() { return "an array [lo, hi] of 2 numbers"; }
  static const char* schema_type() { return "range"; }
  static bool holds(const json& j) {
    return j.is_array() && j.size() == 2 && Codec<float>::holds(j[0]) && Codec<float>::holds(j[1]);
  }
  static FloatRange read(const json& j) { return {Codec<float>::read(j[0]), Codec<float>::read(j[1])}; }
  static json write(const FloatRange& r) { return json::array({Codec<float>::write(r[0]), Codec<float>::write(r[1])}); }
};

template <>
struct Codec<std::vector<int>> {
  static std::string type() { return "an array of integers"; }
  static const char* schema_type() { return "integer_list"; }
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
  static const char* schema_type() { return "string"; }
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
  static const char* schema_type() { return Codec<T>::schema_type(); }
  static bool holds(const json& j) { return j.is_null() || Codec<T>::holds(j); }
  static std::optional<T> read(const json& j) {
    if (j.is_null()) return std::nullopt;
    return Codec<T>::read(j);
  }
  static json write(const std::optional<T>& v) { return v ? Codec<T>::write(*v) : json(nullptr); }
};

/// Nested config structs: a JSON object of their own fields.
template <class C>
requires Nested<C>::is_nested struct Codec<C> {
  static std::string type() { return std::string("a JSON object of ") + Nested<C>::name + " fields"; }
  static const char* schema_type() { return "object"; }
  static bool holds(const json& j) { return j.is_object(); }
  static C read(const json& j) {
    C c;
    Nested<C>::read(j, c);
    return c;
  }
  static json write(const C& c) { return Nested<C>::write(c); }
};

/// The enum type of an enum-like field (E or std::optional<E>), else void.
template <class T>
struct EnumOf {
  using type = std::conditional_t<std::is_enum_v<T>, T, void>;
};
template <class T>
struct EnumOf<std::optional<T>> : EnumOf<T> {};

/// At most this many characters of a JSON value are shown in an error message.
inline constexpr std::size_t max_shown_chars = 200;
/// JSON text nested deeper than this is rejected while it is parsed.
inline constexpr int max_json_depth = 64;

/// The compact JSON text of `j` for an error message, cut to about
/// max_shown_chars characters ("..." marks the cut). Never recurses deeper than
/// the text it shows, so any depth of nesting is safe.
inline void append_snippet(const json& j, std::string& out) {
  if (out.size() >= max_shown_chars) return;
  if (!j.is_structured()) {
    out += j.dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  const bool object = j.is_object();
  out += object ? '{' : '[';
  bool first = true;
  for (auto it = j.begin(); it != j.end() && out.size() < max_shown_chars; ++it) {
    if (!first) out += ',';
    first = false;
    if (object) out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ':';
    append_snippet(*it, out);
  }
  if (out.size() < max_shown_chars) out += object ? '}' : ']';
}
inline std::string snippet(const json& j) {
  std::string out;
  append_snippet(j, out);
  if (out.size() > max_shown_chars) out.resize(max_shown_chars);
  const bool cut = out.size() >= max_shown_chars;
  return cut ? out + "..." : out;
}

/// Parses the JSON text `in` (a stream or a string) like json::parse, and also
/// rejects, with a ConfigError naming `where`, a key repeated within one object
/// (which json::parse would let the last one win) and nesting deeper than
/// max_json_depth (no config field nests more than one level).
template <class Input>
json parse_strict(Input&& in, const std::string& where) {
  std::vector<std::set<std::string>> keys;  // the keys seen so far in each open object
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_json_depth) {
      throw ConfigError(where + ": JSON nested deeper than " + std::to_string(max_json_depth) + " levels");
    }
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        if (!keys.back().insert(key).second) throw ConfigError(where + ": duplicate key " + snippet(json(key)));
        break;
      }
      default:
        break;
    }
    return true;
  };
  return json::parse(std::forward<Input>(in), check);
}

/// j = the JSON object of every field of `c`.
template <class C>
void write_fields(json& j, const C& c) {
  j = json::object();
  ConfigFields<C>::visit(c, [&j](const char* name, const auto& field, const FieldSpec&) {
    j[name] = Codec<std::decay_t<decltype(field)>>::write(field);
  });
}

/// Reads the JSON object `j` into `c` (named `owner` in errors): missing keys
/// keep their defaults; an unknown key, a wrong type or an unknown enum name
/// throws ConfigError naming the key, and leaves `c` unchanged.
template <class C>
void read_fields(const json& j, C& c, const std::string& owner) {
  if (!j.is_object()) {
    throw ConfigError(owner + ": expected a JSON object of fields, got " + std::string(j.type_name()));
  }
  const FieldRules rules{owner};
  C out;                                // defaults; `c` is only assigned once every key has been read
  for (const auto& item : j.items()) {  // no structured binding: clang 14 (the fuzzer's) cannot capture one
    const std::string& key = item.key();
    const json& value = item.value();
    bool known = false;
    ConfigFields<C>::visit(out, [&](const char* name, auto& field, const FieldSpec&) {
      if (key != name) return;
      using Field = std::decay_t<decltype(field)>;
      using Enum = typename EnumOf<Field>::type;
      if constexpr (!std::is_void_v<Enum>) {
        if (value.is_string()) {
          const std::string enum_name = value.template get<std::string>();
          rules.require(parse_setting<Enum>(enum_name).has_value(), key, enum_name, one_of(setting_names<Enum>()));
        }
      }
      if (!Codec<Field>::holds(value)) {
        throw ConfigError(owner + "." + key + ": " + snippet(value) + " has the wrong type; expected " +
                          Codec<Field>::type());
      }
      try {
        field = Codec<Field>::read(value);
      } catch (const ConfigError& e) {  // a nested config's own message, under its key
        throw ConfigError(owner + "." + key + ": " + e.what());
      }
      known = true;
    });
    if (!known) throw ConfigError(owner + ": unknown key \"" + key + "\"");
  }
  c = std::move(out);
}

/// Reads a config of type C from the JSON file `path`; ConfigError naming
/// `api` and the path on I/O, parse or field errors.
template <class C>
C load_fields(const std::string& path, const std::string& api) {
  std::ifstream in(path);
  if (!in) throw ConfigError(api + ": cannot open \"" + path + "\"");
  json j;
  try {
    j = parse_strict(in, api + ": \"" + path + "\"");
  } catch (const json::exception& e) {
    throw ConfigError(api + ": \"" + path + "\" is not valid JSON: " + e.what());
  }
  try {
    return j.get<C>();
  } catch (const ConfigError& e) {
    throw ConfigError(api + ": \"" + path + "\": " + e.what());
  }
}

// ----------------------------------------------------------------- schema

/// A bound of a field of type Field as the schema shows it: int bounds as
/// integers, float bounds as the shortest decimal of the float validate()
/// compares with.
template <class Field>
json bound_json(double b) {
  using N = typename BoundType<Field>::type;
  if constexpr (std::is_same_v<N, int>) {
    return static_cast<std::int64_t>(b);
  } else {
    return Codec<float>::write(static_cast<float>(b));
  }
}

/// Whether T is a std::optional.
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// The nested config of a field type (C or std::optional<C>), else void.
template <class T>
struct NestedOf {
  using type = std::conditional_t<Nested<T>::is_nested, T, void>;
};
template <class T>
struct NestedOf<std::optional<T>> : NestedOf<T> {};

/// The schema entry of field `name` of the config struct named `owner`
/// (format: trackgen/core/config_schema.hpp).
template <class Field>
json field_schema(const std::string& owner, const char* name, const Field& default_value, const FieldSpec& s,
                  const GeneratorChoices& generators) {
  json f = json::object();
  f["name"] = name;
  f["type"] = Codec<Field>::schema_type();
  f["default"] = Codec<Field>::write(default_value);
  if constexpr (is_optional<Field>::value) f["optional"] = true;
  if constexpr (!std::is_void_v<typename BoundType<Field>::type>) {
    if (s.lo != -unbounded) {
      f["minimum"] = bound_json<Field>(s.lo);
      if (s.lo_open) f["exclusive_minimum"] = true;
    }
    if (s.hi != unbounded) {
      f["maximum"] = bound_json<Field>(s.hi);
      if (s.hi_open) f["exclusive_maximum"] = true;
    }
  }
  using Enum = typename EnumOf<Field>::type;
  using Inner = typename NestedOf<Field>::type;
  if constexpr (!std::is_void_v<Enum>) {
    f["choices"] = setting_names<Enum>();
  } else if constexpr (std::is_same_v<Field, std::string>) {
    const auto choices = generators.find(owner);
    if (std::string_view(name) == "generator" && choices != generators.end() && !choices->second.empty()) {
      f["choices"] = choices->second;
    }
  } else if constexpr (!std::is_void_v<Inner>) {
    json nested = Nested<Inner>::schema(generators);
    f["config"] = std::move(nested["config"]);
    f["fields"] = std::move(nested["fields"]);
  }
  std::string text = s.doc;
  if (s.why_max != nullptr) text += std::string(text.empty() ? "" : ". ") + "Upper bound: " + s.why_max;
  if (!text.empty()) f["doc"] = text;
  json rules = json::array();
  for (const char* r : s.rules) {
    if (r != nullptr) rules.push_back(r);
  }
  if (!rules.empty()) f["rules"] = rules;
  return f;
}

/// The schema of config struct C (named `owner`): every field of its table in
/// declaration order with its type, default, bounds, choices, doc and rules.
/// `generators` holds the choices of the `generator` fields by struct name.
template <class C>
json schema_of(const std::string& owner, const GeneratorChoices& generators) {
  json fields = json::array();
  const C defaults;
  ConfigFields<C>::visit(defaults, [&](const char* name, const auto& field, const FieldSpec& spec) {
    fields.push_back(field_schema(owner, name, field, spec, generators));
  });
  return json{{"config", owner}, {"fields", std::move(fields)}};
}

// ------------------------------------------------ the core configs, nested

/// TrackGenConfig as a field of another config: its own JSON functions and schema.
template <>
struct Nested<TrackGenConfig> {
  static constexpr bool is_nested = true;
  static constexpr const char* name = "TrackGenConfig";
  static void read(const json& j, TrackGenConfig& c) { from_json(j, c); }
  static json write(const TrackGenConfig& c) { return c; }
  static json schema(const GeneratorChoices& g) {
    const auto it = g.find(name);
    return config_schema(it == g.end() ? std::vector<std::string>{} : it->second);
  }
};

/// GateGenConfig as a field of another config.
template <>
struct Nested<GateGenConfig> {
  static constexpr bool is_nested = true;
  static constexpr const char* name = "GateGenConfig";
  static void read(const json& j, GateGenConfig& c) { from_json(j, c); }
  static json write(const GateGenConfig& c) { return c; }
  static json schema(const GeneratorChoices& g) {
    const auto it = g.find(name);
    return gate_config_schema(it == g.end() ? std::vector<std::string>{} : it->second);
  }
};

}  // namespace trackgen::detail::config_fields
