// The hull, voronoi and checkpoint generators (reference sections 2.2, 2.4,
// 2.5), the team sort of the compatibility layer they share with bezier, and
// their quality numbers through TrackGenerator (reference 5.2, 5.4).
#include "support.hpp"

#include <trackgen/core/compat.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/checkpoint.hpp>
#include <trackgen/generators/detail/hull.hpp>
#include <trackgen/generators/detail/voronoi.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/pipeline/track_generator.hpp>

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

const char* const kNewGenerators[] = {"hull", "voronoi", "checkpoint"};

double compactness(const Vec2f* p, int n) {
  const double l = perimeter(p, n);
  return l > 0.0 ? 4.0 * trackgen::geom::pi_d * std::fabs(trackgen::geom::shoelace2(p, n) / 2.0) / (l * l) : 0.0;
}

/// Every point finite, out_valid 1, and each loop closed: the implicit closing
/// edge is an ordinary edge, neither a gap nor a duplicated end point (at most
/// twice the mean edge, or no longer than the longest other edge: checkpoint
/// loops are not uniformly spaced, reference 2.5 step 3).
void check_closed_finite(const Batch& b) {
  int bad = 0;
  check_closed_finite_with(b, [&](int e, const Vec2f* p, double mean_edge) {
    double max_other = 0.0;
    for (int i = 0; i + 1 < b.n; ++i) max_other = std::max(max_other, double(trackgen::length(p[i + 1] - p[i])));
    const double closing = trackgen::length(p[0] - p[b.n - 1]);
    const bool ok = closing > 0.1 * mean_edge && closing <= std::max(2.0 * mean_edge, max_other);
    if (!ok) UNSCOPED_INFO("env " << e << ": closing edge " << closing << ", mean edge " << mean_edge);
    bad += ok ? 0 : 1;
  });
  CHECK(bad == 0);
}

/// Envs whose loop runs counter-clockwise (positive shoelace area).
int count_ccw(const Batch& b) {
  int ccw = 0;
  for (int e = 0; e < b.num_envs; ++e) ccw += trackgen::geom::shoelace2(b.env(e), b.n) > 0.0 ? 1 : 0;
  return ccw;
}

/// Envs whose loop has no XCOUNT crossing.
int count_crossing_free(const Batch& b) {
  int free = 0;
  for (int e = 0; e < b.num_envs; ++e) free += trackgen::geom::xcount(b.env(e), b.n) == 0 ? 1 : 0;
  return free;
}

/// The reference's prune-then-sort on the host: centroid of p[0..m) (double
/// sums), key atan2(dx, dy), stable insertion sort with the strict `>` shift.
std::vector<Vec2f> host_angle_sort(const Vec2f* p, int m) {
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < m; ++i) sx += p[i].x, sy += p[i].y;
  const Vec2f c{static_cast<float>(sx / m), static_cast<float>(sy / m)};
  std::vector<Vec2f> pts(p, p + m);
  std::vector<float> keys;
  for (const Vec2f& q : pts) keys.push_back(std::atan2(q.x - c.x, q.y - c.y));
  for (int i = 1; i < m; ++i) {
    const float key = keys[i];
    const Vec2f pt = pts[i];
    int j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      pts[j + 1] = pts[j];
      --j;
    }
    keys[j + 1] = key;
    pts[j + 1] = pt;
  }
  return pts;
}

// ---------------------------------------------------------------------------
// Team sort kernels (named free functions: nvcc rules)

/// Sorts rows keys[r*stride, +len[r]) with compat::team_sort, one team per row,
/// `team_size` threads (0: Kokkos::AUTO).
template <class Space>
void sort_rows(const trackgen::DView<std::uint64_t, Space>& keys, const trackgen::DView<std::int32_t, Space>& len,
               int stride, int team_size) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  trackgen::LaunchContext<Space> ctx;
  ctx.for_each_team(
      "TrackGen::tests::team_sort", static_cast<int>(len.extent(0)), team_size, KOKKOS_LAMBDA(const member_type& team) {
        const int r = team.league_rank();
        trackgen::compat::team_sort(team, keys.data() + static_cast<std::size_t>(r) * stride, len(r));
      });
  ctx.fence();
}

