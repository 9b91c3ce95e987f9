// Zero-copy export of Kokkos Views as nanobind ndarrays, and copies of numpy
// arrays into Views.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/fields.hpp>
#include <trackgen/core/quat.hpp>
#include <trackgen/core/vec.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace trackgen::python {

namespace nb = nanobind;

using Space = Kokkos::DefaultExecutionSpace;
using MemSpace = Space::memory_space;
/// Whether the library's Views live in host-accessible memory (then arrays are
/// numpy arrays; otherwise DLPack capsules on the device).
inline constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

/// A default instance of Space, Kokkos initialized first (members that hold
/// an instance are initialized with it).
Space initialized_space();

/// Host [n] int32 input arrays (C-contiguous; converted by the Python layer).
using HostInts = nb::ndarray<const std::int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
/// Host [n, k] float32 input arrays (C-contiguous).
using HostFloats2 = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

namespace detail {
template <class T>
struct scalar_of {
  using type = T;
  static constexpr std::size_t width = 1;
};
template <>
struct scalar_of<Vec3f> {
  using type = float;
  static constexpr std::size_t width = 3;
};
template <>
struct scalar_of<Vec2f> {
  using type = float;
  static constexpr std::size_t width = 2;
};
template <>
struct scalar_of<Quatf> {
  using type = float;
  static constexpr std::size_t width = 4;
};
static_assert(sizeof(Quatf) == 4 * sizeof(float), "the zero-copy export assumes packed quaternions");
static_assert(sizeof(Vec3f) == 3 * sizeof(float) && sizeof(Vec2f) == 2 * sizeof(float),
              "the zero-copy export assumes packed float vectors");
}  // namespace detail

/// The memory of the 1D View `v` as an array without a copy: [n] for scalars,
/// [n, k] for k-float vectors; `owner` (a Python object holding the View) is
/// kept alive as long as the array. A numpy array on host memory, a DLPack
/// ndarray on the device; read-only when T is const.
template <class T, class... P>
nb::object export_view(const Kokkos::View<T*, P...>& v, nb::handle owner) {
  using S0 = typename detail::scalar_of<std::remove_const_t<T>>::type;
  using S = std::conditional_t<std::is_const_v<T>, const S0, S0>;
  constexpr std::size_t k = detail::scalar_of<std::remove_const_t<T>>::width;
  auto* data = reinterpret_cast<S*>(const_cast<std::remove_const_t<T>*>(v.data()));
  const std::size_t shape[2] = {v.extent(0), k};
  const std::size_t ndim = k == 1 ? 1 : 2;
  if constexpr (host_memory) {
    return nb::ndarray<nb::numpy, S>(data, ndim, shape, owner).cast();
  } else {
    int device = 0;
#if defined(KOKKOS_ENABLE_CUDA)
    device = Space().cuda_device();
#endif
    return nb::ndarray<S>(data, ndim, shape, owner, nullptr, nb::dtype<S0>(), nb::device::cuda::value, device).cast();
  }
}

/// Binds every field of a batch container as a read-only property of `cls`,
/// by the container's own list (Batch::for_each_field, trackgen/core/fields.hpp),
/// and sets the class attribute `fields`: a tuple of (name, per_point,
/// components, dtype) per field, from which the Python layer builds its class.
/// `batch(p)` is the container of the bound object `p` (a Holder, checked
/// alive and named `api` in errors); `array(self, view)` exports a field.
template <class Batch, class Py, class GetBatch, class Export>
void bind_fields(nb::class_<Py>& cls, const char* api, GetBatch batch, Export array) {
  nb::list fields;
  int index = 0;
  for (const FieldInfo& f : field_infos<Batch>()) {
    fields.append(nb::make_tuple(f.name, f.per_point, f.components, f.is_float ? "float32" : "int32"));
    cls.def_prop_ro(f.name, [api, batch, array, index](nb::handle self) {
      auto& p = nb::cast<Py&>(self);
      p.check_alive(api);
      nb::object out;
      int k = 0;
      Batch::for_each_field(batch(p), [&](const char*, const auto& view, auto) {
        if (k++ == index) out = array(self, view);
      });
      return out;
    });
    ++index;
  }
  cls.attr("fields") = nb::tuple(fields);
}

/// The data() address of field `name` of `b` (tests compare it with the
/// arrays'); ConfigError naming `api` for a name not in Batch's list.
template <class Batch>
std::uintptr_t field_address(const Batch& b, const std::string& name, const char* api) {
  const void* address = nullptr;
  bool found = false;
  Batch::for_each_field(b, [&](const char* field, const auto& view, auto) {
    if (name == field) {
      address = view.data();
      found = true;
    }
  });
  if (!found) throw ConfigError(std::string(api) + ": unknown field '" + name + "'");
  return reinterpret_cast<std::uintptr_t>(address);
}

/// Copies the host array `a` ([E] int32) into the [E] View `dst` (same extent,
/// checked by the caller) on `space`, waiting for the copy.
template <class View>
void copy_in(const Space& space, const View& dst, const HostInts& a) {
  Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(a.data(),
                                                                                                    a.shape(0));
  Kokkos::deep_copy(space, dst, src);
  space.fence();
}

/// Throws ConfigError unless `a` holds `n` entries, naming `api` and `arg`.
void check_extent(const char* api, const char* arg, std::size_t got, std::size_t n);

/// Registers the bindings of each part of the module.
void bind_tracks(nb::module_& m);
void bind_course(nb::module_& m);
void bind_gates(nb::module_& m);

}  // namespace trackgen::python
