// The relaxation solve's per-bead operations and its loop shapes per backend
// (docs/algorithms.md#how-the-solve-runs). Internal to relax.cpp.
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
};

/// One env's chain as a sweep sees it: its real bead count, separation band
/// and rest length.
struct Env {
  int count;
  int band;
  float rest_length;
};

/// One chain of an env in structure-of-arrays form. HostLoops::chain also
/// writes its ghost beads -1 and count, and its passes the padding beads after
/// them (the solve's chains have room for all, PipelineBuffers::relax_chain_stride).
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

/// How a host bead's candidate list is held (docs/algorithms.md#how-the-solve-runs).
/// Ascending, the list holds the far candidates below the bead, then the near
/// ones j = i - o and j = i + o, band < o <= band + w (never wrapped around the
/// loop), then the far ones above, wrapped ones included. The near ones are bits:
/// bit t of `left` is j = i - band - w + t, bit t of `right` is j = i + band + 1 + t.
/// The far ones are the cache's first `far[i]` entries, the `below[i]` below the
/// bead first (the cache's count is the whole list's). `far_below` and
/// `far_above` list, ascending, the beads that have far entries below and above,
/// ended by -1 when shorter than the chain. `marks` holds the near pairs of
/// bead i, bit o - band - 1 for the pair (i, i + o) on either bead's list.
/// The rest is the refresh's record for the movement bound (HostLoops::skip_bits),
/// as float bits: `ref_x`, `ref_y` the beads' positions at the refresh,
/// `far_min[i]` the smallest squared distance of bead i's far entries,
/// `offset_min[o - band - 1]` that of the marked pairs at near offset o (+inf
/// bits where there is none). Eleven arrays of PipelineBuffers::relax_bead_stride
/// entries per env; `left`, `right` and `marks` are zero for the block of beads
/// after the last one.
struct NearSplit {
  std::uint32_t* left;
  std::uint32_t* right;
  std::int32_t* below;
  std::int32_t* far_below;
  std::int32_t* far_above;
  std::uint32_t* marks;
  std::int32_t* far;
  std::uint32_t* ref_x;
  std::uint32_t* ref_y;
  std::uint32_t* far_min;
  std::uint32_t* offset_min;
  /// The number of arrays of a split.
  static constexpr int arrays = host_split_arrays;
  /// The split of the env whose arrays start at `base` (null: none).
  KOKKOS_INLINE_FUNCTION static NearSplit at(std::int32_t* base, int stride) {
    if (base == nullptr) return {};
    auto word = [&](int a) { return reinterpret_cast<std::uint32_t*>(base + a * stride); };
    return {word(0), word(1), base + 2 * stride, base + 3 * stride, base + 4 * stride, word(5), base + 6 * stride,
            word(7),  word(8), word(9),           word(10)};
  }
};

/// The bits of a float (std::bit_cast) and the float of bits: for squared
/// distances, >= +0 or NaN, the order of the bits as unsigned integers is the
/// floats' order, with every NaN above +inf.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t float_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
KOKKOS_FORCEINLINE_FUNCTION float bits_float(std::uint32_t b) { return std::bit_cast<float>(b); }

/// The bits of +inf: a squared distance no pair reaches.
inline constexpr std::uint32_t inf_bits = 0x7f800000u;

/// The near offsets of a host env's split: those a straight chain at the rest
/// length reaches within twice the cache radius, at most 32. Any width gives the
/// same sums. The straight reach is what nearly every bead lists; a bend lists
/// a few offsets more, which as far entries would cost a scalar test each per
/// sweep, as near ones a share of one vector distance test per offset
/// (cached_separation). Twice the reach was the fastest of 1, 2 and 3 times on
/// default batches.
KOKKOS_INLINE_FUNCTION int near_width(const Env& env, const Distances& d) {
  const float reach = 2.0f * d.cache_radius / env.rest_length;
  return reach > 0.0f && reach < 64.0f ? kmath::max(kmath::min(static_cast<int>(reach) + 1 - env.band, 32), 0) : 0;
}