/// The largest team size (<= 4) a team_sort kernel can run with on Space.
template <class Space>
int small_team_size() {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  Kokkos::TeamPolicy<Space> policy(Space(), 1, 1);
  const auto f = KOKKOS_LAMBDA(const member_type&){};
  return std::min(4, policy.team_size_max(f, Kokkos::ParallelForTag()));
}

/// TrackGenerator batch with seeds 0 + arange(E), its BatchStats (post-relax
/// track, pre-relax chain cs_center) and the per-env pre-relax crossing flags.
struct PipelineRun {
  trackgen::BatchStats stats;
  std::vector<std::int32_t> pre_crossing;  // [E]
};

template <class Space>
PipelineRun run_pipeline(const trackgen::TrackGenConfig& cfg) {
  trackgen::SeedState<Space> seeds(cfg.num_envs, 0);
  trackgen::TrackGenerator<Space> tg(cfg, seeds);
  const auto& track = tg.generate();
  trackgen::BatchMetrics<Space> bm(cfg.num_envs, cfg.N_max);
  PipelineRun r;
  r.stats = bm.compute(track, tg.buffers().cs_center, 0.0);
  r.stats.generator = cfg.generator;
  r.pre_crossing = tt::to_vector(bm.pre().result().self_intersects);
  return r;
}

/// Raw compactness of each env of a generator batch.
std::vector<double> raw_compactness(const Batch& b) {
  std::vector<double> c;
  for (int e = 0; e < b.num_envs; ++e) c.push_back(compactness(b.env(e), b.n));
  return c;
}

}  // namespace

// ---------------------------------------------------------------------------
// Team sort

TEST_CASE("team sort: sort_key orders like the float key, ties by index", "[generators][team_sort]") {
  using trackgen::compat::sort_key;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending = {-inf,   -1e30f, -3.5f, -1.0f, -1e-38f,    -1e-45f, 0.0f,
                                        1e-45f, 1e-38f, 0.25f, 1.0f,  3.1415927f, 1e30f,   inf};
  for (std::size_t a = 0; a < ascending.size(); ++a) {
    for (std::size_t b = 0; b < ascending.size(); ++b) {
      INFO(ascending[a] << " vs " << ascending[b]);
      CHECK((sort_key(ascending[a], 7) < sort_key(ascending[b], 3)) == (a < b));
      CHECK((sort_key(ascending[a], 3) < sort_key(ascending[b], 7)) == (a <= b));
    }
  }
  CHECK(sort_key(-0.0f, 1) < sort_key(0.0f, 2));  // -0 == +0: the index decides
  CHECK(sort_key(0.0f, 1) < sort_key(-0.0f, 2));
  CHECK(trackgen::compat::sort_key_index(sort_key(-2.0f, 12345)) == 12345);
}

TEMPLATE_TEST_CASE("team sort: composite keys reproduce the stable insertion sort exactly", "[generators][team_sort]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Rows of random length 0..70 (every small length included) over keys drawn
  // from a small set (many ties, both zeros, infinities) or from [-pi, pi].
  const int stride = 80, rows = 120;
  const std::vector<float> pool = {-3.0f,
                                   -1.0f,
                                   -0.0f,
                                   0.0f,
                                   0.5f,
                                   2.0f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity()};
  std::uint32_t st = 2024u;
  std::vector<float> keys(std::size_t(rows) * stride, 0.0f);
  std::vector<std::int32_t> len(rows);
  std::vector<std::uint64_t> packed(keys.size(), 0);
  for (int r = 0; r < rows; ++r) {
    len[r] = r < 20 ? r : static_cast<int>(trackgen::randf(st) * 71.0f);
    const bool ties = r % 2 == 0;
    for (int i = 0; i < len[r]; ++i) {
      const float u = trackgen::randf(st);
      const float k = ties ? pool[std::min(static_cast<int>(u * pool.size()), int(pool.size()) - 1)]
                           : (2.0f * u - 1.0f) * trackgen::geom::pi_f;
      keys[r * stride + i] = k;
      packed[r * stride + i] = trackgen::compat::sort_key(k, i);
    }
  }
  // Host reference: the reference's insertion sort (strict `>` shift) of (key, index).
  std::vector<std::vector<int>> expect(rows);
  for (int r = 0; r < rows; ++r) {
    std::vector<std::pair<float, int>> v;
    for (int i = 0; i < len[r]; ++i) v.emplace_back(keys[r * stride + i], i);
    for (int i = 1; i < len[r]; ++i) {
      const auto x = v[i];
      int j = i - 1;
      while (j >= 0 && v[j].first > x.first) {
        v[j + 1] = v[j];
        --j;
      }
      v[j + 1] = x;
    }
    for (const auto& p : v) expect[r].push_back(p.second);
  }
  for (int team_size : {0, 1, small_team_size<Space>()}) {
    INFO("team size " << team_size);
    auto d_keys = tt::to_device<Space>(packed, "keys");
    const auto d_len = tt::to_device<Space>(len, "len");
    sort_rows<Space>(d_keys, d_len, stride, team_size);
    const auto sorted = tt::to_vector(d_keys);
    int mismatched_rows = 0;
    for (int r = 0; r < rows; ++r) {
      bool same = true;
      for (int i = 0; i < len[r]; ++i) {
        same = same && trackgen::compat::sort_key_index(sorted[r * stride + i]) == expect[r][i];
      }
      for (int i = len[r]; i < stride; ++i) same = same && sorted[r * stride + i] == 0u;  // untouched
      mismatched_rows += same ? 0 : 1;
    }
    CHECK(mismatched_rows == 0);
  }
}

