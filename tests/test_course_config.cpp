// CourseConfig as a field table (trackgen/runtime/course_config.hpp): the JSON
// round trip, the reader's errors naming the key, validation messages in the
// core configs' format, the format the Python binding reads, and the file
// loader. The schema is checked in test_config_schema.cpp.
#include "config_support.hpp"
#include "support.hpp"

#include <trackgen/runtime/course_config.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

using trackgen::CollisionMethod;
using trackgen::CourseConfig;
using trackgen::CourseMode;
using trackgen::SeedExpansion;
using trackgen::test::config::config_error;
using json = nlohmann::json;

namespace {

/// A config with every field away from its default.
CourseConfig changed_config() {
  CourseConfig c;
  c.mode = CourseMode::gates;
  c.gen.num_envs = 3;
  c.gen.generator = "polar";
  c.gate_gen.num_envs = 5;
  c.gate_gen.gate_width = 0.25f;
  c.seed = -7;
  c.seed_expansion = SeedExpansion::hashed;
  c.checkpoint_spacing = 0.1f;
  c.max_checkpoints = 40;
  c.collision = CollisionMethod::sdf;
  c.max_boxes = 3;
  c.sdf_resolution = 64;
  c.sdf_padding = 0.2f;
  c.heightfield_resolution = 32;
  c.heightfield_padding = 0.3f;
  c.localize = true;
  c.localize_window = 6;
  c.speed_limits = trackgen::SpeedLimits{1.5f, 0.5f, 3.0f, 2.5f};
  c.curvature_window = 4;
  c.samples_per_gate = 6;
  c.post_radius = 0.02f;
  c.frame_collision = true;
  c.frame_thickness = 0.01f;
  c.frame_depth = 0.03f;
  c.agent_radius = 0.04f;
  c.frame_window = 5;
  return c;
}

CourseConfig read(const json& j) { return j.get<CourseConfig>(); }

}  // namespace

TEST_CASE("CourseConfig JSON: every field round-trips, missing keys keep their defaults", "[config][course][json]") {
  const CourseConfig c = changed_config();
  const json j = c;
  CHECK(json(read(j)) == j);
  // Every field is written, and each differs from the default's value.
  const json defaults = CourseConfig{};
  REQUIRE(j.size() == defaults.size());
  for (const auto& [key, value] : j.items()) {
    INFO(key);
    CHECK(value != defaults.at(key));
  }
  CHECK(j.at("mode") == "gates");
  CHECK(j.at("seed_expansion") == "hashed");
  CHECK(j.at("collision") == "sdf");
  CHECK(j.at("speed_limits") == json{{"a_lat_max", 1.5}, {"a_accel", 0.5}, {"a_brake", 3.0}, {"v_cap", 2.5}});
  CHECK(defaults.at("checkpoint_spacing").is_null());
  CHECK(defaults.at("speed_limits").is_null());
  CHECK(json(read(json::object())) == defaults);
}

