// Kokkos compatibility layer: the one place that knows the differences between
// Kokkos 3.4.01 (Debian's trilinos source) and Kokkos 4.x / 5.x.
//
// Everything else in TrackGen writes `trackgen::kmath::sqrt(x)`,
// `trackgen::compat::initialize(...)`, `trackgen::compat::host_mirror_t<V>` and
// compiles unchanged against both.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
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
using Kokkos::acos;
using Kokkos::atan;
using Kokkos::atan2;
using Kokkos::ceil;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::isfinite;
using Kokkos::isnan;
using Kokkos::log;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::acos;
using Kokkos::Experimental::atan;
using Kokkos::Experimental::atan2;
using Kokkos::Experimental::ceil;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::isnan;
using Kokkos::Experimental::log;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif

// Kokkos 3.4 has no Kokkos::min/max/clamp/abs; these are ours on every version.
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
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T abs(T v) {
  return v < T(0) ? -v : v;
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

/// Atomic increment (Kokkos::atomic_increment is gone in Kokkos 5).
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_inc(T* p) {
  Kokkos::atomic_add(p, T(1));
}

}  // namespace compat
}  // namespace trackgen
