// The quality numbers of the five fast generators through TrackGenerator at
// E=512 and E=4096, seeds 0 + arange(E), against the original system's quality
// table and yields (docs/algorithms.md#quality-table). Statistics: on the
// default execution space only (the bitwise Serial/OpenMP tests are elsewhere).
#include "generator_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

/// The relaxation settings the original system's quality table was measured
/// with: the shipped docs/quality-table.json (the file users pass to trackgen
/// metrics), under $TRACKGEN_SOURCE_DIR when that is set (the test executable
/// run away from its source tree, e.g. packed for a GPU machine by
/// cmake/gpu-pack.sh), else in the source tree the tests were built from.
trackgen::TrackGenConfig table_config(const char* generator) {
  const char* root = std::getenv("TRACKGEN_SOURCE_DIR");
  auto c = trackgen::load_config(std::string(root != nullptr && *root != '\0' ? root : TRACKGEN_SOURCE_DIR) +
                                 "/docs/quality-table.json");
  c.generator = generator;
  c.num_envs = 512;
  return c;
}

struct TableRow {
  const char* name;
  int invalid;         // envs of 512 (yield = 1 - invalid / 512)
  int pre_crossing;    // envs of 512 whose pre-relax chain self-intersects
  double p50;          // median compactness
  double mean_length;  // mean perimeter
  double mean_chicanes;
  double peak_curvature;
};

struct Band {
  const char* name;
  double min_yield;
  double p50;          // the table's median compactness
  double mean_length;  // the table's mean perimeter
};

template <class Space>
constexpr bool statistics_space() {
  return std::is_same_v<Space, Kokkos::DefaultExecutionSpace>;
}

}  // namespace

TEMPLATE_TEST_CASE("every generator reproduces the quality table under its relaxation settings",
                   "[generators][quality]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  const TableRow rows[] = {
      {"bezier", 4, 3, 0.4238, 5.056, 13.2, 8.762},       {"hull", 3, 4, 0.4111, 4.958, 14.13, 8.908},
      {"polar", 0, 0, 0.5524, 4.736, 12.72, 8.44},        {"voronoi", 0, 0, 0.7318, 4.27, 13.88, 8.205},
      {"checkpoint", 12, 1, 0.6225, 4.224, 14.80, 8.577},
  };
  for (const TableRow& ref : rows) {
    const PipelineRun r = run_batch<Space>(table_config(ref.name));
    const auto& s = r.stats;
    INFO(ref.name << ": valid " << s.num_valid << ", pre-X " << s.pre_relax_self_intersection_rate << ", p50 "
                  << s.compactness_p50 << ", length " << s.mean_length << ", chicanes " << s.mean_chicanes
                  << ", peak curvature " << s.peak_curvature);
    CHECK(std::abs((512 - s.num_valid) - ref.invalid) <= 1);
    CHECK(std::lround(s.pre_relax_self_intersection_rate * 512) == ref.pre_crossing);
    CHECK(std::fabs(s.compactness_p50 - ref.p50) <= 0.002);
    CHECK(std::fabs(s.mean_length - ref.mean_length) <= 0.002 * ref.mean_length);
    CHECK(std::fabs(s.mean_chicanes - ref.mean_chicanes) <= 0.01 * ref.mean_chicanes);
    CHECK(std::fabs(s.peak_curvature - ref.peak_curvature) <= 0.002 * ref.peak_curvature);
  }
}

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: quality bands under the default config", "[generators][quality]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  // Hull at E=512 under the defaults: 0.9883 (6 of 512, thickness misses of
  // 0.90-0.98 hw against the 0.98 hw gate, 5 of them from the curvature the
  // spacing polish leaves); the 0.99 bar is the table's (other settings). The
  // default-config bar is checked at E=4096 below.
  const Band bands[] = {
      {"hull", 0.985, 0.411, 4.96}, {"voronoi", 0.99, 0.732, 4.27}, {"checkpoint", 0.97, 0.623, 4.22}};
  for (const Band& ref : bands) {
    const PipelineRun r = run_batch<Space>(make_config(ref.name, 512));
    const auto& s = r.stats;
    INFO(ref.name << ": yield " << s.yield << ", p50 " << s.compactness_p50 << ", length " << s.mean_length);
    CHECK(s.yield >= ref.min_yield);
    CHECK(std::fabs(s.compactness_p50 - ref.p50) <= 0.04);
    CHECK(std::fabs(s.mean_length - ref.mean_length) <= 0.05 * ref.mean_length);
    CHECK(s.compactness_degenerate_rate < 0.25);
    CHECK(s.shape_variety_pass);
    if (std::string(ref.name) == "hull") {
      // Pre-relax crossing-free >= 0.99 at E=256 (envs are independent, so
      // the first 256 envs are the E=256 batch).
      const int crossing = std::accumulate(r.pre_crossing.begin(), r.pre_crossing.begin() + 256, 0);
      CHECK(crossing <= 2);
    }
  }
}

TEMPLATE_TEST_CASE("default-config yields at E=4096 match the original system's", "[generators][quality]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  // The original system's yields (E=4096, current defaults): bezier 0.998, hull 0.992,
  // checkpoint 0.995, polar and voronoi 1.000 (measured here: 0.9978, 0.9922,
  // 0.9946, 1, 1).
  const std::pair<const char*, double> bars[] = {
      {"bezier", 0.997}, {"hull", 0.99}, {"checkpoint", 0.994}, {"polar", 1.0}, {"voronoi", 1.0}};
  for (const auto& [name, bar] : bars) {
    auto cfg = make_config(name, 4096);
    trackgen::TrackGenerator<Space> tg(cfg, trackgen::SeedState<Space>(cfg.num_envs, 0));
    const auto valid = tt::to_vector(tg.generate().valid);
    const double yield = std::accumulate(valid.begin(), valid.end(), 0) / 4096.0;
    INFO(name << ": yield " << yield);
    CHECK(yield >= bar);
  }
}
