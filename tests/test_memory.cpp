// The memory estimate (trackgen/pipeline/memory.hpp) against what the producers
// really allocate, the limit check of their constructors, and max_envs_within.
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using trackgen::GateGenConfig;
using trackgen::TrackGenConfig;

/// The configs the estimate is checked on: each built-in generator at its
/// defaults, and variants that change what is allocated.
std::vector<TrackGenConfig> estimate_configs() {
  std::vector<TrackGenConfig> out;
  for (const char* g : {"bezier", "hull", "polar", "voronoi", "checkpoint", "repulsive"}) {
    TrackGenConfig c;
    c.generator = g;
    c.num_envs = 20;  // above the host's masked lane of 8 envs: the lane is counted too
    if (c.generator == "repulsive") c.num_envs = 3;
    out.push_back(c);
  }
  TrackGenConfig c;
  c.num_envs = 5;
  c.style_sampling = true;
  c.relax_accel = trackgen::RelaxAccel::none;
  c.relax_sep_cache_slots = 0;
  c.N_max = 500;
  c.num_points = 300;
  c.z_profile = trackgen::ZProfile::uniform;
  c.z_max = 0.2f;
  out.push_back(c);
  c = TrackGenConfig{};
  c.generator = "checkpoint";
  c.num_envs = 4;
  c.checkpoint_best_of_k = 1;
  c.checkpoint_clip_fallback = true;
  out.push_back(c);
  return out;
}


/// Sets TRACKGEN_MEMORY_LIMIT_MB for the scope of the object.
struct MemoryLimit {
  explicit MemoryLimit(const char* mb) { setenv("TRACKGEN_MEMORY_LIMIT_MB", mb, 1); }
  ~MemoryLimit() { unsetenv("TRACKGEN_MEMORY_LIMIT_MB"); }
};

}  // namespace

TEMPLATE_TEST_CASE("memory: the estimate is what a TrackGenerator allocates, byte for byte", "[memory]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const auto& c : estimate_configs()) {
    INFO("generator " << c.generator << ", E = " << c.num_envs << ", N_max = " << c.N_max);
    trackgen::TrackGenerator<Space> gen(c, trackgen::SeedState<Space>(c.num_envs));
    const std::size_t estimate = trackgen::estimate_memory<Space>(c), real = gen.device_bytes();
    INFO("estimate " << estimate << " B, allocated " << real << " B");
    CHECK(estimate == real);  // one allocation plan allocates and counts (docs/design.md#memory-estimate)
  }
}

TEMPLATE_TEST_CASE("memory: the estimate is what a GateGenerator allocates, byte for byte", "[memory][gates]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* g : {"bezier", "hull", "polar", "voronoi", "checkpoint"}) {
    GateGenConfig c;
    c.generator = g;
    c.num_envs = 12;
    INFO("gate generator " << g);
    trackgen::GateGenerator<Space> gen(c, trackgen::SeedState<Space>(c.num_envs));
    const std::size_t estimate = trackgen::estimate_gate_memory<Space>(c), real = gen.device_bytes();
    INFO("estimate " << estimate << " B, allocated " << real << " B");
    CHECK(estimate == real);  // one allocation plan allocates and counts (docs/design.md#memory-estimate)
  }
}

TEMPLATE_TEST_CASE("memory: a batch over the limit is refused before allocating, naming the fields", "[memory]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig c;
  c.num_envs = 4096;  // about 40 MiB at the defaults
  const MemoryLimit limit("8");
  CHECK(trackgen::memory_limit_bytes() == 8u << 20);
  const trackgen::SeedState<Space> seeds(c.num_envs);
  try {
    trackgen::TrackGenerator<Space> gen(c, seeds);
    FAIL("no exception");
  } catch (const trackgen::ConfigError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::StartsWith("trackgen::TrackGenerator: the batch needs an estimated "));
    CHECK_THAT(msg, Catch::Contains("num_envs = 4096") && Catch::Contains("N_max = 384") &&
                        Catch::Contains("above the memory limit of 8.0 MiB (TRACKGEN_MEMORY_LIMIT_MB)") &&
                        Catch::Contains("envs of this config fit"));
  }
  GateGenConfig g;
  g.num_envs = 1 << 20;
  g.max_gates = 64;
  CHECK_THROWS_WITH(
      trackgen::GateGenerator<Space>(g, trackgen::SeedState<Space>(g.num_envs)),
      Catch::StartsWith("trackgen::GateGenerator: the batch needs an estimated ") && Catch::Contains("max_gates = 64"));
}

TEMPLATE_TEST_CASE("memory: max_envs_within is the largest batch under the limit", "[memory]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig c;
  const std::size_t limit = 64u << 20;
  const int n = trackgen::max_envs_within<Space>(c, limit);
  REQUIRE(n > 1);
  c.num_envs = n;
  CHECK(trackgen::estimate_memory<Space>(c) <= limit);
  c.num_envs = n + 1;
  CHECK(trackgen::estimate_memory<Space>(c) > limit);
  CHECK(trackgen::max_envs_within<Space>(c, 16) == 0);  // not even one env in 16 bytes
  GateGenConfig g;
  const int gn = trackgen::max_gate_envs_within<Space>(g, limit);
  g.num_envs = gn;
  CHECK(trackgen::estimate_gate_memory<Space>(g) <= limit);
  g.num_envs = gn + 1;
  CHECK((gn == 1 << 20 || trackgen::estimate_gate_memory<Space>(g) > limit));
  // The default limit: a positive fraction of the machine.
  CHECK(trackgen::memory_limit_bytes() > 0);
}
