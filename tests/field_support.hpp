// Tests of "every field reaches every output": distinct values in every field
// of a batch container (Track, GateSequence), written and compared by the
// container's own field list (trackgen/core/fields.hpp), so a field added to
// the container is covered without touching the tests.
#pragma once

#include <trackgen/core/fields.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace trackgen::test {

/// Writes into every scalar of every field of `b` a value unique to (field,
/// global entry, component): field f, entry i of env first_env + e holds
/// 1 + 100000 f + 8 (global entry) + component, as a float or an int32. The
/// fields are filled on the host and copied into `b`'s memory space.
template <class Batch>
void fill_field_patterns(const Batch& b, int first_env = 0) {
  auto host = b.to_host();
  int f = 0;
  std::remove_cvref_t<decltype(host)>::for_each_field(host, [&](const char*, const auto& view, auto) {
    using T = typename std::decay_t<decltype(view)>::value_type;
    using Scalar = std::conditional_t<field_is_float<T>(), float, std::int32_t>;
    constexpr int k = field_components<T>();
    const std::size_t stride = view.extent(0) / static_cast<std::size_t>(b.num_envs());
    auto* scalars = reinterpret_cast<Scalar*>(view.data());
    for (std::size_t i = 0; i < view.extent(0); ++i) {
      const std::size_t global = static_cast<std::size_t>(first_env) * stride + i;
      for (int c = 0; c < k; ++c) scalars[i * k + c] = static_cast<Scalar>(1 + 100000 * f + 8 * global + c);
    }
    ++f;
  });
  Batch::for_each_field(b, host,
                        [](const char*, const auto& dst, const auto& src, auto) { Kokkos::deep_copy(dst, src); });
}

/// The names of the fields in which envs [a0, a0 + n) of `a` and [b0, b0 + n)
/// of `b` (host containers of one type and stride) differ in any bit; empty
/// when they hold the same bits in every field of the list.
template <class Batch>
std::vector<std::string> differing_fields(const Batch& a, int a0, const Batch& b, int b0, int n) {
  std::vector<std::string> names;
  Batch::for_each_field(a, b, [&](const char* name, const auto& x, const auto& y, auto) {
    using T = typename std::decay_t<decltype(x)>::value_type;
    const std::size_t sx = x.extent(0) / static_cast<std::size_t>(a.num_envs());
    const std::size_t sy = y.extent(0) / static_cast<std::size_t>(b.num_envs());
    const bool same = sx == sy && std::memcmp(x.data() + static_cast<std::size_t>(a0) * sx,
                                              y.data() + static_cast<std::size_t>(b0) * sy,
                                              static_cast<std::size_t>(n) * sx * sizeof(T)) == 0;
    if (!same) names.emplace_back(name);
  });
  return names;
}

/// differing_fields over every env of two host containers of the same shape.
template <class Batch>
std::vector<std::string> differing_fields(const Batch& a, const Batch& b) {
  if (a.num_envs() != b.num_envs()) return {"num_envs"};
  return differing_fields(a, 0, b, 0, a.num_envs());
}

}  // namespace trackgen::test
