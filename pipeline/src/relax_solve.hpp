// The relaxation solve of one env (docs/algorithms.md#relaxation): the sweep
// sequence, written once over the loop shapes of relax_loops.hpp, and the host
// solvers compiled per instruction set (relax_host.cpp). Internal to the
// pipeline.
#pragma once

#include "relax_loops.hpp"

namespace trackgen::detail::relaxation {

/// The sweep schedule of the solve: fixed by the config, the same for every env.
struct Schedule {
  int iters = 0;          ///< relax_iters
  int sep_every = 1;      ///< relax_sep_every
  int slots = 0;          ///< separation cache slots per bead
  int cheby_start = 0;    ///< relax_cheby_start
  int smooth_passes = 0;  ///< Taubin passes
  int spacing_iters = 0;  ///< spacing-only polish sweeps
  bool use_cache = false;
  bool chebyshev = false;
};

/// The schedule of `config`'s solve with `slots` cache slots per bead (the
/// buffers' count); Chebyshev runs only when the buffers hold its weights
/// (`has_omega`).
inline Schedule schedule_of(const TrackGenConfig& config, const PipelineConstants& c, int slots, bool has_omega) {
  return {.iters = config.relax_iters,
          .sep_every = config.relax_sep_every,
          .slots = slots,
          .cheby_start = config.relax_cheby_start,
          .smooth_passes = config.relax_smooth_passes,
          .spacing_iters = config.relax_smooth_spacing_iters,
          .use_cache = c.use_cache,
          .chebyshev = c.chebyshev && has_omega};
}

/// The distances of the solve for the pipeline constants `c`.
inline Distances distances_of(const PipelineConstants& c) {
  return {c.target, c.target * c.target, c.cache_radius, c.r_min};
}

/// Everything the solve of one env reads and writes.
struct EnvSolve {
  Env env;
  int n_max;
  Chain chains[3];         ///< read, write and (with Chebyshev) previous chain
  const Vec2f* input;      ///< the env's [N_max] constant-spacing chain
  Vec2f* output;           ///< the env's [N_max] relaxed chain
  SepSums sums;            ///< per-bead separation sums
  Cache cache;             ///< separation cache (null pointers without it)
  NearSplit split;         ///< host spaces with the cache: the lists' splits
  const float* omega;      ///< Chebyshev schedule, entry k - cheby_start
  Schedule schedule;
  Distances dist;
  RelaxWeights weights;
  float cheby_gamma;
};

/// Runs every sweep of one env's solve with the loop shapes of `loops` and
/// returns the number of its beads whose candidate list overflowed at some
/// refresh (0 without the cache).
template <class Loops>
KOKKOS_INLINE_FUNCTION int solve_env(const Loops& loops, const EnvSolve& a) {
  const Env& env = a.env;
  const int ne = env.count, n_max = a.n_max;
  const Schedule& s = a.schedule;
  const Distances& dist = a.dist;
  const RelaxWeights& weights = a.weights;
  const Cache& cache = a.cache;
  const SepSums& sums = a.sums;
  const Vec2f* const x0 = a.input;

  // Start: chain 0 <- the real beads of the input. Padding beads (i >= ne) are
  // never read by a sweep; the output copies them from the input at the end
  // (NaN, as the original system's per-sweep copy and blend leave them).
  Chain rd = a.chains[0], wr = a.chains[1], pv = a.chains[2];
  loops.beads(0, ne, [&](const int i) { rd.set(i, x0[i]); });
  if (s.use_cache) {  // padding beads hold no candidates
    loops.beads(ne, n_max, [&](const int i) {
      cache.count[i] = 0;
      cache.overflow[i] = 0;
    });
  }
  loops.barrier();

  for (int k = 0; k < s.iters; ++k) {
    if (s.use_cache) {
      if (k % s.sep_every == 0) {
        loops.refresh(rd, env, dist, cache, a.split, k == 0);
        loops.barrier();
      }
      loops.cached_separation(rd, env, dist, cache, a.split, sums);
    } else if (k % s.sep_every == 0) {
      loops.dense_separation(rd, env, dist, sums);
    } else {  // no separation: a zero push, which the update adds as the original system did
      loops.beads(0, ne, [&](const int i) { sums.set(i, 0.0f, 0.0f, 0.0f); });
    }
    loops.barrier();
    const bool accel = s.chebyshev && k >= s.cheby_start;
    if (accel) {
      const float w = a.omega[k - s.cheby_start], gamma = a.cheby_gamma;
      const Chain prev = k == s.cheby_start ? rd : pv;  // the transition aliases x_prev to x_cur
      loops.chain(rd, ne, [&](const int i, const int ip, const int in) {
        const Vec2f xc = rd.get(i), xq = prev.get(i);
        const Vec2f xh = bead_update(rd.get(ip), xc, rd.get(in), sums.mean(i), env.rest_length, dist.r_min, weights);
        wr.set(i, w * (gamma * (xh - xc) + (xc - xq)) + xq);
      });
    } else {
      loops.chain(rd, ne, [&](const int i, const int ip, const int in) {
        wr.set(i, bead_update(rd.get(ip), rd.get(i), rd.get(in), sums.mean(i), env.rest_length, dist.r_min, weights));
      });
    }
    loops.barrier();
    if (accel) {  // (read, write, prev) <- (write, prev, read)
      const Chain t = rd;
      rd = wr;
      wr = pv;
      pv = t;
    } else {
      const Chain t = rd;
      rd = wr;
      wr = t;
    }
  }

  // Taubin tail (lambda 0.5, mu -0.53) and the spacing-only polish, ping-pong.
  auto laplacian = [&](const float f) {
    loops.chain(rd, ne, [&](const int i, const int ip, const int in) {
      const Vec2f xi = rd.get(i);
      const Vec2f lap = 0.5f * (rd.get(ip) + rd.get(in)) - xi;
      wr.set(i, xi + f * lap);
    });
    loops.barrier();
    const Chain t = rd;
    rd = wr;
    wr = t;
  };
  for (int p = 0; p < s.smooth_passes; ++p) {
    laplacian(0.5f);
    laplacian(-0.53f);
  }
  const RelaxWeights polish{0.0f, weights.spacing, 0.0f};  // spacing only
  for (int it = 0; it < s.spacing_iters; ++it) {
    loops.chain(rd, ne, [&](const int i, const int ip, const int in) {
      wr.set(i, bead_update(rd.get(ip), rd.get(i), rd.get(in), Vec2f{0.0f, 0.0f}, env.rest_length, dist.r_min,
                            polish));
    });
    loops.barrier();
    const Chain t = rd;
    rd = wr;
    wr = t;
  }
  Vec2f* const out = a.output;
  loops.beads(0, n_max, [&](const int i) { out[i] = i < ne ? rd.get(i) : x0[i]; });
  return s.use_cache && s.iters > 0 ? loops.count_flags(ne, cache.overflow) : 0;
}

/// A host solver: solve_env with HostLoops, compiled for one instruction set.
using HostSolver = int (*)(const EnvSolve&);

/// The host solver for the instruction set host_simd() selects
/// (trackgen/pipeline/detail/simd.hpp).
HostSolver host_solver();

}  // namespace trackgen::detail::relaxation
