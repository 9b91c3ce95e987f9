// TrackGenConfig's JSON format: lossless round trips, subsets, errors naming the key, files.
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

TEST_CASE("TrackGenConfig JSON round trip is lossless", "[config][json]") {
  SECTION("defaults, optionals unset") {
    const TrackGenConfig c;
    const json j = c;
    CHECK(j.at("spacing").is_null());
    CHECK(j.at("relax_band").is_null());
    CHECK(j.at("rad_range").is_null());
    CHECK(j.at("repulsive_stages") == json::array({64, 128, 256}));
    CHECK(j.at("min_point_distance").dump() == "0.05");  // shortest form, not 0.05000000074505806
    // enum-like settings are written by name
    CHECK(j.at("relax_accel") == "chebyshev");
    CHECK(j.at("relax_solver") == "xpbd");
    CHECK(j.at("output_mode") == "constant_spacing");
    CHECK(j.at("voronoi_site_layout") == "void_ring");
    CHECK(j.at("z_profile") == "flat");
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
    c.voronoi_site_layout = VoronoiLayout::mixed;
    c.repulsive_stages = {32, 96, 512};
    c.repulsive_deactivate_obstacles = false;
    c.relax_accel = RelaxAccel::none;
    c.z_profile = ZProfile::noise;
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
    CHECK(r.voronoi_site_layout == VoronoiLayout::mixed);
    CHECK(r.repulsive_stages == std::vector<int>{32, 96, 512});
    CHECK_FALSE(r.repulsive_deactivate_obstacles);
    CHECK(r.relax_accel == RelaxAccel::none);
    CHECK(r.z_profile == ZProfile::noise);
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
      {R"({"repulsive_stages": [64, 128.5]})",
       "repulsive_stages: [64,128.5] has the wrong type; expected an array of integers"},
      {R"({"repulsive_stages": 64})", "repulsive_stages: 64 has the wrong type; expected an array of integers"},
      {R"({"relax_accel": 1})", "relax_accel: 1 has the wrong type; expected a string, one of \"none\", \"chebyshev\""},
      {R"({"relax_accel": "fast"})", "relax_accel: \"fast\" is invalid; must be one of \"none\", \"chebyshev\""},
      {R"({"z_profile": "sine"})",
       "z_profile: \"sine\" is invalid; must be one of \"flat\", \"uniform\", \"random_walk\", \"noise\""},
      {R"({"output_mode": "fixed_count"})",
       "output_mode: \"fixed_count\" is invalid; must be one of \"constant_spacing\""},
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

  // A repeated key is an error naming it, at any depth; plain parsing would let the last one win.
  const std::string twice = write("twice.json", R"({"num_envs": 4, "half_width": 0.1, "num_envs": 8})");
  CHECK_THAT(config_error([&] { trackgen::load_config(twice); }),
             Catch::Contains(twice) && Catch::Contains("duplicate key \"num_envs\""));
  const std::string nested_twice = write("nested_twice.json", R"({"rad_range": [0.1, 0.2], "x": {"a": 1, "a": 2}})");
  CHECK_THAT(config_error([&] { trackgen::load_config(nested_twice); }), Catch::Contains("duplicate key \"a\""));

  // Deep nesting under a known key: rejected while parsing, with a short message.
  const std::string deep =
      write("deep.json", "{\"z_profile\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  const std::string deep_msg = config_error([&] { trackgen::load_config(deep); });
  CHECK_THAT(deep_msg, Catch::Contains("nested deeper than 64 levels"));
  CHECK(deep_msg.size() < 400);

  fs::remove_all(dir);
}

TEST_CASE("parse_config_json reads text as load_config reads a file", "[config][json]") {
  CHECK(trackgen::parse_config_json(R"({"num_envs": 4, "rad_range": [0.1, 0.2]})", "body")["num_envs"] == 4);
  CHECK_THAT(config_error([] { trackgen::parse_config_json(R"({"num_envs": 4, "num_envs": 8})", "body"); }),
             Catch::StartsWith("body: duplicate key \"num_envs\""));
  // A number beyond a double is a parse error with a message, not a stray exception type.
  CHECK_THAT(config_error([] { trackgen::parse_config_json(R"({"half_width": 1e400})", "body"); }),
             Catch::StartsWith("body: not valid JSON") && Catch::Contains("1e400"));
  CHECK_THAT(config_error([] { trackgen::parse_config_json("{\"a\": ", "body"); }),
             Catch::StartsWith("body: not valid JSON"));
  CHECK_THAT(config_error([] { trackgen::parse_config_json(std::string(100, '['), "body"); }),
             Catch::Contains("nested deeper than 64 levels"));
}

TEST_CASE("config errors show at most 200 characters of a value", "[config][json]") {
  // 60 levels (within the parser's limit) of a wrong-typed value, and a long string.
  const json nested = json::parse("{\"z_profile\": " + std::string(60, '[') + std::string(60, ']') + "}");
  const std::string msg = config_error([&] { nested.get<TrackGenConfig>(); });
  CHECK_THAT(msg, Catch::StartsWith("TrackGenConfig.z_profile: [[[[") && Catch::Contains("has the wrong type"));
  CHECK(msg.size() < 400);
  const json wide = json{{"generator", json::array({std::string(10000, 'x')})}};
  const std::string wide_msg = config_error([&] { wide.get<TrackGenConfig>(); });
  CHECK_THAT(wide_msg, Catch::Contains("...") && Catch::Contains("has the wrong type"));
  CHECK(wide_msg.size() < 400);
  // An in-memory JSON value nested far deeper than any text the parser accepts.
  json deep = json::array();
  for (int i = 0; i < 100000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  json config = json::object();
  config["z_profile"] = std::move(deep);
  const std::string deep_msg = config_error([&] { config.get<TrackGenConfig>(); });
  CHECK_THAT(deep_msg, Catch::StartsWith("TrackGenConfig.z_profile: [[[["));
  CHECK(deep_msg.size() < 400);
}
