// The chained stages: determinism across backends and thread counts, repeat
// runs, buffer checks, labels.
#include "test_pipeline_support.hpp"

#include <trackgen/core/errors.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

/// A nontrivial batch: every hand-made shape plus wobbly loops of several sizes.
std::vector<tt::Loop> mixed_batch(int envs, int n) {
  std::vector<tt::Loop> loops;
  for (int e = 0; e < envs; ++e) {
    switch (e % 6) {
      case 0:
        loops.push_back(tt::pinched(n, 1.0 + 0.05 * e, 0.05));
        break;
      case 1:
        loops.push_back(tt::square(n, 0.8 + 0.01 * e));
        break;
      case 2:
        loops.push_back(tt::figure_eight(n, 1.0));
        break;
      case 3:
        loops.push_back(tt::circle(n, 0.6 + 0.02 * e, e % 4 == 3));
        break;
      default:
        loops.push_back(tt::wobbly(n, 0.9, 0.25, 3 + e % 5, 0.1 * e));
        break;
    }
  }
  return loops;
}

/// Everything a run produces: the Track and the intermediate chains.
struct RunOutput {
  tt::HostTrack track;
  std::vector<Vec2f> cs_center, relaxed;
  bool operator==(const RunOutput& o) const {
    return track.bitwise_equal(o.track) && tt::bitwise_equal(cs_center, o.cs_center) &&
           tt::bitwise_equal(relaxed, o.relaxed);
  }
};

template <class Space>
RunOutput run_batch(const trackgen::TrackGenConfig& cfg, int repeats = 1) {
  tt::StageRig<Space> rig(cfg);
  rig.load(mixed_batch(cfg.num_envs, cfg.num_points));
  for (int r = 0; r < repeats; ++r) rig.run();
  return {rig.host(), rig.cs_center(), rig.relaxed()};
}

std::vector<trackgen::TrackGenConfig> mode_configs() {
  std::vector<trackgen::TrackGenConfig> v;
  auto base = tt::stage_config(24);
  v.push_back(base);  // cached + chebyshev
  auto dense = base;
  dense.relax_sep_cache_slots = 0;
  dense.relax_sep_every = 1;
  v.push_back(dense);
  auto cadenced = base;
  cadenced.relax_sep_cache_slots = 0;
  cadenced.relax_accel = trackgen::RelaxAccel::none;
  cadenced.validity_border_check = false;
  v.push_back(cadenced);
  auto small = base;
  small.relax_sep_cache_slots = 3;  // overflowing cache
  small.relax_iters = 37;
  small.relax_cheby_start = 5;
  small.relax_band = 4;
  v.push_back(small);
  return v;
}

}  // namespace

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("pipeline: Serial and OpenMP give bitwise identical results", "[pipeline][determinism]") {
  // The suite runs with 1 and 2 OpenMP threads (TRACKGEN_TEST_THREADS), so this
  // compares Serial with both thread counts.
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  int m = 0;
  for (const auto& cfg : mode_configs()) {
    INFO("config " << m++);
    const RunOutput serial = run_batch<Kokkos::Serial>(cfg);
    const RunOutput openmp = run_batch<Kokkos::OpenMP>(cfg);
    CHECK(serial == openmp);
    // The batch is not trivial: valid and invalid envs, real relaxation work.
    int valid = 0;
    for (int v : serial.track.valid) valid += v;
    CHECK(valid > 0);
    CHECK(valid < cfg.num_envs);
    CHECK_FALSE(tt::bitwise_equal(serial.cs_center, serial.relaxed));
  }
}
#endif

TEMPLATE_TEST_CASE("pipeline: repeated runs give the identical batch", "[pipeline][determinism]",
                   TRACKGEN_TEST_SPACES) {
  const auto cfg = mode_configs()[0];
  CHECK(run_batch<TestType>(cfg, 1) == run_batch<TestType>(cfg, 3));
}

TEMPLATE_TEST_CASE("pipeline: padding only the rows a previous run left real gives the same Track",
                   "[pipeline][padding]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto cfg = mode_configs()[0];
  const std::vector<tt::Loop> first = mixed_batch(cfg.num_envs, cfg.num_points);
  const std::vector<tt::Loop> second(first.rbegin(), first.rend());  // other shapes, other counts per env
  tt::StageRig<Space> kept(cfg);
  trackgen::DView<std::int32_t, Space> padded("padded", cfg.num_envs);
  Kokkos::deep_copy(padded, cfg.N_max);
  kept.load(first);
  trackgen::run_pipeline(kept.ctx, cfg, kept.buffers, kept.seeds, kept.track, padded);
  kept.ctx.fence();
  const std::vector<int> first_count = kept.count();
  CHECK(tt::to_vector(padded) == first_count);
  kept.load(second);
  trackgen::run_pipeline(kept.ctx, cfg, kept.buffers, kept.seeds, kept.track, padded);
  kept.ctx.fence();
  tt::StageRig<Space> fresh(cfg);
  fresh.load(second);
  fresh.run();
  CHECK(kept.host().bitwise_equal(fresh.host()));
  CHECK(tt::to_vector(padded) == kept.count());
  int shorter = 0, longer = 0;  // both directions happened
  for (int e = 0; e < cfg.num_envs; ++e) {
    shorter += kept.count()[e] < first_count[e];
    longer += kept.count()[e] > first_count[e];
  }
  CHECK(shorter > 0);
  CHECK(longer > 0);
  trackgen::DView<std::int32_t, Space> wrong("wrong", cfg.num_envs + 1);
  CHECK_THROWS_WITH(trackgen::run_pipeline(kept.ctx, cfg, kept.buffers, kept.seeds, kept.track, wrong),
                    Catch::Contains("trackgen::run_pipeline") && Catch::Contains("padded has"));
  CHECK_THROWS_WITH(trackgen::inflate(kept.ctx, cfg, kept.buffers, kept.seeds, kept.track, wrong),
                    Catch::Contains("trackgen::inflate") && Catch::Contains("padded has"));
}

