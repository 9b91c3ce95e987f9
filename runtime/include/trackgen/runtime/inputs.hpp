// The inputs of the runtime utilities: bound once (bound mode: bind, then
// query() / update() without arguments, the graph-capture pattern) or passed
// to every call (per-call mode), never both; their shapes are checked when
// they are bound or passed, and replacing bound Views that a caller's capture
// read logs a warning (that graph keeps reading the old ones). A utility of
// your own can offer the same two modes with BoundInputs.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/runtime/geometry.hpp>

#include <cstddef>
#include <string>

namespace trackgen {

/// Throws ConfigError "<api>: <name> must be a View of extent <shape> = <n>,
/// got <extent>" (an unallocated View has extent 0).
template <class V>
void check_extent(const std::string& api, const char* name, const V& v, std::size_t n, const char* shape) {
  if (v.data() != nullptr && v.extent(0) == n) return;
  throw ConfigError(api + ": " + name + " must be a View of extent " + shape + " = " + std::to_string(n) + ", got " +
                    (v.data() == nullptr ? std::string("an unallocated View") : std::to_string(v.extent(0))));
}

/// Whether inputs are bound, and whether a caller's capture recorded a reader
/// of them since they were bound.
class InputBinding {
 public:
  /// Whether inputs are bound.
  bool bound() const { return bound_; }

  /// Records a bind; `changed`: a bound pointer differs from the previous bind.
  /// Logs one warning naming `api` when a caller's capture recorded a reader
  /// since the previous bind.
  void rebind(const std::string& api, bool changed) {
    if (bound_ && changed && recorded_) {
      logging::warn(api + ": inputs rebound after a caller's capture recorded a method reading them; that graph keeps "
                          "reading the previous Views. Record it again.");
    }
    if (changed) recorded_ = false;
    bound_ = true;
  }

  /// Called by every reader of the bound inputs: notes a recording context.
  template <class Space>
  void read(const LaunchContext<Space>& ctx) {
    if (ctx.capturing()) recorded_ = true;
  }

  /// Throws ConfigError when the inputs are bound but `api` was given arrays
  /// (the two modes do not mix), or unbound and `api` was given none.
  void check_mode(const std::string& api, bool per_call) const {
    if (per_call && bound_) {
      throw ConfigError(api + ": the inputs are bound (bound mode); call it without arrays, or use another instance "
                              "for per-call arrays");
    }
    if (!per_call && !bound_) throw ConfigError(api + ": no inputs bound; bind them first or pass them to this call");
  }

 private:
  bool bound_ = false;
  bool recorded_ = false;
};

/// [E*B] box inputs of the checkers: position (z ignored; NaN: an inactive
/// slot), orientation (its yaw about +z is used), half extents.
template <class Space>
struct BoxInputs {
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half_extents;

  /// ConfigError (naming `api` and the View) unless all are of extent n.
  void check(const std::string& api, std::size_t n) const {
    check_extent(api, "position", position, n, "E*max_boxes");
    check_extent(api, "orientation", orientation, n, "E*max_boxes");
    check_extent(api, "half_extents", half_extents, n, "E*max_boxes");
  }
  /// Whether `o` holds the same Views.
  bool same(const BoxInputs& o) const {
    return position.data() == o.position.data() && orientation.data() == o.orientation.data() &&
           half_extents.data() == o.half_extents.data();
  }
};

/// [E] agent positions of the tracker and the localizer.
template <class Space>
struct PositionInput {
  DView<Vec3f, Space> position;

  /// ConfigError (naming `api`) unless the View is of extent n.
  void check(const std::string& api, std::size_t n) const { check_extent(api, "position", position, n, "E"); }
  /// Whether `o` holds the same View.
  bool same(const PositionInput& o) const { return position.data() == o.position.data(); }
};

/// The inputs `Views` (BoxInputs, PositionInput, or any struct with check()
/// and same()) of one utility, bound or per call.
template <class Views>
class BoundInputs {
 public:
  BoundInputs() = default;
  /// Inputs of extent `n` for the utility named `owner` (in messages), bound by
  /// its method `bind_name`, read by `read_name`.
  BoundInputs(std::string owner, std::size_t n, const char* bind_name, const char* read_name)
      : owner_(std::move(owner)), n_(n), bind_name_(bind_name), read_name_(read_name) {}

  /// Binds `v` (checked); warns when it replaces Views a caller's capture read.
  void bind(const Views& v) {
    const std::string api = owner_ + "::" + bind_name_;
    v.check(api, n_);
    binding_.rebind(api, !v.same(bound_));
    bound_ = v;
  }

  /// The bound Views for a call on `ctx` (ConfigError when none are bound).
  template <class Ctx>
  const Views& bound(const Ctx& ctx) {
    binding_.check_mode(owner_ + "::" + read_name_, false);
    binding_.read(ctx);
    return bound_;
  }

  /// `v`, checked, for a per-call call (ConfigError in bound mode).
  const Views& per_call(const Views& v) const {
    const std::string api = owner_ + "::" + read_name_;
    binding_.check_mode(api, true);
    v.check(api, n_);
    return v;
  }

 private:
  std::string owner_;
  std::size_t n_ = 0;
  const char* bind_name_ = "bind";
  const char* read_name_ = "query";
  Views bound_;
  InputBinding binding_;
};

}  // namespace trackgen
