// View aliases, labels and sizes; the list of execution spaces TrackGen is
// compiled for (spaces.hpp).
#pragma once

#include <trackgen/core/spaces.hpp>
#include <trackgen/core/vec.hpp>

#include <cstddef>
#include <string>

namespace trackgen {

/// A flat device array of T in the memory space of execution space `Space`.
template <class T, class Space>
using DView = Kokkos::View<T*, typename Space::memory_space>;

/// Label of a TrackGen View or kernel: "TrackGen::<module>::<name>".
inline std::string label(const char* module, const char* name) {
  return std::string("TrackGen::") + module + "::" + name;
}

/// Bytes of the allocation behind View `v` (its span, padding included; 0 for an
/// empty View).
template <class V>
std::size_t view_bytes(const V& v) {
  return v.span() * sizeof(typename V::value_type);
}

}  // namespace trackgen
