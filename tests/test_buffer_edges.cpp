// The pipeline's buffers at the edges of the config (docs/design.md#buffers):
// every stage stays inside the buffers allocated for its config. Run under the
// debug preset's AddressSanitizer (.ci/run's sanitizer step takes the [edges]
// tag), an access outside an allocation fails the case.
#include "relax_host_loops.hpp"
#include "relax_solve.hpp"
#include "test_pipeline_support.hpp"

#include <trackgen/pipeline/detail/simd.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;
namespace rx = trackgen::detail::relaxation;

/// One relaxation at an edge: the stride, the spacing (a circle of radius
/// `radius` gives about 2 pi radius / spacing beads, cut at n_max), the band,
/// the cache.
struct RelaxEdge {
  const char* name;
  int n_max;
  float spacing;
  double radius;
  std::optional<int> band;
  int slots;
  int sep_every;
};

// The near offsets of the host solve reach at most host_near_max (32) past a
// bead; an env without any (a band at or above the reach of the cache radius)
// must not read or write as far as its band. Spacing 0.02 with the default
// half-width: band 10, near offsets up to 32.
const RelaxEdge relax_edges[] = {
    {"spacing 2e-3: band about 115, no near offsets, truncated", 384, 2e-3f, 1.0, {}, 16, 20},
    {"spacing 1e-5: band about 23000", 384, 1e-5f, 1.0, {}, 16, 20},
    {"relax_band at its bound 16384", 384, 0.06f, 1.0, 16384, 16, 20},
    {"relax_band 31: one near offset, 32", 401, 0.02f, 1.3, 31, 16, 20},
    {"relax_band 32: none", 401, 0.02f, 1.3, 32, 16, 20},
    {"relax_band 33: none", 401, 0.02f, 1.3, 33, 16, 20},
    {"near offsets up to 32, N_max 401 (not whole blocks), full", 401, 0.02f, 1.3, {}, 16, 20},
    {"near offsets up to 32, N_max 400, full", 400, 0.02f, 1.3, {}, 16, 20},
    {"N_max 33, full", 33, 0.02f, 1.0, {}, 16, 20},
    {"N_max 17, full", 17, 0.02f, 1.0, {}, 16, 20},
    {"N_max 3, full", 3, 0.02f, 1.0, {}, 16, 20},
    {"2 beads", 384, 0.02f, 0.005, {}, 16, 20},
    {"1 bead", 384, 0.02f, 0.001, {}, 16, 20},
    {"one slot", 401, 0.02f, 1.3, {}, 1, 20},
    {"1024 slots (the bound)", 65, 0.02f, 1.0, {}, 1024, 20},
    {"1024 slots, no near offsets", 65, 2e-3f, 1.0, {}, 1024, 20},
    {"refresh every sweep", 401, 0.02f, 1.3, {}, 16, 2},
    {"no cache", 401, 2e-3f, 1.0, {}, 0, 1},
};

trackgen::TrackGenConfig relax_edge_config(const RelaxEdge& edge, int envs) {
  auto cfg = tt::stage_config(envs);
  cfg.N_max = edge.n_max;
  cfg.spacing = edge.spacing;
  cfg.relax_band = edge.band;
  cfg.relax_sep_cache_slots = edge.slots;
  cfg.relax_sep_every = edge.sep_every;
  cfg.relax_iters = 30;  // past the Chebyshev start and a refresh
  return cfg;
}

/// An array of `n` entries with `lead` more before the pointer given out, in
/// an allocation of its own (AddressSanitizer checks each one's bounds).
struct Array {
  std::vector<float> v;
  int lead;
  Array(int lead_, std::size_t n) : v(static_cast<std::size_t>(lead_) + n), lead(lead_) {}
  float* at() { return v.data() + lead; }
};

}  // namespace

