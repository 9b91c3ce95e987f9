// The execution spaces TrackGen is built for: the one list of backends. Library
// templates are explicitly instantiated for each (TRACKGEN_FOR_EACH_SPACE), the
// tests are instantiated for each (TRACKGEN_SPACES), and the command-line tool
// selects one by name (for_each_space, backend_name). Supporting another Kokkos
// backend means adding it here, nowhere else.
#pragma once

#include <Kokkos_Core.hpp>

#include <cctype>
#include <string>
#include <tuple>
#include <type_traits>

// TRACKGEN_FOR_EACH_SPACE(M) expands M(Space) once per enabled Kokkos execution
// space TrackGen supports; TRACKGEN_FOR_EACH_HOST_SPACE(M) once per such space
// whose memory the host reads directly.
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
#define TRACKGEN_FOR_EACH_HOST_SPACE(M) TRACKGEN_IF_SERIAL(M) TRACKGEN_IF_OPENMP(M)
#define TRACKGEN_FOR_EACH_SPACE(M) TRACKGEN_FOR_EACH_HOST_SPACE(M) TRACKGEN_IF_CUDA(M)

// TRACKGEN_SPACES / TRACKGEN_HOST_SPACES: the same lists as comma-separated type
// lists (e.g. `Kokkos::Serial, Kokkos::OpenMP`), for template argument lists such
// as Catch2's TEMPLATE_TEST_CASE. Each entry expands to ", Space" after a dummy
// head, which TRACKGEN_DROP_FIRST removes.
#define TRACKGEN_COMMA_THEN(S) , S
#define TRACKGEN_DROP_FIRST(head, ...) __VA_ARGS__
#define TRACKGEN_DROP_FIRST_OF(args) TRACKGEN_DROP_FIRST args
#define TRACKGEN_SPACES TRACKGEN_DROP_FIRST_OF((void TRACKGEN_FOR_EACH_SPACE(TRACKGEN_COMMA_THEN)))
#define TRACKGEN_HOST_SPACES TRACKGEN_DROP_FIRST_OF((void TRACKGEN_FOR_EACH_HOST_SPACE(TRACKGEN_COMMA_THEN)))

namespace trackgen {

/// The enabled execution spaces TrackGen supports, as a type list.
using EnabledSpaces = std::tuple<TRACKGEN_SPACES>;

/// Number of entries in EnabledSpaces.
inline constexpr int num_enabled_spaces = static_cast<int>(std::tuple_size_v<EnabledSpaces>);

namespace detail {
template <class Space, class List>
struct in_space_list;
template <class Space, class... S>
struct in_space_list<Space, std::tuple<S...>> : std::bool_constant<(std::is_same_v<Space, S> || ...)> {};

template <class... S, class F>
void for_each_space_in(std::tuple<S...>*, F& f) {
  (f.template operator()<S>(), ...);
}
/// Whether `Space` runs on the host and reads host memory (Serial, OpenMP).
/// Callable in device code (for `if constexpr` in kernels).
template <class Space>
KOKKOS_INLINE_FUNCTION constexpr bool is_host_space() {
  return std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>;
}

/// Team size of the kernels that give each env a team (docs/design.md#team-shapes):
/// 1 on host spaces (a team is one thread, its barriers are free, the league of
/// envs is spread over the threads, and the env's per-point loops run on that
/// thread's vector lanes); 128 on devices, a thread block per env whose threads
/// take one point each (a default track has ~60-140 beads: one or two passes;
/// 128 threads never exceed a block's register budget).
template <class Space>
constexpr int env_team_size() {
  return is_host_space<Space>() ? 1 : 128;
}

}  // namespace detail

/// Whether `Space` is one of the EnabledSpaces.
template <class Space>
inline constexpr bool is_enabled_space_v = detail::in_space_list<Space, EnabledSpaces>::value;

/// The backend name of `Space` on the command line: Space::name() in lower case
/// ("serial", "openmp", "cuda").
template <class Space>
std::string backend_name() {
  std::string n = Space::name();
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

/// Calls f.template operator()<Space>() for every Space of EnabledSpaces, in order.
template <class F>
void for_each_space(F&& f) {
  detail::for_each_space_in(static_cast<EnabledSpaces*>(nullptr), f);
}

}  // namespace trackgen
