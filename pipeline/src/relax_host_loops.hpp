// The relaxation solve's host loop shapes (docs/algorithms.md#how-the-solve-runs),
// their level-independent part: the layout of a host thread's scratch and the
// split of a bead's list. The vector code itself is relax_host_loops.inc,
// compiled once per instruction-set level (relax_host.cpp). Internal to the
// pipeline.
#pragma once

#include "relax_loops.hpp"

#include <bit>
#include <cstdint>

/// A host loop function whose every call is inlined into it, so that the
/// passes it runs see their whole bodies (GCC only inlines large functions
/// when told).
#if defined(__GNUC__) && !defined(__clang__)
#define TRACKGEN_FLATTEN inline __attribute__((flatten))
#else
#define TRACKGEN_FLATTEN inline
#endif

namespace trackgen::detail::relaxation {

/// Entries of every host per-bead array (chains, sums, lists) before bead 0:
/// ghost beads and the start of pass windows that reach below it.
inline constexpr int host_lead = 16;

/// The largest near offset of a host list (host_near_width).
inline constexpr int host_near_max = 32;

/// Entries of a host per-bead array for `n_max` beads: the lead, the beads, and
/// after them the ghost beads and the padding that the passes' whole blocks and
/// the near offsets reach.
KOKKOS_INLINE_FUNCTION constexpr int host_bead_stride(int n_max) { return host_lead + n_max + host_near_max + 16; }

static_assert(host_bead_stride(384) == PipelineBuffers<Kokkos::DefaultHostExecutionSpace>::relax_bead_stride_for(384) &&
                  host_lead == PipelineBuffers<Kokkos::DefaultHostExecutionSpace>::relax_lane_block,
              "the host solve's arrays have the buffers' stride, bead 0 at entry relax_lane_block");

/// The bits of a float (std::bit_cast) and the float of bits: for squared
/// distances, >= +0 or NaN, the order of the bits as unsigned integers is the
/// floats' order, with every NaN above +inf.
inline std::uint32_t float_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
inline float bits_float(std::uint32_t b) { return std::bit_cast<float>(b); }

/// Record bits no squared distance reaches, +inf and NaN included: a tile with
/// no listed pair.
inline constexpr std::uint32_t never_bits = 0xffffffffu;

/// The width w of a host env's near offsets [band + 1, band + w]: those a
/// straight chain at the rest length reaches within three times the cache
/// radius. Any width gives the same sums: nearly every bead lists the
/// straight reach, a bend offsets further, which as far pairs cost a gathered
/// test each per sweep, as near ones a share of a tile's test (three times the
/// reach was the fastest of 1, 1.5, 2, 2.5, 3 and 4 times on default batches:
/// perf_relax, hull 8% and bezier 4% faster than twice, polar the same). The offsets are
/// circular (bead i's near partners are (i -+ c) mod n), so they stay below
/// n / 2, where the pairs at c and at n - c would be the same, and at most
/// host_near_max, the ghost beads after the chain.
KOKKOS_INLINE_FUNCTION int near_width(const Env& env, const Distances& d) {
  const float reach = 3.0f * d.cache_radius / env.rest_length;
  const int w = reach > 0.0f && reach < 64.0f ? static_cast<int>(reach) + 1 - env.band : 0;
  const int top = kmath::min((env.count - 1) / 2, host_near_max);  // the largest near offset
  return kmath::max(kmath::min(w, top - env.band), 0);
}

/// How a host bead's candidate list is held (docs/algorithms.md#how-the-solve-runs),
/// in its thread's scratch. With lo = band + 1 and hi = band + near_width:
///  - near partners, (i -+ c) mod n for c in [lo, hi], as bits: bit hi - c of
///    `left[i]` for (i - c) mod n, bit c - lo of `right[i]` for (i + c) mod n;
///  - far partners (circular distance above hi) as the cache's first `far[i]`
///    entries, the `below[i]` below the bead first, ascending;
///  - the far pairs (lo < hi) of those entries, each once, in (lo, hi) order:
///    `pair_lo`, `pair_hi`, `pair_on` (bit 0: on the lower bead's list, bit 1:
///    on the upper's), `entry_pair` the pair of far entry k of bead i at
///    entry_pair[i + k n], `pair_min` the smallest squared distance of each block
///    of 16 pairs at the refresh (for the movement bound), and a sweep's pairs
///    within the target, `near_pairs` in (lo, hi) order and `near_upper` in
///    (hi, lo) order, with their pushes on their lower beads (`pair_px`,
///    `pair_py`, float bits);
///  - the pairs (i, (i + c) mod n) as tiles of 16 (c, block b: i = 16 b + l):
///    `tiles[(c - lo) nb + b]` the lanes whose pair is on bead i's list (low
///    16 bits) and on bead (i + c) mod n's (high 16 bits), nb = blocks of the
///    chain, `tile_cb[t]` tile t's (c - lo) << 16 | b, `tile_min` the smallest
///    squared distance of a tile's pairs within the cache radius at the
///    refresh (never_bits for a tile with no listed pair);
///  - the refresh's positions `ref_x`, `ref_y` (float bits) for the movement
///    bound (HostLoops::skip_bits);
///  - a sweep's `hits`: the tiles with a listed pair within the target, in
///    tile order, each as the lanes' bits and t << 16, and the push factors
///    of their pairs: that of the pair (i, i + c) at factors(c - lo)[i], as
///    float bits;
///  - `counts[0]`: the number of far pairs.
/// host_split_arrays arrays of host_bead_stride(N_max) words (the per-bead
/// ones start at host_lead, the tile arrays take two each, the factors one
/// per near offset: pair 0 at entry 32, as the pushes of a block of beads read
/// the factors up to 32 pairs before it), then host_pair_arrays of
/// N_max * slots + 16 words for the far pairs and entries (each bead lists at
/// most `slots`, so there are at most that many of either).
struct HostLists {
  std::uint32_t* left;
  std::uint32_t* right;
  std::int32_t* below;
  std::int32_t* far;
  std::int32_t* counts;
  std::uint32_t* ref_x;
  std::uint32_t* ref_y;
  std::uint32_t* tiles;
  std::uint32_t* tile_min;
  std::uint32_t* tile_cb;
  std::uint32_t* hits;
  std::uint32_t* factor_rows;
  std::int32_t* pair_lo;
  std::int32_t* pair_hi;
  std::int32_t* pair_on;
  std::uint32_t* pair_min;
  std::uint32_t* pair_px;
  std::uint32_t* pair_py;
  std::int32_t* near_pairs;
  std::int32_t* near_upper;
  std::int32_t* entry_pair;
  int stride;

