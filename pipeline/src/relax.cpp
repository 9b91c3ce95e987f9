// Relaxation (docs/algorithms.md#relaxation): band/L0 setup and the PBD-style
// Jacobi solve with separation, spacing and bending, the cached broadphase,
// Chebyshev acceleration, the Taubin tail and the spacing polish.
//
// Kernels:
//  - relax::band_l0: thread per env, O(count) scan (float64 perimeter).
//  - relax::solve: ONE team kernel, a team per env, running every sweep of the
//    solve for its env. Within a sweep each team thread updates one bead from
//    the read buffer into the write buffer (Jacobi, exactly the original
//    system's per-bead kernel); sweeps, cache refreshes and buffer rotations are separated
//    by team barriers. The launch sequence and the rotation depend only on the
//    config, so the kernel is capturable. Every bead value is computed by one
//    thread with a fixed operation order (separation candidates in ascending
//    bead index), so results do not depend on team size or scheduling. The
//    per-env overflow count is an integer sum of per-bead flags.
//    On host spaces a team is one thread, so an env's three chains (a few KB)
//    stay in L1 across all sweeps instead of streaming the whole batch from
//    memory ~100 times; on GPUs a team is a thread block over the env's beads.
#include "pipeline_detail.hpp"

namespace trackgen {
namespace {

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

enum class SepMode { none, dense, cached };

/// The sweep schedule of the solve: fixed by the config, the same for every env.
struct RelaxSchedule {
  int iters = 0;          ///< relax_iters
  int sep_every = 1;      ///< relax_sep_every
  int slots = 0;          ///< separation cache slots per bead
  int cheby_start = 0;    ///< relax_cheby_start
  int smooth_passes = 0;  ///< Taubin passes
  int spacing_iters = 0;  ///< spacing-only polish sweeps
  bool use_cache = false;
  bool chebyshev = false;
};

/// The distances of the solve.
struct RelaxDistances {
  float target = 0;        ///< separation target 2 hw (1 + margin)
  float cache_radius = 0;  ///< broadphase radius
  float r_min = 0;         ///< bending radius guard
};

/// One env's chain as a sweep sees it: its real bead count, separation band
/// and rest length.
struct EnvChain {
  int count;
  int band;
  float rest_length;
};

template <class Space>
struct RelaxSolveKernel {
  using CacheView = typename PipelineBuffers<Space>::CacheView;

  DView<Vec2f, Space> input;    // cs_center
  DView<Vec2f, Space> chain_a;  // relaxed
  DView<Vec2f, Space> chain_b;  // relax_swap
  DView<Vec2f, Space> chain_c;  // cheb_prev (empty without Chebyshev)
  DView<int, Space> count;
  DView<int, Space> band;
  DView<float, Space> l0;
  DView<float, Space> omega;    // Chebyshev schedule, entry k - cheby_start
  CacheView cache_idx;
  DView<int, Space> cache_count;
  DView<int, Space> overflow_flag;
  DView<int, Space> sep_overflow;  // Track [E]

  int n_max = 0;
  RelaxSchedule schedule;
  RelaxDistances dist;
  RelaxWeights weights;
  float cheby_gamma = 0;

