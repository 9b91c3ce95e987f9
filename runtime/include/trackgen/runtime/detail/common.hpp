// Shared plumbing of the runtime utilities (internal): View allocation and
// cloning, shape checks with the messages every utility uses, and the rebind
// warning of bound inputs.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace trackgen::detail {

/// A zero-initialized View of `n` T labelled "TrackGen::runtime::<name>",
/// allocated and initialized on `space`.
template <class T, class Space>
DView<T, Space> runtime_view(const Space& space, const char* name, std::size_t n) {
  return DView<T, Space>(Kokkos::view_alloc(space, label("runtime", name)), n);
}

/// An independent copy of `v` (same label and extent).
template <class V>
V clone_view(const V& v) {
  V c(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.extent(0));
  Kokkos::deep_copy(c, v);
  return c;
}

/// Throws ConfigError "<api>: <name> must be a View of extent <shape> = <n>,
/// got <extent>" (an unallocated View has extent 0).
template <class V>
void check_extent(const std::string& api, const char* name, const V& v, std::size_t n, const char* shape) {
  if (v.data() != nullptr && v.extent(0) == n) return;
  throw ConfigError(api + ": " + name + " must be a View of extent " + shape + " = " + std::to_string(n) + ", got " +
                    (v.data() == nullptr ? std::string("an unallocated View") : std::to_string(v.extent(0))));
}

/// check_extent for an optional [E] int32 mask (an unallocated mask selects every env).
template <class V>
void check_mask(const std::string& api, const V& mask, std::size_t num_envs) {
  if (mask.data() != nullptr) check_extent(api, "mask", mask, num_envs, "E");
}

/// Throws ConfigError "<api>: <name> must be <rule>, got <value>" unless `ok`.
inline void require(bool ok, const std::string& api, const char* name, const char* rule, const std::string& value) {
  if (!ok) throw ConfigError(api + ": " + name + " must be " + rule + ", got " + value);
}

/// The Track's points per env, checked: ConfigError unless it is allocated.
template <class M>
int track_stride(const std::string& api, const Track<M>& track) {
  if (track.num_envs() < 1 || track.outer.data() == nullptr) {
    throw ConfigError(api + ": track must be an allocated Track (num_envs >= 1), got an empty one");
  }
  return track.n_max();
}

/// Bound inputs of a utility and the warning when they are replaced after a
/// caller's capture recorded a method reading them (that graph keeps reading
/// the old Views).
class InputBinding {
 public:
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

  /// Throws ConfigError when the utility's inputs are bound but `api` was given
  /// arrays (the two modes do not mix), or unbound and `api` was given none.
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

}  // namespace trackgen::detail

namespace trackgen::detail {

/// The capacity rule of the samplers: max(3, ceil(1.25 * n_max * point_spacing /
/// spacing)), the slots a polyline of n_max points point_spacing apart needs at
/// `spacing`, with headroom. ConfigError (naming `api`) if it exceeds int range.
int sampler_capacity(const std::string& api, int n_max, double point_spacing, double spacing);

/// The largest perimeter[e] / count[e] over the envs with valid[e] != 0 and
/// count[e] >= 3 (host arrays of `num_envs`); ConfigError naming `api` if
/// there is none.
double largest_point_spacing(const std::string& api, const float* perimeter, const int* count, const int* valid,
                             int num_envs);

}  // namespace trackgen::detail