#if TRACKGEN_HOST_LANES
// The host solve (every instruction set this CPU runs) and the per-bead one,
// each over scratch arrays allocated one by one at the sizes of
// PipelineBuffers: the host arrays of relax_bead_stride() entries with bead 0
// at relax_lane_block, the list scratch of host_split_words(); the same bits.
TEMPLATE_TEST_CASE("relaxation: the solves stay inside their scratch at the edge configs", "[pipeline][relax][edges]",
                   TRACKGEN_TEST_HOST_SPACES) {
  namespace d = trackgen::detail;
  std::vector<d::HostSimd> levels;
  for (const auto l : {d::HostSimd::baseline, d::HostSimd::avx2, d::HostSimd::avx512}) {
    if (d::host_simd_available(l)) levels.push_back(l);
  }
  for (const RelaxEdge& edge : relax_edges) {
    INFO("edge: " << edge.name);
    const auto cfg = relax_edge_config(edge, 2);
    tt::StageRig<TestType> rig(cfg);
    rig.load({tt::circle(256, edge.radius), tt::wobbly(256, edge.radius, 0.3 * edge.radius, 5, 0.2)});
    rig.resample();
    trackgen::relax_setup(rig.ctx, rig.config, rig.buffers, rig.track);
    rig.ctx.fence();
    const auto input = rig.cs_center();
    const auto count = rig.count();
    const auto band = tt::to_vector(rig.buffers.band);
    const auto l0 = tt::to_vector(rig.buffers.l0);
    const auto c = trackgen::pipeline_constants(cfg);
    const int n_max = rig.buffers.n_max(), slots = rig.buffers.cache_slots();
    const int stride = rig.buffers.relax_bead_stride(), lead = trackgen::PipelineBuffers<TestType>::relax_lane_block;
    const rx::Schedule schedule = rx::schedule_of(cfg, c, slots, !rig.buffers.cheby_omega_host.empty());
    for (int e = 0; e < cfg.num_envs; ++e) {
      INFO("env " << e << ": " << count[e] << " beads, band " << band[e]);
      CHECK(count[e] >= 1);
      const std::vector<Vec2f> x0(input.begin() + static_cast<std::ptrdiff_t>(e) * n_max,
                                  input.begin() + static_cast<std::ptrdiff_t>(e + 1) * n_max);
      // host == false: the per-bead solve (no lead needed; it has one anyway).
      auto solve = [&](bool host) {
        std::vector<Array> arrays;
        arrays.reserve(9);
        for (int k = 0; k < 9; ++k) arrays.emplace_back(lead, static_cast<std::size_t>(stride - lead));
        std::vector<std::int32_t> idx(static_cast<std::size_t>(std::max(slots, 1)) * n_max), cache_count(n_max),
            flags(n_max), split(host ? d::host_split_words(n_max, slots) : 0);
        std::vector<Vec2f> out(n_max);
        const rx::EnvSolve a{
            .env = {count[e], band[e], l0[e]},
            .n_max = n_max,
            .chains = {{arrays[0].at(), arrays[1].at()},
                       {arrays[2].at(), arrays[3].at()},
                       {arrays[4].at(), arrays[5].at()}},
            .input = x0.data(),
            .output = out.data(),
            .sums = {arrays[6].at(), arrays[7].at(), arrays[8].at()},
            .cache = {slots > 0 ? idx.data() : nullptr, static_cast<std::size_t>(n_max), cache_count.data(),
                      flags.data(), slots},
            .split = {host ? split.data() : nullptr, stride, static_cast<int>(d::host_pair_capacity(n_max, slots))},
            .omega = rig.buffers.cheby_omega_host.data(),
            .schedule = schedule,
            .dist = rx::distances_of(c),
            .weights = c.weights,
            .cheby_gamma = c.cheby_gamma};
        int overflow = -1;
        if (host) {
          overflow = rx::host_solver()(a);
        } else {
          Kokkos::parallel_for(Kokkos::TeamPolicy<TestType>(1, 1), [&](const auto& team) {
            overflow = rx::solve_env(rx::TeamLoops<std::decay_t<decltype(team)>>{team}, a);
          });
          Kokkos::fence();
        }
        return std::make_pair(out, overflow);
      };
      const auto per_bead = solve(false);
      for (const auto level : levels) {
        INFO("level " << d::host_simd_name(level));
        d::set_host_simd(level);
        const auto host = solve(true);
        CHECK(std::memcmp(host.first.data(), per_bead.first.data(), host.first.size() * sizeof(Vec2f)) == 0);
        CHECK(host.second == per_bead.second);
      }
    }
  }
  d::set_host_simd(std::nullopt);
}
#endif

// The configs of the relaxation's edges through the TrackGenerator (the
// PipelineBuffers' own scratch, its windows and threads), on every backend:
// the run completes, and the batch is the same with the baseline and the
// widest instruction set (the case above runs every level).
TEMPLATE_TEST_CASE("TrackGenerator: the relaxation's edge configs run inside the buffers", "[pipeline][relax][edges]",
                   TRACKGEN_TEST_SPACES) {
  namespace d = trackgen::detail;
  std::vector<d::HostSimd> levels{d::HostSimd::baseline};
  if constexpr (d::is_host_space<TestType>()) {
    for (const auto l : {d::HostSimd::avx512, d::HostSimd::avx2}) {
      if (levels.size() == 1 && d::host_simd_available(l)) levels.push_back(l);
    }
  }
  for (const RelaxEdge& edge : relax_edges) {
    INFO("edge: " << edge.name);
    auto cfg = relax_edge_config(edge, 3);
    cfg.relax_iters = 50;
    std::optional<tt::HostTrack> first;
    for (const auto level : levels) {
      INFO("level " << d::host_simd_name(level));
      if constexpr (d::is_host_space<TestType>()) d::set_host_simd(level);
      trackgen::SeedState<TestType> seeds(cfg.num_envs, 0);
      trackgen::TrackGenerator<TestType> tg(cfg, seeds);
      const auto h = tt::HostTrack::from(tg.generate());
      for (int e = 0; e < cfg.num_envs; ++e) CHECK(h.count[e] <= cfg.N_max);
      if (first) {
        CHECK(h.bitwise_equal(*first));
      } else {
        first = h;
      }
    }
  }
  if constexpr (d::is_host_space<TestType>()) d::set_host_simd(std::nullopt);
}