TEMPLATE_TEST_CASE("team sort: bezier and hull corners equal the reference's stable insertion sort",
                   "[generators][team_sort][hull]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "hull"}) {
    for (int variant = 0; variant < 3; ++variant) {
      auto cfg = make_config(name, 256);
      if (variant == 1) cfg.min_num_points = 3, cfg.max_num_points = 20;
      if (variant == 2) cfg.min_point_distance = 0.5f, cfg.min_num_points = 2, cfg.max_num_points = 5;
      INFO("generator " << name << " variant " << variant);
      Harness<Space> h(cfg, seed_range(cfg.num_envs, -50));
      h.run();
      std::vector<Vec2f> raw, sorted;
      std::vector<std::int32_t> count;
      if (std::string(name) == "bezier") {
        auto& g = h.template as<td::BezierGenerator<Space>>();
        raw = tt::to_vector(g.raw_corners()), sorted = tt::to_vector(g.corners());
        count = tt::to_vector(g.corner_count());
      } else {
        auto& g = h.template as<td::HullGenerator<Space>>();
        raw = tt::to_vector(g.raw_corners()), sorted = tt::to_vector(g.corners());
        count = tt::to_vector(g.corner_count());
      }
      const int P = cfg.max_num_points;
      int mismatched = 0;
      for (int e = 0; e < cfg.num_envs; ++e) {
        const auto expect = host_angle_sort(raw.data() + e * P, count[e]);
        std::vector<Vec2f> got(sorted.begin() + e * P, sorted.begin() + e * P + count[e]);
        mismatched += tt::bitwise_equal(expect, got) ? 0 : 1;
        for (int i = count[e]; i < P; ++i) mismatched += std::isnan(sorted[e * P + i].x) ? 0 : 1;
      }
      CHECK(mismatched == 0);
    }
  }
}

