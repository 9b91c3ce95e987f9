// Arrays given by Python as library inputs: Views over the caller's host
// memory (no copy), and batches (Track, GateSequence) built from arrays.
#pragma once

#include "arrays.hpp"
#include "runtime.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/fields.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace trackgen::python {

/// A C-contiguous host array of float32 or int32 scalars, any shape (the Python
/// layer converts and checks shape and dtype, naming the argument).
using InFloats = nb::ndarray<const float, nb::c_contig, nb::device::cpu>;
using InInts = nb::ndarray<const std::int32_t, nb::c_contig, nb::device::cpu>;

/// The memory of `a` as a View of `T` entries, without a copy (an unmanaged
/// View: the caller keeps `a` alive as long as the View is used). `a` is [n]
/// for scalars, [n, k] for k-float vectors. ConfigError naming `api` and
/// `name` for another shape, or on a build whose memory space is not host
/// memory (its Views cannot alias host arrays).
template <class T, class A>
DView<T, Space> alias(const A& a, const std::string& api, const char* name) {
  constexpr std::size_t k = detail::scalar_of<T>::width;
  const bool ok = k == 1 ? a.ndim() == 1 : (a.ndim() == 2 && a.shape(1) == k);
  if (!ok) {
    throw ConfigError(api + ": " + name + " must be an array of shape (n" + (k == 1 ? "" : ", " + std::to_string(k)) +
                      "), got " + std::to_string(a.ndim()) + " dimensions");
  }
  if constexpr (!host_memory) {
    throw ConfigError(api + ": " + name +
                      ": this build's library memory is on a device; host arrays cannot be aliased");
  } else {
    using S = typename detail::scalar_of<T>::type;
    auto* data = reinterpret_cast<T*>(const_cast<S*>(static_cast<const S*>(a.data())));
    return DView<T, Space>(data, a.shape(0));
  }
}

/// A batch (Track or GateSequence on the library's memory space) of `num_envs`
/// envs of stride `stride` whose fields named in `arrays` (a dict: field name ->
/// C-contiguous float32 or int32 array of the field's shape) alias those arrays
/// and whose other fields are allocated at their empty entries (NaN points,
/// zero per-env fields). ConfigError naming `api` and the field for an unknown
/// name or a wrong size or dtype.
template <class Batch>
Batch batch_from_arrays(const std::string& api, const nb::dict& arrays, int num_envs, int stride) {
  for (auto [key, value] : arrays) {
    bool known = false;
    const auto name = nb::cast<std::string>(key);
    for (const FieldInfo& f : field_infos<Batch>()) known = known || name == f.name;
    if (!known) throw ConfigError(api + ": unknown field '" + name + "'");
  }
  const Space space = initialized_space();
  const DeviceLock lock;
  Batch b(space, num_envs, stride);
  Batch::for_each_field(b, [&](const char* name, auto& field, auto shape) {
    if (!arrays.contains(name)) return;
    using V = std::decay_t<decltype(field)>;
    using T = typename V::value_type;
    const std::size_t rows =
        decltype(shape)::value ? std::size_t(num_envs) * std::size_t(stride) : std::size_t(num_envs);
    V view;
    if constexpr (std::is_same_v<T, std::int32_t>) {
      InInts a;
      if (!nb::try_cast(arrays[name], a)) throw ConfigError(api + ": " + name + " must be a C-contiguous int32 array");
      view = alias<T>(a, api, name);
    } else {
      InFloats a;
      if (!nb::try_cast(arrays[name], a))
        throw ConfigError(api + ": " + name + " must be a C-contiguous float32 array");
      view = alias<T>(a, api, name);
    }
    if (view.extent(0) != rows) {
      throw ConfigError(api + ": " + name + " must hold " + std::to_string(rows) + " entries, got " +
                        std::to_string(view.extent(0)));
    }
    field = view;
  });
  return b;
}

/// Seconds per call of `f` (then a fence of `space`) in a C++ loop of `n`
/// calls, without the GIL, under the DeviceLock: the C++ side of the Python
/// overhead benchmark (perf/python_overhead.py).
double seconds_per_call(const Space& space, int n, const std::function<void()>& f);

/// Registers the bindings of the runtime utilities.
void bind_utilities(nb::module_& m);

}  // namespace trackgen::python
