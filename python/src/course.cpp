// Bindings of the Course (runtime/): a CourseConfig from a dict (read by the
// library's CourseConfig JSON reader), agent-state arrays owned by the Course
// (bound once, written by Python in place), step() and regenerate() results as
// arrays.
#include "arrays.hpp"
#include "config_json.hpp"
#include "inputs.hpp"
#include "runtime.hpp"
#include "tracks.hpp"

#include <trackgen/runtime.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

namespace trackgen::python {
namespace {

constexpr const char* kApi = "trackgen.Course";

/// The CourseConfig of a dict of fields, read by the library's own JSON reader
/// (trackgen::from_json; the Course validates it).
CourseConfig course_config(nb::handle fields) {
  CourseConfig c;
  from_json(to_json_value(fields, kApi, "the config"), c);
  return c;
}

/// A Course on the default execution space with the agent-state Views it binds
/// (position [E]; orientation, half_extents [E*B] when boxes are checked;
/// box_position [E*B] for B > 1), which Python writes in place.
class PyCourse : public Holder {
 public:
  using C = Course<Space>;

  explicit PyCourse(const CourseConfig& config) {
    const DeviceLock lock;
    course_ = std::make_unique<C>(space_, config);
    const auto& cfg = course_->config();
    num_envs_ = course_->num_envs();
    max_boxes_ = cfg.max_boxes;
    gates_mode_ = cfg.mode == CourseMode::gates;
    const auto e = static_cast<std::size_t>(num_envs_);
    const bool boxes = cfg.mode == CourseMode::gates ? cfg.post_radius > 0 : cfg.collision.has_value();
    const auto eb = e * static_cast<std::size_t>(cfg.max_boxes);
    position_ = C::Vec3View(Kokkos::view_alloc(space_, "TrackGen::python::position"), e);
    mask_ = C::IntView(Kokkos::view_alloc(space_, "TrackGen::python::course_mask"), e);
    if (boxes) {
      orientation_ = C::QuatView(Kokkos::view_alloc(space_, "TrackGen::python::orientation"), eb);
      Kokkos::deep_copy(space_, orientation_, Quatf{0.0f, 0.0f, 0.0f, 1.0f});
      half_extents_ = C::Vec2View(Kokkos::view_alloc(space_, "TrackGen::python::half_extents"), eb);
      if (cfg.max_boxes > 1)
        box_position_ = C::Vec3View(Kokkos::view_alloc(space_, "TrackGen::python::box_position"), eb);
    }
    space_.fence();
    course_->bind(position_, orientation_, half_extents_, box_position_);
  }

  ~PyCourse() override {
    const DeviceLock lock;
    release();
  }

  void release() noexcept override {
    course_.reset();
    position_ = {};
    orientation_ = {};
    half_extents_ = {};
    box_position_ = {};
    mask_ = {};
  }

  void step() {
    check_alive("trackgen.Course.step");
    const DeviceLock lock;
    course_->step();
    space_.fence();
  }

  double seconds_per_step(int n) {
    check_alive("trackgen.Course.step");
    return seconds_per_call(space_, n, [&] { course_->step(); });
  }

  void regenerate(const HostInts& mask, bool advance) {
    check_alive("trackgen.Course.regenerate");
    check_extent("trackgen.Course.regenerate", "mask", mask.shape(0), mask_.extent(0));
    const DeviceLock lock;
    copy_in(space_, mask_, mask);
    course_->regenerate(mask_, advance);
    space_.fence();
  }

  void reset(const HostInts& mask) {
    check_alive("trackgen.Course.reset");
    check_extent("trackgen.Course.reset", "mask", mask.shape(0), mask_.extent(0));
    const DeviceLock lock;
    copy_in(space_, mask_, mask);
    course_->reset(mask_);
    space_.fence();
  }

  void generate(std::optional<std::int32_t> k) {
    check_alive("trackgen.Course.generate");
    const DeviceLock lock;
    if (k) {
      course_->generate(*k);
    } else {
      course_->generate();
    }
    space_.fence();
  }

