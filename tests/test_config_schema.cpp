// The config schema (trackgen/core/config_schema.hpp) against the structs and
// validate(): every field listed, the defaults, and bounds that agree with
// validate() just inside and just outside, for TrackGenConfig, GateGenConfig
// and CourseConfig.
#include "config_support.hpp"
#include "support.hpp"

#include <trackgen/core/config.hpp>
#include <trackgen/core/config_schema.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/runtime/course_config.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

using trackgen::CourseConfig;
using trackgen::GateGenConfig;
using trackgen::TrackGenConfig;
using namespace trackgen::test::config;

namespace {

/// The schema of config struct C.
template <class C>
json schema_of() {
  if constexpr (std::is_same_v<C, TrackGenConfig>) {
    return trackgen::config_schema();
  } else if constexpr (std::is_same_v<C, GateGenConfig>) {
    return trackgen::gate_config_schema();
  } else {
    return trackgen::course_config_schema();
  }
}

/// Pairs of fields where validate() requires first <= second (the cross-field
/// rules a single-field test value can break).
const std::vector<std::pair<const char*, const char*>> ordered_pairs = {
    {"min_num_points", "max_num_points"},
    {"voronoi_control_points", "voronoi_num_sites"},
    {"repulsive_grow_mult_min", "repulsive_grow_mult_max"},
    {"repulsive_obstacle_count_min", "repulsive_obstacle_count_max"},
    {"repulsive_obstacle_radius_min_frac", "repulsive_obstacle_radius_max_frac"},
    {"min_gates", "max_gates"},
    {"z_min", "z_max"},
};

/// The default config's JSON with `field` = `value`; with `repair`, its
/// ordered partner moved along so that only the field's own bounds can fail.
/// (A value outside its bounds needs no repair: validate() checks every field's
/// own bounds before the cross-field rules.)
template <class C>
json with_field(const std::string& field, const json& value, bool repair) {
  json j = C{};
  j[field] = value;
  if (!repair) return j;
  const auto number = [](const json& v) -> double {
    return v.is_array() ? v[0].template get<double>() : v.get<double>();
  };
  for (const auto& [lo, hi] : ordered_pairs) {
    if (!j.contains(lo)) continue;
    if (field == lo && number(value) > j[hi].template get<double>()) j[hi] = value;
    if (field == hi && number(value) < j[lo].template get<double>()) j[lo] = value;
  }
  return j;
}

/// The message validate() throws for `j` ("" when it passes).
template <class C>
std::string validate_error(const json& j) {
  return config_error([&] { j.get<C>().validate(); });
}

/// `v` in the JSON shape of a field of schema type `type`.
json shaped(const std::string& type, double v, bool integer) {
  const json x = integer ? json(static_cast<std::int64_t>(v)) : json(v);
  if (type == "range") return json::array({x, x});
  if (type == "integer_list") return json::array({x});
  return x;
}

/// The float next to `b` (a float bound) towards `dir` (+1 or -1).
double next_float(double b, int dir) {
  const float f = static_cast<float>(b);
  return std::nextafter(f, dir > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
}

/// Checks every bound of the schema of C against validate(): a value just
/// inside passes (or fails naming another field) in at least one of `bases`
/// (JSON configs the field is set in; default: the default config), one just
/// outside fails naming the field in every base. Returns the number of bounds
/// checked.
template <class C>
int check_bounds_agree(const std::vector<json>& bases = {}) {
  const json schema = schema_of<C>();
  const std::string owner = schema.at("config");
  int checked = 0;
  for (const auto& f : schema.at("fields")) {
    const std::string name = f.at("name"), type = f.at("type");
    const bool integer = type == "integer" || type == "integer_list";
    for (const bool upper : {false, true}) {
      const char* key = upper ? "maximum" : "minimum";
      if (!f.contains(key)) continue;
      const double b = f.at(key).template get<double>();
      const bool exclusive = f.value(upper ? "exclusive_maximum" : "exclusive_minimum", false);
      const int out = upper ? +1 : -1;  // the direction out of the interval
      double inside = b, outside = b;
      if (integer) {
        inside = exclusive ? b - out : b;
        outside = exclusive ? b : b + out;
      } else {
        inside = exclusive ? next_float(b, -out) : b;
        outside = exclusive ? b : next_float(b, out);
      }
      INFO(owner << "." << name << " " << key << " " << b << ": inside " << inside << ", outside " << outside);
      if (bases.empty()) {
        const std::string in_msg = validate_error<C>(with_field<C>(name, shaped(type, inside, integer), true));
        CHECK(in_msg.rfind(owner + "." + name + ": ", 0) == std::string::npos);
        const std::string out_msg = validate_error<C>(with_field<C>(name, shaped(type, outside, integer), false));
        CHECK(out_msg.rfind(owner + "." + name + ": ", 0) == 0);
      } else {
        bool inside_passes = false;
        for (json j : bases) {
          j[name] = shaped(type, inside, integer);
          const std::string in_msg = validate_error<C>(j);
          inside_passes = inside_passes || in_msg.rfind(owner + "." + name + ": ", 0) == std::string::npos;
          j[name] = shaped(type, outside, integer);
          const std::string out_msg = validate_error<C>(j);
          INFO(out_msg);
          CHECK(out_msg.rfind(owner + "." + name + ": ", 0) == 0);
        }
        CHECK(inside_passes);
      }
      ++checked;
    }
  }
  return checked;
}

/// The schema lists the fields of C's JSON form, in order, with their defaults.
template <class C>
void check_fields_and_defaults() {
  const json schema = schema_of<C>();
  const json defaults = C{};
  std::vector<std::string> keys, names;
  for (const auto& [k, v] : defaults.items()) keys.push_back(k);
  std::set<std::string> seen;
  const std::set<std::string> types = {"integer", "number", "boolean", "string", "range", "integer_list", "object"};
  for (const auto& f : schema.at("fields")) {
    const std::string name = f.at("name");
    INFO("field " << name);
    names.push_back(name);
    CHECK(seen.insert(name).second);
    CHECK(types.count(f.at("type").template get<std::string>()) == 1);
    REQUIRE(defaults.contains(name));
    CHECK(f.at("default") == defaults.at(name));
    CHECK(f.value("optional", false) == defaults.at(name).is_null());
    if (f.contains("choices") && !defaults.at(name).is_null()) {  // an unset option is no choice
      bool found = false;
      for (const auto& c : f.at("choices")) found = found || c == defaults.at(name);
      CHECK(found);
    }
  }
  CHECK(std::set<std::string>(keys.begin(), keys.end()) == seen);
  CHECK(names.size() == keys.size());
  // Declaration order: the order of the JSON writer's table.
  if constexpr (std::is_same_v<C, CourseConfig>) {
    CHECK(names.front() == "mode");
  } else {
    CHECK(names.front() == "generator");
    CHECK(names[1] == "num_envs");
  }
}

}  // namespace

TEST_CASE("config schema: every TrackGenConfig field, its default and type", "[config][schema]") {
  check_fields_and_defaults<TrackGenConfig>();
  const json s = trackgen::config_schema({"bezier", "hull"});
  CHECK(s.at("config") == "TrackGenConfig");
  const json& generator = s.at("fields")[0];
  CHECK(generator.at("name") == "generator");
  CHECK(generator.at("choices") == json::array({"bezier", "hull"}));
  CHECK_FALSE(trackgen::config_schema().at("fields")[0].contains("choices"));  // no list given
  for (const auto& f : s.at("fields")) {
    if (f.at("name") == "relax_accel") CHECK(f.at("choices") == json::array({"none", "chebyshev"}));
    if (f.at("name") == "relax_band") {
      CHECK(f.at("optional") == true);
      CHECK(f.at("default").is_null());
      CHECK(f.at("minimum") == 1);
    }
    if (f.at("name") == "half_width") {
      CHECK(f.at("minimum") == 0);
      CHECK(f.at("exclusive_minimum") == true);
    }
    if (f.at("name") == "max_num_points") CHECK(f.at("rules") == json::array({">= min_num_points"}));
  }
}

TEST_CASE("config schema: every GateGenConfig field, its default and type", "[config][schema][gates]") {
  check_fields_and_defaults<GateGenConfig>();
  const json s = trackgen::gate_config_schema({"polar"});
  CHECK(s.at("config") == "GateGenConfig");
  CHECK(s.at("fields")[0].at("choices") == json::array({"polar"}));
}

TEST_CASE("config schema: every CourseConfig field, its default and type; nested configs list theirs",
          "[config][schema][course]") {
  check_fields_and_defaults<CourseConfig>();
  const json s = trackgen::course_config_schema({"bezier", "hull"}, {"polar"});
  CHECK(s.at("config") == "CourseConfig");
  std::set<std::string> objects;
  for (const auto& f : s.at("fields")) {
    const std::string name = f.at("name");
    INFO(name);
    if (f.at("type") == "object") {
      objects.insert(name);
      CHECK(f.at("fields").is_array());
      CHECK(f.at("fields").size() > 0);
    }
    if (name == "gen") {
      CHECK(f.at("config") == "TrackGenConfig");
      CHECK(f.at("fields") == trackgen::config_schema({"bezier", "hull"}).at("fields"));
    }
    if (name == "gate_gen") {
      CHECK(f.at("config") == "GateGenConfig");
      CHECK(f.at("fields")[0].at("choices") == json::array({"polar"}));
    }
    if (name == "speed_limits") {
      CHECK(f.at("config") == "SpeedLimits");
      CHECK(f.at("optional") == true);
      CHECK(f.at("default").is_null());
      CHECK(f.at("fields").size() == 4);
    }
    if (name == "mode") CHECK(f.at("choices") == json::array({"track", "gates"}));
    if (name == "seed_expansion") CHECK(f.at("choices") == json::array({"arange", "hashed"}));
    if (name == "collision") {
      CHECK(f.at("choices") == json::array({"segments", "sdf"}));
      CHECK(f.at("optional") == true);
    }
    if (name == "max_checkpoints") CHECK(f.at("minimum") == 3);
  }
  CHECK(objects == std::set<std::string>{"gen", "gate_gen", "speed_limits"});
}

TEST_CASE("config schema: the CourseConfig bounds are the ones validate() enforces", "[config][schema][course]") {
  // Bases in which the options the bounded fields belong to apply: a track
  // course with every option on, a gates course with posts, one with frames.
  json track = CourseConfig{};
  track["checkpoint_spacing"] = 0.3;
  track["collision"] = "sdf";
  track["max_boxes"] = 2;
  track["sdf_resolution"] = 16;
  track["sdf_padding"] = 0.1;
  track["heightfield_resolution"] = 16;
  track["heightfield_padding"] = 0.1;
  track["localize"] = true;
  track["localize_window"] = 4;
  track["speed_limits"] = json::object();
  track["curvature_window"] = 2;
  json posts = CourseConfig{};
  posts["mode"] = "gates";
  posts["gate_gen"]["gate_width"] = 0.1;
  posts["post_radius"] = 0.01;
  json frames = posts;
  frames["post_radius"] = 0.0;
  frames["frame_collision"] = true;
  frames["frame_thickness"] = 0.01;
  frames["frame_depth"] = 0.01;
  frames["agent_radius"] = 0.01;
  for (const json& base : {track, posts, frames}) CHECK(validate_error<CourseConfig>(base).empty());
  CHECK(check_bounds_agree<CourseConfig>({track, posts, frames}) >= 15);
}

TEST_CASE("config schema: the bounds are the ones validate() enforces", "[config][schema]") {
  CHECK(check_bounds_agree<TrackGenConfig>() > 70);
  CHECK(check_bounds_agree<GateGenConfig>() > 30);
}

TEST_CASE("config schema: every integer field that scales work has an upper bound, with its reason",
          "[config][schema]") {
  // Every integer field is a size, a count, an iteration count or a period.
  for (const json& s : {trackgen::config_schema(), trackgen::gate_config_schema()}) {
    for (const auto& f : s.at("fields")) {
      if (f.at("type") != "integer" && f.at("type") != "integer_list") continue;
      INFO(s.at("config") << "." << f.at("name"));
      CHECK(f.contains("maximum"));
      CHECK(f.at("doc").template get<std::string>().find("Upper bound: ") != std::string::npos);
    }
  }
}

TEST_CASE("config bounds: runaway sizes and iteration counts are rejected naming the field, value and bound",
          "[config][schema]") {
  TrackGenConfig c;
  c.num_points = 1000000;
  CHECK(config_error([&] { c.validate(); }) == "TrackGenConfig.num_points: 1000000 is invalid; must be in [4, 16384]");
  c = TrackGenConfig{};
  c.relax_iters = std::numeric_limits<std::int32_t>::max();
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.relax_iters: 2147483647 is invalid; must be in [0, 100000]");
  c = TrackGenConfig{};
  c.num_envs = 100000000;
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.num_envs: 100000000 is invalid; must be in [1, 1048576]");
  // Within the bounds, the point count still has to fit 32-bit indices.
  c = TrackGenConfig{};
  c.num_envs = 1 << 20;
  c.N_max = 16384;
  CHECK(config_error([&] { c.validate(); }) ==
        "TrackGenConfig.num_envs: 1048576 is invalid; must be <= 131071 at N_max = 16384 "
        "(num_envs * N_max <= 2147483647: 32-bit point indices)");
  GateGenConfig g;
  g.gate_solve_iters = std::numeric_limits<std::int32_t>::max();
  CHECK(config_error([&] { g.validate(); }) ==
        "GateGenConfig.gate_solve_iters: 2147483647 is invalid; must be in [0, 10000]");
}
