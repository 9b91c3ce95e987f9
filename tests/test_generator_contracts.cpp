// The contracts the hull, voronoi and checkpoint generators share with every
// generator: closed finite loops, winding, repeatability, labelled kernels and
// one profiling region, a fixed launch sequence, argument checks, determinism
// across backends, registration.
#include "generator_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;
namespace td = trackgen::detail;

using namespace trackgen::test::generators;  // Batch, Harness, seed_range, make_config, ...

}  // namespace

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: closed finite loops, winding, repeatability",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  struct Case {
    const char* name;
    bool ccw;
  };
  // docs/algorithms.md: hull clockwise, voronoi and checkpoint counter-clockwise.
  for (const Case k : {Case{"hull", false}, Case{"voronoi", true}, Case{"checkpoint", true}}) {
    INFO("generator " << k.name);
    Harness<Space> h(make_config(k.name), seed_range(default_envs));
    const Batch a = h.run();
    check_closed_finite_loops(a);
    const int ccw = count_ccw(a);
    CHECK((k.ccw ? ccw : default_envs - ccw) == default_envs);
    // Repeated generate() gives the identical batch; other seeds change it and
    // going back restores it.
    const Batch b = h.run();
    CHECK(tt::bitwise_equal(a.pts, b.pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(default_envs, 1000), "s"));
    CHECK_FALSE(tt::bitwise_equal(a.pts, h.run().pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(default_envs), "s"));
    CHECK(tt::bitwise_equal(a.pts, h.run().pts));
  }
}

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: labelled kernels, one profiling region, no allocation",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : hull_voronoi_checkpoint) {
    for (int variant = 0; variant < 3; ++variant) {
      auto cfg = make_config(name);
      if (variant == 1) cfg.checkpoint_best_of_k = 1;
      if (variant == 2) cfg.checkpoint_clip_fallback = true;
      if (variant > 0 && std::string(name) != "checkpoint") continue;
      INFO("generator " << name << " variant " << variant);
      Harness<Space> h(cfg, seed_range(default_envs));
      h.run();
      record_generate(h);
      CHECK(g_allocations == 0);
      const std::string prefix = std::string("TrackGen::generators::") + name + "::";
      CHECK(g_kernels.size() >= 4);
      for (const auto& kname : g_kernels) {
        INFO("kernel " << kname);
        CHECK(kname.rfind(prefix, 0) == 0);
      }
      CHECK(g_regions == std::vector<std::string>{std::string("TrackGen::generators::") + name});
      if (std::string(name) == "checkpoint") {
        const auto has = [&](const char* k) { return std::count(g_kernels.begin(), g_kernels.end(), prefix + k) == 1; };
        CHECK(has("select") == (variant != 1));
        CHECK(has("clip") == (variant == 2));
      }
    }
  }
}

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: capturable (fixed launch sequence, recorded graph replays)",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  std::vector<trackgen::TrackGenConfig> cfgs;
  for (const char* name : hull_voronoi_checkpoint) cfgs.push_back(make_config(name));
  cfgs[0].hull_displacement = 1.5f;  // hull: both fallbacks taken by some envs
  auto k1clip = make_config("checkpoint");
  k1clip.checkpoint_best_of_k = 1;
  k1clip.checkpoint_clip_fallback = true;
  cfgs.push_back(k1clip);
  const auto seeds_a = seed_range(default_envs), seeds_b = seed_range(default_envs, 4000);
  for (const auto& cfg : cfgs) {
    INFO("generator " << cfg.generator << " K " << cfg.checkpoint_best_of_k);
    // The launch sequence does not depend on the data.
    Harness<Space> h(cfg, seeds_a);
    h.run();
    record_generate(h);
    const auto kernels_a = g_kernels;
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seeds_b, "s"));
    record_generate(h);
    CHECK(kernels_a == g_kernels);
    if constexpr (trackgen::host_accessible_v<Space>) {
      // Recorded once (nothing runs), replayed on other seeds: the eager batch.
      Harness<Space> r(cfg, seeds_a);
      trackgen::HostGraph graph;
      r.gen->generate(trackgen::LaunchContext<Space>::capture(Space(), graph), r.seeds, r.out, r.valid);
      CHECK(graph.launch_nodes() == kernels_a.size());
      Kokkos::deep_copy(r.seeds, tt::to_device<Space>(seeds_b, "s"));
      graph.replay();
      Space().fence();
      CHECK(tt::bitwise_equal(tt::to_vector(r.out), generate_batch<Space>(cfg, seeds_b).pts));
    }
  }
}

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: bad buffer sizes throw before any work",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : hull_voronoi_checkpoint) {
    INFO("generator " << name);
    Harness<Space> h(make_config(name, 4), seed_range(4));
    trackgen::DView<std::int32_t, Space> bad_seeds("bad", 3), bad_valid("bad", 5);
    trackgen::DView<Vec2f, Space> bad_out("bad", 4 * h.config.num_points - 1);
    namespace kte = Kokkos::Tools::Experimental;
    const auto saved = kte::get_callbacks();
    g_kernels.clear();
    kte::set_begin_parallel_for_callback(on_begin_kernel);
    CHECK_THROWS_AS(h.gen->generate(h.ctx, bad_seeds, h.out, h.valid), trackgen::ConfigError);
    CHECK_THROWS_AS(h.gen->generate(h.ctx, h.seeds, bad_out, h.valid), trackgen::ConfigError);
    CHECK_THROWS_AS(h.gen->generate(h.ctx, h.seeds, h.out, bad_valid), trackgen::ConfigError);
    kte::set_callbacks(saved);
    CHECK(g_kernels.empty());
  }
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("hull, voronoi, checkpoint: Serial and OpenMP give bitwise identical batches",
          "[generators][hull][voronoi][checkpoint]") {
  std::vector<trackgen::TrackGenConfig> cfgs;
  cfgs.push_back(make_config("hull", 128));
  auto stressed = make_config("hull", 128);
  stressed.hull_displacement = 0.9f;  // exercises both fallbacks
  cfgs.push_back(stressed);
  for (const trackgen::VoronoiLayout layout : all_layouts) {
    auto c = make_config("voronoi", 128);
    c.voronoi_site_layout = layout;
    cfgs.push_back(c);
  }
  cfgs.push_back(make_config("checkpoint", 128));
  auto k1clip = make_config("checkpoint", 128);
  k1clip.checkpoint_best_of_k = 1;
  k1clip.checkpoint_clip_fallback = true;
  cfgs.push_back(k1clip);
  for (const auto& cfg : cfgs) {
    INFO("generator " << cfg.generator << " layout " << setting_name(cfg.voronoi_site_layout) << " K "
                      << cfg.checkpoint_best_of_k);
    const auto seeds = seed_range(cfg.num_envs, 17);
    const Batch s = generate_batch<Kokkos::Serial>(cfg, seeds);
    const Batch o = generate_batch<Kokkos::OpenMP>(cfg, seeds);
    CHECK(tt::bitwise_equal(s.pts, o.pts));
    CHECK(s.valid == o.valid);
  }
}
#endif
