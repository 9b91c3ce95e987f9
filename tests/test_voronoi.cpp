// The voronoi generator (docs/algorithms.md#voronoi): site layouts, the anchor
// snap, and its quality thresholds.
#include "generator_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/detail/voronoi.hpp>
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

TEMPLATE_TEST_CASE("voronoi: every site layout gives valid, distinct loops", "[generators][voronoi]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  std::vector<Batch> batches;
  std::vector<std::vector<Vec2f>> sites;
  for (const trackgen::VoronoiLayout layout : all_layouts) {
    INFO("layout " << setting_name(layout));
    auto cfg = make_config("voronoi");
    cfg.voronoi_site_layout = layout;
    Harness<Space> h(cfg, seed_range(default_envs));
    batches.push_back(h.run());
    check_closed_finite_loops(batches.back());
    CHECK(count_ccw(batches.back()) == default_envs);
    CHECK(count_crossing_free(batches.back()) >= default_envs * 95 / 100);
    auto& g = h.template as<td::VoronoiGenerator<Space>>();
    sites.push_back(tt::to_vector(g.sites()));
    // Sites stay in the box [-L/2, L/2]^2 (L = 2) or the annulus (r <= 0.52 L).
    int outside = 0;
    for (const Vec2f& s : sites.back()) {
      const bool in_box = std::fabs(s.x) <= 1.0f && std::fabs(s.y) <= 1.0f;
      outside += (in_box || std::hypot(s.x, s.y) <= 1.04f + 1e-5f) ? 0 : 1;
    }
    CHECK(outside == 0);
    // Radial site distribution per layout: void_ring sites all in the annulus
    // [0.28, 1.04]; ring (box) sites include the centre; clustered and mixed between.
    int inner = 0;
    for (const Vec2f& s : sites.back()) inner += std::hypot(s.x, s.y) < 0.28f - 1e-5f ? 1 : 0;
    if (layout == trackgen::VoronoiLayout::void_ring) CHECK(inner == 0);
    if (layout == trackgen::VoronoiLayout::ring) CHECK(inner > 0);
  }
  for (std::size_t a = 0; a < batches.size(); ++a) {
    for (std::size_t b = a + 1; b < batches.size(); ++b) {
      INFO("layouts " << a << " and " << b);
      CHECK_FALSE(tt::bitwise_equal(sites[a], sites[b]));
      CHECK_FALSE(tt::bitwise_equal(batches[a].pts, batches[b].pts));
    }
  }
}

TEMPLATE_TEST_CASE("voronoi: anchors snap to the first strict minimum of the cost", "[generators][voronoi]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // S == K forces every site (each exactly once); duplicated sites force exact
  // ties in the cost, which must go to the lowest index.
  for (int variant = 0; variant < 3; ++variant) {
    auto cfg = make_config("voronoi", 32);
    if (variant == 1) cfg.voronoi_num_sites = cfg.voronoi_control_points;
    if (variant == 2) cfg.voronoi_site_layout = trackgen::VoronoiLayout::clustered, cfg.voronoi_num_sites = 40;
    INFO("variant " << variant);
    Harness<Space> h(cfg, seed_range(cfg.num_envs, 5));
    h.run();
    auto& g = h.template as<td::VoronoiGenerator<Space>>();
    const auto sites = tt::to_vector(g.sites());
    const auto targets = tt::to_vector(g.targets());
    const auto chosen = tt::to_vector(g.anchor_sites());
    const auto anchors = tt::to_vector(g.anchors());
    const int S = cfg.voronoi_num_sites, K = cfg.voronoi_control_points;
    const float sigma = 2.0f * trackgen::geom::pi_f / static_cast<float>(K);
    int mismatched = 0;
    for (int e = 0; e < cfg.num_envs; ++e) {
      std::vector<int> used(S, 0);
      for (int i = 0; i < K; ++i) {
        const Vec2f t = targets[e * K + i];
        int best = -1;
        float best_cost = 0.0f;
        for (int j = 0; j < S; ++j) {
          const Vec2f s = sites[e * S + j];
          const float ang = std::atan2(s.y, s.x), r = std::sqrt(s.x * s.x + s.y * s.y);
          const float cost = std::fabs(trackgen::geom::wrap_angle(ang - t.x)) / std::max(sigma, 1e-6f) +
                             std::fabs(r - t.y) / std::max(0.13f * 2.0f, 1e-6f) + (used[j] ? 1000.0f : 0.0f);
          if (best < 0 || cost < best_cost) best = j, best_cost = cost;
        }
        used[best] = 1;
        mismatched += chosen[e * K + i] == best ? 0 : 1;
        mismatched +=
            tt::bitwise_equal(std::vector<Vec2f>{anchors[e * K + i]}, std::vector<Vec2f>{sites[e * S + best]}) ? 0 : 1;
      }
      if (variant == 1) CHECK(std::count(used.begin(), used.end(), 1) == S);
    }
    CHECK(mismatched == 0);
  }
}

// The original system's voronoi test (E=64/128, N=128): yield > 0.5,
// crossing-free >= 0.95, raw compactness mean < 0.88 and the fraction of
// near-circular raw loops (compactness > 0.92) below 0.25.
TEMPLATE_TEST_CASE("voronoi: quality thresholds", "[generators][voronoi]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("voronoi", 128);
  cfg.num_points = 128;
  Harness<Space> h(cfg, seed_range(cfg.num_envs));
  const Batch b = h.run();
  CHECK(count_crossing_free(b) >= 0.95 * cfg.num_envs);
  const auto c = raw_compactness(b);
  const double mean = std::accumulate(c.begin(), c.end(), 0.0) / c.size();
  const double near_circular = std::count_if(c.begin(), c.end(), [](double x) { return x > 0.92; }) / double(c.size());
  CHECK(mean < 0.88);
  CHECK(near_circular < 0.25);
  // The bbox longest extent is 1.44 * scale after the final NORM.
  for (int e = 0; e < cfg.num_envs; ++e) {
    float xmin = 1e30f, xmax = -1e30f, ymin = 1e30f, ymax = -1e30f;
    for (int i = 0; i < b.n; ++i) {
      const Vec2f p = b.env(e)[i];
      xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x), ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
    }
    CHECK(std::max(xmax - xmin, ymax - ymin) == Approx(1.44).margin(1e-4));
  }
  auto pcfg = make_config("voronoi", 64);
  pcfg.num_points = 128;
  CHECK(run_batch<Space>(pcfg).stats.yield > 0.5);
}
