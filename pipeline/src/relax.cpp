// Relaxation (docs/algorithms.md#relaxation): band/L0 setup and the PBD-style
// Jacobi solve with separation, spacing and bending, the cached broadphase,
// Chebyshev acceleration, the Taubin tail and the spacing polish.
//
// Kernels:
//  - relax::band_l0: thread per env, O(count) scan (float64 perimeter).
//  - relax::solve: ONE team kernel, a team per env, running every sweep of the
//    solve for its env (docs/algorithms.md#how-the-solve-runs). The env's chains
//    live in structure-of-arrays scratch (relax_chains); a sweep is a
//    separation pass into per-bead sums (relax_sep) and an update pass, each
//    bead's value computed by one thread or vector lane with the operations and
//    order of the original system's per-bead kernel (separation candidates in
//    ascending bead index), so results do not depend on team size, loop shape
//    or scheduling. The loop shapes are per backend: on host spaces a team is
//    one thread that runs the env's passes in 16-lane vectors over its own
//    thread's scratch (relax_host_loops.hpp; the scratch stays in L1/L2 from
//    env to env); on GPUs a team is a thread block over the env's beads, its
//    passes separated by team barriers, over the env's own scratch
//    (relax_loops.hpp). The launch sequence and the chain rotation depend only
//    on the config, so the kernel is capturable. The per-env overflow count is
//    an integer sum of per-bead flags.
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
  DView<float, Space> chains;  // relax_chains: [units][chains][x, y][stride]
  DView<float, Space> sep;     // relax_sep: [units][sum x, sum y, count][stride]
  DView<int, Space> count;
  DView<int, Space> band;
  DView<float, Space> l0;
  DView<float, Space> omega;  // Chebyshev schedule, entry k - cheby_start
  CacheView cache_idx;        // [units * N_max, slots]
  DView<int, Space> cache_count;
  DView<int, Space> overflow_flag;
  DView<int, Space> cache_split;   // host loop shapes: [units][host_split_arrays][stride] list scratch
  DView<int, Space> sep_overflow;  // Track [E]

  int n_max = 0;
  int num_chains = 2;
  int stride = 0;               // relax_bead_stride() == relax_chain_stride()
  std::size_t split_words = 0;  // host loop shapes: list scratch per unit
  int pairs = 0;                // host loop shapes: entries of each far pair array
  int unit_base = 0;            // host loop shapes: the buffers' first scratch unit
  int units = 1;                // host loop shapes: the buffers' scratch units
  rx::Schedule schedule;
  rx::Distances dist;
  RelaxWeights weights;
  float cheby_gamma = 0;
  rx::HostSolver host_solver = nullptr;            // host loop shapes
  Kokkos::Experimental::UniqueToken<Space> token;  // host loop shapes: the thread's scratch unit

  /// Pointer to entry `base` of a View, null when the View is empty (a mode is off).
  template <class V>
  KOKKOS_INLINE_FUNCTION static auto at(const V& v, std::size_t base) -> decltype(v.data()) {
    return v.extent(0) > 0 ? v.data() + base : nullptr;
  }

  /// The solve of env e over the scratch of unit u (docs/algorithms.md#how-the-solve-runs).
  KOKKOS_INLINE_FUNCTION rx::EnvSolve env_solve(int e, int u) const {
    const std::size_t base = static_cast<std::size_t>(e) * n_max, unit = static_cast<std::size_t>(u);
    const std::size_t lead = PipelineBuffers<Space>::relax_lane_block;
    auto chain = [&](int c) -> rx::Chain {  // chain 0 again for a third chain without Chebyshev
      float* x = chains.data() + (unit * num_chains + (c < num_chains ? c : 0)) * 2 * stride + lead;
      return {x, x + stride};
    };
    float* const sp = sep.data() + unit * 3 * stride + lead;
    const std::size_t cache_base = unit * n_max;
    return {.env = {kmath::max(kmath::min(count(e), n_max), 0), kmath::max(band(e), 0), l0(e)},
            .n_max = n_max,
            .chains = {chain(0), chain(1), chain(2)},
            .input = input.data() + base,
            .output = output.data() + base,
            .sums = {sp, sp + stride, sp + 2 * stride},
            .cache = {at(cache_idx, cache_base), cache_idx.stride(1), at(cache_count, cache_base),
                      at(overflow_flag, cache_base), schedule.slots},
            .split = {at(cache_split, unit * split_words), stride, pairs},
            .omega = omega.data(),
            .schedule = schedule,
            .dist = dist,
            .weights = weights,
            .cheby_gamma = cheby_gamma};
  }

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    int overflowed = 0;
    if constexpr (detail::relax_host_lanes<Space>()) {
      // One unit: the buffers of one thread (a window thread's part), used by
      // one thread at a time; a token of a partition's instance can name the
      // thread's rank in the enclosing pool instead of 0 (Kokkos >= 4).
      const int u = units == 1 ? 0 : token.acquire();
      overflowed = host_solver(env_solve(e, unit_base + u));
      if (units != 1) token.release(u);
    } else {
      overflowed = rx::solve_env(rx::TeamLoops<detail::TeamMember<Space>>{team}, env_solve(e, e));
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sep_overflow(e) = overflowed; });
  }
};

/// The host solver of the host loop shapes on `Space`, null elsewhere.
template <class Space>
rx::HostSolver host_solver_of() {
  if constexpr (detail::relax_host_lanes<Space>()) {
    return rx::host_solver();
  } else {
    return nullptr;
  }
}

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
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::relax_setup");
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
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::relax_solve");
  const PipelineConstants c = pipeline_constants(config);
  const rx::Schedule schedule = rx::schedule_of(config, c, buffers.cache_slots(), !buffers.cheby_omega_host.empty());
  const RelaxSolveKernel<Space> k{
      .input = buffers.cs_center,
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
      .stride = buffers.relax_bead_stride(),
      .split_words = detail::host_split_words(buffers.n_max(), buffers.cache_slots()),
      .pairs = static_cast<int>(detail::host_pair_capacity(buffers.n_max(), buffers.cache_slots())),
      .unit_base = buffers.relax_unit_base(),
      .units = buffers.relax_units(),
      .schedule = schedule,
      .dist = rx::distances_of(c),
      .weights = c.weights,
      .cheby_gamma = c.cheby_gamma,
      .host_solver = host_solver_of<Space>(),
      .token = Kokkos::Experimental::UniqueToken<Space>(ctx.space())};
  ctx.for_each_team("TrackGen::pipeline::relax::solve", buffers.num_envs(), detail::env_team_size<Space>(), k);
}

template <class Space>
void relax(const LaunchContext<Space>& ctx, const TrackGenConfig& config, PipelineBuffers<Space>& buffers,
           Track<typename Space::memory_space>& track) {
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::relax");
  if (config.relax_enable) {
    relax_setup(ctx, config, buffers, track);
    relax_solve(ctx, config, buffers, track);
  } else {
    ctx.for_each("TrackGen::pipeline::relax::zero_overflow", static_cast<std::size_t>(buffers.num_envs()),
                 ZeroKernel<Space>{track.sep_overflow});
  }
}

#define TRACKGEN_INSTANTIATE_RELAX(S)                                                               \
  template void relax_setup<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&, \
                               const Track<typename S::memory_space>&);                             \
  template void relax_solve<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&, \
                               Track<typename S::memory_space>&);                                   \
  template void relax<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&,       \
                         Track<typename S::memory_space>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_RELAX)

}  // namespace trackgen
