// Bindings of TrackGenConfig, TrackGenerator and Track (the Python layer in
// trackgen/__init__.py checks and converts the arguments).
#include "tracks.hpp"
#include "arrays.hpp"
#include "config_json.hpp"
#include "inputs.hpp"
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
  return field_address(track, field, "trackgen.Track._data_ptr");
}

namespace {

using PyGenerator = PyProducer<TrackGenerator<Space>, TrackGenConfig>;

}  // namespace

void bind_tracks(nb::module_& m) {
  bind_config<TrackGenConfig>(m, "_Config", "trackgen.TrackGenConfig", &load_config, &available_generators<Space>);

  m.def("generators", &available_generators<Space>, "Sorted names of the registered centerline generators.");

  nb::class_<PyTrack> track(m, "_Track");
  bind_fields<Track<MemSpace>>(
      track, "trackgen.Track", [](PyTrack& t) -> const Track<MemSpace>& { return t.track; },
      [](nb::handle self, const auto& view) {
        if (nb::cast<PyTrack&>(self).read_only)
          return export_view(typename std::decay_t<decltype(view)>::const_type(view), self);
        return export_view(view, self);
      });
  track.def_prop_ro("num_envs", [](const PyTrack& t) { return t.track.num_envs(); })
      .def_prop_ro("n_max", [](const PyTrack& t) { return t.track.n_max(); })
      .def(
          "clone",
          [](const PyTrack& t) {
            t.check_alive("trackgen.Track.clone");
            Track<MemSpace> copy;
            {
              nb::gil_scoped_release unlocked;  // the copy; Holders are made with the GIL held
              const DeviceLock lock;
              copy = t.track.clone();
            }
            return new PyTrack(std::move(copy));
          },
          "An independent deep copy (not refilled by generate()).")
      .def("_data_ptr", &PyTrack::data_ptr, nb::arg("field"), "Address of a field's View data() (tests).")
      .def_static(
          "_from_arrays",
          [](const nb::dict& arrays, int num_envs, int n_max) {
            return new PyTrack(batch_from_arrays<Track<MemSpace>>("track_gen.Track", arrays, num_envs, n_max));
          },
          nb::arg("arrays"), nb::arg("num_envs"), nb::arg("n_max"),
          "A Track whose fields named in `arrays` alias those arrays (the others empty).");

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
      .def(
          "track_rw", [](const PyGenerator& g) { return new PyTrack(g.producer().track(), false); },
          "The Track with writable arrays (the track_gen package's, as the original's).")
      .def_prop_ro("masked_lane_envs", [](const PyGenerator& g) { return g.producer().masked_lane_envs(); });
  bind_producer_methods<PyGenerator>(gen);
}

}  // namespace trackgen::python
