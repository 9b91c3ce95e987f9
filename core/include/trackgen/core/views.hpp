// View aliases and the list of execution spaces TrackGen is compiled for.
#pragma once

#include <trackgen/core/vec.hpp>

namespace trackgen {

/// A flat device array of T in the memory space of execution space `Space`.
template <class T, class Space>
using DView = Kokkos::View<T*, typename Space::memory_space>;

/// Label of a TrackGen View or kernel: "TrackGen::<module>::<name>".
inline std::string label(const char* module, const char* name) {
  return std::string("TrackGen::") + module + "::" + name;
}

}  // namespace trackgen

// TRACKGEN_FOR_EACH_SPACE(M) expands M(Space) once per enabled Kokkos execution
// space; library templates are explicitly instantiated through it.
#if defined(KOKKOS_ENABLE_SERIAL)
#define TRACKGEN_IF_SERIAL(M) M(Kokkos::Serial)
#else
#define TRACKGEN_IF_SERIAL(M)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define TRACKGEN_IF_OPENMP(M) M(Kokkos::OpenMP)
#else
#define TRACKGEN_IF_OPENMP(M)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define TRACKGEN_IF_CUDA(M) M(Kokkos::Cuda)
#else
#define TRACKGEN_IF_CUDA(M)
#endif
#define TRACKGEN_FOR_EACH_SPACE(M) TRACKGEN_IF_SERIAL(M) TRACKGEN_IF_OPENMP(M) TRACKGEN_IF_CUDA(M)
