// Elevation profiles (2.5D, docs/algorithms.md#elevation): the per-slot profiles
// and the periodic monotone cubic through the knots of the knot-based track
// profiles. Header-only KOKKOS_INLINE_FUNCTIONs (host and device), float
// arithmetic as the original system's float32 kernels; every random draw comes from the salted streams
// of rng.hpp, so the integer streams are identical on every backend.
//
// How a track profile is evaluated (the pipeline's inflation does this):
//  - flat: z = z_base everywhere;
//  - uniform, random_walk: K = z_control_points knots at plan-view arc
//    k * perimeter / K, filled by z_uniform_knot / z_random_walk_knots, then per
//    track point z_knot_cubic at the point's plan-view arc length;
//  - noise: per point, z_noise at the point's plan-view arc length.
#pragma once

#include <trackgen/core/compat.hpp>
#include <trackgen/core/config.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>

#include <cstdint>

namespace trackgen {

/// True for the profiles evaluated through knots (uniform, random_walk).
KOKKOS_INLINE_FUNCTION constexpr bool z_uses_knots(ZProfile p) {
  return p == ZProfile::uniform || p == ZProfile::random_walk;
}

/// Scalars of the elevation profiles (the z fields of TrackGenConfig).
struct ZParams {
  ZProfile profile = ZProfile::flat;
  float base = 0;        ///< z_base
  float min = 0;         ///< z_min
  float max = 0;         ///< z_max
  float max_step = 0;    ///< z_max_step: walk step |dz| per unit plan-view arc
  float amplitude = 0;   ///< z_noise_amplitude
  int harmonics = 3;     ///< z_noise_harmonics
  int knots = 10;        ///< z_control_points (K)
};

/// The elevation scalars of a config's z fields.
inline ZParams z_params(const TrackGenConfig& c) {
  ZParams z;
  z.profile = c.z_profile;
  z.base = c.z_base;
  z.min = c.z_min;
  z.max = c.z_max;
  z.max_step = c.z_max_step;
  z.amplitude = c.z_noise_amplitude;
  z.harmonics = c.z_noise_harmonics;
  z.knots = c.z_control_points;
  return z;
}

/// Plan-view arc length of knot k of K on a loop of perimeter `perim`.
KOKKOS_INLINE_FUNCTION float z_knot_arc(int k, int K, float perim) {
  return static_cast<float>(k) * perim / static_cast<float>(K);
}

/// `uniform`, slot (or knot) i: z_min + u (z_max - z_min), u the first draw of
/// the stream seed * 15679 + i.
KOKKOS_INLINE_FUNCTION float z_uniform_knot(std::int32_t seed, int i, const ZParams& p) {
  std::uint32_t st = stream(seed, salt::z_uniform, i);
  return p.min + randf(st) * (p.max - p.min);
}

/// `random_walk` over n points at plan-view arc lengths arc(0) .. arc(n-1) of
/// a loop of perimeter `perim`, into z[0..n): a walk with steps
/// (2u - 1) z_max_step (arc(k) - arc(k-1)) from the stream seed * 15683,
/// closed into a Brownian bridge (the final value's drift removed in
/// proportion to the arc), offset by z_base and clamped to [z_min, z_max].
/// `arc` is any callable int -> float (KnotArcs for the track knots, the
/// gates' cumulative chord lengths).
template <class Arc>
KOKKOS_INLINE_FUNCTION void z_random_walk(std::int32_t seed, int n, float perim, const ZParams& p, const Arc& arc,
                                          float* z) {
  std::uint32_t st = stream(seed, salt::z_random_walk);
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    if (k > 0) acc += (2.0f * randf(st) - 1.0f) * p.max_step * (arc(k) - arc(k - 1));
    z[k] = acc;
  }
  const float drift = acc;
  for (int k = 0; k < n; ++k) {
    const float frac = perim > 1e-9f ? arc(k) / perim : 0.0f;
    z[k] = kmath::clamp(p.base + z[k] - drift * frac, p.min, p.max);
  }
}

