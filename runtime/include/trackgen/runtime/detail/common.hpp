// Shared plumbing of the runtime utilities (internal): View allocation and
// cloning, argument checks with the messages every utility uses, and the
// samplers' capacity rule.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/runtime/inputs.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace trackgen::detail {

/// A zero-initialized View of `n` T labelled "TrackGen::runtime::<name>",
/// allocated and initialized on `space`.
template <class T, class Space>
DView<T, Space> runtime_view(const Space& space, const char* name, std::size_t n) {
  return DView<T, Space>(Kokkos::view_alloc(space, label("runtime", name)), n);
}

/// Asks the host's caches for the `bytes` bytes at `p` (a prefetch per 64-byte
/// line; nothing on a GPU). Kernels over envs call it for an env a few
/// iterations ahead, so that the scattered reads of large batches overlap.
/// The empty asm statement keeps GCC from deleting the loop: it treats a
/// prefetch as free of side effects and otherwise drops a loop of prefetches
/// whose bounds come from computed texel or index ranges.
KOKKOS_INLINE_FUNCTION void prefetch(const void* p, std::size_t bytes) {
#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
  const char* const c = static_cast<const char*>(p);
  for (std::size_t k = 0; k < bytes; k += 64) {
    __builtin_prefetch(c + k);
    __asm__ __volatile__("" : : "r"(c + k));
  }
#else
  (void)p;
  (void)bytes;
#endif
}

/// An independent copy of `v` (same label and extent).
template <class V>
V clone_view(const V& v) {
  V c(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.extent(0));
  Kokkos::deep_copy(c, v);
  return c;
}

/// check_extent for an optional [E] int32 mask (an unallocated mask selects every env).
template <class V>
void check_mask(const std::string& api, const V& mask, std::size_t num_envs) {
  if (mask.data() != nullptr) check_extent(api, "mask", mask, num_envs, "E");
}

/// Throws ConfigError "<api>: <name> must be <rule>, got <value>" unless `ok`.
inline void require(bool ok, const std::string& api, const char* name, const char* rule, const std::string& value) {
  if (!ok) throw ConfigError(api + ": " + name + " must be " + rule + ", got " + value);
}

/// The Track's points per env, checked: ConfigError unless it is allocated.
template <class M>
int track_stride(const std::string& api, const Track<M>& track) {
  if (track.num_envs() < 1 || track.outer.data() == nullptr) {
    throw ConfigError(api + ": track must be an allocated Track (num_envs >= 1), got an empty one");
  }
  return track.n_max();
}

/// The GateSequence's gates per env, checked: ConfigError unless it is allocated.
template <class M>
int gate_stride(const std::string& api, const GateSequence<M>& gates) {
  if (gates.num_envs() < 1 || gates.position.data() == nullptr) {
    throw ConfigError(api + ": gates must be an allocated GateSequence (num_envs >= 1), got an empty one");
  }
  return gates.max_gates();
}

}  // namespace trackgen::detail

namespace trackgen::detail {

/// The capacity rule of the samplers: max(3, ceil(1.25 * n_max * point_spacing /
/// spacing)), the slots a polyline of n_max points point_spacing apart needs at
/// `spacing`, with headroom. ConfigError (naming `api`) if it exceeds int range.
int sampler_capacity(const std::string& api, int n_max, double point_spacing, double spacing);

/// memory_limit_bytes() (pipeline/memory.hpp): the limit the grids are checked against.
std::size_t runtime_memory_limit();

/// Throws ConfigError naming `api`, `what`, the estimate `need` of num_envs
/// envs, the limit and how many envs `fit`.
[[noreturn]] void refuse_memory(const std::string& api, const std::string& what, int num_envs, std::size_t need,
                                std::size_t limit, int fit);

/// Throws refuse_memory's error when bytes(num_envs) exceeds
/// runtime_memory_limit() (0: no limit), before anything is allocated;
/// `bytes(E)` grows with E.
template <class Bytes>
void check_runtime_memory(const std::string& api, const Bytes& bytes, int num_envs, const std::string& what) {
  const std::size_t limit = runtime_memory_limit();
  if (limit == 0 || bytes(num_envs) <= limit) return;
  int lo = 0, hi = num_envs;  // bytes(lo) fits (0 envs: nothing), bytes(hi) does not
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (bytes(mid) <= limit ? lo : hi) = mid;
  }
  refuse_memory(api, what, num_envs, bytes(num_envs), limit, lo);
}

/// The largest perimeter[e] / count[e] over the envs with valid[e] != 0 and
/// count[e] >= 3 (host arrays of `num_envs`); ConfigError naming `api` if
/// there is none.
double largest_point_spacing(const std::string& api, const float* perimeter, const int* count, const int* valid,
                             int num_envs);

}  // namespace trackgen::detail