TEST_CASE("CourseConfig JSON: the dicts the Python Course takes", "[config][course][json]") {
  // The format of python/trackgen/course.py: any subset, enum names, nested
  // configs as objects, a partial speed_limits object, null for unset.
  const CourseConfig c = read(json::parse(R"({
      "mode": "track", "gen": {"num_envs": 4, "generator": "hull"}, "seed": 11,
      "seed_expansion": "hashed", "checkpoint_spacing": 0.3, "collision": "segments", "max_boxes": 2,
      "localize": true, "localize_window": null, "speed_limits": {"v_cap": 2}, "curvature_window": 3})"));
  CHECK(c.mode == CourseMode::track);
  CHECK(c.gen.num_envs == 4);
  CHECK(c.gen.generator == "hull");
  CHECK(c.gen.N_max == trackgen::TrackGenConfig{}.N_max);
  CHECK(c.seed == 11);
  CHECK(c.seed_expansion == SeedExpansion::hashed);
  CHECK(c.checkpoint_spacing == 0.3f);
  CHECK(c.collision == CollisionMethod::segments);
  CHECK(c.max_boxes == 2);
  CHECK(c.localize);
  CHECK_FALSE(c.localize_window.has_value());
  REQUIRE(c.speed_limits.has_value());
  CHECK(c.speed_limits->v_cap == 2.0f);
  CHECK(c.speed_limits->a_lat_max == trackgen::SpeedLimits{}.a_lat_max);
  CHECK(c.curvature_window == 3);
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("CourseConfig JSON: errors name the key, nested ones under it; nothing half-read", "[config][course][json]") {
  const auto fails = [](const char* text) {
    CourseConfig c;
    c.seed = 99;
    const std::string e = config_error([&] { trackgen::from_json(json::parse(text), c); });
    CHECK(c.seed == 99);  // left unchanged
    return e;
  };
  CHECK(fails(R"({"no_such": 1})") == "CourseConfig: unknown key \"no_such\"");
  CHECK(fails(R"({"seed": 1, "mode": "boxes"})") ==
        "CourseConfig.mode: \"boxes\" is invalid; must be one of \"track\", \"gates\"");
  CHECK(fails(R"({"collision": "boxes"})") ==
        "CourseConfig.collision: \"boxes\" is invalid; must be one of \"segments\", \"sdf\"");
  CHECK(fails(R"({"max_boxes": 1.5})") ==
        "CourseConfig.max_boxes: 1.5 has the wrong type; expected an integer in the int32 range");
  CHECK(fails(R"({"gen": 3})") ==
        "CourseConfig.gen: 3 has the wrong type; expected a JSON object of TrackGenConfig fields");
  CHECK(fails(R"({"gen": {"num_envz": 3}})") == "CourseConfig.gen: TrackGenConfig: unknown key \"num_envz\"");
  CHECK(fails(R"({"speed_limits": {"v_max": 3}})") == "CourseConfig.speed_limits: SpeedLimits: unknown key \"v_max\"");
  CHECK(fails(R"({"checkpoint_spacing": "far"})") ==
        "CourseConfig.checkpoint_spacing: \"far\" has the wrong type; expected a number or null");
  CHECK(fails("[1]") == "CourseConfig: expected a JSON object of fields, got array");
}

TEST_CASE("CourseConfig::validate: the field, the value as core prints it, the rule", "[config][course]") {
  CourseConfig c;
  c.checkpoint_spacing = 0.3f;
  CHECK_NOTHROW(c.validate());
  const auto fails = [&](auto edit) {
    CourseConfig d = c;
    edit(d);
    return config_error([&] { d.validate(); });
  };
  CHECK(fails([](CourseConfig& d) { d.checkpoint_spacing.reset(); }) ==
        "CourseConfig.checkpoint_spacing: null is invalid; must be set in track mode (it is required)");
  CHECK(fails([](CourseConfig& d) { d.checkpoint_spacing = -0.1f; }) ==
        "CourseConfig.checkpoint_spacing: -0.1 is invalid; must be > 0");
  CHECK(fails([](CourseConfig& d) { d.sdf_padding = std::numeric_limits<float>::quiet_NaN(); }) ==
        "CourseConfig.sdf_padding: nan is invalid; must be finite");
  CHECK(fails([](CourseConfig& d) { d.heightfield_padding = 0.1f; }) ==
        "CourseConfig.heightfield_padding: 0.1 applies only with a height field (heightfield_resolution set)");
  CHECK(fails([](CourseConfig& d) { d.max_checkpoints = 2; }) ==
        "CourseConfig.max_checkpoints: 2 is invalid; must be >= 3");
  CHECK(fails([](CourseConfig& d) { d.speed_limits = trackgen::SpeedLimits{}, d.speed_limits->v_cap = 0.0f; }) ==
        "CourseConfig.speed_limits: SpeedLimits.v_cap: 0 is invalid; must be > 0");
  CHECK(fails([](CourseConfig& d) { d.post_radius = 0.5f; }) ==
        "CourseConfig.post_radius: 0.5 applies only in gates mode");
  CHECK(fails([](CourseConfig& d) { d.mode = static_cast<CourseMode>(7); }) ==
        "CourseConfig.mode: (enum value 7) is invalid; must be one of \"track\", \"gates\"");
  CHECK(fails([](CourseConfig& d) { d.gen.num_envs = 0; }).rfind("TrackGenConfig.num_envs: 0 is invalid", 0) == 0);
  CourseConfig g;
  g.mode = CourseMode::gates;
  CHECK(config_error([&] { g.validate(); }) ==
        "CourseConfig.gate_gen.gate_width: 0 is invalid; must be > 0 in gates mode");
  g.gate_gen.gate_width = 0.1f;
  CHECK_NOTHROW(g.validate());
  g.checkpoint_spacing = 0.3f;
  CHECK(config_error([&] { g.validate(); }) ==
        "CourseConfig.checkpoint_spacing: 0.3 applies only in track mode (the gates are the checkpoints)");
}

TEST_CASE("load_course_config: a file in the JSON format; errors name the path", "[config][course][json]") {
  const std::string path = "trackgen-course-config-test.json";
  {
    std::ofstream f(path);
    f << json(changed_config()).dump(2);
  }
  CHECK(json(trackgen::load_course_config(path)) == json(changed_config()));
  {
    std::ofstream f(path);
    f << R"({"seed": 1, "seed": 2})";
  }
  CHECK(config_error([&] { trackgen::load_course_config(path); }).find("duplicate key \"seed\"") != std::string::npos);
  std::remove(path.c_str());
  CHECK(config_error([&] { trackgen::load_course_config(path); }) ==
        "trackgen::load_course_config: cannot open \"" + path + "\"");
}
