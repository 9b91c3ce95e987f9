// Support of the tests of the hull, voronoi and checkpoint generators: checks
// of a generator batch (closed loops, winding, crossings), its compactness, and
// a TrackGenerator run with its batch statistics.
#pragma once

#include "support.hpp"

#include <trackgen/core/geometry.hpp>
#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/metrics/detail/polyline.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace trackgen::test::generators {

/// The generators whose shared contracts test_generator_contracts.cpp checks.
inline const char* const hull_voronoi_checkpoint[] = {"hull", "voronoi", "checkpoint"};

/// Every voronoi site layout.
inline constexpr VoronoiLayout all_layouts[] = {VoronoiLayout::ring, VoronoiLayout::void_ring, VoronoiLayout::clustered,
                                                VoronoiLayout::mixed};

/// Every point finite, out_valid 1, and each loop closed: the implicit closing
/// edge is an ordinary edge, neither a gap nor a duplicated end point (at most
/// twice the mean edge, or no longer than the longest other edge: checkpoint
/// loops are not uniformly spaced, docs/algorithms.md#checkpoint).
inline void check_closed_finite_loops(const Batch& b) {
  int bad = 0;
  check_closed_finite_with(b, [&](int e, const Vec2f* p, double mean_edge) {
    double max_other = 0.0;
    for (int i = 0; i + 1 < b.n; ++i) max_other = std::max(max_other, double(length(p[i + 1] - p[i])));
    const double closing = length(p[0] - p[b.n - 1]);
    const bool ok = closing > 0.1 * mean_edge && closing <= std::max(2.0 * mean_edge, max_other);
    if (!ok) UNSCOPED_INFO("env " << e << ": closing edge " << closing << ", mean edge " << mean_edge);
    bad += ok ? 0 : 1;
  });
  CHECK(bad == 0);
}

/// Envs whose loop runs counter-clockwise (positive shoelace area).
inline int count_ccw(const Batch& b) {
  int ccw = 0;
  for (int e = 0; e < b.num_envs; ++e) ccw += geom::shoelace2(b.env(e), b.n) > 0.0 ? 1 : 0;
  return ccw;
}

/// Envs whose loop has no XCOUNT crossing.
inline int count_crossing_free(const Batch& b) {
  int free = 0;
  for (int e = 0; e < b.num_envs; ++e) free += geom::xcount(b.env(e), b.n) == 0 ? 1 : 0;
  return free;
}

/// TrackGenerator batch with seeds 0 + arange(E), its BatchStats (post-relax
/// track, pre-relax chain cs_center) and the per-env pre-relax crossing flags.
struct PipelineRun {
  BatchStats stats;
  std::vector<std::int32_t> pre_crossing;  // [E]
};

template <class Space>
PipelineRun run_batch(const TrackGenConfig& cfg) {
  SeedState<Space> seeds(cfg.num_envs, 0);
  TrackGenerator<Space> tg(cfg, seeds);
  const auto& track = tg.generate();
  BatchMetrics<Space> bm(cfg.num_envs, cfg.N_max);
  PipelineRun r;
  r.stats = bm.compute(track, tg.pre_relax_centerline(), 0.0);
  r.stats.generator = cfg.generator;
  r.pre_crossing = to_vector(bm.pre().result().self_intersects);
  return r;
}

/// Raw compactness of each env of a generator batch.
inline std::vector<double> raw_compactness(const Batch& b) {
  std::vector<double> c;
  for (int e = 0; e < b.num_envs; ++e) c.push_back(detail::metrics::loop_compactness(b.env(e), b.n));
  return c;
}

}  // namespace trackgen::test::generators
