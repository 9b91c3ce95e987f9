// The relaxation solve's per-bead operations and the device loop shapes
// (docs/algorithms.md#how-the-solve-runs); the host shapes are in
// relax_host_loops.hpp. Internal to the pipeline.
//
// Every function that computes a bead's value does so with the operations and
// in the order of the original system's per-bead kernel; the loop shapes only
// decide which thread (or vector lane) runs it and in which order beads are
// visited, never the order of the operations within one bead.
#pragma once

#include "pipeline_detail.hpp"

#include <bit>
#include <cstdint>

// Tells GCC that a host bead loop carries no dependence between iterations (each
// iteration writes only its own bead), so it vectorizes without run-time alias
// checks between the chains.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define TRACKGEN_IVDEP _Pragma("GCC ivdep")
#else
#define TRACKGEN_IVDEP
#endif

namespace trackgen::detail::relaxation {

/// The distances of the solve.
struct Distances {
  float target = 0;        ///< separation target 2 hw (1 + margin)
  float target_sq = 0;     ///< target * target (float)
  float cache_radius = 0;  ///< broadphase radius
  float r_min = 0;         ///< bending radius guard
  /// The host update's test for a bend too gentle to need its bending term
  /// (HostLoops::gentle): kappa_free^2 (1 - 2^-14), kappa_free the largest
  /// float curvature whose radius 1 / max(kappa, 1e-12) reaches r_min; -1
  /// when there is none or it is not a normal float (the test then never
  /// passes).
  float gentle = -1.0f;
};

/// One env's chain as a sweep sees it: its real bead count, separation band
/// and rest length.
struct Env {
  int count;
  int band;
  float rest_length;
};

/// One chain of an env in structure-of-arrays form. The host solve also keeps
/// ghost copies of the closed chain's beads before bead 0 and after the last
/// one, and its passes write padding beads after them (its chains have room
/// for all, relax_host_loops.hpp).
struct Chain {
  float* x;
  float* y;
  KOKKOS_FORCEINLINE_FUNCTION Vec2f get(int i) const { return {x[i], y[i]}; }
  KOKKOS_FORCEINLINE_FUNCTION void set(int i, Vec2f v) const {
    x[i] = v.x;
    y[i] = v.y;
  }
};

/// Per-bead separation sums of a sweep: the sum of the candidates' pushes and
/// their number (a small integer, exact in float).
struct SepSums {
  float* x;
  float* y;
  float* n;
  KOKKOS_INLINE_FUNCTION void set(int i, float sx, float sy, float sn) const {
    x[i] = sx;
    y[i] = sy;
    n[i] = sn;
  }
  /// The mean push, zero without a candidate: sum / float(count). (Both
  /// quotients are computed unconditionally, so a bead loop stays branch-free.)
  KOKKOS_FORCEINLINE_FUNCTION Vec2f mean(int i) const {
    const float c = n[i];
    const float mx = x[i] / c, my = y[i] / c;
    return {c > 0.0f ? mx : 0.0f, c > 0.0f ? my : 0.0f};
  }
};

/// One env's separation cache: candidate k of bead i at idx[i + k * stride].
struct Cache {
  std::int32_t* idx;
  std::size_t stride;
  std::int32_t* count;
  std::int32_t* overflow;
  int slots;
};

/// The push factor 0.5 (target - d) / d, d = max(sqrt(d2), 1e-9), of a pair at
/// squared distance d2.
KOKKOS_FORCEINLINE_FUNCTION float push_factor(float d2, const Distances& d) {
  const float dist = kmath::max(kmath::sqrt(d2), 1e-9f);
  return 0.5f * (d.target - dist) / dist;
}

/// Adds the push of bead j on bead i, 0.5 (target - d) / d (x_i - x_j) with
/// d = max(|x_i - x_j|, 1e-9), to bead i's sums (sx, sy) and count sn when
/// `active` and |x_i - x_j|^2 < target^2. Branch-free: an inactive or distant
/// pair adds +0, which leaves the sums' bits unchanged (a sum that starts at +0
/// never becomes -0 in round-to-nearest, and x + 0 == x for every other x).
///
/// The original system's AABB quick reject (|dx| < target and |dy| < target)
/// is implied by the float test |d|^2 < target^2 (rounding is monotonic:
/// fl(dx^2) <= fl(dx^2 + dy^2) < fl(t^2) gives |dx| < t), so it is left out.
KOKKOS_FORCEINLINE_FUNCTION void add_push(float& sx, float& sy, float& sn, Vec2f xi, Vec2f xj, const Distances& d,
                                     bool active) {
  const Vec2f diff = xi - xj;
  const float d2 = length_sq(diff);
  const bool hit = d2 < (active ? d.target_sq : 0.0f);  // d2 >= 0: never below 0 (one select, vectorizable)
  const float f = push_factor(d2, d);
  const float px = f * diff.x, py = f * diff.y;
  sx += hit ? px : 0.0f;
  sy += hit ? py : 0.0f;
  sn += hit ? 1.0f : 0.0f;
}

/// add_push into bead i's sums of `s`, each read once and written once: a
/// vector pass then keeps the three sums in registers (with the sums' elements
/// as references the compiler must store and reload each one between the three
/// additions, as the arrays might overlap).
KOKKOS_FORCEINLINE_FUNCTION void add_push_to(const SepSums& s, int i, Vec2f xi, Vec2f xj, const Distances& d,
                                         bool active) {
  float sx = s.x[i], sy = s.y[i], sn = s.n[i];
  add_push(sx, sy, sn, xi, xj, d, active);
  s.set(i, sx, sy, sn);
}

/// add_push for a pair on the list, in a per-bead (scalar) loop: the same float
/// operations when |x_i - x_j|^2 < target^2, nothing otherwise (where add_push
/// adds +0, which leaves the sums' bits unchanged), so a pair beyond the target
/// costs no square root or division.
KOKKOS_FORCEINLINE_FUNCTION void add_push_if_near(float& sx, float& sy, float& sn, Vec2f xi, Vec2f xj,
                                               const Distances& d) {
  const Vec2f diff = xi - xj;
  const float d2 = length_sq(diff);
  if (!(d2 < d.target_sq)) return;
  const float f = push_factor(d2, d);
  sx += f * diff.x;
  sy += f * diff.y;
  sn += 1.0f;
}

/// One Jacobi update of bead xi between xp and xn (docs/algorithms.md#one-sweep):
/// separation `sep` (already averaged), spacing, and bending with the flip clamp.
KOKKOS_FORCEINLINE_FUNCTION Vec2f bead_update(Vec2f xp, Vec2f xi, Vec2f xn, Vec2f sep, float l0, float r_min,
                                         const RelaxWeights& w) {
  const Vec2f dn = xn - xi;
  const Vec2f dp = xi - xp;
  const float len_n = length(dn), len_p = length(dp);
  const float ln = kmath::max(len_n, 1e-9f);
  const float lp = kmath::max(len_p, 1e-9f);
  const Vec2f spc = 0.25f * (((ln - l0) / ln) * dn - ((lp - l0) / lp) * dp);
  // The Menger curvature of (xp, xi, xn) exactly as geom::menger_curvature,
  // reusing both edge lengths.
  const float area = 0.5f * kmath::fabs(cross(dp, dn));
  const float kappa = 4.0f * area / kmath::max(len_p * len_n * length(xn - xp), 1e-12f);
  const float radius = 1.0f / kmath::max(kappa, 1e-12f);
  const float deficit = kmath::max((r_min - radius) / r_min, 0.0f);
  const float bscale = kmath::min(w.bending * deficit, 1.0f);
  const Vec2f toward = 0.5f * (xp + xn) - xi;
  return xi + w.separation * sep + w.spacing * spc + bscale * toward;
}

/// The Chebyshev blend of a sweep (docs/algorithms.md#chebyshev): off, or
/// x_new = w (gamma (x^ - x) + (x - x_prev)) + x_prev with the previous chain.
struct Blend {
  bool on = false;
  Chain prev{};
  float w = 0.0f;
  float gamma = 0.0f;
};

/// The host solve's per-thread scratch for one env's lists (HostSplit::at in
/// relax_host_loops.hpp): arrays of `stride` int32 entries from `base`, then
/// arrays of `pairs`; null on devices.
struct HostSplit {
  std::int32_t* base = nullptr;
  int stride = 0;
  int pairs = 0;  ///< entries of each far pair array
};

/// The beads j of an env that bead i never separates from are those with
/// circ(i, j, n) <= band; the others, ascending, are [lo1, hi1] then [lo2, hi2].
struct OutsideBand {
  int lo1, hi1, lo2, hi2;
  KOKKOS_INLINE_FUNCTION OutsideBand(int i, int n, int band)
      : lo1(kmath::max(0, i - n + band + 1)),
        hi1(i - band - 1),
        lo2(i + band + 1),
        hi2(kmath::min(n - 1, i + n - band - 1)) {}
};

/// Broadphase refresh of bead i (docs/algorithms.md#separation-cache): the first
/// `slots` beads j, ascending, with circ(i, j) > band inside the cache radius;
/// flags a bead with more. Distances are tested eight at a time (vectorizable),
/// hits appended in index order.
KOKKOS_INLINE_FUNCTION void refresh_candidates(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                               int i, bool first) {
  const float r2 = d.cache_radius * d.cache_radius;
  const float xi = x.x[i], yi = x.y[i];
  const OutsideBand r(i, env.count, env.band);
  int n = 0;
  int over = 0;
  for (int part = 0; part < 2 && !over; ++part) {
    const int lo = part == 0 ? r.lo1 : r.lo2, hi = part == 0 ? r.hi1 : r.hi2;
    for (int j0 = lo; j0 <= hi && !over; j0 += 8) {
      const int m = kmath::min(8, hi - j0 + 1);
      unsigned hits = 0;
      for (int l = 0; l < m; ++l) {
        const float dx = xi - x.x[j0 + l], dy = yi - x.y[j0 + l];
        hits |= (dx * dx + dy * dy < r2 ? 1u : 0u) << l;
      }
      for (int l = 0; hits != 0u; ++l, hits >>= 1) {
        if ((hits & 1u) == 0u) continue;
        if (n == c.slots) {
          over = 1;
          break;
        }
        c.idx[i + n * c.stride] = j0 + l;
        ++n;
      }
    }
  }
  c.count[i] = n;
  c.overflow[i] = first ? over : (c.overflow[i] | over);
}

/// Loop shapes of a device: a team is a thread block, one bead per thread, a
/// team barrier after each pass; each thread sums its bead's candidates in
/// ascending order.
template <class Member>
struct TeamLoops {
  const Member& team;

