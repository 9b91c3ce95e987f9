// The device RNG of the original system, bit-exact (docs/algorithms.md#rng), and
// its salt table (docs/algorithms.md#salts). Every random stream is a local 32-bit state derived from an
// env's (effective) seed: `state = rand_init(seed * SALT + OFFSET)` with the product
// and sum evaluated in int32 with two's-complement wrap-around.
#pragma once

#include <Kokkos_Macros.hpp>

#include <cstdint>

namespace trackgen {

/// PCG-style integer hash (Jarzynski & Olano 2020), as Warp's `rand_pcg`.
KOKKOS_INLINE_FUNCTION constexpr std::uint32_t pcg_hash(std::uint32_t x) {
  const std::uint32_t b = x * 747796405u + 2891336453u;
  const std::uint32_t c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
  return (c >> 22u) ^ c;
}

/// `rand_init(seed)`: the initial state of a stream.
KOKKOS_INLINE_FUNCTION constexpr std::uint32_t rand_init(std::int32_t seed) {
  return pcg_hash(static_cast<std::uint32_t>(seed));
}

/// `seed * salt + offset` in int32 with wrap-around (no signed-overflow UB).
KOKKOS_INLINE_FUNCTION constexpr std::int32_t salted(std::int32_t seed, std::int32_t salt,
                                                    std::int32_t offset = 0) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(seed) * static_cast<std::uint32_t>(salt) +
                                   static_cast<std::uint32_t>(offset));
}

/// The state of the stream `seed * salt + offset`.
KOKKOS_INLINE_FUNCTION constexpr std::uint32_t stream(std::int32_t seed, std::int32_t salt,
                                                     std::int32_t offset = 0) {
  return rand_init(salted(seed, salt, offset));
}

/// Advances `state` and returns a float in [0, 1 - 2^-24].
KOKKOS_INLINE_FUNCTION float randf(std::uint32_t& state) {
  state = pcg_hash(state);
  return static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
}

/// `(hi - lo) * randf + lo`.
KOKKOS_INLINE_FUNCTION float randf(std::uint32_t& state, float lo, float hi) {
  return (hi - lo) * randf(state) + lo;
}

/// Advances `state` and returns `state mod (hi - lo) + lo` (unsigned modulo),
/// evaluated in uint32 so that wide ranges wrap instead of overflowing. Needs
/// hi != lo.
KOKKOS_INLINE_FUNCTION std::int32_t randi(std::uint32_t& state, std::int32_t lo, std::int32_t hi) {
  state = pcg_hash(state);
  const std::uint32_t range = static_cast<std::uint32_t>(hi) - static_cast<std::uint32_t>(lo);
  return static_cast<std::int32_t>(state % range + static_cast<std::uint32_t>(lo));
}

/// Effective seed of (seed, epoch): the seed itself at epoch 0, otherwise
/// `pcg(u32(seed) ^ pcg(u32(epoch) * 0x9E3779B9)) & 0x7FFFFFFF`. `hash32`, left
/// open by the original system, is the PCG hash above. Host and device.
KOKKOS_INLINE_FUNCTION constexpr std::int32_t effective_seed(std::int32_t seed, std::int32_t epoch) {
  if (epoch == 0) return seed;
  const std::uint32_t h = pcg_hash(static_cast<std::uint32_t>(epoch) * 0x9E3779B9u);
  return static_cast<std::int32_t>(pcg_hash(static_cast<std::uint32_t>(seed) ^ h) & 0x7FFFFFFFu);
}

/// The salt table (docs/algorithms.md#salts): `state = rand_init(seed * salt + offset)`.
namespace salt {
struct Salt {
  std::int32_t mul, add;
};
inline constexpr Salt bezier_count{6151, 0};
inline constexpr Salt bezier_corners{9781, 0};
inline constexpr Salt bezier_style{2741, 0};
inline constexpr Salt hull_count{5119, 1};
inline constexpr Salt hull_corners{7919, 1};
inline constexpr Salt hull_displacement{3083, 1};
inline constexpr Salt polar_controls{7919, 17};
inline constexpr Salt voronoi_sites{8171, 19};
inline constexpr Salt voronoi_anchors{3911, 31};
/// checkpoint candidate k: seed * 4099 + k * checkpoint_candidate_step + 1
inline constexpr Salt checkpoint_ring{4099, 1};
inline constexpr std::int32_t checkpoint_candidate_step = 2741;
inline constexpr Salt repulsive_obstacles{6247, 23};
inline constexpr Salt repulsive_growth{5209, 41};
/// gate random_pairs pair p: seed * 3187 + 7919 + p * gate_pair_step
inline constexpr Salt gate_pairs{3187, 7919};
inline constexpr std::int32_t gate_pair_step = 104729;
/// z uniform, slot/knot i: seed * 15679 + i
inline constexpr Salt z_uniform{15679, 0};
inline constexpr Salt z_random_walk{15683, 0};
/// z noise, harmonic k: seed * 15731 + k
inline constexpr Salt z_noise{15731, 0};
}  // namespace salt

/// The state of a salted stream (`offset` is added to the salt's own offset).
KOKKOS_INLINE_FUNCTION constexpr std::uint32_t stream(std::int32_t seed, salt::Salt s, std::int32_t extra = 0) {
  return stream(seed, s.mul, static_cast<std::int32_t>(static_cast<std::uint32_t>(s.add) +
                                                       static_cast<std::uint32_t>(extra)));
}

}  // namespace trackgen
