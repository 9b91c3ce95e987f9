// One rule per field (issue 47): a field's bounds are stated once, in its
// config's field table, and the generators resolve validated configs without
// checking the bounds again. voronoi_control_points (>= 6 for tracks, >= 3 for
// gate courses) and min_num_points (>= 2): the value below each bound is
// refused naming the field, and at the bound the producer builds and
// generates, the generator's own work included.
#include "config_support.hpp"
#include "gate_support.hpp"
#include "support.hpp"

#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <string>

using namespace trackgen;
namespace tt = trackgen::test;
using tt::config::config_error;

namespace {

/// A small track batch of `generator`.
TrackGenConfig small_track(const std::string& generator) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = 6;
  return c;
}

/// Generates `c` on Space; the number of envs whose count is in [1, N_max].
template <class Space>
int generated_envs(const TrackGenConfig& c) {
  TrackGenerator<Space> g(c, SeedState<Space>(c.num_envs, 3));
  const auto count = tt::to_vector(g.generate().count);
  int n = 0;
  for (const int k : count) n += k >= 1 && k <= c.N_max ? 1 : 0;
  return n;
}

}  // namespace

TEMPLATE_TEST_CASE("voronoi_control_points: 6 for tracks, 3 for gates, each stated once", "[config][fields][voronoi]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig t = small_track("voronoi");
  t.voronoi_control_points = 5;
  CHECK(config_error([&] { t.validate(); }) ==
        "TrackGenConfig.voronoi_control_points: 5 is invalid; must be in [6, 4096]");
  CHECK_THROWS_WITH(TrackGenerator<Space>(t, SeedState<Space>(t.num_envs, 0)),
                    Catch::Contains("TrackGenConfig.voronoi_control_points"));
  t.voronoi_control_points = 6;
  CHECK_NOTHROW(t.validate());
  CHECK(generated_envs<Space>(t) == t.num_envs);

  GateGenConfig g = tt::gate_config("voronoi", 4);
  g.voronoi_control_points = 2;
  CHECK(config_error([&] { g.validate(); }) ==
        "GateGenConfig.voronoi_control_points: 2 is invalid; must be in [3, 4096]");
  g.voronoi_control_points = 3;  // below the track bound: the gate source takes it
  g.min_gates = 3;
  CHECK_NOTHROW(g.validate());
  GateGenerator<Space> gates(g, SeedState<Space>(g.num_envs, 0));
  const auto count = tt::to_vector(gates.generate().count);
  for (const int k : count) CHECK(k == 3);
}

TEMPLATE_TEST_CASE("min_num_points: 2 in both configs, stated once", "[config][fields]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* generator : {"bezier", "hull"}) {
    INFO(generator);
    TrackGenConfig t = small_track(generator);
    t.min_num_points = 1;
    CHECK(config_error([&] { t.validate(); }) == "TrackGenConfig.min_num_points: 1 is invalid; must be in [2, 1024]");
    t.min_num_points = 2;
    t.max_num_points = 3;  // the fewest corners the sampler may draw
    CHECK_NOTHROW(t.validate());
    CHECK(generated_envs<Space>(t) == t.num_envs);
  }
  GateGenConfig g = tt::gate_config("bezier", 4);
  g.min_num_points = 1;
  CHECK(config_error([&] { g.validate(); }) == "GateGenConfig.min_num_points: 1 is invalid; must be in [2, 1024]");
  g.min_num_points = 2;
  g.min_gates = 2;
  CHECK_NOTHROW(g.validate());
  GateGenerator<Space> gates(g, SeedState<Space>(g.num_envs, 0));
  CHECK(gates.generate().num_envs() == 4);
}
