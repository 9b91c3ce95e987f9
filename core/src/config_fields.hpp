// Internal to the core layer: the pieces every config struct's validation and
// JSON format are built from (TrackGenConfig in config.cpp, GateGenConfig in
// gate_config.cpp). A config struct C provides ConfigFields<C>::visit(c, v),
// calling v(name, member) for every field in declaration order; FieldRules
// checks single fields, write_fields / read_fields / load_fields do the JSON.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace trackgen::detail::config_fields {

using nlohmann::json;

/// The field table of a config struct C: a specialization provides
/// `template <class Config, class Visitor> static void visit(Config& c, Visitor&& v)`
/// calling v(json_name, c.member) for every field, in declaration order.
template <class C>
struct ConfigFields;

// ------------------------------------------------------------- value display

/// The display form of a field value in error messages; for floats the shortest
/// decimal form that reads back as `v` ("nan", "inf" when not finite).
inline std::string show(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
inline std::string show(int v) { return std::to_string(v); }
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

// ------------------------------------------------------------- validation

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

  /// A float field within `in`.
  void check(std::string_view field, float v, Interval in) const { require(in.contains(v), field, v, in.describe()); }

  /// An int field >= lo.
  void check_at_least(std::string_view field, int v, int lo) const { require(v >= lo, field, v, ">= " + show(lo)); }

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

  /// An enum-like field holding a value of its name table.
  template <class E>
    requires std::is_enum_v<E>
  void check_one_of(std::string_view field, E v) const {
    require(setting_name(v) != nullptr, field, v, one_of(setting_names<E>()));
  }

  /// An optional style range: when set, lo <= hi, and both ends within `in` if given.
  void check_range(std::string_view field, const std::optional<FloatRange>& r,
                   const std::optional<Interval>& in = std::nullopt) const {
    if (!r) return;
    const auto [lo, hi] = *r;
    require(lo <= hi && (!in || (in->contains(lo) && in->contains(hi))), field, *r,
            "[lo, hi] with lo <= hi" + (in ? ", both " + in->describe() : std::string()));
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
    ConfigFields<C>::visit(c, [this](const char* name, const auto& field) { check_finite(name, field); });
  }
};

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

/// j = the JSON object of every field of `c`.
template <class C>
void write_fields(json& j, const C& c) {
  j = json::object();
  ConfigFields<C>::visit(c, [&j](const char* name, const auto& field) {
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
  C out;  // defaults; `c` is only assigned once every key has been read
  for (const auto& item : j.items()) {  // no structured binding: clang 14 (the fuzzer's) cannot capture one
    const std::string& key = item.key();
    const json& value = item.value();
    bool known = false;
    ConfigFields<C>::visit(out, [&](const char* name, auto& field) {
      if (key != name) return;
      using Field = std::decay_t<decltype(field)>;
      if constexpr (std::is_enum_v<Field>) {
        if (value.is_string()) {
          const std::string enum_name = value.template get<std::string>();
          rules.require(parse_setting<Field>(enum_name).has_value(), key, enum_name, one_of(setting_names<Field>()));
        }
      }
      if (!Codec<Field>::holds(value)) {
        throw ConfigError(owner + "." + key + ": " + value.dump(-1, ' ', false, json::error_handler_t::replace) +
                          " has the wrong type; expected " + Codec<Field>::type());
      }
      field = Codec<Field>::read(value);
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
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ConfigError(api + ": \"" + path + "\" is not valid JSON: " + e.what());
  }
  try {
    return j.get<C>();
  } catch (const ConfigError& e) {
    throw ConfigError(api + ": \"" + path + "\": " + e.what());
  }
}

}  // namespace trackgen::detail::config_fields