TEMPLATE_TEST_CASE("pipeline: stages refuse a config the buffers were not built for", "[pipeline]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(2);
  tt::StageRig<TestType> rig(cfg);
  auto other = cfg;
  other.N_max = 100;
  CHECK_THROWS_AS(trackgen::resample_constant_spacing(rig.ctx, other, rig.buffers, rig.track), trackgen::ConfigError);
  other = cfg;
  other.num_envs = 3;
  CHECK_THROWS_AS(trackgen::relax_solve(rig.ctx, other, rig.buffers, rig.track), trackgen::ConfigError);
  other = cfg;
  other.relax_sep_cache_slots = 0;
  CHECK_THROWS_AS(trackgen::relax_solve(rig.ctx, other, rig.buffers, rig.track), trackgen::ConfigError);
  other = cfg;
  other.relax_iters = 60;
  CHECK_THROWS_AS(trackgen::relax_solve(rig.ctx, other, rig.buffers, rig.track), trackgen::ConfigError);
  typename tt::StageRig<TestType>::track_type wrong(2, 100);
  CHECK_THROWS_AS(trackgen::run_pipeline(rig.ctx, cfg, rig.buffers, rig.seeds, wrong), trackgen::ConfigError);
  other = cfg;
  other.relax_enable = false;
  typename tt::StageRig<TestType>::track_type fewer(1, cfg.N_max);
  CHECK_THROWS_AS(trackgen::relax(rig.ctx, other, rig.buffers, fewer), trackgen::ConfigError);
}

TEMPLATE_TEST_CASE("pipeline: buffers are allocated per mode and labelled", "[pipeline]", TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(4);
  trackgen::PipelineBuffers<TestType> full(TestType(), cfg);
  CHECK(full.cs_center.label() == "TrackGen::pipeline::cs_center");
  CHECK(full.gen_centerline.extent(0) == 4u * 256u);
  CHECK(full.cs_center.extent(0) == 4u * 384u);
  // The solve's scratch: one unit per env on a device, per thread on a host space.
  const auto units = static_cast<std::size_t>(full.relax_units());
  CHECK(units == (trackgen::detail::is_host_space<TestType>()
                      ? static_cast<std::size_t>(Kokkos::Experimental::UniqueToken<TestType>().size())
                      : 4u));
  CHECK(full.sep_cache_idx.extent(0) == units * 384u);
  CHECK(full.sep_cache_idx.extent(1) == 16u);
  CHECK(full.relax_chain_count() == 3);  // read, write, Chebyshev previous
  CHECK(full.relax_bead_stride() == 448);   // a block before bead 0, N_max, 48 after
  CHECK(full.relax_chain_stride() == 448);  // the same: ghost beads before and after
  CHECK(full.relax_chains.extent(0) == units * 448u * 2u * 3u);
  CHECK(full.relax_sep.extent(0) == units * 448u * 3u);
  CHECK(full.cell_table() == 512);
  CHECK(full.cell_start.extent(0) == 4u * 513u);
  CHECK(full.cell_items.extent(0) == 4u * 384u);
  CHECK(full.cheby_omega.extent(0) == 42u);
  CHECK(trackgen::PipelineBuffers<TestType>::bytes_for(cfg) == full.device_bytes());
  cfg.relax_sep_every = 1;  // dense: no cache
  cfg.relax_accel = trackgen::RelaxAccel::none;
  cfg.N_max = 300;
  trackgen::PipelineBuffers<TestType> lean(TestType(), cfg);
  CHECK(lean.sep_cache_idx.extent(0) == 0u);
  CHECK(lean.relax_chain_count() == 2);
  CHECK(lean.relax_chains.extent(0) == units * 364u * 2u * 2u);
  CHECK(lean.cell_table() == 512);
  CHECK(lean.cell_start.extent(0) == 4u * 513u);
  CHECK(lean.cell_items.extent(0) == 4u * 300u);
  CHECK(trackgen::PipelineBuffers<TestType>::bytes_for(cfg) == lean.device_bytes());
  CHECK(lean.device_bytes() < full.device_bytes());
  CHECK(full.device_bytes() > 4u * 384u * 8u * 3u);
}

TEST_CASE("pipeline constants: the original system's float32 values", "[pipeline]") {
  const trackgen::TrackGenConfig cfg;
  const auto k = trackgen::pipeline_constants(cfg);
  CHECK(k.spacing == 0.06f);
  CHECK(k.target == 0.23f);
  CHECK(k.r_min == 0.115f);
  CHECK(k.cache_radius == Approx(0.345f).epsilon(1e-7));
  CHECK(k.min_thickness == 0.098f);
  CHECK(k.two_hw == 0.2f);
  CHECK(k.use_cache);
  CHECK(k.chebyshev);
  auto c2 = cfg;
  c2.relax_sep_every = 1;
  CHECK_FALSE(trackgen::pipeline_constants(c2).use_cache);
  c2 = cfg;
  c2.spacing = 0.07f;
  CHECK(trackgen::pipeline_constants(c2).spacing == 0.07f);
}
