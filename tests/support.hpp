// Shared test support: the list of enabled execution spaces every backend-generic
// test is instantiated for, and small host helpers.
#pragma once

#include <catch2/catch.hpp>

#include <trackgen/core/compat.hpp>

#include <cstring>
#include <string>
#include <vector>

// TEMPLATE_TEST_CASE("name", "[tags]", TRACKGEN_TEST_SPACES) runs a test once per
// enabled backend; the test name carries the space ("name - Kokkos::OpenMP").
#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
#define TRACKGEN_TEST_SPACES Kokkos::Serial, Kokkos::OpenMP
#elif defined(KOKKOS_ENABLE_OPENMP)
#define TRACKGEN_TEST_SPACES Kokkos::OpenMP
#elif defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOS_ENABLE_SERIAL)
#define TRACKGEN_TEST_SPACES Kokkos::Serial, Kokkos::Cuda
#else
#define TRACKGEN_TEST_SPACES Kokkos::Serial
#endif

namespace trackgen::test {

/// Copies a device View into a std::vector on the host.
template <class V>
auto to_vector(const V& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename V::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

/// Copies a host std::vector into a new device View of execution space Space.
template <class Space, class T>
Kokkos::View<T*, typename Space::memory_space> to_device(const std::vector<T>& v, const char* name = "test") {
  // std::string: Kokkos 3.4 does not take a `const char*` pointer as a View label.
  Kokkos::View<T*, typename Space::memory_space> d(std::string(name), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

/// Bitwise equality of two arrays (NaN == NaN when the bits agree).
template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace trackgen::test
