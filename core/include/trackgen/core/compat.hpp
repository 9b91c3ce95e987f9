// Kokkos compatibility layer: the one place that knows the differences between
// Kokkos 3.4.01 (Debian's trilinos source) and Kokkos 4.x / 5.x.
//
// Everything else in TrackGen writes `trackgen::kmath::sqrt(x)`,
// `trackgen::compat::initialize(...)`, `trackgen::compat::host_mirror_t<V>` and
// compiles unchanged against both.
#pragma once

#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#if KOKKOS_VERSION >= 40000
#define TRACKGEN_KOKKOS_MODERN 1
#else
#define TRACKGEN_KOKKOS_MODERN 0
#endif

namespace trackgen {

// Math functions usable in device code. Kokkos 3.4 only has them as
// Kokkos::Experimental::*, Kokkos >= 4 only as Kokkos::* (the Experimental
// aliases were removed in 5.x).
namespace kmath {
#if TRACKGEN_KOKKOS_MODERN
using Kokkos::atan;
using Kokkos::atan2;
using Kokkos::cos;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::isfinite;
using Kokkos::isnan;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::atan;
using Kokkos::Experimental::atan2;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::isnan;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif

// Kokkos 3.4 has no Kokkos::min/max/clamp; these are ours on every version.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T max(T a, T b) {
  return a < b ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T clamp(T v, T lo, T hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}
}  // namespace kmath

namespace compat {

/// Host mirror type of a View (`View::HostMirror` is gone in Kokkos 5).
#if KOKKOS_VERSION >= 40500
template <class V>
using host_mirror_t = typename V::host_mirror_type;
#else
template <class V>
using host_mirror_t = typename V::HostMirror;
#endif

/// Concurrency of an execution-space instance (static in 3.4, a member later).
template <class Space>
int concurrency(const Space& space) {
#if TRACKGEN_KOKKOS_MODERN
  return space.concurrency();
#else
  (void)space;
  return Space::concurrency();
#endif
}

/// The Kokkos version as "major.minor.patch" (e.g. "3.4.01").
inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION, patch = v % 100;
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + (patch < 10 ? "0" : "") +
         std::to_string(patch);
}

/// The command-line flag that sets the host thread count at initialize().
inline std::string threads_flag(int n) {
#if TRACKGEN_KOKKOS_MODERN
  return "--kokkos-num-threads=" + std::to_string(n);
#else
  return "--kokkos-threads=" + std::to_string(n);
#endif
}

/// Initializes Kokkos with `num_threads` host threads (<= 0: Kokkos' default).
/// `InitArguments` is gone in Kokkos 5, so this goes through argv, which every
/// version accepts.
inline void initialize(int num_threads) {
  std::vector<std::string> args{"trackgen"};
  if (num_threads > 0) args.push_back(threads_flag(num_threads));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  Kokkos::initialize(argc, argv.data());
}

}  // namespace compat
}  // namespace trackgen

// ---------------------------------------------------------------------------
// Sorting inside a team. Kokkos 3.4 has no Kokkos::Experimental::sort_team; Kokkos
// Kernels 3.4 has the same team bitonic sort (TeamBitonicSort), which
// sort_team later became. Both are unstable: sort composite keys (sort_key) when
// equal keys must keep their order.
#if TRACKGEN_KOKKOS_MODERN
#include <Kokkos_Sort.hpp>
#else
#include <KokkosKernels_Sorting.hpp>
#endif

#include <cstdint>
#include <cstring>

