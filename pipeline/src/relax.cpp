// Relaxation (docs/algorithms.md#relaxation): band/L0 setup and the PBD-style
// Jacobi solve with separation, spacing and bending, the cached broadphase,
// Chebyshev acceleration, the Taubin tail and the spacing polish.
//
// Kernels:
//  - relax::band_l0: thread per env, O(count) scan (float64 perimeter).
//  - relax::solve: ONE team kernel, a team per env, running every sweep of the
//    solve for its env (docs/algorithms.md#how-the-solve-runs). The env's chains
//    live in per-env structure-of-arrays buffers (relax_chains); a sweep is a
//    separation pass into per-bead sums (relax_sep) and an update pass, each
//    bead's value computed by one thread with the operations and order of the
//    original system's per-bead kernel (separation candidates in ascending bead
//    index), so results do not depend on team size, loop shape or scheduling.
//    The loop shapes are per backend (relax_loops.hpp): on host spaces a team
//    is one thread whose bead loops run in index order over contiguous arrays,
//    which the compiler vectorizes (the env's chains stay in L1 across all
//    sweeps); on GPUs a team is a thread block over the env's beads, its passes
//    separated by team barriers. The launch sequence and the chain rotation
//    depend only on the config, so the kernel is capturable. The per-env
//    overflow count is an integer sum of per-bead flags.
#include "pipeline_detail.hpp"
#include "relax_solve.hpp"

namespace trackgen {
namespace {

namespace rx = detail::relaxation;

template <class Space>
struct BandL0Kernel {
  DView<Vec2f, Space> x;
  DView<int, Space> count;
  DView<int, Space> band;
  DView<float, Space> l0;
  int n_max = 0;
  float two_hw = 0;
  bool has_override = false;
  int band_override = 0;

  KOKKOS_FUNCTION void operator()(const int e) const {
    const int cn = kmath::min(count(e), n_max);
    const Vec2f* p = x.data() + static_cast<std::size_t>(e) * n_max;
    double acc = 0.0;
    for (int i = 0; i < cn; ++i) acc += static_cast<double>(length(p[i + 1 < cn ? i + 1 : 0] - p[i]));
    const float L = cn > 0 ? static_cast<float>(acc) / static_cast<float>(cn) : nanf();
    l0(e) = L;
    band(e) = has_override ? band_override : geom::sep_band(L, two_hw);
  }
};

template <class Space>
struct RelaxSolveKernel {
  using CacheView = typename PipelineBuffers<Space>::CacheView;

  DView<Vec2f, Space> input;   // cs_center
  DView<Vec2f, Space> output;  // relaxed
  DView<float, Space> chains;  // relax_chains: [E][chains][x, y][ghost, N_max, ghost, padding]
  DView<float, Space> sep;     // relax_sep: [E][sum x, sum y, count][N_max, padding]
  DView<int, Space> count;
  DView<int, Space> band;
  DView<float, Space> l0;
  DView<float, Space> omega;  // Chebyshev schedule, entry k - cheby_start
  CacheView cache_idx;
  DView<int, Space> cache_count;
  DView<int, Space> overflow_flag;
  DView<int, Space> cache_split;   // host spaces: [E][NearSplit::arrays][N_max, padding] list splits
  DView<int, Space> sep_overflow;  // Track [E]

  int n_max = 0;
  int num_chains = 2;
  int bead_stride = 0;   // relax_bead_stride()
  int chain_stride = 0;  // relax_chain_stride()
  rx::Schedule schedule;
  rx::Distances dist;
  RelaxWeights weights;
  float cheby_gamma = 0;
  rx::HostSolver host_solver = nullptr;  // host spaces

  /// Chain c of env e (chain 0 again for a third chain without Chebyshev),
  /// bead 0 after the leading ghost.
  KOKKOS_INLINE_FUNCTION rx::Chain chain(int e, int c) const {
    float* x =
        chains.data() + (static_cast<std::size_t>(e) * num_chains + (c < num_chains ? c : 0)) * 2 * chain_stride + 1;
    return {x, x + chain_stride};
  }

