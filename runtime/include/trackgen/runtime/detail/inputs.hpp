// The inputs of the runtime utilities (internal): bound once (bound mode) or
// passed to every call (per-call mode), with their shape checks and the
// rebind warning.
#pragma once

#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>

#include <string>

namespace trackgen::detail {

/// [E*B] box inputs of the checkers.
template <class Space>
struct BoxViews {
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half_extents;

  void check(const std::string& api, std::size_t n) const {
    check_extent(api, "position", position, n, "E*max_boxes");
    check_extent(api, "orientation", orientation, n, "E*max_boxes");
    check_extent(api, "half_extents", half_extents, n, "E*max_boxes");
  }
  bool same(const BoxViews& o) const {
    return position.data() == o.position.data() && orientation.data() == o.orientation.data() &&
           half_extents.data() == o.half_extents.data();
  }
};

/// [E] agent positions of the tracker and the localizer.
template <class Space>
struct PositionViews {
  DView<Vec3f, Space> position;

  void check(const std::string& api, std::size_t n) const { check_extent(api, "position", position, n, "E"); }
  bool same(const PositionViews& o) const { return position.data() == o.position.data(); }
};

/// The inputs `Views` (BoxViews, PositionViews) of one utility.
template <class Views>
class Inputs {
 public:
  Inputs() = default;
  /// Inputs of extent `n` for the utility named `owner` (in messages), bound by
  /// its method `bind_name`, read by `read_name`.
  Inputs(std::string owner, std::size_t n, const char* bind_name, const char* read_name)
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

}  // namespace trackgen::detail