/// A host loop function whose every call is inlined into it, so that the bead
/// loop it runs sees the whole body (GCC only inlines large lambdas when told).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define TRACKGEN_FLATTEN KOKKOS_INLINE_FUNCTION __attribute__((flatten))
#else
#define TRACKGEN_FLATTEN KOKKOS_INLINE_FUNCTION
#endif

/// The number of set bits of a word (std::popcount, callable wherever the loop
/// shapes compile).
KOKKOS_INLINE_FUNCTION int bit_count(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __popc(b);
#else
  return __builtin_popcount(b);
#endif
}

/// `count` rounded up to whole host lane blocks (0 for count <= 0): the trip
/// count of a padded host pass.
KOKKOS_INLINE_FUNCTION int padded(int count) {
  return (kmath::max(count, 0) + host_lane_block - 1) & -host_lane_block;
}

/// Loop shapes of a host space: a team is one thread, and every bead loop runs
/// in index order over contiguous arrays so that the compiler vectorizes it
/// across beads (passes need no barrier). The hot passes run whole blocks of
/// host_lane_block lanes (padded): the lanes past the last bead compute
/// padding that no real bead reads, where a scalar remainder loop would
/// otherwise run up to 15 beads one at a time.
///  - Refresh: pair-major, a vector pass per offset tests each pair outside
///    the band once and sets the near ones' bits (NearSplit) in both beads'
///    words; the far ones, few, become cache entries. A list longer than the
///    slots is cut by a per-bead scan (the same lists, and overflows, as the
///    per-bead scan everywhere).
///  - Separation: a bead's sum still adds its candidates in ascending index
///    order: a per-bead pass over the far entries below, then one vector pass
///    per near offset (the nearest last below the bead, first above it), each
///    lane adding its bead's push or, off the list or beyond the target, +0
///    (add_push); a pass none of whose listed pairs is within the target is
///    skipped (near_passes_needed). Then a per-bead pass over the far entries
///    above. The per-bead passes skip a pair beyond the target
///    (add_push_if_near): most far entries are, and their +0 would leave the
///    sums unchanged.
struct HostLoops {
  template <class F>
  TRACKGEN_FLATTEN void beads(int begin, int end, const F& f) const {
    TRACKGEN_IVDEP
    for (int i = begin; i < end; ++i) f(i);
  }

  KOKKOS_INLINE_FUNCTION void barrier() const {}

  /// f(i, previous, next) over the closed chain of n beads whose neighbours f
  /// reads from `x`: one vector loop with contiguous neighbours, bead 0's
  /// previous and bead n - 1's next being x's ghost beads -1 and n, which get
  /// copies of beads n - 1 and 0 first. The loop runs on over the padding
  /// beads to padded(n).
  template <class F>
  TRACKGEN_FLATTEN void chain(const Chain& x, int n, const F& f) const {
    if (n < 3) {
      for (int i = 0; i < n; ++i) f(i, i > 0 ? i - 1 : n - 1, i + 1 < n ? i + 1 : 0);
      return;
    }
    x.set(-1, x.get(n - 1));
    x.set(n, x.get(0));
    const int m = padded(n);
    TRACKGEN_IVDEP
    for (int i = 0; i < m; ++i) f(i, i - 1, i + 1);
  }

  /// Bead i's list, longer than the slots, as the per-bead scan cuts it
  /// (refresh_candidates: its first `slots` partners in ascending order, and
  /// its overflow flag), then split in place into near bits and far entries
  /// (the rest of the refresh holds too many to keep them in order).
  KOKKOS_INLINE_FUNCTION static void cut_list(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                              const NearSplit& h, int i, int lo, int hi, bool first) {
    refresh_candidates(x, env, d, c, i, first);
    std::uint32_t near_left = 0u, near_right = 0u;
    int far = 0, far_below = 0;
    for (int k = 0; k < c.count[i]; ++k) {  // far entries move down in place: far <= k
      const int j = c.idx[i + static_cast<std::size_t>(k) * c.stride];
      if (j >= i - hi && j <= i - lo) {
        near_left |= 1u << (j - i + hi);
      } else if (j >= i + lo && j <= i + hi) {
        near_right |= 1u << (j - i - lo);
      } else {
        c.idx[i + static_cast<std::size_t>(far) * c.stride] = j;
        ++far;
        far_below += j < i ? 1 : 0;
      }
    }
    h.left[i] = near_left;
    h.right[i] = near_right;
    h.below[i] = far_below;
    h.far[i] = far;
  }

