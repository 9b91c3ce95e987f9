// The field lists of the batch containers (Track, GateSequence): what their
// visitors pass and the pieces every output builds on them.
//
// Each container declares its fields once, in one static member function
//
//   template <class A, class B, class F>
//   static void for_each_field(A& a, B& b, F&& f);   // f(name, a.field, b.field, shape)
//   template <class A, class F>
//   static void for_each_field(A& a, F&& f);         // f(name, a.field, shape)
//
// called for every field in declaration order, where `shape` is PerPoint for
// the [E * stride] fields (points of a Track, gates of a GateSequence) and
// PerEnv for the [E] fields. Allocation, clone(), window(), byte counts, the
// HDF5 datasets, the MPI gather, the Python arrays, the masked lane and the
// course line all iterate it, so a field added to a container reaches every one
// of them (docs/design.md#adding-an-output-format). The visitors are callable
// in kernels as well as on the host.
#pragma once

#include <trackgen/core/quat.hpp>
#include <trackgen/core/vec.hpp>
#include <trackgen/core/views.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

// TRACKGEN_FIELD_VISITOR, written before the `template` line of a container's
// field visitor (a KOKKOS_FORCEINLINE_FUNCTION template, callable on the host
// and in kernels): nvcc checks a host and device template's calls against both
// execution spaces at every instantiation, so a visitor given a host-only
// lambda would draw a warning; the check is left to the lambda's own
// execution space instead.
#if defined(__NVCC__)
#define TRACKGEN_FIELD_VISITOR _Pragma("nv_exec_check_disable")
#else
#define TRACKGEN_FIELD_VISITOR
#endif

namespace trackgen {

/// The shape tag of a field with one entry per point of a Track (per gate of
/// a GateSequence): [E * stride], env e at [e * stride, (e + 1) * stride).
using PerPoint = std::true_type;
/// The shape tag of a field with one entry per env: [E].
using PerEnv = std::false_type;

/// Scalars per entry of a field of value type T: 3 for Vec3f, 4 for Quatf,
/// 1 for float and int32.
template <class T>
constexpr int field_components() {
  using U = std::remove_const_t<T>;
  static_assert(std::is_same_v<U, Vec3f> || std::is_same_v<U, Quatf> || std::is_same_v<U, float> ||
                    std::is_same_v<U, std::int32_t>,
                "a batch field holds Vec3f, Quatf, float or int32 entries");
  if constexpr (std::is_same_v<U, Vec3f>) return 3;
  if constexpr (std::is_same_v<U, Quatf>) return 4;
  return 1;
}

/// Whether the scalars of a field of value type T are float (else int32).
template <class T>
constexpr bool field_is_float() {
  return field_components<T>() > 1 || std::is_same_v<std::remove_const_t<T>, float>;
}

/// The value of an entry of a field of value type T that no batch wrote:
/// NaN in every component for the float entries of a per-point field, zero
/// otherwise (per-env fields, integers).
template <class T, class Shape>
KOKKOS_INLINE_FUNCTION constexpr T empty_entry(Shape) {
  if constexpr (Shape::value && std::is_same_v<T, Vec3f>) {
    return nan3();
  } else if constexpr (Shape::value && std::is_same_v<T, Quatf>) {
    return nan_quat();
  } else if constexpr (Shape::value && std::is_same_v<T, float>) {
    return nanf();
  } else {
    return T{};
  }
}

/// One field of a container as its list declares it.
struct FieldInfo {
  const char* name = "";   ///< the field's name in the list (a string literal)
  bool per_point = false;  ///< [E * stride] (else [E])
  int components = 1;      ///< scalars per entry (field_components)
  bool is_float = true;    ///< float scalars (else int32)
};

/// The fields of container type Batch (Track<M> or GateSequence<M>), in its
/// declaration order.
template <class Batch>
std::vector<FieldInfo> field_infos() {
  std::vector<FieldInfo> out;
  Batch b;
  Batch::for_each_field(b, [&](const char* name, const auto& field, auto shape) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    out.push_back({name, decltype(shape)::value, field_components<T>(), field_is_float<T>()});
  });
  return out;
}

namespace detail {

/// Allocates every field of `b` for `num_envs` envs of stride `stride` on the
/// instance `space`, labelled "TrackGen::<module>::<field>", each entry at
/// its empty_entry; waits for `space`.
template <class Batch, class ExecSpace>
void allocate_fields(Batch& b, const ExecSpace& space, const char* module, int num_envs, int stride) {
  const std::size_t rows = std::size_t(num_envs) * std::size_t(stride);
  Batch::for_each_field(b, [&](const char* name, auto& field, auto shape) {
    using View = std::decay_t<decltype(field)>;
    using T = typename View::value_type;
    const std::string l = label(module, name);
    if constexpr (decltype(shape)::value) {
      field = View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, l), rows);
      Kokkos::deep_copy(space, field, empty_entry<T>(shape));
    } else {
      field = View(Kokkos::view_alloc(space, l), static_cast<std::size_t>(num_envs));
    }
  });
  space.fence();
}

/// Deep copies every field of `src` into freshly allocated Views of `dst`
/// (same labels and extents).
template <class Dst, class Src>
void clone_fields(Dst& dst, const Src& src) {
  Src::for_each_field(dst, src, [](const char*, auto& d, const auto& s, auto) {
    d = std::decay_t<decltype(d)>(Kokkos::view_alloc(Kokkos::WithoutInitializing, s.label()), s.extent(0));
    Kokkos::deep_copy(d, s);
  });
}

/// Bytes held by the fields of `b`.
template <class Batch>
std::size_t field_bytes(const Batch& b) {
  std::size_t bytes = 0;
  Batch::for_each_field(b, [&](const char*, const auto& field, auto) { bytes += view_bytes(field); });
  return bytes;
}

/// Bytes the fields of a Batch of `num_envs` envs of stride `stride` hold,
/// without allocating.
template <class Batch>
std::size_t field_bytes_for(int num_envs, int stride) {
  const std::size_t rows = std::size_t(num_envs) * std::size_t(stride), envs = std::size_t(num_envs);
  std::size_t bytes = 0;
  Batch b;
  Batch::for_each_field(b, [&](const char*, const auto& field, auto shape) {
    bytes += sizeof(typename std::decay_t<decltype(field)>::value_type) * (decltype(shape)::value ? rows : envs);
  });
  return bytes;
}

}  // namespace detail
}  // namespace trackgen
