// Bindings of the runtime utilities (runtime/include/trackgen/runtime/*.hpp):
// each a Holder of the C++ object, built on a bound Track, GateSequence or
// CheckpointSet (aliased, as in C++), with its bind / query / reset methods.
// Inputs are Views over the caller's arrays (alias(); the Python layer in
// track_gen/ checks their shape and dtype and keeps bound arrays alive);
// results are the C++ result Views, exported once as arrays by name. Every
// call that launches releases the GIL and holds the DeviceLock.
#include "arrays.hpp"
#include "inputs.hpp"
#include "runtime.hpp"
#include "tracks.hpp"

#include <trackgen/runtime.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace trackgen::python {
namespace {

using Ctx = LaunchContext<Space>;
using IntView = DView<std::int32_t, Space>;

/// A View the library allocated for a free function's result (curvature,
/// speed_profile): the owner of its exported array.
class PyBuffer : public Holder {
 public:
  explicit PyBuffer(DView<float, Space> v) : view(std::move(v)) {}
  void release() noexcept override { view = {}; }
  DView<float, Space> view;
};

/// The owned object `p` as a Python object, and `v` exported with it as owner.
nb::object buffer_array(DView<float, Space> v) {
  nb::object owner = nb::cast(new PyBuffer(std::move(v)), nb::rv_policy::take_ownership);
  return export_view(nb::cast<PyBuffer&>(owner).view, owner);
}

/// A dict of arrays over the Views of a result struct, owned by `self`.
class ArrayDict {
 public:
  explicit ArrayDict(nb::handle self) : self_(self) {}
  template <class V>
  ArrayDict& put(const char* name, const V& v) {
    if (v.data() != nullptr) d_[name] = export_view(v, self_);
    return *this;
  }
  nb::dict done() { return d_; }

 private:
  nb::handle self_;
  nb::dict d_;
};

/// An [E] int32 mask array as a View (unset when `mask` is None).
IntView mask_view(const std::optional<InInts>& mask, const std::string& api) {
  return mask ? alias<std::int32_t>(*mask, api, "mask") : IntView();
}

CollisionMethod collision_method(const std::string& name) {
  if (name == "segments") return CollisionMethod::segments;
  if (name == "sdf") return CollisionMethod::sdf;
  throw ConfigError("track_gen.collision.CollisionChecker: method must be \"segments\" or \"sdf\", got \"" + name +
                    "\"");
}

GridOptions grid(int resolution, std::optional<float> padding, const std::string& api) {
  GridOptions g;
  g.resolution = resolution;
  g.padding = padding;
  g.validate(api);
  return g;
}

/// A utility of type U built by the constructor's arguments, dropped at exit.
template <class U>
class PyUtility : public Holder {
 public:
  template <class... A>
  explicit PyUtility(const char* api, A&&... a) : api(api) {
    const DeviceLock lock;
    u.emplace(std::forward<A>(a)...);
  }
  ~PyUtility() override {
    const DeviceLock lock;
    release();
  }
  void release() noexcept override { u.reset(); }
  /// The utility (checked alive).
  U& get() {
    check_alive(api);
    return *u;
  }

  const char* api;
  std::optional<U> u;
};

using PyCollision = PyUtility<CollisionChecker<Space>>;
using PyDiscs = PyUtility<DiscChecker<Space>>;
using PyFrames = PyUtility<FrameChecker<Space>>;
using PyCheckpointSampler = PyUtility<CheckpointSampler<Space>>;
using PyProgress = PyUtility<ProgressTracker<Space>>;
using PyLocalizer = PyUtility<TrackLocalizer<Space>>;
using PyProps = PyUtility<PropSampler<Space>>;
using PyHeightField = PyUtility<HeightFieldBaker<Space>>;
using PyCourseLine = PyUtility<CourseLine<Space>>;

template <class T>
DView<T, Space> in(const InFloats& a, const char* api, const char* name) {
  return alias<T>(a, api, name);
}

/// Runs `f` without the GIL under the DeviceLock, then fences.
template <class F>
void launch(const Space& space, F&& f) {
  nb::gil_scoped_release unlocked;
  const DeviceLock lock;
  f();
  space.fence();
}

}  // namespace

