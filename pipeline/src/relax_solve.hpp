// The relaxation solve of one env (docs/algorithms.md#relaxation): the sweep
// sequence, written once over the loop shapes of relax_loops.hpp (devices) and
// relax_host_loops.hpp (host), and the host solvers compiled per instruction
// set (relax_host.cpp). Internal to the pipeline.
#pragma once

#include "relax_loops.hpp"

#include <cmath>
#include <limits>

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

/// Distances::gentle for the bending radius guard `r_min`: from the largest
/// float curvature k whose radius 1 / max(k, 1e-12) (float) reaches r_min,
/// k^2 (1 - 2^-14) rounded to float; -1 when no curvature reaches it, the
/// search does not settle, or the value is not a normal float.
inline float gentle_of(float r_min) {
  auto radius = [](float k) { return 1.0f / kmath::max(k, 1e-12f); };
  if (!(r_min > 0.0f) || !(radius(0.0f) >= r_min)) return -1.0f;
  float k = 1.0f / r_min;
  for (int step = 0; step < 64 && !(radius(k) >= r_min); ++step) k = std::nextafter(k, 0.0f);
  for (int step = 0; step < 64; ++step) {
    const float up = std::nextafter(k, std::numeric_limits<float>::infinity());
    if (!(radius(up) >= r_min)) break;
    k = up;
  }
  const float up = std::nextafter(k, std::numeric_limits<float>::infinity());
  if (!(radius(k) >= r_min) || radius(up) >= r_min) return -1.0f;
  const double g = static_cast<double>(k) * static_cast<double>(k) * (1.0 - 0x1p-14);
  return g >= 0x1p-126 && g <= 0x1p127 ? static_cast<float>(g) : -1.0f;
}

/// The distances of the solve for the pipeline constants `c`.
inline Distances distances_of(const PipelineConstants& c) {
  return {c.target, c.target * c.target, c.cache_radius, c.r_min, gentle_of(c.r_min)};
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
  HostSplit split;         ///< host spaces: the lists' scratch (relax_host_loops.hpp)
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
    Blend blend;
    if (s.chebyshev && k >= s.cheby_start) {  // the transition aliases x_prev to x_cur
      blend = {true, k == s.cheby_start ? rd : pv, a.omega[k - s.cheby_start], a.cheby_gamma};
    }
    loops.update(rd, wr, env, &sums, dist, weights, blend);
    loops.barrier();
    if (blend.on) {  // (read, write, prev) <- (write, prev, read)
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
  auto swap = [&]() {
    loops.barrier();
    const Chain t = rd;
    rd = wr;
    wr = t;
  };
  for (int p = 0; p < s.smooth_passes; ++p) {
    loops.laplacian(rd, wr, ne, 0.5f);
    swap();
    loops.laplacian(rd, wr, ne, -0.53f);
    swap();
  }
  const RelaxWeights polish{0.0f, weights.spacing, 0.0f};  // spacing only, no separation push
  for (int it = 0; it < s.spacing_iters; ++it) {
    loops.update(rd, wr, env, nullptr, dist, polish, Blend{});
    swap();
  }
  Vec2f* const out = a.output;
  loops.beads(0, ne, [&](const int i) { out[i] = rd.get(i); });
  loops.beads(ne, n_max, [&](const int i) { out[i] = x0[i]; });
  return s.use_cache && s.iters > 0 ? loops.count_flags(ne, cache.overflow) : 0;
}

/// A host solver: solve_env with HostLoops, compiled for one instruction set.
using HostSolver = int (*)(const EnvSolve&);

/// The host solver for the instruction set host_simd() selects
/// (trackgen/pipeline/detail/simd.hpp).
HostSolver host_solver();

}  // namespace trackgen::detail::relaxation
