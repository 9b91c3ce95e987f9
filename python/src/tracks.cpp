// Bindings of TrackGenConfig, TrackGenerator and Track (the Python layer in
// trackgen/__init__.py checks and converts the arguments).
#include "tracks.hpp"
#include "arrays.hpp"
#include "config_json.hpp"
#include "producer.hpp"
#include "runtime.hpp"

#include <trackgen/trackgen.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace trackgen::python {

void check_extent(const char* api, const char* arg, std::size_t got, std::size_t n) {
  if (got != n) {
    throw ConfigError(std::string(api) + ": " + arg + " must hold " + std::to_string(n) +
                      " entries (one per env), got " + std::to_string(got));
  }
}

PyTrack::PyTrack(Track<MemSpace> t, bool read_only) : track(std::move(t)), read_only(read_only) {}

void PyTrack::release() noexcept { track = Track<MemSpace>(); }

std::uintptr_t PyTrack::data_ptr(const std::string& field) const {
  check_alive("trackgen.Track._data_ptr");
  const auto& t = track;
  const std::pair<const char*, const void*> fields[] = {
      {"outer", t.outer.data()},     {"center", t.center.data()},       {"inner", t.inner.data()},
      {"tangent", t.tangent.data()}, {"normal", t.normal.data()},       {"arclen", t.arclen.data()},
      {"length", t.length.data()},   {"valid", t.valid.data()},         {"count", t.count.data()},
      {"winding", t.winding.data()}, {"truncated", t.truncated.data()}, {"sep_overflow", t.sep_overflow.data()},
      {"invalid_reason", t.invalid_reason.data()}};
  for (const auto& [name, ptr] : fields) {
    if (field == name) return reinterpret_cast<std::uintptr_t>(ptr);
  }
  throw ConfigError("trackgen.Track._data_ptr: unknown field '" + field + "'");
}

namespace {

using PyGenerator = PyProducer<TrackGenerator<Space>, TrackGenConfig>;

template <class F>
nb::object field(nb::handle self, F&& get) {
  auto& t = nb::cast<PyTrack&>(self);
  t.check_alive("trackgen.Track");
  const auto v = get(t.track);
  if (t.read_only) return export_view(typename decltype(v)::const_type(v), self);
  return export_view(v, self);
}

}  // namespace

void bind_tracks(nb::module_& m) {
  bind_config<TrackGenConfig>(m, "_Config", "trackgen.TrackGenConfig", &load_config, &available_generators<Space>);

  m.def("generators", &available_generators<Space>, "Sorted names of the registered centerline generators.");

  nb::class_<PyTrack>(m, "_Track")
      .def_prop_ro("num_envs", [](const PyTrack& t) { return t.track.num_envs(); })
      .def_prop_ro("n_max", [](const PyTrack& t) { return t.track.n_max(); })
      .def_prop_ro("outer", [](nb::handle s) { return field(s, [](auto& t) { return t.outer; }); })
      .def_prop_ro("center", [](nb::handle s) { return field(s, [](auto& t) { return t.center; }); })
      .def_prop_ro("inner", [](nb::handle s) { return field(s, [](auto& t) { return t.inner; }); })
      .def_prop_ro("tangent", [](nb::handle s) { return field(s, [](auto& t) { return t.tangent; }); })
      .def_prop_ro("normal", [](nb::handle s) { return field(s, [](auto& t) { return t.normal; }); })
      .def_prop_ro("arclen", [](nb::handle s) { return field(s, [](auto& t) { return t.arclen; }); })
      .def_prop_ro("length", [](nb::handle s) { return field(s, [](auto& t) { return t.length; }); })
      .def_prop_ro("valid", [](nb::handle s) { return field(s, [](auto& t) { return t.valid; }); })
      .def_prop_ro("count", [](nb::handle s) { return field(s, [](auto& t) { return t.count; }); })
      .def_prop_ro("winding", [](nb::handle s) { return field(s, [](auto& t) { return t.winding; }); })
      .def_prop_ro("truncated", [](nb::handle s) { return field(s, [](auto& t) { return t.truncated; }); })
      .def_prop_ro("sep_overflow", [](nb::handle s) { return field(s, [](auto& t) { return t.sep_overflow; }); })
      .def_prop_ro("invalid_reason",
                   [](nb::handle s) { return field(s, [](auto& t) { return t.invalid_reason; }); })
      .def(
          "clone",
          [](const PyTrack& t) {
            t.check_alive("trackgen.Track.clone");
            Track<MemSpace> copy;
            {
              nb::gil_scoped_release unlocked;  // the copy; Holders are made with the GIL held
              std::lock_guard lock(device_mutex());
              copy = t.track.clone();
            }
            return new PyTrack(std::move(copy));
          },
          "An independent deep copy (not refilled by generate()).")
      .def("_data_ptr", &PyTrack::data_ptr, nb::arg("field"), "Address of a field's View data() (tests).");

  nb::class_<PyGenerator> gen(m, "_TrackGenerator");
  gen.def(
         "__init__",
         [](PyGenerator* self, const TrackGenConfig& c, std::int32_t k) {
           new (self) PyGenerator("trackgen.TrackGenerator", c, k);
         },
         nb::arg("config"), nb::arg("seed"))
      .def(
          "__init__",
          [](PyGenerator* self, const TrackGenConfig& c, const HostInts& seeds) {
            new (self) PyGenerator("trackgen.TrackGenerator", c, seeds);
          },
          nb::arg("config"), nb::arg("seeds"))
      .def("track", [](const PyGenerator& g) { return new PyTrack(g.producer().track(), true); })
      .def_prop_ro("masked_lane_envs", [](const PyGenerator& g) { return g.producer().masked_lane_envs(); });
  bind_producer_methods<PyGenerator>(gen);
}

}  // namespace trackgen::python