// ---------------------------------------------------------------------------
// All three: shared contracts

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: closed finite loops, winding, repeatability",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  struct Case {
    const char* name;
    bool ccw;
  };
  // Reference 2.2 / 2.4 / 2.5: hull clockwise, voronoi and checkpoint counter-clockwise.
  for (const Case k : {Case{"hull", false}, Case{"voronoi", true}, Case{"checkpoint", true}}) {
    INFO("generator " << k.name);
    Harness<Space> h(make_config(k.name), seed_range(kEnvs));
    const Batch a = h.run();
    check_closed_finite(a);
    const int ccw = count_ccw(a);
    CHECK((k.ccw ? ccw : kEnvs - ccw) == kEnvs);
    // Repeated generate() gives the identical batch; other seeds change it and
    // going back restores it.
    const Batch b = h.run();
    CHECK(tt::bitwise_equal(a.pts, b.pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(kEnvs, 1000), "s"));
    CHECK_FALSE(tt::bitwise_equal(a.pts, h.run().pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(kEnvs), "s"));
    CHECK(tt::bitwise_equal(a.pts, h.run().pts));
  }
}

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: labelled kernels, one profiling region, no allocation",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : kNewGenerators) {
    for (int variant = 0; variant < 3; ++variant) {
      auto cfg = make_config(name);
      if (variant == 1) cfg.checkpoint_best_of_k = 1;
      if (variant == 2) cfg.checkpoint_clip_fallback = true;
      if (variant > 0 && std::string(name) != "checkpoint") continue;
      INFO("generator " << name << " variant " << variant);
      Harness<Space> h(cfg, seed_range(kEnvs));
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
  for (const char* name : kNewGenerators) cfgs.push_back(make_config(name));
  cfgs[0].hull_displacement = 1.5f;  // hull: both fallbacks taken by some envs
  auto k1clip = make_config("checkpoint");
  k1clip.checkpoint_best_of_k = 1;
  k1clip.checkpoint_clip_fallback = true;
  cfgs.push_back(k1clip);
  const auto seeds_a = seed_range(kEnvs), seeds_b = seed_range(kEnvs, 4000);
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
      r.gen->generate(trackgen::LaunchContext<Space>::capture(graph, Space()), r.seeds, r.out, r.valid);
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
  for (const char* name : kNewGenerators) {
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
  for (const char* layout : {"ring", "void_ring", "clustered", "mixed"}) {
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
    INFO("generator " << cfg.generator << " layout " << cfg.voronoi_site_layout << " K " << cfg.checkpoint_best_of_k);
    const auto seeds = seed_range(cfg.num_envs, 17);
    const Batch s = generate_batch<Kokkos::Serial>(cfg, seeds);
    const Batch o = generate_batch<Kokkos::OpenMP>(cfg, seeds);
    CHECK(tt::bitwise_equal(s.pts, o.pts));
    CHECK(s.valid == o.valid);
  }
}
#endif

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: registered, capturable, and built-in",
                   "[generators][hull][voronoi][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto names = trackgen::available_generators<Space>();
  const auto builtin = trackgen::builtin_generator_names();
  for (const char* name : {"bezier", "checkpoint", "hull", "polar", "voronoi"}) {
    INFO(name);
    CHECK(std::count(names.begin(), names.end(), name) == 1);
    CHECK(std::count(builtin.begin(), builtin.end(), name) == 1);
    CHECK(trackgen::get_generator<Space>(name).capturable);
  }
}

// ---------------------------------------------------------------------------
// hull

TEMPLATE_TEST_CASE("hull: corner counts follow the reference RNG (salt 5119 + 1)", "[generators][hull]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("hull");
  cfg.min_num_points = 3;
  cfg.max_num_points = 20;
  const auto seeds = seed_range(kEnvs);
  Harness<Space> h(cfg, seeds);
  h.run();
  auto& g = h.template as<td::HullGenerator<Space>>();
  const auto count = tt::to_vector(g.corner_count());
  const auto aug = tt::to_vector(g.augmented());
  const int P = cfg.max_num_points;
  for (int e = 0; e < kEnvs; ++e) {
    INFO("seed " << seeds[e]);
    const int m = host_corner_count(seeds[e], trackgen::salt::hull_count, 3, 20);
    CHECK(count[e] == m);
    int finite = 0;
    for (int i = 0; i < 2 * P; ++i) finite += std::isfinite(aug[e * 2 * P + i].x) ? 1 : 0;
    CHECK(finite == 2 * m);
  }
}

TEMPLATE_TEST_CASE("hull: the fallbacks leave no silent crossing", "[generators][hull]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Below hull_displacement 1 a displaced midpoint stays on its own ray from the
  // centroid, so fallback 1 is already star-shaped (see hull.cpp) and fallback
  // 2 is never needed; from 1 on, midpoints can pass the centroid and fallback 1
  // crosses itself, which fallback 2 repairs.
  for (float displacement : {0.15f, 0.9f, 1.5f, 3.0f}) {
    INFO("hull_displacement " << displacement);
    auto cfg = make_config("hull", 256);
    cfg.hull_displacement = displacement;
    Harness<Space> h(cfg, seed_range(cfg.num_envs));
    const Batch b = h.run();
    check_closed_finite(b);
    auto& g = h.template as<td::HullGenerator<Space>>();
    const auto crossers = tt::to_vector(g.crossers());
    const auto fb = tt::to_vector(g.fallback_crossing());
    const auto residual = tt::to_vector(g.residual_crossing());
    int took1 = 0, took2 = 0, still = 0, mismatched = 0;
    for (int e = 0; e < cfg.num_envs; ++e) {
      took1 += crossers[e] > 0 ? 1 : 0;
      took2 += fb[e] > 0 ? 1 : 0;
      still += residual[e] > 0 ? 1 : 0;
      // Diagnostics are consistent: fallback_crossing only for fallback-1 envs,
      // residual only for fallback-2 envs, and the output crosses exactly when
      // residual_crossing says so.
      if (crossers[e] == 0 && fb[e] != 0) ++mismatched;
      if (fb[e] == 0 && residual[e] != 0) ++mismatched;
      if (trackgen::geom::xcount(b.env(e), b.n) != residual[e]) ++mismatched;
    }
    INFO(took1 << " envs took fallback 1, " << took2 << " fallback 2, " << still << " still cross");
    CHECK(mismatched == 0);
    CHECK(still == 0);  // the sorted corner polygon is simple
    CHECK(took1 > 0);
    if (displacement < 1.0f) {
      CHECK(took2 == 0);
    } else {
      CHECK(took2 > 0);  // fallback 2 is exercised
    }
  }
}