  /// Pointer to entry `base` of a View, null when the View is empty (a mode is off).
  template <class V>
  KOKKOS_INLINE_FUNCTION static auto at(const V& v, std::size_t base) -> decltype(v.data()) {
    return v.extent(0) > 0 ? v.data() + base : nullptr;
  }

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const std::size_t base = static_cast<std::size_t>(e) * n_max, padded = static_cast<std::size_t>(e) * bead_stride;
    float* const sp = sep.data() + 3 * padded;
    const rx::EnvSolve a{
        .env = {kmath::max(kmath::min(count(e), n_max), 0), kmath::max(band(e), 0), l0(e)},
        .n_max = n_max,
        .chains = {chain(e, 0), chain(e, 1), chain(e, 2)},
        .input = input.data() + base,
        .output = output.data() + base,
        .sums = {sp, sp + bead_stride, sp + 2 * bead_stride},
        .cache = {at(cache_idx, base), cache_idx.stride(1), at(cache_count, base), at(overflow_flag, base),
                  schedule.slots},
        .split = rx::NearSplit::at(at(cache_split, rx::NearSplit::arrays * padded), bead_stride),
        .omega = omega.data(),
        .schedule = schedule,
        .dist = dist,
        .weights = weights,
        .cheby_gamma = cheby_gamma};
    int overflowed = 0;
    if constexpr (detail::is_host_space<Space>()) {
      overflowed = host_solver(a);
    } else {
      overflowed = rx::solve_env(rx::TeamLoops<detail::TeamMember<Space>>{team}, a);
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sep_overflow(e) = overflowed; });
  }
};

template <class Space>
struct ZeroKernel {
  DView<int, Space> v;
  KOKKOS_FUNCTION void operator()(const int e) const { v(e) = 0; }
};

}  // namespace

template <class Space>
void relax_setup(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                 const Track<typename Space::memory_space>& track) {
  const auto region = ctx.region("TrackGen::pipeline::relax_setup");
  detail::check_inputs(buffers, config, track, "trackgen::relax_setup");
  const BandL0Kernel<Space> k{.x = buffers.cs_center,
                              .count = track.count,
                              .band = buffers.band,
                              .l0 = buffers.l0,
                              .n_max = buffers.n_max(),
                              .two_hw = pipeline_constants(config).two_hw,
                              .has_override = config.relax_band.has_value(),
                              .band_override = config.relax_band.value_or(0)};
  ctx.for_each("TrackGen::pipeline::relax::band_l0", static_cast<std::size_t>(buffers.num_envs()), k);
}

template <class Space>
void relax_solve(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
                 Track<typename Space::memory_space>& track) {
  const auto region = ctx.region("TrackGen::pipeline::relax_solve");
  detail::check_inputs(buffers, config, track, "trackgen::relax_solve");
  const PipelineConstants c = pipeline_constants(config);
  const rx::Schedule schedule = rx::schedule_of(config, c, buffers.cache_slots(), !buffers.cheby_omega_host.empty());
  const RelaxSolveKernel<Space> k{.input = buffers.cs_center,
                                  .output = buffers.relaxed,
                                  .chains = buffers.relax_chains,
                                  .sep = buffers.relax_sep,
                                  .count = track.count,
                                  .band = buffers.band,
                                  .l0 = buffers.l0,
                                  .omega = buffers.cheby_omega,
                                  .cache_idx = buffers.sep_cache_idx,
                                  .cache_count = buffers.sep_cache_count,
                                  .overflow_flag = buffers.sep_overflow_flag,
                                  .cache_split = buffers.sep_cache_split,
                                  .sep_overflow = track.sep_overflow,
                                  .n_max = buffers.n_max(),
                                  .num_chains = buffers.relax_chain_count(),
                                  .bead_stride = buffers.relax_bead_stride(),
                                  .chain_stride = buffers.relax_chain_stride(),
                                  .schedule = schedule,
                                  .dist = rx::distances_of(c),
                                  .weights = c.weights,
                                  .cheby_gamma = c.cheby_gamma,
                                  .host_solver = detail::is_host_space<Space>() ? rx::host_solver() : nullptr};
  ctx.for_each_team("TrackGen::pipeline::relax::solve", buffers.num_envs(), detail::env_team_size<Space>(), k);
}

template <class Space>
void relax(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
           Track<typename Space::memory_space>& track) {
  detail::check_inputs(buffers, config, track, "trackgen::relax");
  if (config.relax_enable) {
    relax_setup(ctx, config, buffers, track);
    relax_solve(ctx, config, buffers, track);
  } else {
    ctx.for_each("TrackGen::pipeline::relax::zero_overflow", static_cast<std::size_t>(buffers.num_envs()),
                 ZeroKernel<Space>{track.sep_overflow});
  }
}

#define TRACKGEN_INSTANTIATE_RELAX(S)                                                                   \
  template void relax_setup<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,    \
                               const Track<typename S::memory_space>&);                                \
  template void relax_solve<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,    \
                               Track<typename S::memory_space>&);                                      \
  template void relax<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,          \
                         Track<typename S::memory_space>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_RELAX)

}  // namespace trackgen