  /// Bead i's far entries, `fa` above it at the bottom of its cache entries and
  /// `fb` below it at the top, as one ascending list: those below, then those
  /// above (a rotation of the entries, moved next to each other first).
  KOKKOS_INLINE_FUNCTION static void front_below(const Cache& c, int i, int fa, int fb) {
    auto at = [&](const int k) -> std::int32_t& { return c.idx[i + static_cast<std::size_t>(k) * c.stride]; };
    for (int k = 0; k < fb; ++k) at(fa + k) = at(c.slots - fb + k);
    auto reverse = [&](int a, int b) {  // [a, b)
      for (--b; a < b; ++a, --b) {
        const std::int32_t t = at(a);
        at(a) = at(b);
        at(b) = t;
      }
    };
    reverse(0, fa);
    reverse(fa, fa + fb);
    reverse(0, fa + fb);
  }

  /// Refreshes every bead's list, as refresh_candidates does, held as NearSplit
  /// says: pair-major, each pair (i, i + o) outside the band tested once (its
  /// squared distance is the same float from either bead), one vector pass per
  /// offset. A near offset's pass sets the pair's bits in both beads' words; a
  /// far offset's pass only tests whether any pair is within the radius, and
  /// only then lists its pairs, bead i's far partner above it from the bottom
  /// of its cache entries and bead i + o's below it from the top (offsets
  /// ascending: the ones above arrive ascending, the ones below descending).
  /// Then each bead counts its list: one longer than the slots is listed again
  /// by a per-bead scan (cut_list), the others move their far entries below to
  /// the front. The same lists, and overflows, as the per-bead scan.
  TRACKGEN_FLATTEN void refresh(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                const NearSplit& h, bool first) const {
    const int n = env.count, slots = c.slots;
    const float r2 = d.cache_radius * d.cache_radius;
    const int lo = env.band + 1, hi = env.band + near_width(env, d);  // near offsets [lo, hi]
    const int top = n - env.band - 1;  // the largest offset of a pair outside the band
    const float* const xs = x.x;
    const float* const ys = x.y;
    std::uint32_t* const left = h.left;
    std::uint32_t* const right = h.right;
    std::int32_t* const below = h.below;  // far entries below the bead
    std::int32_t* const above = h.far;    // far entries above it, until the counts (then all far ones)
    const int m = padded(n);
    TRACKGEN_IVDEP
    for (int i = 0; i < m; ++i) {
      left[i] = 0u;
      right[i] = 0u;
      below[i] = 0;
      above[i] = 0;
    }
    for (int o = lo; o <= kmath::min(hi, top); ++o) {
      const int pairs = n - o, end = padded(pairs);  // lanes past the last pair masked
      TRACKGEN_IVDEP
      for (int i = 0; i < end; ++i) {
        const float dx = xs[i] - xs[i + o], dy = ys[i] - ys[i + o];
        const std::uint32_t hit = i < pairs && dx * dx + dy * dy < r2 ? 1u : 0u;
        right[i] |= hit << (o - lo);
        left[i + o] |= hit << (hi - o);
      }
    }
    const std::size_t stride = c.stride;
    for (int o = hi + 1; o <= top; ++o) {  // hi >= band: past the near offsets
      const int pairs = n - o, end = padded(pairs);
      std::uint32_t any = 0u;
      TRACKGEN_IVDEP
      for (int i = 0; i < end; ++i) {
        const float dx = xs[i] - xs[i + o], dy = ys[i] - ys[i + o];
        any |= i < pairs && dx * dx + dy * dy < r2 ? 1u : 0u;
      }
      if (any == 0u) continue;
      for (int i = 0; i < pairs; ++i) {  // rare: where the track comes back near itself
        const float dx = xs[i] - xs[i + o], dy = ys[i] - ys[i + o];
        if (!(dx * dx + dy * dy < r2)) continue;
        const int j = i + o;
        if (above[i] + below[i] < slots) c.idx[i + static_cast<std::size_t>(above[i]) * stride] = j;
        ++above[i];
        if (above[j] + below[j] < slots) c.idx[j + static_cast<std::size_t>(slots - 1 - below[j]) * stride] = i;
        ++below[j];
      }
    }
    for (int i = 0; i < n; ++i) {
      const int fb = below[i], fa = above[i];
      const int total = fb + fa + bit_count(left[i]) + bit_count(right[i]);
      if (total > slots) {  // sets the overflow flag too
        cut_list(x, env, d, c, h, i, lo, hi, first);
        continue;
      }
      if (first) c.overflow[i] = 0;
      c.count[i] = total;
      above[i] = fb + fa;
      if (fb > 0) front_below(c, i, fa, fb);
    }
    int num_below = 0, num_above = 0;
    for (int i = 0; i < n; ++i) {
      if (h.below[i] > 0) h.far_below[num_below++] = i;
      if (h.far[i] > h.below[i]) h.far_above[num_above++] = i;
    }
    if (num_below < n) h.far_below[num_below] = -1;
    if (num_above < n) h.far_above[num_above] = -1;
    // The near pairs (i, i + o) of either list: the same bits as `right`, but
    // where a bead's full list left out a partner whose own list holds it.
    TRACKGEN_IVDEP
    for (int i = 0; i < n; ++i) h.marks[i] = h.right[i];
    for (int o = lo; o <= hi; ++o) {
      TRACKGEN_IVDEP
      for (int i = 0; i < n - o; ++i) h.marks[i] |= ((h.left[i + o] >> (hi - o)) & 1u) << (o - lo);
    }
    for (int i = n; i < n + host_lane_block; ++i) {  // what the padded passes read past the last bead
      h.left[i] = 0u;
      h.right[i] = 0u;
      h.marks[i] = 0u;
    }
    record_bounds(x, env, d, c, h);
  }

