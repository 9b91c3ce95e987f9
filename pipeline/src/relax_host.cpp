// The host solvers of the relaxation (docs/algorithms.md#how-the-solve-runs):
// solve_env with the host loop shapes of relax_host_loops.inc, compiled once
// per instruction-set level (each copy under its own `#pragma GCC target`; no
// global -march), and the run-time choice among them. The copies differ only
// in how the 16 lanes map onto registers: the same float operations in the
// same order per bead, no contraction (-ffp-contract=off), so every level
// gives the same bits (tests/test_relax.cpp checks each level this CPU runs).
#include "relax_solve.hpp"
#if TRACKGEN_HOST_LANES
#include "relax_host_loops.hpp"
#endif

#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/pipeline/detail/simd.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#if TRACKGEN_HOST_LANES && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TRACKGEN_X86_VARIANTS 1
#include <immintrin.h>
#else
#define TRACKGEN_X86_VARIANTS 0
#if TRACKGEN_HOST_LANES && defined(__SSE2__)
#include <xmmintrin.h>  // the baseline copy's lane mask bits (_mm_movemask_ps; clang builds)
#endif
#endif

#if TRACKGEN_HOST_LANES
// 64-byte vectors pass between the inlined functions of each level's copy;
// no ABI of an exported function involves them.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define TRACKGEN_LANES_NS level_baseline
#define TRACKGEN_LANES_LEVEL 0
#include "relax_host_loops.inc"
#undef TRACKGEN_LANES_NS
#undef TRACKGEN_LANES_LEVEL

#if TRACKGEN_X86_VARIANTS
#pragma GCC push_options
#pragma GCC target("avx2")
#define TRACKGEN_LANES_NS level_avx2
#define TRACKGEN_LANES_LEVEL 1
#include "relax_host_loops.inc"
#undef TRACKGEN_LANES_NS
#undef TRACKGEN_LANES_LEVEL
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512")
#define TRACKGEN_LANES_NS level_avx512
#define TRACKGEN_LANES_LEVEL 2
#include "relax_host_loops.inc"
#undef TRACKGEN_LANES_NS
#undef TRACKGEN_LANES_LEVEL
#pragma GCC pop_options
#endif
#endif

namespace trackgen::detail {
namespace relaxation {
#if TRACKGEN_HOST_LANES
HostSolver host_solver() {
#if TRACKGEN_X86_VARIANTS
  switch (host_simd()) {
    case HostSimd::avx512:
      return level_avx512::solve;
    case HostSimd::avx2:
      return level_avx2::solve;
    case HostSimd::baseline:
      break;
  }
#endif
  return level_baseline::solve;
}

void host_refresh(const Chain& x, const Env& env, const Distances& d, const Cache& c, const HostSplit& split,
                  bool first) {
#if TRACKGEN_X86_VARIANTS
  switch (host_simd()) {
    case HostSimd::avx512:
      return level_avx512::HostLoops{}.refresh(x, env, d, c, split, first);
    case HostSimd::avx2:
      return level_avx2::HostLoops{}.refresh(x, env, d, c, split, first);
    case HostSimd::baseline:
      break;
  }
#endif
  level_baseline::HostLoops{}.refresh(x, env, d, c, split, first);
}
#endif

}  // namespace relaxation

namespace {

constexpr HostSimd all_levels[] = {HostSimd::baseline, HostSimd::avx2, HostSimd::avx512};

// -1: automatic; else the forced level.
std::atomic<int> forced{-1};

HostSimd widest() {
  HostSimd best = HostSimd::baseline;
  for (const HostSimd l : all_levels) {
    if (host_simd_available(l)) best = l;
  }
  return best;
}

HostSimd automatic() {
  static const HostSimd level = [] {
    const char* env = std::getenv("TRACKGEN_HOST_SIMD");
    if (env != nullptr && *env != '\0') {
      for (const HostSimd l : all_levels) {
        if (std::strcmp(env, host_simd_name(l)) == 0 && host_simd_available(l)) return l;
      }
      logging::warn(std::string("TRACKGEN_HOST_SIMD=") + env + " is not an available level; using " +
                    host_simd_name(widest()));
    }
    return widest();
  }();
  return level;
}

}  // namespace

const char* host_simd_name(HostSimd level) {
  switch (level) {
    case HostSimd::avx2:
      return "avx2";
    case HostSimd::avx512:
      return "avx512";
    case HostSimd::baseline:
      break;
  }
  return "baseline";
}

bool host_simd_available(HostSimd level) {
  switch (level) {
    case HostSimd::baseline:
      return true;
#if TRACKGEN_X86_VARIANTS
    case HostSimd::avx2:
      return __builtin_cpu_supports("avx2");
    case HostSimd::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
#endif
    default:
      return false;
  }
}

HostSimd host_simd() {
  const int f = forced.load();
  return f >= 0 ? static_cast<HostSimd>(f) : automatic();
}

void set_host_simd(std::optional<HostSimd> level) {
  if (level && !host_simd_available(*level)) {
    throw ConfigError(std::string("trackgen::detail::set_host_simd: level \"") + host_simd_name(*level) +
                      "\" is not available in this build on this CPU");
  }
  forced.store(level ? static_cast<int>(*level) : -1);
}

}  // namespace trackgen::detail