// Reference 5.4 test_generate_hull: yield >= 0.98 (E=64, N=128, N_max=256) and
// pre-relax crossing-free >= 0.99 at E=256.
TEMPLATE_TEST_CASE("hull: reference 5.4 thresholds", "[generators][hull]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("hull", 64);
  cfg.num_points = 128;
  cfg.N_max = 256;
  const PipelineRun small = run_pipeline<Space>(cfg);
  CHECK(small.stats.yield >= 0.98);
  const PipelineRun big = run_pipeline<Space>(make_config("hull", 256));
  CHECK(1.0 - big.stats.pre_relax_self_intersection_rate >= 0.99);
}

// ---------------------------------------------------------------------------
// voronoi

TEMPLATE_TEST_CASE("voronoi: every site layout gives valid, distinct loops", "[generators][voronoi]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  std::vector<Batch> batches;
  std::vector<std::vector<Vec2f>> sites;
  for (const char* layout : {"ring", "void_ring", "clustered", "mixed"}) {
    INFO("layout " << layout);
    auto cfg = make_config("voronoi");
    cfg.voronoi_site_layout = layout;
    Harness<Space> h(cfg, seed_range(kEnvs));
    batches.push_back(h.run());
    check_closed_finite(batches.back());
    CHECK(count_ccw(batches.back()) == kEnvs);
    CHECK(count_crossing_free(batches.back()) >= kEnvs * 95 / 100);
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
    const std::string l = layout;
    if (l == "void_ring") CHECK(inner == 0);
    if (l == "ring") CHECK(inner > 0);
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
    if (variant == 2) cfg.voronoi_site_layout = "clustered", cfg.voronoi_num_sites = 40;
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

// Reference 5.4 test_generate_voronoi (E=64/128, N=128): yield > 0.5,
// crossing-free >= 0.95, raw compactness mean < 0.88 and the fraction of
// near-circular raw loops (compactness > 0.92) below 0.25.
TEMPLATE_TEST_CASE("voronoi: reference 5.4 thresholds", "[generators][voronoi]", TRACKGEN_TEST_SPACES) {
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
  CHECK(run_pipeline<Space>(pcfg).stats.yield > 0.5);
}

// ---------------------------------------------------------------------------
// checkpoint

TEMPLATE_TEST_CASE("checkpoint: closure turns exactly once, best-of-K picks the fewest crossings",
                   "[generators][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto seeds = seed_range(kEnvs);
  auto one = make_config("checkpoint");
  one.checkpoint_best_of_k = 1;
  const Batch b1 = generate_batch<Space>(one, seeds);
  auto four = make_config("checkpoint");
  Harness<Space> h(four, seeds);
  const Batch b4 = h.run();
  auto& g = h.template as<td::CheckpointGenerator<Space>>();
  const auto cross = tt::to_vector(g.candidate_crossings());
  const auto cand = tt::to_vector(g.candidates());
  const int K = four.checkpoint_best_of_k, N = four.num_points;
  REQUIRE(cross.size() == std::size_t(kEnvs) * K);
  int picked0 = 0;
  for (int e = 0; e < kEnvs; ++e) {
    INFO("env " << e);
    // Net turning of a crossing-free closed loop is +2 pi.
    if (trackgen::geom::xcount(b1.env(e), b1.n) == 0) {
      CHECK(trackgen::geom::total_turning(b1.env(e), b1.n) == Approx(2.0 * trackgen::geom::pi_d).margin(1e-3));
    }
    // Candidates are counted in order until one is crossing-free; the rest are
    // -1 (not counted). The selection is the first minimum (ties: lowest k).
    int best = 0;
    for (int k = 0; k < K; ++k) {
      const bool decided = std::find(cross.begin() + e * K, cross.begin() + e * K + k, 0) != cross.begin() + e * K + k;
      CHECK((cross[e * K + k] == -1) == decided);
      if (!decided && cross[e * K + k] < cross[e * K + best]) best = k;
    }
    CHECK(cross[e * K + best] >= 0);
    CHECK(trackgen::geom::xcount(b4.env(e), b4.n) == cross[e * K + best]);
    // The same choice as the reference's XCOUNT of every candidate.
    std::vector<int> full;
    for (int k = 0; k < K; ++k) full.push_back(trackgen::geom::xcount(cand.data() + std::size_t(e * K + k) * N, N));
    CHECK(best == static_cast<int>(std::min_element(full.begin(), full.end()) - full.begin()));
    for (int k = 0; k < K; ++k) CHECK((cross[e * K + k] == -1 || cross[e * K + k] == full[k]));
    // Candidate 0 is the K == 1 loop: when it wins, the outputs agree bitwise.
    const bool same = tt::bitwise_equal(std::vector<Vec2f>(b1.env(e), b1.env(e) + b1.n),
                                        std::vector<Vec2f>(b4.env(e), b4.env(e) + b4.n));
    CHECK(same == (best == 0));
    picked0 += best == 0 ? 1 : 0;
  }
  CHECK(picked0 > 0);
  CHECK(count_crossing_free(b4) >= count_crossing_free(b1));
}

TEMPLATE_TEST_CASE("checkpoint: the clip cuts at the first crossing and passes the others through",
                   "[generators][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int E = 256;
  const auto seeds = seed_range(E);
  auto plain = make_config("checkpoint", E);
  plain.checkpoint_best_of_k = 1;
  const Batch b0 = generate_batch<Space>(plain, seeds);
  auto clip = plain;
  clip.checkpoint_clip_fallback = true;
  Harness<Space> h(clip, seeds);
  const Batch b1 = h.run();
  check_closed_finite(b1);
  const auto clipped = tt::to_vector(h.template as<td::CheckpointGenerator<Space>>().clipped());
  int n_clipped = 0, improved = 0, passthrough_mismatch = 0;
  for (int e = 0; e < E; ++e) {
    const std::vector<Vec2f> a(b0.env(e), b0.env(e) + b0.n), c(b1.env(e), b1.env(e) + b1.n);
    if (clipped[e] == 0) {
      passthrough_mismatch += tt::bitwise_equal(a, c) ? 0 : 1;
    } else {
      ++n_clipped;
      improved += trackgen::geom::xcount(c.data(), b1.n) < trackgen::geom::xcount(a.data(), b0.n) ? 1 : 0;
    }
  }
  INFO(n_clipped << " of " << E << " envs clipped, " << improved << " with fewer crossings");
  CHECK(passthrough_mismatch == 0);
  CHECK(n_clipped > 0);
  CHECK(improved * 2 >= n_clipped);
}

// Reference 5.4 test_generate_checkpoint (E=128, relax_iters=40): yield > 0.3,
// median compactness < 0.65, clip (K=1) yield >= no-clip (K=1) yield - 0.02.
TEMPLATE_TEST_CASE("checkpoint: reference 5.4 thresholds", "[generators][checkpoint]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("checkpoint", 128);
  cfg.relax_iters = 40;
  const PipelineRun r = run_pipeline<Space>(cfg);
  CHECK(r.stats.yield > 0.3);
  CHECK(r.stats.compactness_p50 < 0.65);
  cfg.checkpoint_best_of_k = 1;
  const double no_clip = run_pipeline<Space>(cfg).stats.yield;
  cfg.checkpoint_clip_fallback = true;
  const double with_clip = run_pipeline<Space>(cfg).stats.yield;
  INFO("K=1 yield without clip " << no_clip << ", with clip " << with_clip);
  CHECK(with_clip >= no_clip - 0.02);
}

// ---------------------------------------------------------------------------
// Reference numbers, E=512, seeds 0 + arange(512), on the default execution
// space only (statistics; the bitwise Serial/OpenMP tests are above).
//
// The reference's 5.2 table was measured with its earlier relaxation settings
// (plain Jacobi, 150 sweeps, separation every 40, no smoothing tail; see
// docs/differences.md): under those settings our numbers must match the table
// (one env may flip validity through ~1e-4 drift, as reference 7 notes). Under
// today's defaults (Chebyshev, 50 sweeps, smoothing tail) the bands
// apply, and the yields at E=4096 are those of the reference's 6.1.

namespace {

/// The relaxation settings the reference's 5.2 table was measured with: the
/// shipped docs/reference-table-5.2.json (the file users pass to trackgen metrics).
trackgen::TrackGenConfig table_config(const char* generator) {
  auto c = trackgen::load_config(TRACKGEN_SOURCE_DIR "/docs/reference-table-5.2.json");
  c.generator = generator;
  c.num_envs = 512;
  return c;
}

struct TableRow {
  const char* name;
  int invalid;           // envs of 512 (yield = 1 - invalid / 512)
  int pre_crossing;      // envs of 512 whose pre-relax chain self-intersects
  double p50;            // median compactness
  double mean_length;    // mean perimeter
  double mean_chicanes;
  double peak_curvature;
};

struct Band {
  const char* name;
  double min_yield;
  double p50;          // the reference's median compactness
  double mean_length;  // the reference's mean perimeter
};

template <class Space>
constexpr bool statistics_space() {
  return std::is_same_v<Space, Kokkos::DefaultExecutionSpace>;
}

}  // namespace

TEMPLATE_TEST_CASE("every generator reproduces the reference's 5.2 table under its relaxation settings",
                   "[generators][reference]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  const TableRow rows[] = {
      {"bezier", 4, 3, 0.4238, 5.056, 13.2, 8.762},     {"hull", 3, 4, 0.4111, 4.958, 14.13, 8.908},
      {"polar", 0, 0, 0.5524, 4.736, 12.72, 8.44},      {"voronoi", 0, 0, 0.7318, 4.27, 13.88, 8.205},
      {"checkpoint", 12, 1, 0.6225, 4.224, 14.80, 8.577},
  };
  for (const TableRow& ref : rows) {
    const PipelineRun r = run_pipeline<Space>(table_config(ref.name));
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

TEMPLATE_TEST_CASE("hull, voronoi, checkpoint: the issue's bands under the default config",
                   "[generators][reference]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  // Hull at E=512 under the defaults: 0.9883 (6 of 512, thickness misses of
  // 0.90-0.98 hw against the 0.98 hw gate, 5 of them from the curvature the
  // spacing polish leaves); the 0.99 bar is the table's (other settings). The
  // default-config bar is checked at E=4096 below, against the reference's 6.1.
  const Band bands[] = {{"hull", 0.985, 0.411, 4.96}, {"voronoi", 0.99, 0.732, 4.27}, {"checkpoint", 0.97, 0.623, 4.22}};
  for (const Band& ref : bands) {
    const PipelineRun r = run_pipeline<Space>(make_config(ref.name, 512));
    const auto& s = r.stats;
    INFO(ref.name << ": yield " << s.yield << ", p50 " << s.compactness_p50 << ", length " << s.mean_length);
    CHECK(s.yield >= ref.min_yield);
    CHECK(std::fabs(s.compactness_p50 - ref.p50) <= 0.04);
    CHECK(std::fabs(s.mean_length - ref.mean_length) <= 0.05 * ref.mean_length);
    CHECK(s.compactness_degenerate_rate < 0.25);
    CHECK(s.shape_variety_pass);
    if (std::string(ref.name) == "hull") {
      // 5.4: pre-relax crossing-free >= 0.99 at E=256 (envs are independent, so
      // the first 256 envs are the E=256 batch).
      const int crossing = std::accumulate(r.pre_crossing.begin(), r.pre_crossing.begin() + 256, 0);
      CHECK(crossing <= 2);
    }
  }
}

TEMPLATE_TEST_CASE("default-config yields at E=4096 are the reference's 6.1", "[generators][reference]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (!statistics_space<Space>()) {
    SUCCEED("statistical checks run on the default execution space only");
    return;
  }
  // Reference 6.1 (E=4096, current defaults): bezier 0.998, hull 0.992,
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
