// Every numeric config field at the ends of its allowed range, through the
// producers (docs/design.md#buffers): refused by validate() with a
// ConfigError naming the field, or generated inside the buffers allocated for
// it. Run under the debug preset's AddressSanitizer (.ci/run's sanitizer step
// takes the [edges] tag), an access outside an allocation fails the case.
#include "test_pipeline_support.hpp"

#include <trackgen/core/config_schema.hpp>
#include <trackgen/generators/gate_source.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace tt = trackgen::test;
using nlohmann::json;

/// The values at the edges of a schema field (core/include/trackgen/core/config_schema.hpp):
/// each bound (the nearest float inside an exclusive one), and on an
/// unbounded side of a number the largest finite float of that sign. A flag
/// tells whether the value is a bound validate() must accept.
std::vector<std::pair<json, bool>> edge_values(const json& f) {
  const std::string type = f.at("type");
  const bool integer = type == "integer" || type == "integer_list";
  if (!integer && type != "number" && type != "range") return {};
  std::vector<std::pair<double, bool>> v;
  const double big = std::numeric_limits<float>::max();
  if (f.contains("minimum")) {
    const float m = f.at("minimum").get<float>();
    v.emplace_back(f.value("exclusive_minimum", false) ? std::nextafter(m, std::numeric_limits<float>::infinity()) : m,
                   true);
  } else if (!integer) {
    v.emplace_back(-big, false);
  }
  if (f.contains("maximum")) {
    const float m = f.at("maximum").get<float>();
    v.emplace_back(f.value("exclusive_maximum", false) ? std::nextafter(m, -std::numeric_limits<float>::infinity()) : m,
                   true);
  } else if (!integer) {
    v.emplace_back(big, false);
  }
  std::vector<std::pair<json, bool>> out;
  for (const auto& [x, bound] : v) {
    json j = integer ? json(static_cast<long long>(x)) : json(x);
    if (type == "integer_list") j = json::array({j});
    if (type == "range") j = json::array({j, j});
    out.emplace_back(j, bound);
  }
  return out;
}

/// Pairs of fields ordered by a rule (lower <= upper): setting one to an edge
/// moves the other as far as the rule needs.
const std::pair<const char*, const char*> ordered_fields[] = {
    {"min_num_points", "max_num_points"},
    {"voronoi_control_points", "voronoi_num_sites"},
    {"repulsive_grow_mult_min", "repulsive_grow_mult_max"},
    {"repulsive_obstacle_count_min", "repulsive_obstacle_count_max"},
    {"repulsive_obstacle_radius_min_frac", "repulsive_obstacle_radius_max_frac"},
    {"z_min", "z_max"},
    {"min_gates", "max_gates"},
};

/// Whether a refusal's message `what` names field `name`, or a field a rule
/// moved along with it (with_edge).
bool names_field(const std::string& what, const std::string& name) {
  if (what.find(name) != std::string::npos) return true;
  for (const auto& [lo, hi] : ordered_fields) {
    if ((name == lo && what.find(hi) != std::string::npos) || (name == hi && what.find(lo) != std::string::npos)) {
      return true;
    }
  }
  return name == "num_points" && what.find("repulsive_stages") != std::string::npos;
}

/// `base` with field `name` set to `value`, and the fields a rule ties to it
/// moved along.
json with_edge(json base, const std::string& name, const json& value) {
  base[name] = value;
  for (const auto& [lo, hi] : ordered_fields) {
    if (name == lo && base[hi] < value) base[hi] = value;
    if (name == hi && base[lo] > value) base[lo] = value;
  }
  if (name == "num_points" && base.contains("repulsive_stages")) base["repulsive_stages"] = json::array({value});
  if (name == "repulsive_stages") base["num_points"] = value[0];
  return base;
}

/// The generators a TrackGenConfig field is read by (every one for the
/// pipeline's fields).
std::vector<std::string> generators_of(const std::string& field) {
  auto starts = [&](const char* p) { return field.rfind(p, 0) == 0; };
  if (starts("checkpoint_")) return {"checkpoint"};
  if (starts("polar_")) return {"polar"};
  if (starts("voronoi_")) return {"voronoi"};
  if (starts("repulsive_")) return {"repulsive"};
  if (field == "hull_displacement") return {"hull"};
  for (const char* f :
       {"min_num_points", "max_num_points", "num_points_per_segment", "min_point_distance", "min_angle", "rad", "edgy",
        "handle_clamp_frac", "style_sampling", "rad_range", "scale_range", "handle_clamp_frac_range"}) {
    if (field == f) return {"bezier", "hull"};
  }
  return trackgen::available_generators<Kokkos::DefaultExecutionSpace>();
}

/// A config of 2 envs for `generator`, cheap where the generator is slow
/// (repulsive: 64 points, one stage, a growth of 0.1% in one step and one
/// settling iteration, where its O(n^2) iterations at the largest stage
/// would take hours).
json cheap_base(const std::string& generator) {
  trackgen::TrackGenConfig c;
  c.generator = generator;
  c.num_envs = 2;
  if (generator == "repulsive") {
    c.num_points = 64;
    c.repulsive_stages = {64};
    c.repulsive_grow_mult_min = 1.0f;
    c.repulsive_grow_mult_max = 1.001f;
    c.repulsive_ratchet_rate = 1.0f;
    c.repulsive_settle_iters = 1;
  }
  return json(c);
}

/// Whether the edge `name` = `value` with `generator` is the repulsive
/// generator at its largest stage (16,384 points): O(n^2) per iteration, a
/// minute per env optimized and far more under the sanitizers, so it runs
/// only in the hidden case below.
bool repulsive_at_largest_stage(const std::string& name, const json& value, const std::string& generator) {
  if (generator != "repulsive") return false;
  if (name == "num_points") return static_cast<double>(value) > 4096.0;
  return name == "repulsive_stages" && static_cast<double>(value[0]) > 4096.0;
}