  /// Every array of the Course by name (owner: the Python Course `self`).
  nb::dict arrays(nb::handle self) const {
    check_alive("trackgen.Course");
    nb::dict d;
    auto put = [&](const char* name, const auto& v) {
      if (v.data() != nullptr) d[name] = export_view(v, self);
    };
    put("position", position_);
    put("orientation", orientation_);
    put("half_extents", half_extents_);
    put("box_position", box_position_);
    put("speed", course_->speed());
    put("curvature", course_->curvature());
    const auto& r = course_->result();
    put("events.passed", r.events.passed);
    put("events.checkpoint_passed", r.events.checkpoint_passed);
    put("events.next_checkpoint", r.events.next_checkpoint);
    put("events.laps", r.events.laps);
    put("events.progress", r.events.progress);
    put("events.wrong_way", r.events.wrong_way);
    put("events.wrong_checkpoint", r.events.wrong_checkpoint);
    put("events.dist_to_next", r.events.dist_to_next);
    put("contacts.oob", r.contacts.oob);
    put("contacts.distance", r.contacts.distance);
    put("contacts.nearest", r.contacts.nearest);
    put("contacts.normal", r.contacts.normal);
    put("contacts.boundary", r.contacts.boundary);
    put("posts.hit", r.posts.hit);
    put("posts.disc", r.posts.disc);
    put("posts.depth", r.posts.depth);
    put("posts.nearest", r.posts.nearest);
    put("frames.hit", r.frames.hit);
    put("frames.depth", r.frames.depth);
    put("frame.s", r.frame.s);
    put("frame.n", r.frame.n);
    put("frame.n_up", r.frame.n_up);
    put("frame.segment", r.frame.segment);
    if (course_->config().mode == CourseMode::gates) {
      const auto& g = course_->gates();
      GateSequence<MemSpace>::for_each_field(g, [&](const char* name, const auto& v, auto) {
        d[nb::str(("gates." + std::string(name)).c_str())] = export_view(v, self);
      });
    }
    return d;
  }

  /// Binds the caller's arrays (aliased; the Python layer keeps them alive)
  /// instead of the Course's own state arrays.
  void bind(const InFloats& position, const std::optional<InFloats>& orientation,
            const std::optional<InFloats>& half_extents, const std::optional<InFloats>& box_position) {
    check_alive("trackgen.Course.bind");
    const std::string api = "track_gen.course.Course.bind";
    const auto p = alias<Vec3f>(position, api, "position");
    const auto o = orientation ? alias<Quatf>(*orientation, api, "orientation") : C::QuatView();
    const auto h = half_extents ? alias<Vec2f>(*half_extents, api, "half_extents") : C::Vec2View();
    const auto b = box_position ? alias<Vec3f>(*box_position, api, "box_position") : C::Vec3View();
    const DeviceLock lock;
    course_->bind(p, o, h, b);
  }

  /// Writes the per-env base seeds (epochs back to 0), then generates.
  void generate_seeds(const HostInts& seeds) {
    check_alive("trackgen.Course.generate");
    check_extent("trackgen.Course.generate", "seeds", seeds.shape(0), mask_.extent(0));
    const DeviceLock lock;
    copy_in(space_, mask_, seeds);
    course_->seeds().set(mask_);
    course_->generate();
    space_.fence();
  }

  /// The arrays of the Course's helpers by "<helper>.<name>" (owner: `self`).
  nb::dict tool_arrays(nb::handle self) const {
    check_alive("trackgen.Course");
    nb::dict d;
    auto put = [&](const char* name, const auto& v) {
      if (v.data() != nullptr) d[name] = export_view(v, self);
    };
    put("seeds", course_->seeds().seeds());
    put("epoch", course_->seeds().epoch());
    put("progress.next_checkpoint_state", course_->progress().next_checkpoint_state());
    put("progress.previous_position", course_->progress().previous_position());
    if (!gates_mode_) {
      put("checkpoint_sampler.truncated", course_->checkpoint_sampler().truncated());
      put("checkpoint_sampler.step", course_->checkpoint_sampler().step());
    }
    if (const auto* c = course_->collision()) {
      put("collision.sdf.phi", c->sdf().phi);
      put("collision.sdf.boundary", c->sdf().boundary);
      put("collision.sdf.lo", c->sdf().lo);
      put("collision.sdf.hi", c->sdf().hi);
    }
    if (const auto* h = course_->heightfield()) {
      put("heightfield.height", h->height);
      put("heightfield.lo", h->lo);
      put("heightfield.hi", h->hi);
    }
    if (const auto* l = course_->localizer()) put("localizer.last_segment", l->last_segment());
    return d;
  }