  /// The record of the movement bound (skip_bits), at a refresh: the
  /// positions, and the smallest squared distance of each near offset's marked
  /// pairs and of each bead's far entries.
  TRACKGEN_FLATTEN void record_bounds(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                      const NearSplit& h) const {
    const int n = env.count;
    const int lo = env.band + 1, hi = env.band + near_width(env, d), top = n - env.band - 1;
    const float* const xs = x.x;
    const float* const ys = x.y;
    const std::uint32_t* const marks = h.marks;
    TRACKGEN_IVDEP
    for (int i = 0; i < n; ++i) {
      h.ref_x[i] = float_bits(xs[i]);
      h.ref_y[i] = float_bits(ys[i]);
    }
    for (int o = lo; o <= kmath::min(hi, top); ++o) {
      std::uint32_t least = inf_bits;
      const int end = padded(n - o);  // past n - o: no mark at offset o
      TRACKGEN_IVDEP
      for (int i = 0; i < end; ++i) {
        const float dx = xs[i] - xs[i + o], dy = ys[i] - ys[i + o];
        const std::uint32_t unmarked = ((marks[i] >> (o - lo)) & 1u) - 1u;  // all ones or zero
        const std::uint32_t b = float_bits(dx * dx + dy * dy) | unmarked;
        least = b < least ? b : least;
      }
      h.offset_min[o - lo] = least;
    }
    for (int i = 0; i < n; ++i) {
      std::uint32_t least = inf_bits;
      for (int k = 0; k < h.far[i]; ++k) {
        const int j = c.idx[i + static_cast<std::size_t>(k) * c.stride];
        const float dx = xs[i] - xs[j], dy = ys[i] - ys[j];
        const std::uint32_t b = float_bits(dx * dx + dy * dy);
        least = b < least ? b : least;
      }
      h.far_min[i] = least;
    }
  }