  /// One Jacobi update of real bead i (docs/algorithms.md#relaxation) of env
  /// chain `env`, reading chain x, with constraint weights `w`.
  ///
  /// The original system's AABB quick reject (|dx| < target and |dy| < target)
  /// is implied by the float test |d|^2 < target^2 (rounding is monotonic:
  /// fl(dx^2) <= fl(dx^2 + dy^2) < fl(t^2) gives |dx| < t), so it is left out:
  /// same candidates, same results, fewer unpredictable branches.
  KOKKOS_INLINE_FUNCTION Vec2f step_bead(const Vec2f* x, int i, const EnvChain& env, std::size_t bead, SepMode mode,
                                         const RelaxWeights& w) const {
    const int ne = env.count, band_e = env.band;
    const float l0_e = env.rest_length, target = dist.target, r_min = dist.r_min;
    const Vec2f xi = x[i];
    Vec2f sep{0.0f, 0.0f};
    if (mode != SepMode::none) {
      const float t2 = target * target;
      Vec2f sum{0.0f, 0.0f};
      int cnt = 0;
      auto consider = [&](const int j) {
        const Vec2f diff = xi - x[j];
        const float d2 = length_sq(diff);
        if (d2 < t2) {
          const float dist = kmath::max(kmath::sqrt(d2), 1e-9f);
          sum += (0.5f * (target - dist) / dist) * diff;
          ++cnt;
        }
      };
      if (mode == SepMode::dense) {
        // ascending j with circ(i, j, ne) > band, i.e. band < |i - j| < ne - band
        const int hi1 = i - band_e - 1;
        for (int j = kmath::max(0, i - ne + band_e + 1); j <= hi1; ++j) consider(j);
        const int hi2 = kmath::min(ne - 1, i + ne - band_e - 1);
        for (int j = i + band_e + 1; j <= hi2; ++j) consider(j);
      } else {
        const int nc = cache_count(bead);
        for (int k = 0; k < nc; ++k) consider(cache_idx(bead, k));
      }
      if (cnt > 0) sep = sum / static_cast<float>(cnt);
    }
    const Vec2f xn = x[i + 1 < ne ? i + 1 : 0];
    const Vec2f xp = x[i > 0 ? i - 1 : ne - 1];
    // spacing
    const Vec2f dn = xn - xi;
    const Vec2f dp = xi - xp;
    const float len_n = length(dn), len_p = length(dp);
    const float ln = kmath::max(len_n, 1e-9f);
    const float lp = kmath::max(len_p, 1e-9f);
    const Vec2f spc = 0.25f * (((ln - l0_e) / ln) * dn - ((lp - l0_e) / lp) * dp);
    // bending / radius guard with the flip clamp; the Menger curvature of
    // (xp, xi, xn) exactly as geom::menger_curvature, reusing both edge lengths
    const float area = 0.5f * kmath::fabs(cross(dp, dn));
    const float kappa = 4.0f * area / kmath::max(len_p * len_n * length(xn - xp), 1e-12f);
    const float radius = 1.0f / kmath::max(kappa, 1e-12f);
    const float deficit = kmath::max((r_min - radius) / r_min, 0.0f);
    const float bscale = kmath::min(w.bending * deficit, 1.0f);
    const Vec2f toward = 0.5f * (xp + xn) - xi;
    return xi + w.separation * sep + w.spacing * spc + bscale * toward;
  }

  /// Broadphase refresh (docs/algorithms.md#separation-cache): the first `slots`
  /// beads j (ascending) with circ(i, j) > band inside the cache radius; flags
  /// beads with more. (The AABB pre-reject is implied by the distance test, see
  /// step_bead.)
  KOKKOS_INLINE_FUNCTION void build_cache(const detail::TeamMember<Space>& team, const Vec2f* x, std::size_t base,
                                          int ne, int band_e, bool first) const {
    const int slots = schedule.slots;
    const float r = dist.cache_radius;
    const float r2 = r * r;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) {
      const std::size_t bead = base + static_cast<std::size_t>(i);
      const Vec2f xi = x[i];
      int n = 0;
      int over = 0;
      // ascending j with circ(i, j, ne) > band, stopping at the first overflow
      const int hi1 = i - band_e - 1;
      for (int j = kmath::max(0, i - ne + band_e + 1); j <= hi1 && !over; ++j) {
        if (length_sq(xi - x[j]) < r2) {
          if (n == slots) {
            over = 1;
          } else {
            cache_idx(bead, n++) = j;
          }
        }
      }
      const int hi2 = kmath::min(ne - 1, i + ne - band_e - 1);
      for (int j = i + band_e + 1; j <= hi2 && !over; ++j) {
        if (length_sq(xi - x[j]) < r2) {
          if (n == slots) {
            over = 1;
          } else {
            cache_idx(bead, n++) = j;
          }
        }
      }
      cache_count(bead) = n;
      overflow_flag(bead) = first ? over : (overflow_flag(bead) | over);
    });
  }

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const int ne = kmath::max(kmath::min(count(e), n_max), 0);
    const int band_e = kmath::max(band(e), 0);
    const EnvChain env{ne, band_e, l0(e)};
    const int iters = schedule.iters, sep_every = schedule.sep_every, cheby_start = schedule.cheby_start;
    const bool use_cache = schedule.use_cache, chebyshev = schedule.chebyshev;
    const RelaxWeights polish{0.0f, weights.spacing, 0.0f};  // spacing only
    Vec2f* const a = chain_a.data() + base;
    Vec2f* const b = chain_b.data() + base;
    Vec2f* const c = chebyshev ? chain_c.data() + base : nullptr;
    const Vec2f* const x0 = input.data() + base;

