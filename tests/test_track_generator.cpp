// TrackGenerator end to end (docs/design.md#trackgenerator): bezier and polar batches
// through generator -> resample -> relax -> inflate.
#include "test_pipeline_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/trackgen.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

constexpr int default_envs = 64;

trackgen::TrackGenConfig gen_config(const std::string& generator, int envs = default_envs) {
  trackgen::TrackGenConfig c;
  c.generator = generator;
  c.num_envs = envs;
  return c;
}

/// One batch with seeds 0 + arange(E).
template <class Space>
tt::HostTrack generate_batch(const trackgen::TrackGenConfig& cfg, std::int32_t seed = 0) {
  trackgen::SeedState<Space> seeds(cfg.num_envs, seed);
  trackgen::TrackGenerator<Space> tg(cfg, seeds);
  return tt::HostTrack::from(tg.generate());
}

/// The thickness band of validity: SEPBAND(perimeter / count, 2 hw).
int validity_band(const tt::HostTrack& h, int e, float hw) {
  return trackgen::geom::sep_band(h.length[e] / static_cast<float>(h.count[e]), 2.0f * hw);
}

/// Kernel and region names seen through Kokkos Tools callbacks.
std::vector<std::string> g_kernels, g_regions;
void on_begin_kernel(const char* name, std::uint32_t, std::uint64_t*) { g_kernels.emplace_back(name); }
void on_push_region(const char* name) { g_regions.emplace_back(name); }

template <class Space>
void record_names(trackgen::TrackGenerator<Space>& tg) {
  namespace kte = Kokkos::Tools::Experimental;
  const auto saved = kte::get_callbacks();
  g_kernels.clear();
  g_regions.clear();
  kte::set_begin_parallel_for_callback(on_begin_kernel);
  kte::set_push_region_callback(on_push_region);
  tg.generate();
  kte::set_callbacks(saved);
}

}  // namespace

TEMPLATE_TEST_CASE("TrackGenerator: bezier and polar batches are valid tracks", "[pipeline][generator][e2e]",
                   TRACKGEN_TEST_SPACES) {
  struct Case {
    const char* generator;
    float winding;  // bezier loops are clockwise, polar counter-clockwise
  };
  for (const Case k : {Case{"bezier", -1.0f}, Case{"polar", 1.0f}}) {
    INFO("generator " << k.generator);
    const auto cfg = gen_config(k.generator);
    const auto h = generate_batch<TestType>(cfg);
    const float hw = cfg.half_width;
    int valid = 0;
    for (int e = 0; e < default_envs; ++e) {
      INFO("env " << e << " (seed " << e << ")");
      CHECK(h.count[e] > 0);
      CHECK(h.count[e] <= cfg.N_max);
      CHECK(h.truncated[e] == 0);
      CHECK(h.sep_overflow[e] >= 0);
      CHECK(h.sep_overflow[e] <= h.count[e]);
      if (!h.valid[e]) continue;
      ++valid;
      CHECK(h.winding[e] == k.winding);
      const int n = h.count[e];
      const auto c = h.center2(e);
      bool finite = true, padding_nan = true, width = true;
      for (int i = 0; i < n; ++i) {
        const std::size_t s = h.at(e, i);
        finite = finite && std::isfinite(h.center[s].x) && std::isfinite(h.center[s].y) &&
                 std::isfinite(h.outer[s].x) && std::isfinite(h.inner[s].y) && std::isfinite(h.arclen[s]);
        width = width && std::fabs(tt::dist(tt::xy(h.outer[s]), c[i]) - hw) <= 1e-4 &&
                std::fabs(tt::dist(c[i], tt::xy(h.inner[s])) - hw) <= 1e-4;
      }
      for (int i = n; i < cfg.N_max; ++i) {
        const std::size_t s = h.at(e, i);
        padding_nan = padding_nan && std::isnan(h.center[s].x) && std::isnan(h.outer[s].y) &&
                      std::isnan(h.inner[s].x) && std::isnan(h.arclen[s]);
      }
      CHECK(finite);
      CHECK(padding_nan);
      CHECK(width);
      CHECK(tt::min_nonadjacent(c.data(), n, validity_band(h, e, hw)) >= 1.96 * hw);
      CHECK(h.length[e] == Approx(tt::perimeter(c.data(), n)).epsilon(1e-5));
    }
    CHECK(valid >= 0.95 * default_envs);
  }
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("TrackGenerator: same seeds give bit-identical Tracks on Serial and OpenMP",
          "[pipeline][generator][e2e][determinism]") {
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  for (const char* g : {"bezier", "polar"}) {
    INFO("generator " << g);
    const auto cfg = gen_config(g);
    const auto serial = generate_batch<Kokkos::Serial>(cfg, 1000);
    const auto openmp = generate_batch<Kokkos::OpenMP>(cfg, 1000);
    CHECK(serial.bitwise_equal(openmp));
  }
}
#endif

TEMPLATE_TEST_CASE("TrackGenerator: repeated generate() returns the same Track, identical", "[pipeline][generator]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = gen_config("bezier", 16);
  trackgen::SeedState<TestType> seeds(16, 7);
  trackgen::TrackGenerator<TestType> tg(cfg, seeds);
  const auto& t1 = tg.generate();
  const void* center = t1.center.data();
  const void* valid = t1.valid.data();
  const auto h1 = tt::HostTrack::from(t1);
  const auto& t2 = tg.generate();
  const auto& t3 = tg.generate(16);
  CHECK(&t1 == &t2);
  CHECK(&t1 == &t3);
  CHECK(&t1 == &tg.track());
  CHECK(t3.center.data() == center);
  CHECK(t3.valid.data() == valid);
  CHECK(tt::HostTrack::from(t3).bitwise_equal(h1));
  CHECK_THROWS_AS(tg.generate(15), trackgen::ConfigError);
  CHECK_THROWS_AS(tg.generate(17), trackgen::ConfigError);
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(h1));

  // New epochs give new tracks; resetting them gives the first batch back.
  const trackgen::LaunchContext<TestType> ctx(tg.space());
  tg.seeds().advance(ctx);
  const auto h2 = tt::HostTrack::from(tg.generate());
  CHECK_FALSE(h2.bitwise_equal(h1));
  tg.seeds().reset_epoch(ctx);
  CHECK(tt::HostTrack::from(tg.generate()).bitwise_equal(h1));
}