/// The arc lengths of the K knots of a loop of perimeter `perim` (z_knot_arc).
struct KnotArcs {
  int K;
  float perim;
  KOKKOS_INLINE_FUNCTION float operator()(int k) const { return z_knot_arc(k, K, perim); }
};

/// `random_walk` over the K knots of a loop of perimeter `perim`, into z[0..K)
/// (z_random_walk at the knots' arc lengths).
KOKKOS_INLINE_FUNCTION void z_random_walk_knots(std::int32_t seed, float perim, const ZParams& p, float* z) {
  z_random_walk(seed, p.knots, perim, p, KnotArcs{p.knots, perim}, z);
}

/// Fritsch-Carlson limited tangent of the monotone cubic from the secants on
/// either side: 0 at an extremum (dp dn <= 0), else their mean clamped to
/// +-3 min(|dp|, |dn|).
KOKKOS_INLINE_FUNCTION float z_monotone_tangent(float dp, float dn) {
  if (dp * dn <= 0.0f) return 0.0f;
  const float lim = 3.0f * kmath::min(kmath::fabs(dp), kmath::fabs(dn));
  return kmath::clamp(0.5f * (dp + dn), -lim, lim);
}

/// The periodic monotone cubic Hermite through the K knots z[0..K) (knot k at
/// arc k * perim / K) at plan-view arc length `arc`. It never leaves the range
/// of its two bracketing knots: true of the exact cubic, and made exact in float
/// by a final clamp to that range (the original system's float sum can overshoot a
/// flat pair of knots at z_max by an ulp). perim <= 1e-9 gives z[0].
KOKKOS_INLINE_FUNCTION float z_knot_cubic(const float* z, int K, float arc, float perim) {
  if (!(perim > 1e-9f)) return z[0];
  const float x = arc / perim * static_cast<float>(K);
  const int k = kmath::clamp(static_cast<int>(kmath::floor(x)), 0, K - 1);
  const float u = kmath::clamp(x - static_cast<float>(k), 0.0f, 1.0f);
  const float h = perim / static_cast<float>(K);
  const float zm = z[(k + K - 1) % K], z0 = z[k], z1 = z[(k + 1) % K], z2 = z[(k + 2) % K];
  const float d_prev = (z0 - zm) / h, d_here = (z1 - z0) / h, d_next = (z2 - z1) / h;
  const float m0 = z_monotone_tangent(d_prev, d_here), m1 = z_monotone_tangent(d_here, d_next);
  const float u2 = u * u, u3 = u2 * u;
  const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f, h10 = u3 - 2.0f * u2 + u;
  const float h01 = -2.0f * u3 + 3.0f * u2, h11 = u3 - u2;
  return kmath::clamp(h00 * z0 + h10 * h * m0 + h01 * z1 + h11 * h * m1, kmath::min(z0, z1), kmath::max(z0, z1));
}

/// `noise` at plan-view arc `arc` of a loop of perimeter `perim`: harmonics
/// k = 0..H-1 with amplitude a_k and phase 2 pi u_k from the stream
/// seed * 15731 + k and weight 1 / (k + 1), normalised by the weights' sum,
/// scaled by z_noise_amplitude around z_base and clamped to [z_min, z_max].
KOKKOS_INLINE_FUNCTION float z_noise(std::int32_t seed, float arc, float perim, const ZParams& p) {
  const float frac = perim > 1e-9f ? arc / perim : 0.0f;
  float acc = 0.0f, norm = 0.0f;
  for (int k = 0; k < p.harmonics; ++k) {
    std::uint32_t st = stream(seed, salt::z_noise, k);
    const float a = randf(st);
    const float phase = geom::two_pi_f * randf(st);
    const float w = 1.0f / static_cast<float>(k + 1);
    acc += a * w * kmath::sin(geom::two_pi_f * static_cast<float>(k + 1) * frac + phase);
    norm += w;
  }
  return kmath::clamp(p.base + p.amplitude * acc / kmath::max(norm, 1e-9f), p.min, p.max);
}

}  // namespace trackgen