  /// The push factors of the near offset lo + r.
  std::uint32_t* factors(int r) const { return factor_rows + static_cast<std::size_t>(r) * stride + 2 * host_lead; }

  static HostLists at(const HostSplit& s) {
    const std::size_t stride = static_cast<std::size_t>(s.stride), pairs = static_cast<std::size_t>(s.pairs);
    auto arr = [&](int a) { return s.base + static_cast<std::size_t>(a) * stride; };
    auto word = [&](int a) { return reinterpret_cast<std::uint32_t*>(arr(a)); };
    std::int32_t* const far = arr(host_split_arrays);
    auto parr = [&](int a) { return far + static_cast<std::size_t>(a) * pairs; };
    auto pword = [&](int a) { return reinterpret_cast<std::uint32_t*>(parr(a)); };
    return {word(0) + host_lead,
            word(1) + host_lead,
            arr(2) + host_lead,
            arr(3) + host_lead,
            arr(4),
            word(5) + host_lead,
            word(6) + host_lead,
            word(7),
            word(9),
            word(11),
            word(13),
            word(15),
            parr(0),
            parr(1),
            parr(2),
            pword(3),
            pword(4),
            pword(5),
            parr(6),
            parr(7),
            parr(8),
            s.stride};
  }
};
static_assert(host_split_arrays == 15 + host_near_max,
              "HostLists takes fifteen arrays and a factor row per near offset");

/// The host refresh (HostLoops::refresh) of the level host_simd() selects: the
/// lists it builds, for tests.
void host_refresh(const Chain& x, const Env& env, const Distances& d, const Cache& c, const HostSplit& split,
                  bool first);

}  // namespace trackgen::detail::relaxation