namespace trackgen::compat {

/// Sorts values[0..n) ascending, cooperatively by the whole team `member`
/// (bitonic sort: O(n log^2 n) comparisons, n/2 per step spread over the team's
/// threads and vector lanes). `values` must be memory every thread of the team
/// can access (the env's slice of a global View, or team scratch). Every thread
/// of the team must call it with the same arguments. It barriers the team
/// before (so that values written by other threads are visible) and after (so
/// that the sorted values are). Kokkos Kernels' TeamBitonicSort on Kokkos < 4,
/// Kokkos::Experimental::sort_team on an unmanaged View on Kokkos >= 4.
template <class Member>
KOKKOS_INLINE_FUNCTION void team_sort(const Member& member, std::uint64_t* values, int n) {
  member.team_barrier();
#if TRACKGEN_KOKKOS_MODERN
  using memory_space = typename Member::execution_space::memory_space;
  Kokkos::View<std::uint64_t*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v(values,
                                                                                        static_cast<std::size_t>(n));
  Kokkos::Experimental::sort_team(member, v);
#else
  // KokkosKernels::Impl::TeamBitonicSort: Kokkos Kernels 3.x, for Kokkos 3.x
  // (Kokkos 4.0 has the same sort as Kokkos::Experimental::sort_team).
  KokkosKernels::Impl::TeamBitonicSort<int, std::uint64_t, Member>(values, n, member);
#endif
  member.team_barrier();
}

/// Order-preserving map of a float onto uint32: a < b (as floats) iff
/// float_order_bits(a) < float_order_bits(b). -0.0 is read as +0.0 (they compare
/// equal as floats, so they must tie). NaNs map above +inf (positive payloads)
/// or below -inf (negative ones); keys here are never NaN.
KOKKOS_INLINE_FUNCTION std::uint32_t float_order_bits(float key) {
  if (key == 0.0f) key = 0.0f;  // -0 -> +0
  std::uint32_t u = 0;
  memcpy(&u, &key, sizeof(u));
  return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

/// Composite sort key: the order-preserving bits of `key` in the high 32 bits,
/// `index` (>= 0) in the low 32. Sorting these ascending with any (unstable)
/// sort gives exactly the STABLE ascending sort by `key` of the items
/// 0, 1, 2, ...: equal keys keep their index order, and the index is recovered
/// with sort_key_index.
KOKKOS_INLINE_FUNCTION std::uint64_t sort_key(float key, int index) {
  return (static_cast<std::uint64_t>(float_order_bits(key)) << 32) | static_cast<std::uint32_t>(index);
}

/// The index stored in a sort_key.
KOKKOS_INLINE_FUNCTION int sort_key_index(std::uint64_t k) { return static_cast<int>(k & 0xFFFFFFFFu); }

}  // namespace trackgen::compat

namespace trackgen::compat {

/// RAII: lets the calling thread issue work on Kokkos::OpenMP while it holds the
/// caller's serialization lock. Kokkos 3.4's OpenMP backend keeps its instance in
/// a thread-local pointer set only on the thread that initialized Kokkos, so a
/// std::thread cannot dispatch at all; under a lock that serializes every
/// dispatch, the thread adopts that instance for the duration. The first scope
/// opened on the initializing thread records it (TrackGen opens one in every
/// producer's constructor). A no-op on Kokkos >= 4 and without OpenMP.
class OpenMPThreadScope {
 public:
#if defined(KOKKOS_ENABLE_OPENMP) && !TRACKGEN_KOKKOS_MODERN
  // Kokkos::Impl::t_openmp_instance and Impl::OpenMPExec: Kokkos 3.x only
  // (Kokkos 4.0 replaced them with per-instance state that any thread can use).
  OpenMPThreadScope() : previous_(Kokkos::Impl::t_openmp_instance) {
    if (previous_ != nullptr) {
      master() = previous_;
    } else {
      Kokkos::Impl::t_openmp_instance = master();
    }
  }
  ~OpenMPThreadScope() { Kokkos::Impl::t_openmp_instance = previous_; }

