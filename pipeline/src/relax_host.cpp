// The host solvers of the relaxation (docs/algorithms.md#how-the-solve-runs):
// solve_env with the host loop shapes, compiled once per instruction-set level
// (each function carries its target; no global -march), and the run-time choice
// among them. The variants differ only in vector width: the same float
// operations in the same order per bead, no contraction (-ffp-contract=off), so
// every level gives the same bits (tests/test_relax.cpp checks each level this
// CPU runs).
#include "relax_solve.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/pipeline/detail/simd.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__)
#define TRACKGEN_X86_VARIANTS 1
#else
#define TRACKGEN_X86_VARIANTS 0
#endif

namespace trackgen::detail {
namespace relaxation {
namespace {

TRACKGEN_FLATTEN int solve_baseline(const EnvSolve& a) { return solve_env(HostLoops{}, a); }

#if TRACKGEN_X86_VARIANTS
__attribute__((target("avx2"), flatten)) int solve_avx2(const EnvSolve& a) { return solve_env(HostLoops{}, a); }

__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512"), flatten)) int solve_avx512(
    const EnvSolve& a) {
  return solve_env(HostLoops{}, a);
}
#endif

}  // namespace

HostSolver host_solver() {
#if TRACKGEN_X86_VARIANTS
  switch (host_simd()) {
    case HostSimd::avx512:
      return solve_avx512;
    case HostSimd::avx2:
      return solve_avx2;
    case HostSimd::baseline:
      break;
  }
#endif
  return solve_baseline;
}

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
