// Bindings of TrackGenConfig, TrackGenerator and Track (the Python layer in
// trackgen/__init__.py checks and converts the arguments).
#include "tracks.hpp"
#include "arrays.hpp"
#include "config_json.hpp"
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

PyTrack::PyTrack(Track<MemSpace> t) : track(std::move(t)) {}

void PyTrack::release() noexcept { track = Track<MemSpace>(); }

std::uintptr_t PyTrack::data_ptr(const std::string& field) const {
  check_alive("trackgen.Track._data_ptr");
  const auto& t = track;
  const std::pair<const char*, const void*> fields[] = {
      {"outer", t.outer.data()},     {"center", t.center.data()},       {"inner", t.inner.data()},
      {"tangent", t.tangent.data()}, {"normal", t.normal.data()},       {"arclen", t.arclen.data()},
      {"length", t.length.data()},   {"valid", t.valid.data()},         {"count", t.count.data()},
      {"winding", t.winding.data()}, {"truncated", t.truncated.data()}, {"sep_overflow", t.sep_overflow.data()}};
  for (const auto& [name, ptr] : fields) {
    if (field == name) return reinterpret_cast<std::uintptr_t>(ptr);
  }
  throw ConfigError("trackgen.Track._data_ptr: unknown field '" + field + "'");
}

namespace {

TrackGenConfig validated(TrackGenConfig c) {
  c.validate(available_generators<Space>());
  return c;
}

TrackGenConfig config_from_object(nb::handle fields) {
  const nlohmann::json j = to_json_value(fields, "trackgen.TrackGenConfig", "the config");
  TrackGenConfig c;
  from_json(j, c);
  return validated(c);
}

/// A TrackGenerator on the default execution space reading its base seeds from
/// an [E] int32 View it owns (filled from an integer or an array, rewritten by
/// set_seeds), plus an [E] mask View for masked generation.
class PyGenerator : public Holder {
 public:
  using IntView = TrackGenerator<Space>::IntView;

  /// A generator of `config` with base seeds k + e; generates that batch.
  PyGenerator(const TrackGenConfig& config, std::int32_t k) {
    std::lock_guard lock(device_mutex());
    allocate(config);
    write_seeds(k);
    gen_ = std::make_unique<TrackGenerator<Space>>(space_, validated(config), seeds_);
  }

  /// A generator of `config` with the per-env base seeds `seeds`; generates that batch.
  PyGenerator(const TrackGenConfig& config, const HostInts& seeds) {
    std::lock_guard lock(device_mutex());
    allocate(config);
    check_extent("trackgen.TrackGenerator", "seed", seeds.shape(0), seeds_.extent(0));
    copy_in(space_, seeds_, seeds);
    gen_ = std::make_unique<TrackGenerator<Space>>(space_, validated(config), seeds_);
  }

  ~PyGenerator() override {
    std::lock_guard lock(device_mutex());
    release();
  }

  void release() noexcept override {
    gen_.reset();
    seeds_ = IntView();
    mask_ = IntView();
  }

  /// seeds[e] = k + e (int32 wrap-around), as the command-line tool's --seed.
  void set_seeds(std::int32_t k) {
    check_alive("trackgen.TrackGenerator.rebind_seeds");
    std::lock_guard lock(device_mutex());
    write_seeds(k);
  }

  void set_seeds_array(const HostInts& seeds) {
    check_alive("trackgen.TrackGenerator.rebind_seeds");
    check_extent("trackgen.TrackGenerator", "seed", seeds.shape(0), seeds_.extent(0));
    std::lock_guard lock(device_mutex());
    copy_in(space_, seeds_, seeds);
  }

  void generate() {
    check_alive("trackgen.TrackGenerator.generate");
    std::lock_guard lock(device_mutex());
    gen_->generate();
    space_.fence();
  }

  void generate_masked(const HostInts& mask, bool advance) {
    check_alive("trackgen.TrackGenerator.generate");
    check_extent("trackgen.TrackGenerator.generate", "mask", mask.shape(0), mask_.extent(0));
    std::lock_guard lock(device_mutex());
    copy_in(space_, mask_, mask);
    gen_->generate(mask_, advance);
    space_.fence();
  }