/// Runs a TrackGenerator of `cfg` (its constructor runs the pipeline once)
/// and checks the bead counts against the stride.
template <class Space>
void run_track_edge(const trackgen::TrackGenConfig& cfg) {
  trackgen::SeedState<Space> seeds(cfg.num_envs, 0);
  trackgen::TrackGenerator<Space> tg(cfg, seeds);
  const auto h = tt::HostTrack::from(tg.track());
  for (int e = 0; e < cfg.num_envs; ++e) CHECK(h.count[e] <= cfg.N_max);
}

/// The config of edge `name` = `value` for `generator` (with_edge over
/// cheap_base); an iteration count at a bound above 1,000 runs on chains of a
/// few beads (the same buffers, a fraction of the time), and num_points above
/// 4,096 on one env (the generators' crossing count is O(N^2)).
json track_edge_json(const std::string& name, const json& value, const std::string& generator) {
  json j = with_edge(cheap_base(generator), name, value);
  for (const char* work : {"relax_iters", "relax_smooth_passes", "relax_smooth_spacing_iters"}) {
    if (name == work && static_cast<double>(value) > 1000.0) j["spacing"] = 1.0;
  }
  if (name == "num_points" && static_cast<double>(value) > 4096.0) j["num_envs"] = 1;
  return j;
}

}  // namespace

// Every numeric field of TrackGenConfig alone at each end of its allowed
// range (config_schema(): the bounds validate() enforces; the largest float
// of either sign on an unbounded side), with every generator that reads it:
// either validate() refuses the config with a ConfigError naming the field
// (a bound of the field alone may still break a rule over several fields,
// such as the smallest half_width, whose default spacing rounds to 0), or the
// TrackGenerator builds and runs inside its buffers.
TEMPLATE_TEST_CASE("TrackGenerator: every config field at the ends of its range", "[pipeline][edges]",
                   TRACKGEN_TEST_SPACES) {
  const auto generators = trackgen::available_generators<TestType>();
  const json schema = trackgen::config_schema(generators);
  int runs = 0, refused_bounds = 0;
  for (const json& f : schema.at("fields")) {
    const std::string name = f.at("name");
    if (name == "num_envs") continue;  // its end is a memory bound (tests/test_memory.cpp)
    for (const auto& [value, bound] : edge_values(f)) {
      for (const std::string& gen : generators_of(name)) {
        if (repulsive_at_largest_stage(name, value, gen)) continue;
        INFO(name << " = " << value.dump() << ", generator " << gen);
        trackgen::TrackGenConfig cfg;
        try {
          from_json(track_edge_json(name, value, gen), cfg);
          cfg.validate(generators);
        } catch (const trackgen::ConfigError& e) {
          INFO(e.what());
          CHECK(names_field(e.what(), name));
          refused_bounds += bound ? 1 : 0;
          continue;
        }
        run_track_edge<TestType>(cfg);
        ++runs;
      }
    }
  }
  CHECK(runs > 400);
  CHECK(refused_bounds <= 6);  // the smallest half_width, for each generator
}

// The repulsive generator at its largest stage, num_points = 16384 (left out
// above for its time: run it with `trackgen_tests "[.slow]"`).
TEMPLATE_TEST_CASE("TrackGenerator: the repulsive generator at its largest stage", "[.slow][pipeline]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = track_edge_json("num_points", 16384, "repulsive").get<trackgen::TrackGenConfig>();
  cfg.validate(trackgen::available_generators<TestType>());
  run_track_edge<TestType>(cfg);
}

// The same for every numeric field of GateGenConfig, with every gate
// generator: refused with a ConfigError naming a field, or built and
// generated inside the buffers. A course longer than the default max_gates
// runs with max_gates at its bound.
TEMPLATE_TEST_CASE("GateGenerator: every config field at the ends of its range", "[pipeline][gates][edges]",
                   TRACKGEN_TEST_SPACES) {
  const auto generators = trackgen::available_gate_generators<TestType>();
  const json schema = trackgen::gate_config_schema(generators);
  int runs = 0;
  for (const json& f : schema.at("fields")) {
    const std::string name = f.at("name");
    if (name == "num_envs") continue;
    for (const auto& [value, bound] : edge_values(f)) {
      for (const std::string& gen : generators) {
        trackgen::GateGenConfig base;
        base.generator = gen;
        base.num_envs = 2;
        json j = with_edge(json(base), name, value);
        INFO(name << " = " << value.dump() << ", gate generator " << gen);
        trackgen::GateGenConfig cfg;
        try {
          cfg = j.get<trackgen::GateGenConfig>();
          cfg.validate(generators);
        } catch (const trackgen::ConfigError& e) {
          INFO(e.what());
          CHECK_FALSE(bound);
          CHECK(names_field(e.what(), name));
          continue;
        }
        auto run = [&](const trackgen::GateGenConfig& c) {
          trackgen::SeedState<TestType> seeds(c.num_envs, 0);
          trackgen::GateGenerator<TestType> gg(c, seeds);
          const auto count = tt::to_vector(gg.generate().count);
          for (const int k : count) CHECK(k <= c.max_gates);
        };
        try {
          run(cfg);
        } catch (const trackgen::ConfigError& e) {  // the generator writes more gates, or fewer, than the course holds
          INFO(e.what());
          REQUIRE(std::string(e.what()).find("_gates") != std::string::npos);
          cfg.min_gates = 2;
          cfg.max_gates = 4096;
          run(cfg);
        }
        ++runs;
      }
    }
  }
  CHECK(runs > 50);
}
