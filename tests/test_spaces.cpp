// The backend list every templated test is instantiated for
// (TRACKGEN_TEST_SPACES, the library's list in trackgen/core/spaces.hpp) holds
// every execution space Kokkos was built with: checked at compile time against
// Kokkos' own configuration macros, so a Kokkos with a backend the list lacks
// (or a list that drops one) does not build the tests.
#include "support.hpp"

#include <trackgen/core/spaces.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

/// The execution spaces of this Kokkos, counted from its configuration.
constexpr int kokkos_execution_spaces = 0
#if defined(KOKKOS_ENABLE_SERIAL)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_THREADS) || defined(KOKKOS_ENABLE_PTHREAD)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_HPX)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_CUDA)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_HIP)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_SYCL)
                                        + 1
#endif
#if defined(KOKKOS_ENABLE_OPENMPTARGET)
                                        + 1
#endif
    ;

using TestSpaces = std::tuple<TRACKGEN_TEST_SPACES>;
using TestHostSpaces = std::tuple<TRACKGEN_TEST_HOST_SPACES>;

static_assert(std::tuple_size_v<TestSpaces> == kokkos_execution_spaces,
              "TRACKGEN_TEST_SPACES must hold every execution space of this Kokkos: add the missing backend to "
              "trackgen/core/spaces.hpp");
static_assert(std::tuple_size_v<TestSpaces> == trackgen::num_enabled_spaces);
static_assert(trackgen::is_enabled_space_v<Kokkos::DefaultExecutionSpace>,
              "the default execution space must be one TrackGen is instantiated for");
static_assert(trackgen::is_enabled_space_v<Kokkos::DefaultHostExecutionSpace>);
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(trackgen::is_enabled_space_v<Kokkos::Cuda>, "the tests run on Kokkos::Cuda");
static_assert(std::tuple_size_v<TestHostSpaces> == kokkos_execution_spaces - 1);
#else
static_assert(std::tuple_size_v<TestHostSpaces> == kokkos_execution_spaces);
#endif

}  // namespace

TEMPLATE_TEST_CASE("spaces: a templated test runs once per backend", "[spaces]", TRACKGEN_TEST_SPACES) {
  CHECK(trackgen::is_enabled_space_v<TestType>);
  CHECK(!trackgen::backend_name<TestType>().empty());
}

TEST_CASE("spaces: backend names are the lower-case Kokkos names, one per enabled space", "[spaces]") {
  std::vector<std::string> names;
  trackgen::for_each_space([&]<class Space>() { names.push_back(trackgen::backend_name<Space>()); });
  CHECK(static_cast<int>(names.size()) == kokkos_execution_spaces);
#if defined(KOKKOS_ENABLE_SERIAL)
  CHECK(std::count(names.begin(), names.end(), "serial") == 1);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  CHECK(std::count(names.begin(), names.end(), "openmp") == 1);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  CHECK(std::count(names.begin(), names.end(), "cuda") == 1);
#endif
}

TEMPLATE_TEST_CASE("spaces: host backends run at the thread count ctest asks for", "[spaces]",
                   TRACKGEN_TEST_HOST_SPACES) {
  const char* threads = std::getenv("TRACKGEN_TEST_THREADS");
  if (threads == nullptr || std::atoi(threads) <= 0) return;  // run by hand: Kokkos' default
  const int expected = std::is_same_v<TestType, Kokkos::Serial> ? 1 : std::atoi(threads);
  CHECK(trackgen::compat::concurrency(TestType()) == expected);
}