  template <class F>
  KOKKOS_INLINE_FUNCTION void beads(int begin, int end, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), f);
  }

  KOKKOS_INLINE_FUNCTION void barrier() const { team.team_barrier(); }

  /// One sweep's update of every bead (docs/algorithms.md#one-sweep): `sums`'
  /// mean push (none: a zero push, the polish), spacing and bending, then the
  /// Chebyshev blend when it is on.
  KOKKOS_INLINE_FUNCTION void update(const Chain& rd, const Chain& wr, const Env& env, const SepSums* sums,
                                     const Distances& d, const RelaxWeights& w, const Blend& blend) const {
    const int n = env.count;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
      const int ip = i > 0 ? i - 1 : n - 1, in = i + 1 < n ? i + 1 : 0;
      const Vec2f xc = rd.get(i);
      const Vec2f sep = sums != nullptr ? sums->mean(i) : Vec2f{0.0f, 0.0f};
      const Vec2f xh = bead_update(rd.get(ip), xc, rd.get(in), sep, env.rest_length, d.r_min, w);
      if (blend.on) {
        const Vec2f xq = blend.prev.get(i);
        wr.set(i, blend.w * (blend.gamma * (xh - xc) + (xc - xq)) + xq);
      } else {
        wr.set(i, xh);
      }
    });
  }

  /// One Taubin step of every bead: x + f (midpoint of the neighbours - x).
  KOKKOS_INLINE_FUNCTION void laplacian(const Chain& rd, const Chain& wr, int n, float f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
      const int ip = i > 0 ? i - 1 : n - 1, in = i + 1 < n ? i + 1 : 0;
      const Vec2f xi = rd.get(i);
      const Vec2f lap = 0.5f * (rd.get(ip) + rd.get(in)) - xi;
      wr.set(i, xi + f * lap);
    });
  }

  KOKKOS_INLINE_FUNCTION void refresh(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                      const HostSplit&, bool first) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, env.count),
                         [&](const int i) { refresh_candidates(x, env, d, c, i, first); });
  }

  KOKKOS_INLINE_FUNCTION void cached_separation(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                                const HostSplit&, const SepSums& s) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, env.count), [&](const int i) {
      float sx = 0.0f, sy = 0.0f, sn = 0.0f;
      const Vec2f xi = x.get(i);
      const int m = c.count[i];
      for (int k = 0; k < m; ++k) add_push(sx, sy, sn, xi, x.get(c.idx[i + k * c.stride]), d, true);
      s.set(i, sx, sy, sn);
    });
  }

  KOKKOS_INLINE_FUNCTION void dense_separation(const Chain& x, const Env& env, const Distances& d,
                                               const SepSums& s) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, env.count), [&](const int i) {
      float sx = 0.0f, sy = 0.0f, sn = 0.0f;
      const OutsideBand r(i, env.count, env.band);
      const Vec2f xi = x.get(i);
      for (int j = r.lo1; j <= r.hi1; ++j) add_push(sx, sy, sn, xi, x.get(j), d, true);
      for (int j = r.lo2; j <= r.hi2; ++j) add_push(sx, sy, sn, xi, x.get(j), d, true);
      s.set(i, sx, sy, sn);
    });
  }

  KOKKOS_INLINE_FUNCTION int count_flags(int n, const std::int32_t* flags) const {
    int sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n), [&](const int i, int& acc) { acc += flags[i]; }, sum);
    return sum;
  }
};

}  // namespace trackgen::detail::relaxation