  /// The movement bound of a sweep, as the bits of a squared distance S: a
  /// pair that was at least sqrt(S) apart at the last refresh is beyond the
  /// target now, so a pass or a list whose pairs all were (NearSplit's
  /// offset_min and far_min >= S) adds only +0 and is skipped. With D the
  /// largest distance a bead has moved since the refresh, two beads have come
  /// at most 2 D closer; S = (1.0001 (1.001 target + 2 D))^2, whose margins
  /// exceed the rounding of every distance involved (a few units in the last
  /// place each). A NaN movement gives NaN bits, above every record: nothing
  /// is skipped.
  TRACKGEN_FLATTEN std::uint32_t skip_bits(const Chain& x, const Distances& d, const NearSplit& h, int n) const {
    const float* const xs = x.x;
    const float* const ys = x.y;
    std::uint32_t moved = 0u;
    const int m = padded(n);
    TRACKGEN_IVDEP
    for (int i = 0; i < m; ++i) {  // lanes past the last bead masked
      const float dx = xs[i] - bits_float(h.ref_x[i]), dy = ys[i] - bits_float(h.ref_y[i]);
      const std::uint32_t b = i < n ? float_bits(dx * dx + dy * dy) : 0u;
      moved = b > moved ? b : moved;
    }
    const float reach = 1.0001f * (1.001f * d.target + 2.0f * kmath::sqrt(bits_float(moved)));
    return float_bits(reach * reach);
  }

  /// One near offset's pass over beads [begin, end): bead i adds the push of
  /// bead i + s when bit `bit` of words[i] lists it (add_push), as one vector
  /// loop whose lanes add their bead's push or +0. Padded: the lanes past `end`
  /// are unlisted (their beads' words have no pair at offset s) or padding.
  TRACKGEN_FLATTEN void near_pass(const Chain& x, const Distances& d, const SepSums& sum, const std::uint32_t* words,
                                  int bit, int begin, int end, int s) const {
    const int stop = begin + padded(end - begin);
    TRACKGEN_IVDEP
    for (int i = begin; i < stop; ++i) add_push_to(sum, i, x.get(i), x.get(i + s), d, ((words[i] >> bit) & 1u) != 0u);
  }

  /// The near offsets o that have a pair (i, i + o) within the target on
  /// either bead's list, as bits o - lo: one vector distance test per offset
  /// serves both of its passes, the pair's squared distance being the same
  /// float either way. A pass of any other offset is skipped, as every lane
  /// would add +0; so may be one whose within-target pairs are only on the
  /// other direction's lists (a list cut at the slots), which runs, adding +0.
  TRACKGEN_FLATTEN std::uint32_t near_passes_needed(const Chain& x, const Distances& d, const NearSplit& h, int n,
                                                    int lo, int hi, int top, std::uint32_t skip) const {
    // Plain local pointers and integer masks: with reads through the Chain and
    // bool reductions GCC 12 leaves this loop scalar.
    const float* const xs = x.x;
    const float* const ys = x.y;
    const std::uint32_t* const pairs = h.marks;
    const float t2 = d.target_sq;
    std::uint32_t needed = 0u;
    for (int o = lo; o <= kmath::min(hi, top); ++o) {  // past top: no pair outside the band
      if (h.offset_min[o - lo] >= skip) continue;  // every marked pair beyond the target (skip_bits)
      std::uint32_t hits = 0u;
      const int m = padded(n - o);  // past n - o: no pair at offset o
      TRACKGEN_IVDEP
      for (int i = 0; i < m; ++i) {  // the pair (i, i + o)
        const float dx = xs[i] - xs[i + o], dy = ys[i] - ys[i + o];
        hits |= (dx * dx + dy * dy < t2 ? ~0u : 0u) & pairs[i];
      }
      needed |= hits & (1u << (o - lo));
    }
    return needed;
  }

