// GateGenConfig (validation naming the field, JSON round trip), the gate
// generator registry, and the GateGenerator's construction-time checks.
#include "gate_support.hpp"

#include <trackgen/core/errors.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

/// The ConfigError message of f(), or "" when it does not throw.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

/// A source writing the corners of a square of side 0.5, in CCW order.
template <class Space>
class SquareGates final : public GateSource<Space> {
 public:
  using typename GateSource<Space>::IntView;
  using typename GateSource<Space>::Vec2View;
  void generate(const LaunchContext<Space>& ctx, const IntView&, const Vec2View& anchors,
                const IntView& count) override {
    ctx.for_each(
        "TrackGen::test::square", count.extent(0), KOKKOS_LAMBDA(const std::size_t e) {
          anchors(e * 4 + 0) = Vec2f{0.0f, 0.0f};
          anchors(e * 4 + 1) = Vec2f{0.5f, 0.0f};
          anchors(e * 4 + 2) = Vec2f{0.5f, 0.5f};
          anchors(e * 4 + 3) = Vec2f{0.0f, 0.5f};
          count(e) = 4;
        });
  }
};

}  // namespace

TEST_CASE("GateGenConfig: defaults, and every invalid field named in the error", "[gates][config]") {
  const GateGenConfig d;
  CHECK(d.generator == "bezier");
  CHECK(d.min_gates == 4);
  CHECK(d.max_gates == 32);
  CHECK(d.gate_radius == 0.025f);
  CHECK(d.gate_solve_iters == 8);
  CHECK(d.gate_width == 0.0f);
  CHECK(d.gate_ordering == GateOrdering::ccw);
  CHECK(d.gate_align == GateAlign::yaw_only);
  CHECK(d.voronoi_control_points == 18);
  CHECK_NOTHROW(d.validate({"bezier"}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::pair<std::string, std::function<void(GateGenConfig&)>>> bad{
      {"generator", [](GateGenConfig& c) { c.generator = "nope"; }},
      {"num_envs", [](GateGenConfig& c) { c.num_envs = 0; }},
      {"min_gates", [](GateGenConfig& c) { c.min_gates = 1; }},
      {"max_gates", [](GateGenConfig& c) { c.max_gates = 3; }},
      {"gate_radius", [](GateGenConfig& c) { c.gate_radius = -0.1f; }},
      {"gate_radius", [nan](GateGenConfig& c) { c.gate_radius = nan; }},
      {"gate_solve_iters", [](GateGenConfig& c) { c.gate_solve_iters = -1; }},
      {"gate_width", [](GateGenConfig& c) { c.gate_width = -1.0f; }},
      {"gate_ordering", [](GateGenConfig& c) { c.gate_ordering = static_cast<GateOrdering>(7); }},
      {"gate_align", [](GateGenConfig& c) { c.gate_align = static_cast<GateAlign>(7); }},
      {"min_num_points", [](GateGenConfig& c) { c.min_num_points = 1; }},
      {"max_num_points", [](GateGenConfig& c) { c.max_num_points = 8; }},
      {"min_point_distance", [](GateGenConfig& c) { c.min_point_distance = 0.0f; }},
      {"min_point_distance", [](GateGenConfig& c) { c.min_point_distance = 0.6f; }},
      {"scale", [](GateGenConfig& c) { c.scale = 0.0f; }},
      {"num_points_per_segment", [](GateGenConfig& c) { c.num_points_per_segment = 1; }},
      {"polar_num_knots", [](GateGenConfig& c) { c.polar_num_knots = 0; }},
      {"polar_radial_jitter", [](GateGenConfig& c) { c.polar_radial_jitter = -0.1f; }},
      {"polar_angular_jitter", [](GateGenConfig& c) { c.polar_angular_jitter = -0.1f; }},
      {"voronoi_control_points", [](GateGenConfig& c) { c.voronoi_control_points = 2; }},
      {"voronoi_num_sites", [](GateGenConfig& c) { c.voronoi_num_sites = 10; }},
      {"voronoi_site_layout", [](GateGenConfig& c) { c.voronoi_site_layout = static_cast<VoronoiLayout>(9); }},
      {"voronoi_radial_variation", [](GateGenConfig& c) { c.voronoi_radial_variation = -1.0f; }},
      {"voronoi_angular_jitter", [](GateGenConfig& c) { c.voronoi_angular_jitter = -1.0f; }},
      {"checkpoint_count", [](GateGenConfig& c) { c.checkpoint_count = 2; }},
      {"checkpoint_radius_min_frac", [](GateGenConfig& c) { c.checkpoint_radius_min_frac = 1.0f; }},
      {"checkpoint_angle_jitter", [](GateGenConfig& c) { c.checkpoint_angle_jitter = 1.0f; }},
      {"z_profile", [](GateGenConfig& c) { c.z_profile = static_cast<ZProfile>(9); }},
      {"z_max", [](GateGenConfig& c) { c.z_max = -1.0f; }},
      {"z_max_step", [](GateGenConfig& c) { c.z_max_step = -1.0f; }},
      {"z_noise_amplitude", [](GateGenConfig& c) { c.z_noise_amplitude = -1.0f; }},
      {"z_noise_harmonics", [](GateGenConfig& c) { c.z_noise_harmonics = 0; }},
      {"z_valid_grade", [](GateGenConfig& c) { c.z_valid_grade = -1.0f; }},
  };
  for (const auto& [field, mutate] : bad) {
    INFO("field " << field);
    GateGenConfig c;
    mutate(c);
    const std::string msg = error_of([&] { c.validate({"bezier", "polar"}); });
    CHECK(msg.find("GateGenConfig." + field + ":") != std::string::npos);
  }
}

TEST_CASE("GateGenConfig: JSON round trip; unknown keys and wrong types are named", "[gates][config]") {
  GateGenConfig c;
  c.generator = "voronoi";
  c.num_envs = 7;
  c.gate_width = 0.1f;
  c.gate_ordering = GateOrdering::raw;
  c.gate_align = GateAlign::full_tangent;
  c.z_profile = ZProfile::noise;
  c.gate_radius = 0.03f;
  const nlohmann::json j = c;
  CHECK(j.at("gate_ordering") == "raw");
  CHECK(j.at("gate_width") == 0.1);
  const auto back = j.get<GateGenConfig>();
  CHECK(nlohmann::json(back) == j);
  CHECK(back.gate_radius == 0.03f);
  CHECK(error_of([] {
          nlohmann::json{{"gate_widht", 0.1}}.get<GateGenConfig>();
        }).find("gate_widht") != std::string::npos);
  CHECK(error_of([] {
          nlohmann::json{{"max_gates", "many"}}.get<GateGenConfig>();
        }).find("GateGenConfig.max_gates") != std::string::npos);
  CHECK(error_of([] {
          nlohmann::json{{"gate_align", "sideways"}}.get<GateGenConfig>();
        }).find("GateGenConfig.gate_align") != std::string::npos);
  CHECK(error_of([] { load_gate_config("/nonexistent/gates.json"); }).find("load_gate_config") != std::string::npos);
}

TEMPLATE_TEST_CASE("GateGenerator: rejects what its gate generator cannot do, before any work", "[gates][config]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto make = [](GateGenConfig c, int seeds) {
    return error_of([&] { GateGenerator<Space> g(c, SeedState<Space>(seeds, 0)); });
  };
  auto c = tt::gate_config("bezier", 4);
  CHECK(make(c, 4).empty());
  CHECK(make(c, 5).find("seeds.num_envs() = 5") != std::string::npos);
  c.gate_ordering = GateOrdering::raw;
  CHECK(make(c, 4).find("gate_ordering = \"raw\"") != std::string::npos);
  c = tt::gate_config("polar", 4);
  c.gate_ordering = GateOrdering::random_pairs;
  CHECK(make(c, 4).find("gate_ordering = \"random_pairs\"") != std::string::npos);
  c = tt::gate_config("voronoi", 4);
  c.max_gates = 16;
  CHECK(make(c, 4).find("max_gates = 16") != std::string::npos);
  c = tt::gate_config("bezier", 4);
  c.min_gates = 10;
  CHECK(make(c, 4).find("min_gates = 10") != std::string::npos);
  c.generator = "repulsive";
  CHECK(make(c, 4).find("GateGenConfig.generator") != std::string::npos);
}

TEMPLATE_TEST_CASE("Gate registry: built-ins, duplicates rejected, a user source selected by name", "[gates][registry]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const auto& name : builtin_gate_generator_names()) CHECK_NOTHROW(get_gate_generator<Space>(name));
  CHECK_THROWS_AS(get_gate_generator<Space>("repulsive"), ConfigError);
  CHECK_THROWS_AS(register_gate_generator(get_gate_generator<Space>("polar")), ConfigError);
  GateGeneratorSpec<Space> incomplete;
  incomplete.name = "test_incomplete";
  incomplete.make = get_gate_generator<Space>("polar").make;
  CHECK_THROWS_AS(register_gate_generator(incomplete), ConfigError);

  const std::string name = "test_square_gates";
  const auto names = available_gate_generators<Space>();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    GateGeneratorSpec<Space> spec;
    spec.name = name;
    spec.make = [](const Space&, const GateGenConfig&) -> std::unique_ptr<GateSource<Space>> {
      return std::make_unique<SquareGates<Space>>();
    };
    spec.max_gates = [](const GateGenConfig&) { return 4; };
    spec.min_gates = [](const GateGenConfig&) { return 4; };
    spec.orderings = {GateOrdering::raw};
    register_gate_generator(spec);
  }
  auto c = tt::gate_config(name, 3);
  c.gate_ordering = GateOrdering::raw;
  const auto h = tt::gate_batch<Space>(c, 0);
  for (int e = 0; e < 3; ++e) {
    CHECK(h.count(e) == 4);
    CHECK(h.valid(e) == 1);
    CHECK(h.position(e * c.max_gates + 2).x == 0.5f);
    CHECK(h.position(e * c.max_gates + 2).y == 0.5f);
  }
}