TEMPLATE_TEST_CASE("TrackGenerator: a bound seed View is read at every generate()", "[pipeline][generator]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = gen_config("polar", 8);
  std::vector<std::int32_t> s{7, 8, 9, 10, 11, 12, 13, 14};
  auto view = tt::to_device<TestType>(s, "seeds");
  trackgen::TrackGenerator<TestType> bound(cfg, view);
  const auto a = tt::HostTrack::from(bound.generate());
  CHECK(a.bitwise_equal(generate_batch<TestType>(cfg, 7)));  // arange expansion of 7
  Kokkos::deep_copy(view, 100);
  const auto b = tt::HostTrack::from(bound.generate());
  CHECK_FALSE(b.bitwise_equal(a));
  for (int e = 1; e < 8; ++e) {  // every env now has seed 100: the same track
    CHECK(b.count[e] == b.count[0]);
    CHECK(b.center[b.at(e, 3)].x == b.center[b.at(0, 3)].x);
  }
}

TEMPLATE_TEST_CASE("TrackGenerator: construction errors", "[pipeline][generator]", TRACKGEN_TEST_SPACES) {
  auto cfg = gen_config("bezier", 8);
  trackgen::SeedState<TestType> seeds7(7, 0);
  try {
    trackgen::TrackGenerator<TestType> tg(cfg, seeds7);
    FAIL("no exception");
  } catch (const trackgen::ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("seeds.num_envs() = 7") != std::string::npos);
    CHECK(msg.find("config.num_envs = 8") != std::string::npos);
  }
  auto view = tt::to_device<TestType>(std::vector<std::int32_t>(9, 1), "seeds");
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(cfg, view), trackgen::ConfigError);
  trackgen::SeedState<TestType> seeds8(8, 0);
  auto bad = cfg;
  bad.generator = "no_such_generator";
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(bad, seeds8), trackgen::ConfigError);
  bad = cfg;
  bad.half_width = -1.0f;
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(bad, seeds8), trackgen::ConfigError);
  bad = cfg;
  bad.z_profile = static_cast<trackgen::ZProfile>(9);
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(bad, seeds8), trackgen::ConfigError);
  bad = cfg;
  bad.z_profile = trackgen::ZProfile::uniform;
  bad.z_min = 1.0f;  // above z_max = 0
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(bad, seeds8), trackgen::ConfigError);
  bad = cfg;
  bad.z_valid_grade = -0.5f;
  CHECK_THROWS_AS(trackgen::TrackGenerator<TestType>(bad, seeds8), trackgen::ConfigError);
}

TEMPLATE_TEST_CASE("TrackGenerator: truncation, relax_enable=false, device_bytes", "[pipeline][generator]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = gen_config("bezier", 16);
  cfg.N_max = 72;  // bezier tracks at hw 0.1 need ~60-130 points
  trackgen::SeedState<TestType> seeds(16, 0);
  trackgen::TrackGenerator<TestType> tg(cfg, seeds);
  const auto h = tt::HostTrack::from(tg.generate());
  int truncated = 0;
  for (int e = 0; e < 16; ++e) {
    if (h.truncated[e]) {
      ++truncated;
      CHECK(h.count[e] == cfg.N_max);
    } else {
      CHECK(h.count[e] <= cfg.N_max);
    }
  }
  CHECK(truncated > 0);
  CHECK(truncated < 16);

  const std::size_t track_bytes = 16u * 72u * (5u * sizeof(trackgen::Vec3f) + sizeof(float)) + 16u * 6u * 4u;
  CHECK(tg.device_bytes() >= track_bytes + tg.pipeline_bytes());

  auto plain = gen_config("polar", 16);
  plain.relax_enable = false;
  trackgen::TrackGenerator<TestType> tp(plain, trackgen::SeedState<TestType>(16, 0));
  const auto hp = tt::HostTrack::from(tp.generate());
  for (int e = 0; e < 16; ++e) CHECK(hp.sep_overflow[e] == 0);
  CHECK(tp.device_bytes() > 0);
}

TEMPLATE_TEST_CASE("TrackGenerator: kernels and regions are labelled", "[pipeline][generator]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = gen_config("bezier", 4);
  trackgen::SeedState<TestType> seeds(4, 0);
  trackgen::TrackGenerator<TestType> tg(cfg, seeds);
  record_names(tg);
  CHECK(std::count(g_regions.begin(), g_regions.end(), "TrackGen::TrackGenerator::generate") == 1);
  std::set<std::string> pipeline;
  for (const auto& k : g_kernels) {
    CHECK(k.rfind("TrackGen::", 0) == 0);
    if (k.rfind("TrackGen::pipeline::", 0) == 0) pipeline.insert(k);
  }
  const std::set<std::string> want{
      "TrackGen::pipeline::resample::constant_spacing", "TrackGen::pipeline::relax::band_l0",
      "TrackGen::pipeline::relax::solve", "TrackGen::pipeline::inflate::reuniformize",
      "TrackGen::pipeline::inflate::frames_offset_validity", "TrackGen::pipeline::inflate::near_pairs"};
  CHECK(pipeline == want);
}