  TRACKGEN_FLATTEN void cached_separation(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                          const NearSplit& h, const SepSums& sum) const {
    const int n = env.count;
    const int lo = env.band + 1, hi = env.band + near_width(env, d);
    const int m = padded(n);
    TRACKGEN_IVDEP
    for (int i = 0; i < m; ++i) sum.set(i, 0.0f, 0.0f, 0.0f);
    const std::uint32_t skip = skip_bits(x, d, h, n);
    for (int p = 0; p < n && h.far_below[p] >= 0; ++p) {  // far candidates below
      const int i = h.far_below[p], m = h.below[i];
      if (h.far_min[i] >= skip) continue;  // every far entry beyond the target (skip_bits)
      float sx = 0.0f, sy = 0.0f, sn = 0.0f;
      const Vec2f xi = x.get(i);
      for (int k = 0; k < m; ++k) add_push_if_near(sx, sy, sn, xi, x.get(c.idx[i + k * c.stride]), d);
      sum.set(i, sx, sy, sn);
    }
    const std::uint32_t needed = near_passes_needed(x, d, h, n, lo, hi, n - env.band - 1, skip);
    for (int o = hi; o >= lo; --o) {  // near below, j = i - o, farthest first
      if (((needed >> (o - lo)) & 1u) != 0u) near_pass(x, d, sum, h.left, hi - o, o, n, -o);
    }
    for (int o = lo; o <= hi; ++o) {  // near above, j = i + o, nearest first
      if (((needed >> (o - lo)) & 1u) != 0u) near_pass(x, d, sum, h.right, o - lo, 0, n - o, o);
    }
    for (int p = 0; p < n && h.far_above[p] >= 0; ++p) {  // far candidates above
      const int i = h.far_above[p], m = h.far[i];
      if (h.far_min[i] >= skip) continue;
      float sx = sum.x[i], sy = sum.y[i], sn = sum.n[i];
      const Vec2f xi = x.get(i);
      for (int k = h.below[i]; k < m; ++k) add_push_if_near(sx, sy, sn, xi, x.get(c.idx[i + k * c.stride]), d);
      sum.set(i, sx, sy, sn);
    }
  }

  TRACKGEN_FLATTEN void dense_separation(const Chain& x, const Env& env, const Distances& d,
                                         const SepSums& s) const {
    const int n = env.count;
    for (int i = 0; i < n; ++i) s.set(i, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j) {  // bead i is outside j's band iff j is outside i's
      const OutsideBand r(j, n, env.band);
      const Vec2f xj = x.get(j);
      TRACKGEN_IVDEP
      for (int i = r.lo1; i <= r.hi1; ++i) add_push_to(s, i, x.get(i), xj, d, true);
      TRACKGEN_IVDEP
      for (int i = r.lo2; i <= r.hi2; ++i) add_push_to(s, i, x.get(i), xj, d, true);
    }
  }

  KOKKOS_INLINE_FUNCTION int count_flags(int n, const std::int32_t* flags) const {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += flags[i];
    return sum;
  }
};

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

  template <class F>
  KOKKOS_INLINE_FUNCTION void chain(const Chain&, int n, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                         [&](const int i) { f(i, i > 0 ? i - 1 : n - 1, i + 1 < n ? i + 1 : 0); });
  }

  KOKKOS_INLINE_FUNCTION void refresh(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                      const NearSplit&, bool first) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, env.count),
                         [&](const int i) { refresh_candidates(x, env, d, c, i, first); });
  }

  KOKKOS_INLINE_FUNCTION void cached_separation(const Chain& x, const Env& env, const Distances& d, const Cache& c,
                                                const NearSplit&, const SepSums& s) const {
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
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, n), [&](const int i, int& acc) { acc += flags[i]; }, sum);
    return sum;
  }
};

}  // namespace trackgen::detail::relaxation