double seconds_per_call(const Space& space, int n, const std::function<void()>& f) {
  if (n < 1) throw ConfigError("track_gen: the timing loop needs n >= 1, got " + std::to_string(n));
  nb::gil_scoped_release unlocked;
  const DeviceLock lock;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    f();
    space.fence();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

namespace {

/// Binds the box checkers' common methods (bind_inputs, query in both modes).
template <class Py, class Cls>
void bind_box_checker(Cls& cls) {
  cls.def(
         "bind_inputs",
         [](Py& p, const InFloats& pos, const InFloats& rot, const InFloats& he) {
           auto& u = p.get();
           const auto a = std::string(p.api) + ".bind_inputs";
           const DeviceLock lock;
           u.bind_inputs(in<Vec3f>(pos, a.c_str(), "position"), in<Quatf>(rot, a.c_str(), "orientation"),
                         in<Vec2f>(he, a.c_str(), "half_extents"));
         },
         nb::arg("position"), nb::arg("orientation"), nb::arg("half_extents"))
      .def("query",
           [](Py& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.query(); });
           })
      .def(
          "_seconds_per_query",
          [](Py& p, int n) {
            auto& u = p.get();
            return seconds_per_call(u.space(), n, [&] { u.query(); });
          },
          nb::arg("n"), "Benchmark hook: seconds per bound query() of a loop of n in C++ (perf).")
      .def(
          "query_arrays",
          [](Py& p, const InFloats& pos, const InFloats& rot, const InFloats& he) {
            auto& u = p.get();
            const auto a = std::string(p.api) + ".query";
            const auto vp = in<Vec3f>(pos, a.c_str(), "position");
            const auto vr = in<Quatf>(rot, a.c_str(), "orientation");
            const auto vh = in<Vec2f>(he, a.c_str(), "half_extents");
            launch(u.space(), [&] { u.query(vp, vr, vh); });
          },
          nb::arg("position"), nb::arg("orientation"), nb::arg("half_extents"));
}

/// Binds bind(position) and the two modes of a position reader (`name`:
/// query or update).
template <class Py, class Cls>
void bind_position_reader(Cls& cls, const char* name) {
  cls.def(
         "bind",
         [](Py& p, const InFloats& pos) {
           auto& u = p.get();
           const DeviceLock lock;
           u.bind(in<Vec3f>(pos, (std::string(p.api) + ".bind").c_str(), "position"));
         },
         nb::arg("position"))
      .def(name,
           [](Py& p) {
             auto& u = p.get();
             if constexpr (std::is_same_v<Py, PyProgress>) {
               launch(u.space(), [&] { u.update(); });
             } else {
               launch(u.space(), [&] { u.query(); });
             }
           })
      .def(("_seconds_per_" + std::string(name)).c_str(),
           [](Py& p, int n) {
             auto& u = p.get();
             if constexpr (std::is_same_v<Py, PyProgress>) {
               return seconds_per_call(u.space(), n, [&] { u.update(); });
             } else {
               return seconds_per_call(u.space(), n, [&] { u.query(); });
             }
           },
           nb::arg("n"), "Benchmark hook: seconds per bound call of a loop of n in C++ (perf).")
      .def((std::string(name) + "_arrays").c_str(),
           [name](Py& p, const InFloats& pos) {
             auto& u = p.get();
             const auto v = in<Vec3f>(pos, (std::string(p.api) + "." + name).c_str(), "position");
             if constexpr (std::is_same_v<Py, PyProgress>) {
               launch(u.space(), [&] { u.update(v); });
             } else {
               launch(u.space(), [&] { u.query(v); });
             }
           },
           nb::arg("position"))
      .def(
          "reset",
          [](Py& p, const std::optional<InInts>& mask) {
            auto& u = p.get();
            const auto m = mask_view(mask, std::string(p.api) + ".reset");
            launch(u.space(), [&] { u.reset(Ctx(u.space()), m); });
          },
          nb::arg("mask") = nb::none());
}

}  // namespace