  void set_eager(bool eager) {
    check_alive("trackgen.TrackGenerator.policy");
    gen_->set_policy(eager ? Policy::eager : Policy::automatic);
  }
  bool eager() const {
    check_alive("trackgen.TrackGenerator.policy");
    return gen_->policy() == Policy::eager;
  }

  PyTrack* track() const {
    check_alive("trackgen.TrackGenerator.track");
    return new PyTrack(gen_->track());
  }
  const IntView& seeds() const { return seeds_; }
  const IntView& epoch() const { return gen_->seeds().epoch(); }
  int masked_lane_envs() const {
    check_alive("trackgen.TrackGenerator.masked_lane_envs");
    return gen_->masked_lane_envs();
  }

 private:
  void allocate(const TrackGenConfig& config) {
    const auto e = static_cast<std::size_t>(config.num_envs);
    seeds_ = IntView(Kokkos::view_alloc(space_, "TrackGen::python::seeds"), e);
    mask_ = IntView(Kokkos::view_alloc(space_, "TrackGen::python::mask"), e);
  }

  void write_seeds(std::int32_t k) {
    auto host = Kokkos::create_mirror_view(seeds_);
    for (std::size_t e = 0; e < host.extent(0); ++e) {
      host(e) = expand_seed(k, static_cast<std::int32_t>(e), SeedExpansion::arange);
    }
    Kokkos::deep_copy(space_, seeds_, host);
    space_.fence();
  }

  Space space_ = initialized_space();
  IntView seeds_;
  IntView mask_;
  std::unique_ptr<TrackGenerator<Space>> gen_;
};

template <class F>
nb::object field(nb::handle self, F&& get) {
  auto& t = nb::cast<PyTrack&>(self);
  t.check_alive("trackgen.Track");
  return export_view(get(t.track), self);
}

}  // namespace

void bind_tracks(nb::module_& m) {
  nb::class_<TrackGenConfig>(m, "_Config")
      .def_static("from_object", &config_from_object, nb::arg("fields"),
                  "A validated config from a dict of TrackGenConfig fields (missing fields keep their defaults).")
      .def_static(
          "load", [](const std::string& path) { return validated(load_config(path)); }, nb::arg("path"),
          "A validated config from a JSON file (the command-line tool's --config format).")
      .def(
          "to_object",
          [](const TrackGenConfig& c) {
            nlohmann::json j;
            to_json(j, c);
            return from_json_value(j);
          },
          "Every field as a dict (the JSON names and values).")
      .def(
          "to_json_text",
          [](const TrackGenConfig& c, int indent) {
            nlohmann::json j;
            to_json(j, c);
            return j.dump(indent);
          },
          nb::arg("indent") = 2, "The config as JSON text (the --config file format).");

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

  nb::class_<PyGenerator>(m, "_TrackGenerator")
      .def(nb::init<const TrackGenConfig&, std::int32_t>(), nb::arg("config"), nb::arg("seed"))
      .def(nb::init<const TrackGenConfig&, const HostInts&>(), nb::arg("config"), nb::arg("seeds"))
      .def("set_seeds", &PyGenerator::set_seeds, nb::arg("k"), nb::call_guard<nb::gil_scoped_release>())
      .def("set_seeds_array", &PyGenerator::set_seeds_array, nb::arg("seeds"), nb::call_guard<nb::gil_scoped_release>())
      .def("generate", &PyGenerator::generate, nb::call_guard<nb::gil_scoped_release>())
      .def("generate_masked", &PyGenerator::generate_masked, nb::arg("mask"), nb::arg("advance"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("track", &PyGenerator::track)
      .def_prop_rw("eager", &PyGenerator::eager, &PyGenerator::set_eager)
      .def_prop_ro("masked_lane_envs", &PyGenerator::masked_lane_envs)
      .def_prop_ro("seeds",
                   [](nb::handle s) {
                     auto& g = nb::cast<PyGenerator&>(s);
                     g.check_alive("trackgen.TrackGenerator.seeds");
                     return export_view(g.seeds(), s);
                   })
      .def_prop_ro("epoch", [](nb::handle s) {
        auto& g = nb::cast<PyGenerator&>(s);
        g.check_alive("trackgen.TrackGenerator.epoch");
        return export_view(g.epoch(), s);
      });
}

}  // namespace trackgen::python