 private:
  static Kokkos::Impl::OpenMPExec*& master() {
    static Kokkos::Impl::OpenMPExec* m = nullptr;
    return m;
  }
  Kokkos::Impl::OpenMPExec* previous_;
#else
  OpenMPThreadScope() = default;
#endif
 public:
  OpenMPThreadScope(const OpenMPThreadScope&) = delete;
  OpenMPThreadScope& operator=(const OpenMPThreadScope&) = delete;
};

}  // namespace trackgen::compat

namespace trackgen::compat {

/// Whether host execution space `Space` can run several threads at once that
/// each launch kernels of their own on a one-thread partition of the pool
/// (ThreadPartitions): Kokkos::OpenMP on Kokkos 3.4-3.5 (OpenMP::partition_master,
/// deprecated in 3.6, removed in 4.0) and on Kokkos >= 4.0 (partition_space into
/// independent OpenMP instances); nothing else.
template <class Space>
constexpr bool has_thread_partitions() {
#if defined(KOKKOS_ENABLE_OPENMP) && (KOKKOS_VERSION < 30600 || KOKKOS_VERSION >= 40000)
  return std::is_same_v<Space, Kokkos::OpenMP>;
#else
  return false;
#endif
}

/// One-thread partitions of a host execution-space instance, run together, each
/// by a thread of its own that launches the partition's kernels on an instance of
/// one thread (TrackGenerator's window threads, docs/design.md#window-threads).
/// Kokkos 3.4-3.5: OpenMP::partition_master, whose partitions are the calling
/// threads' default OpenMP instance. Kokkos >= 4.0: the threads of an OpenMP
/// parallel region, each with an OpenMP instance of one thread that it made itself
/// (an instance belongs to the OpenMP nesting level it was made at; a kernel
/// launched on it from a deeper level would run on thread data it does not have).
/// Build it only where has_thread_partitions<Space>().
template <class Space>
class ThreadPartitions {
 public:
  ThreadPartitions() = default;

  /// `parts` (2 or more) partitions of the pool of one-thread instances.
  explicit ThreadPartitions(int parts) : parts_(parts) {
    static_assert(has_thread_partitions<Space>(), "this Kokkos cannot partition this execution space");
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
    instances_.resize(static_cast<std::size_t>(parts));
#endif
  }

  /// Number of partitions (0 for a default-constructed one).
  int size() const { return parts_; }

  /// Whether run() can run the partitions now: from outside any OpenMP
  /// parallel region (from inside one, Kokkos runs kernels on the calling
  /// thread anyway).
  bool runnable() const {
#if defined(KOKKOS_ENABLE_OPENMP)
    return parts_ > 1 && omp_get_level() == 0;
#else
    return false;
#endif
  }

  /// Calls body(p, space) for the partitions p in [0, size()) at once, each on
  /// a thread of its own, where `space` is the partition's one-thread instance
  /// that the body launches all its kernels on. Only where runnable(). The
  /// OpenMP runtime may give the region fewer threads than partitions, so a
  /// partition may not run: the body shares its work among the partitions
  /// that do. It must not throw.
  template <class Body>
  void run(const Body& body) {
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION < 30600
    // Kokkos 3.4-3.5: partition_master runs each partition's function on a
    // thread whose default OpenMP instance is that partition (nested OpenMP).
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(levels < 2 ? 2 : levels);
    Kokkos::OpenMP::partition_master([&](int p, int) { body(p, Kokkos::OpenMP()); }, parts_, 1);
    omp_set_max_active_levels(levels);
#elif defined(KOKKOS_ENABLE_OPENMP)
    // Kokkos >= 4.0: each thread makes its instance at its first run (at
    // nesting level 1, where every later run launches from too) and keeps it.
#pragma omp parallel num_threads(parts_)
    {
      std::optional<Space>& space = instances_[static_cast<std::size_t>(omp_get_thread_num())];
      if (!space) space.emplace(1);
      body(omp_get_thread_num(), *space);
    }
#else
    (void)body;
#endif
  }

 private:
  int parts_ = 0;
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
  std::vector<std::optional<Space>> instances_;
#endif
};

}  // namespace trackgen::compat