    // Start: A <- input. Padding beads (i >= ne) copy through: they are written
    // once into every buffer here and never touched again, so the sweeps only
    // visit real beads. (The input's padding is NaN, which the original system's
    // per-sweep copy and Chebyshev blend leave NaN as well.)
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int i) {
      const Vec2f v = x0[i];
      a[i] = v;
      if (i >= ne) {
        b[i] = v;
        if (c != nullptr) c[i] = v;
        if (use_cache) {  // padding beads hold no candidates
          cache_count(base + i) = 0;
          overflow_flag(base + i) = 0;
        }
      }
    });
    team.team_barrier();

    Vec2f* rd = a;
    Vec2f* wr = b;
    Vec2f* pv = c;
    for (int k = 0; k < iters; ++k) {
      SepMode mode = SepMode::none;
      if (use_cache) {
        if (k % sep_every == 0) {
          build_cache(team, rd, base, ne, band_e, k == 0);
          team.team_barrier();
        }
        mode = SepMode::cached;
      } else if (k % sep_every == 0) {
        mode = SepMode::dense;
      }
      const bool accel = chebyshev && k >= cheby_start;
      if (accel) {
        const float w = omega(k - cheby_start);
        const Vec2f* const prev = k == cheby_start ? rd : pv;  // the transition aliases x_prev to x_cur
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) {
          const Vec2f xh = step_bead(rd, i, env, base + i, mode, weights);
          const Vec2f xc = rd[i], xq = prev[i];
          wr[i] = w * (cheby_gamma * (xh - xc) + (xc - xq)) + xq;
        });
      } else {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) {
          wr[i] = step_bead(rd, i, env, base + i, mode, weights);
        });
      }
      team.team_barrier();
      if (accel) {  // (read, write, prev) <- (write, prev, read)
        Vec2f* const t = rd;
        rd = wr;
        wr = pv;
        pv = t;
      } else {
        Vec2f* const t = rd;
        rd = wr;
        wr = t;
      }
    }

    // Taubin tail (lambda 0.5, mu -0.53) and the spacing-only polish, ping-pong.
    auto laplacian = [&](const float f) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) {
        const Vec2f xi = rd[i];
        const Vec2f lap = 0.5f * (rd[i > 0 ? i - 1 : ne - 1] + rd[i + 1 < ne ? i + 1 : 0]) - xi;
        wr[i] = xi + f * lap;
      });
      team.team_barrier();
      Vec2f* const t = rd;
      rd = wr;
      wr = t;
    };
    for (int p = 0; p < schedule.smooth_passes; ++p) {
      laplacian(0.5f);
      laplacian(-0.53f);
    }
    for (int s = 0; s < schedule.spacing_iters; ++s) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) {
        wr[i] = step_bead(rd, i, env, base + i, SepMode::none, polish);
      });
      team.team_barrier();
      Vec2f* const t = rd;
      rd = wr;
      wr = t;
    }
    if (rd != a) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int i) { a[i] = rd[i]; });
    }

    // Overflow diagnostic: beads whose list overflowed at any refresh of this solve.
    int overflowed = 0;
    if (use_cache && iters > 0) {
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, ne), [&](const int i, int& sum) { sum += overflow_flag(base + i); },
          overflowed);
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
  const RelaxSchedule schedule{.iters = config.relax_iters,
                                .sep_every = config.relax_sep_every,
                                .slots = buffers.cache_slots(),
                                .cheby_start = config.relax_cheby_start,
                                .smooth_passes = config.relax_smooth_passes,
                                .spacing_iters = config.relax_smooth_spacing_iters,
                                .use_cache = c.use_cache,
                                .chebyshev = c.chebyshev && !buffers.cheby_omega_host.empty()};
  const RelaxSolveKernel<Space> k{.input = buffers.cs_center,
                                  .chain_a = buffers.relaxed,
                                  .chain_b = buffers.relax_swap,
                                  .chain_c = buffers.cheb_prev,
                                  .count = track.count,
                                  .band = buffers.band,
                                  .l0 = buffers.l0,
                                  .omega = buffers.cheby_omega,
                                  .cache_idx = buffers.sep_cache_idx,
                                  .cache_count = buffers.sep_cache_count,
                                  .overflow_flag = buffers.sep_overflow_flag,
                                  .sep_overflow = track.sep_overflow,
                                  .n_max = buffers.n_max(),
                                  .schedule = schedule,
                                  .dist = {c.target, c.cache_radius, c.r_min},
                                  .weights = c.weights,
                                  .cheby_gamma = c.cheby_gamma};
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
