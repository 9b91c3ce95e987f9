// The instruction sets of the host kernels compiled in several variants (the
// relaxation solve, docs/algorithms.md#how-the-solve-runs). Every variant gives
// bit-identical results; the choice only changes the speed.
#pragma once

#include <optional>

namespace trackgen::detail {

/// An instruction-set level of the host kernels.
enum class HostSimd {
  baseline,  ///< the build's target (SSE2 on x86-64)
  avx2,      ///< x86-64 AVX2
  avx512,    ///< x86-64 AVX-512 (F, VL, BW, DQ)
};

/// "baseline", "avx2" or "avx512".
const char* host_simd_name(HostSimd level);

/// Whether this build has `level` and this CPU runs it (baseline: always).
bool host_simd_available(HostSimd level);

/// The level the host kernels use: the one set_host_simd forced, else the
/// environment variable TRACKGEN_HOST_SIMD (a name above, when available; read
/// once), else the widest available.
HostSimd host_simd();

/// Forces `level` for every later launch (trackgen::ConfigError naming the
/// level if it is not available), or restores the automatic choice (nullopt).
/// For tests and measurements: all levels give the same bits.
void set_host_simd(std::optional<HostSimd> level);

}  // namespace trackgen::detail