void bind_utilities(nb::module_& m) {
  nb::class_<PyBuffer>(m, "_Buffer", "Owner of a library-allocated result array.");

  // --- CheckpointSet
  nb::class_<PyCheckpoints>(m, "_CheckpointSet")
      .def_static(
          "wrap",
          [](const InFloats& position, const InFloats& left, const InFloats& right, const InFloats& tangent,
             const InFloats& up_half, const InInts& count) {
            const char* api = "track_gen.checkpoints.CheckpointSet";
            return new PyCheckpoints(CheckpointSet<Space>::wrap(
                in<Vec3f>(position, api, "position"), in<Vec3f>(left, api, "left"), in<Vec3f>(right, api, "right"),
                in<Vec3f>(tangent, api, "tangent"), in<float>(up_half, api, "up_half"),
                alias<std::int32_t>(count, api, "count")));
          },
          nb::arg("position"), nb::arg("left"), nb::arg("right"), nb::arg("tangent"), nb::arg("up_half"),
          nb::arg("count"))
      .def_static(
          "from_gates",
          [](const PyGates& g) {
            g.check_alive("track_gen.checkpoints.CheckpointSet.from_gates");
            return new PyCheckpoints(CheckpointSet<Space>::from_gates(g.gates));
          },
          nb::arg("gates"))
      .def("clone",
           [](const PyCheckpoints& c) {
             c.check_alive("track_gen.checkpoints.CheckpointSet.clone");
             CheckpointSet<Space> copy;
             {
               nb::gil_scoped_release unlocked;
               const DeviceLock lock;
               copy = c.set.clone();
             }
             return new PyCheckpoints(std::move(copy));
           })
      .def("arrays",
           [](nb::handle self) {
             auto& c = nb::cast<PyCheckpoints&>(self);
             c.check_alive("track_gen.checkpoints.CheckpointSet");
             const auto& s = c.set;
             return ArrayDict(self)
                 .put("position", s.position)
                 .put("left", s.left)
                 .put("right", s.right)
                 .put("tangent", s.tangent)
                 .put("up_half", s.up_half)
                 .put("count", s.count)
                 .done();
           })
      .def_prop_ro("num_envs", [](const PyCheckpoints& c) { return c.set.num_envs(); })
      .def_prop_ro("stride", [](const PyCheckpoints& c) { return c.set.stride(); });

  // --- CheckpointSampler
  nb::class_<PyCheckpointSampler>(m, "_CheckpointSampler")
      .def(
          "__init__",
          [](PyCheckpointSampler* self, const PyTrack& t, float spacing, std::optional<int> max_checkpoints) {
            t.check_alive("track_gen.checkpoints.CheckpointSampler");
            new (self) PyCheckpointSampler("track_gen.checkpoints.CheckpointSampler", initialized_space(), t.track,
                                           spacing, max_checkpoints);
          },
          nb::arg("track"), nb::arg("spacing"), nb::arg("max_checkpoints") = nb::none())
      .def("sample",
           [](PyCheckpointSampler& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.sample(); });
           })
      .def("checkpoints", [](PyCheckpointSampler& p) { return new PyCheckpoints(p.get().checkpoints()); })
      .def("arrays",
           [](nb::handle self) {
             auto& u = nb::cast<PyCheckpointSampler&>(self).get();
             return ArrayDict(self).put("truncated", u.truncated()).put("step", u.step()).done();
           })
      .def_prop_ro("capacity", [](PyCheckpointSampler& p) { return p.get().capacity(); })
      .def_prop_ro("spacing", [](PyCheckpointSampler& p) { return p.get().spacing(); });

  // --- ProgressTracker
  nb::class_<PyProgress> progress(m, "_ProgressTracker");
  progress
      .def(
          "__init__",
          [](PyProgress* self, const PyCheckpoints& c) {
            c.check_alive("track_gen.progress.ProgressTracker");
            new (self) PyProgress("track_gen.progress.ProgressTracker", initialized_space(), c.set);
          },
          nb::arg("checkpoints"))
      .def("arrays", [](nb::handle self) {
        auto& u = nb::cast<PyProgress&>(self).get();
        const auto& e = u.events();
        return ArrayDict(self)
            .put("passed", e.passed)
            .put("checkpoint_passed", e.checkpoint_passed)
            .put("next_checkpoint", e.next_checkpoint)
            .put("laps", e.laps)
            .put("progress", e.progress)
            .put("wrong_way", e.wrong_way)
            .put("wrong_checkpoint", e.wrong_checkpoint)
            .put("dist_to_next", e.dist_to_next)
            .put("next_checkpoint_state", u.next_checkpoint_state())
            .put("previous_position", u.previous_position())
            .done();
      });
  bind_position_reader<PyProgress>(progress, "update");

  // --- TrackLocalizer
  nb::class_<PyLocalizer> localizer(m, "_TrackLocalizer");
  localizer
      .def(
          "__init__",
          [](PyLocalizer* self, const PyTrack& t, std::optional<int> warm_window, std::optional<float> relock) {
            t.check_alive("track_gen.localize.TrackLocalizer");
            new (self)
                PyLocalizer("track_gen.localize.TrackLocalizer", initialized_space(), t.track, warm_window, relock);
          },
          nb::arg("track"), nb::arg("warm_window") = nb::none(), nb::arg("relock_distance") = nb::none())
      .def("arrays", [](nb::handle self) {
        auto& u = nb::cast<PyLocalizer&>(self).get();
        const auto& f = u.frame();
        return ArrayDict(self)
            .put("s", f.s)
            .put("n", f.n)
            .put("n_up", f.n_up)
            .put("segment", f.segment)
            .put("last_segment", u.last_segment())
            .done();
      });
  bind_position_reader<PyLocalizer>(localizer, "query");

  m.def(
      "curvature",
      [](const PyTrack& t, int window) {
        t.check_alive("track_gen.localize.curvature");
        if (window < 0) {
          throw ConfigError("track_gen.localize.curvature: window must be >= 0, got " + std::to_string(window));
        }
        DView<float, Space> out;
        {
          nb::gil_scoped_release unlocked;
          const DeviceLock lock;
          out = curvature(initialized_space(), t.track, window);
        }
        return buffer_array(out);
      },
      nb::arg("track"), nb::arg("window") = 2);
  m.def(
      "speed_profile",
      [](const PyTrack& t, float a_lat_max, float a_accel, float a_brake, float v_cap, std::optional<InFloats> kappa,
         int window) {
        const char* api = "track_gen.localize.speed_profile";
        t.check_alive(api);
        const SpeedLimits limits{a_lat_max, a_accel, a_brake, v_cap};
        limits.validate(api);
        if (window < 0) throw ConfigError(std::string(api) + ": window must be >= 0, got " + std::to_string(window));
        const std::size_t rows = std::size_t(t.track.num_envs()) * std::size_t(t.track.n_max());
        DView<float, Space> k;
        if (kappa) {
          k = in<float>(*kappa, api, "kappa");
          check_extent(api, "kappa", k.extent(0), rows);
        }
        DView<float, Space> out;
        {
          nb::gil_scoped_release unlocked;
          const DeviceLock lock;
          if (kappa) {
            out = DView<float, Space>(Kokkos::view_alloc(initialized_space(), "TrackGen::python::speed"), rows);
            const Ctx ctx{Space()};
            compute_speed_profile(ctx, t.track, limits, k, out);
            ctx.space().fence();
          } else {
            out = speed_profile(initialized_space(), t.track, limits, window);
          }
        }
        return buffer_array(out);
      },
      nb::arg("track"), nb::arg("a_lat_max"), nb::arg("a_accel"), nb::arg("a_brake"), nb::arg("v_cap"),
      nb::arg("kappa") = nb::none(), nb::arg("window") = 2);

  // --- CollisionChecker
  nb::class_<PyCollision> collision(m, "_CollisionChecker");
  collision
      .def(
          "__init__",
          [](PyCollision* self, const PyTrack& t, int max_boxes, const std::string& method, int sdf_resolution,
             std::optional<float> sdf_padding) {
            const char* api = "track_gen.collision.CollisionChecker";
            t.check_alive(api);
            const auto g = grid(sdf_resolution, sdf_padding, api);
            new (self) PyCollision(api, initialized_space(), t.track, max_boxes, collision_method(method), g);
          },
          nb::arg("track"), nb::arg("max_boxes"), nb::arg("method") = "segments", nb::arg("sdf_resolution") = 128,
          nb::arg("sdf_padding") = nb::none())
      // The border grids of both methods and the sdf field (track_gen's bake() refuses
      // the segments method, as the original's does; its queries call this after the
      // track changed).
      .def("bake",
           [](PyCollision& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.bake(); });
           })
      .def("arrays",
           [](nb::handle self) {
             auto& u = nb::cast<PyCollision&>(self).get();
             const auto& c = u.contacts();
             const auto& f = u.sdf();
             return ArrayDict(self)
                 .put("oob", c.oob)
                 .put("distance", c.distance)
                 .put("nearest", c.nearest)
                 .put("normal", c.normal)
                 .put("boundary", c.boundary)
                 .put("sdf.phi", f.phi)
                 .put("sdf.boundary", f.boundary)
                 .put("sdf.lo", f.lo)
                 .put("sdf.hi", f.hi)
                 .done();
           })
      .def_prop_ro("max_boxes", [](PyCollision& p) { return p.get().max_boxes(); })
      .def_prop_ro("method", [](PyCollision& p) { return std::string(to_string(p.get().method())); })
      .def_prop_ro("sdf_resolution", [](PyCollision& p) { return p.get().sdf().resolution; });
  bind_box_checker<PyCollision>(collision);

  // --- DiscChecker
  nb::class_<PyDiscs> discs(m, "_DiscChecker");
  discs
      .def(
          "__init__",
          [](PyDiscs* self, const InFloats& d, float radius, int max_boxes, std::optional<int> num_envs,
             std::optional<InInts> count) {
            const char* api = "track_gen.collision.DiscChecker";
            const auto dv = in<Vec3f>(d, api, "discs");
            if (count) {
              new (self)
                  PyDiscs(api, initialized_space(), dv, radius, max_boxes, alias<std::int32_t>(*count, api, "count"));
            } else {
              new (self) PyDiscs(api, initialized_space(), dv, radius, max_boxes, num_envs.value_or(0));
            }
          },
          nb::arg("discs"), nb::arg("radius"), nb::arg("max_boxes"), nb::arg("num_envs") = nb::none(),
          nb::arg("count") = nb::none())
      .def("arrays",
           [](nb::handle self) {
             const auto& c = nb::cast<PyDiscs&>(self).get().contacts();
             return ArrayDict(self)
                 .put("hit", c.hit)
                 .put("disc", c.disc)
                 .put("depth", c.depth)
                 .put("nearest", c.nearest)
                 .done();
           })
      .def_prop_ro("num_envs", [](PyDiscs& p) { return p.get().num_envs(); })
      .def_prop_ro("slots", [](PyDiscs& p) { return p.get().slots(); })
      .def_prop_ro("max_boxes", [](PyDiscs& p) { return p.get().max_boxes(); })
      .def_prop_ro("radius", [](PyDiscs& p) { return p.get().radius(); });
  bind_box_checker<PyDiscs>(discs);

  // --- FrameChecker
  nb::class_<PyFrames>(m, "_FrameChecker")
      .def(
          "__init__",
          [](PyFrames* self, const PyGates& g, float radius, float thickness, float depth, int window) {
            const char* api = "track_gen.collision_frames.FrameChecker";
            g.check_alive(api);
            new (self) PyFrames(api, initialized_space(), g.gates, radius, thickness, depth, window);
          },
          nb::arg("gates"), nb::arg("radius"), nb::arg("frame_thickness"), nb::arg("frame_depth"),
          nb::arg("window") = 4)
      .def(
          "bind_inputs",
          [](PyFrames& p, const InFloats& pos) {
            auto& u = p.get();
            const DeviceLock lock;
            u.bind_inputs(in<Vec3f>(pos, "track_gen.collision_frames.FrameChecker.bind_inputs", "position"));
          },
          nb::arg("position"))
      .def(
          "bind_window",
          [](PyFrames& p, const InInts& next) {
            auto& u = p.get();
            const DeviceLock lock;
            u.bind_window(alias<std::int32_t>(next, "track_gen.collision_frames.FrameChecker.bind_window", "next_cp"));
          },
          nb::arg("next_cp"))
      .def("query",
           [](PyFrames& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.query(); });
           })
      .def("arrays",
           [](nb::handle self) {
             const auto& c = nb::cast<PyFrames&>(self).get().contacts();
             return ArrayDict(self).put("hit", c.hit).put("depth", c.depth).done();
           })
      .def_prop_ro("window", [](PyFrames& p) { return p.get().window(); });

  // --- PropSampler
  nb::class_<PyProps>(m, "_PropSampler")
      .def(
          "__init__",
          [](PyProps* self, const PyTrack& t, float spacing, const std::string& boundary, const std::string& mode,
             std::optional<int> max_props) {
            const char* api = "track_gen.props.PropSampler";
            t.check_alive(api);
            if (boundary != "inner" && boundary != "outer") {
              throw ConfigError(std::string(api) + ": boundary must be \"inner\" or \"outer\", got \"" + boundary +
                                "\"");
            }
            if (mode != "points" && mode != "segments") {
              throw ConfigError(std::string(api) + ": mode must be \"points\" or \"segments\", got \"" + mode + "\"");
            }
            new (self) PyProps(api, initialized_space(), t.track, spacing,
                               boundary == "inner" ? PropBoundary::inner : PropBoundary::outer,
                               mode == "points" ? PropMode::points : PropMode::segments, max_props);
          },
          nb::arg("track"), nb::arg("spacing"), nb::arg("boundary") = "outer", nb::arg("mode") = "points",
          nb::arg("max_props") = nb::none())
      .def("sample",
           [](PyProps& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.sample(); });
           })
      .def("arrays",
           [](nb::handle self) {
             const auto& s = nb::cast<PyProps&>(self).get().props();
             return ArrayDict(self)
                 .put("position", s.position)
                 .put("tangent", s.tangent)
                 .put("yaw", s.yaw)
                 .put("length", s.length)
                 .put("count", s.count)
                 .put("truncated", s.truncated)
                 .put("step", s.step)
                 .done();
           })
      .def_prop_ro("capacity", [](PyProps& p) { return p.get().capacity(); });

  // --- HeightFieldBaker
  nb::class_<PyHeightField>(m, "_HeightFieldBaker")
      .def(
          "__init__",
          [](PyHeightField* self, const PyTrack& t, int resolution, std::optional<float> padding) {
            const char* api = "track_gen.heightfield.HeightFieldBaker";
            t.check_alive(api);
            new (self) PyHeightField(api, initialized_space(), t.track, grid(resolution, padding, api));
          },
          nb::arg("track"), nb::arg("resolution") = 128, nb::arg("padding") = nb::none())
      .def("bake",
           [](PyHeightField& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.bake(); });
           })
      .def("arrays",
           [](nb::handle self) {
             const auto& f = nb::cast<PyHeightField&>(self).get().heightfield();
             return ArrayDict(self).put("height", f.height).put("lo", f.lo).put("hi", f.hi).done();
           })
      .def_prop_ro("resolution", [](PyHeightField& p) { return p.get().heightfield().resolution; });

  // --- CourseLine
  nb::class_<PyCourseLine>(m, "_CourseLine")
      .def(
          "__init__",
          [](PyCourseLine* self, const PyGates& g, int samples_per_gate) {
            const char* api = "track_gen.course_line.CourseLine";
            g.check_alive(api);
            new (self) PyCourseLine(api, initialized_space(), g.gates, samples_per_gate);
          },
          nb::arg("gates"), nb::arg("samples_per_gate") = 8)
      .def("refresh",
           [](PyCourseLine& p) {
             auto& u = p.get();
             launch(u.space(), [&] { u.refresh(); });
           })
      .def("line", [](PyCourseLine& p) { return new PyTrack(p.get().line()); })
      .def_prop_ro("samples_per_gate", [](PyCourseLine& p) { return p.get().samples_per_gate(); });
}

}  // namespace trackgen::python
