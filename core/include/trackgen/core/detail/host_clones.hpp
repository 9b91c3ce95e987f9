// TRACKGEN_HOST_CLONES (internal): a host function compiled once per x86-64
// instruction-set level (AVX-512, AVX2, the baseline), the level picked when
// the program loads (GCC's target_clones). For host loops that vectorize and
// give the same results at every width: the project compiles without
// contraction (-ffp-contract=off), so each lane rounds as a scalar would.
// Empty elsewhere (Clang, nvcc, other architectures).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define TRACKGEN_HOST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TRACKGEN_HOST_CLONES
#endif