  PyCheckpoints* checkpoints() const {
    check_alive("trackgen.Course.checkpoints");
    return new PyCheckpoints(course_->checkpoints());
  }
  PyGates* gates() const {
    check_alive("trackgen.Course.gates");
    return new PyGates(course_->gates());
  }
  /// The generator's result (the Track in track mode; the gates in gates mode is gates()).
  PyTrack* generator_track() {
    check_alive("trackgen.Course.generator");
    return new PyTrack(course_->generator().track(), false);
  }

  PyTrack* track() const {
    check_alive("trackgen.Course.track");
    return new PyTrack(course_->track(), true);
  }
  int num_envs() const { return num_envs_; }
  int max_boxes() const { return max_boxes_; }
  bool gates_mode() const { return gates_mode_; }
  void set_eager(bool eager) {
    check_alive("trackgen.Course.policy");
    course_->set_policy(eager ? Policy::eager : Policy::automatic);
  }
  bool eager() const {
    check_alive("trackgen.Course.policy");
    return course_->policy() == Policy::eager;
  }

 private:
  Space space_ = initialized_space();
  std::unique_ptr<C> course_;
  C::Vec3View position_;
  C::QuatView orientation_;
  C::Vec2View half_extents_;
  C::Vec3View box_position_;
  C::IntView mask_;
  int num_envs_ = 0;
  int max_boxes_ = 1;
  bool gates_mode_ = false;
};

}  // namespace

void bind_course(nb::module_& m) {
  nb::class_<PyCourse>(m, "_Course")
      .def(
          "__init__", [](PyCourse* self, nb::handle fields) { new (self) PyCourse(course_config(fields)); },
          nb::arg("fields"))
      .def_static(
          "validate",
          [](nb::handle fields) {
            const CourseConfig c = course_config(fields);
            c.validate(c.mode == CourseMode::gates ? available_gate_generators<Space>()
                                                   : available_generators<Space>());
          },
          nb::arg("fields"),
          "Validates a CourseConfig given as a dict (ValueError naming the field), allocating nothing.")
      .def("step", &PyCourse::step, nb::call_guard<nb::gil_scoped_release>())
      .def("_seconds_per_step", &PyCourse::seconds_per_step, nb::arg("n"),
           "Benchmark hook: seconds per step() of a loop of n in C++ (perf).")
      .def("regenerate", &PyCourse::regenerate, nb::arg("mask"), nb::arg("advance"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("reset", &PyCourse::reset, nb::arg("mask"), nb::call_guard<nb::gil_scoped_release>())
      .def("generate", &PyCourse::generate, nb::arg("k") = nb::none(), nb::call_guard<nb::gil_scoped_release>())
      .def("arrays", [](nb::handle self) { return nb::cast<const PyCourse&>(self).arrays(self); })
      .def("track", &PyCourse::track)
      .def("bind", &PyCourse::bind, nb::arg("position"), nb::arg("orientation").none(), nb::arg("half_extents").none(),
           nb::arg("box_position").none())
      .def("generate_seeds", &PyCourse::generate_seeds, nb::arg("seeds"), nb::call_guard<nb::gil_scoped_release>())
      .def("tool_arrays", [](nb::handle self) { return nb::cast<const PyCourse&>(self).tool_arrays(self); })
      .def("checkpoints", &PyCourse::checkpoints)
      .def("gates", &PyCourse::gates)
      .def("generator_track", &PyCourse::generator_track)
      .def_prop_ro("num_envs", &PyCourse::num_envs)
      .def_prop_ro("max_boxes", &PyCourse::max_boxes)
      .def_prop_ro("gates_mode", &PyCourse::gates_mode)
      .def_prop_rw("eager", &PyCourse::eager, &PyCourse::set_eager);
}

}  // namespace trackgen::python
