// The memory estimate (trackgen/pipeline/memory.hpp, and estimate_course_memory
// of trackgen/runtime/course.hpp) against what the producers and the Course
// really allocate, the limit check of their constructors, and max_envs_within.
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/runtime/course.hpp>

#include <cstdint>
#include <cstdlib>
#include <map>
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

/// Within 1% (the Course's tolerance, docs/design.md#memory-estimate: its
/// backends grow a few small buffers of their own).
bool within_one_percent(std::size_t estimate, std::size_t real) {
  const double e = static_cast<double>(estimate), r = static_cast<double>(real);
  return e >= 0.99 * r && e <= 1.01 * r;
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

TEST_CASE("memory: TRACKGEN_MEMORY_LIMIT_MB other than a whole number of MiB is refused, naming it", "[memory]") {
  for (const char* bad : {"lots", "0", "-5", "1.5", "12abc", "99999999999999999999"}) {
    INFO("TRACKGEN_MEMORY_LIMIT_MB=" << bad);
    const MemoryLimit limit(bad);
    CHECK_THROWS_WITH(trackgen::memory_limit_bytes(),
                      Catch::Contains(std::string("TRACKGEN_MEMORY_LIMIT_MB='") + bad + "' is not a whole number"));
  }
  const MemoryLimit limit("3");
  CHECK(trackgen::memory_limit_bytes() == 3u << 20);
}

namespace {

/// The bytes Kokkos allocates while alive (Kokkos Tools allocation callbacks;
/// the earlier callbacks are restored after): allocated minus freed.
struct AllocationMeter {
  static inline std::map<const void*, std::uint64_t> live;
  static inline std::int64_t bytes = 0;
  static inline int count = 0;  ///< allocations made
  Kokkos::Tools::Experimental::EventSet saved = Kokkos::Tools::Experimental::get_callbacks();

  AllocationMeter() {
    live.clear();
    bytes = 0;
    count = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(
        [](Kokkos::Profiling::SpaceHandle, const char*, const void* ptr, std::uint64_t size) {
          live[ptr] = size;
          bytes += static_cast<std::int64_t>(size);
          ++count;
        });
    Kokkos::Tools::Experimental::set_deallocate_data_callback(
        [](Kokkos::Profiling::SpaceHandle, const char*, const void* ptr, std::uint64_t) {
          if (const auto it = live.find(ptr); it != live.end()) {
            bytes -= static_cast<std::int64_t>(it->second);
            live.erase(it);
          }
        });
  }
  ~AllocationMeter() { Kokkos::Tools::Experimental::set_callbacks(saved); }
  AllocationMeter(const AllocationMeter&) = delete;
  AllocationMeter& operator=(const AllocationMeter&) = delete;
};

/// Course configs that switch on every helper in turn, in both modes.
std::vector<trackgen::CourseConfig> course_estimate_configs() {
  std::vector<trackgen::CourseConfig> out;
  trackgen::CourseConfig c;
  c.gen.num_envs = 20;
  c.checkpoint_spacing = 0.3f;
  out.push_back(c);
  c.collision = trackgen::CollisionMethod::segments;
  c.max_boxes = 2;
  c.localize = true;
  c.speed_limits = trackgen::SpeedLimits{};
  out.push_back(c);
  c.collision = trackgen::CollisionMethod::sdf;
  c.sdf_resolution = 64;
  c.heightfield_resolution = 16;
  c.gen.z_profile = trackgen::ZProfile::uniform;
  c.gen.z_max = 0.2f;
  c.max_checkpoints = 50;
  out.push_back(c);
  trackgen::CourseConfig g;
  g.mode = trackgen::CourseMode::gates;
  g.gate_gen.num_envs = 12;
  g.gate_gen.gate_width = 0.1f;
  out.push_back(g);
  g.post_radius = 0.02f;
  g.max_boxes = 2;
  out.push_back(g);
  g.post_radius = 0.0f;
  g.max_boxes = 1;
  g.frame_collision = true;
  g.frame_thickness = 0.01f;
  g.frame_depth = 0.01f;
  g.agent_radius = 0.02f;
  out.push_back(g);
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("memory: the estimate matches what a Course allocates", "[memory][course]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const auto& c : course_estimate_configs()) {
    INFO("mode " << (c.mode == trackgen::CourseMode::gates ? "gates" : "track") << ", collision "
                 << (c.collision ? static_cast<int>(*c.collision) : -1) << ", localize " << c.localize
                 << ", heightfield " << c.heightfield_resolution.value_or(0) << ", posts " << c.post_radius
                 << ", frames " << c.frame_collision);
    { trackgen::Course<Space> warm(c); }  // the backend's own lazily grown buffers first
    std::int64_t real = 0;
    {
      const AllocationMeter meter;
      trackgen::Course<Space> course(c);
      Kokkos::fence();
      real = AllocationMeter::bytes;
    }
    const std::size_t estimate = trackgen::estimate_course_memory<Space>(c);
    INFO("estimate " << estimate << " B, allocated " << real << " B");
    CHECK(within_one_percent(estimate, static_cast<std::size_t>(real)));
  }
}

TEMPLATE_TEST_CASE("memory: a Course over the limit is refused before allocating, saying how many envs fit",
                   "[memory][course]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  trackgen::CourseConfig c = course_estimate_configs()[2];
  c.gen.num_envs = 4096;
  const MemoryLimit limit("64");
  const int fit = trackgen::max_course_envs_within<Space>(c, 64u << 20);
  REQUIRE(fit > 0);
  REQUIRE(fit < 4096);
  int allocations = 0;
  {
    const AllocationMeter meter;
    CHECK_THROWS_WITH(trackgen::Course<Space>(c),
                      Catch::StartsWith("trackgen::Course: the Course needs an estimated ") &&
                          Catch::Contains("above the memory limit of 64.0 MiB") &&
                          Catch::Contains("at most " + std::to_string(fit) + " envs of this config fit"));
    allocations = AllocationMeter::count;
  }
  CHECK(allocations == 0);  // refused before the first allocation
  c.gen.num_envs = fit;
  CHECK(trackgen::estimate_course_memory<Space>(c) <= 64u << 20);
  c.gen.num_envs = fit + 1;
  CHECK(trackgen::estimate_course_memory<Space>(c) > 64u << 20);
}
