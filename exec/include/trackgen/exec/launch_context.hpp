// LaunchContext: the only way library code issues device work. It wraps one
// execution-space instance (on CUDA: one stream); every kernel, copy and fill of a
// stage goes through it, so the same stage code runs eagerly or is recorded into a
// graph.
#pragma once

#include <trackgen/core/views.hpp>

#include <cstddef>

namespace trackgen {

template <class Space>
class LaunchContext {
 public:
  using execution_space = Space;

  explicit LaunchContext(Space space = Space()) : space_(std::move(space)) {}

  /// The execution-space instance all work is issued on.
  const Space& space() const { return space_; }

  /// parallel_for over [0, n) on the context's instance.
  template <class F>
  void for_each(const std::string& name, std::size_t n, const F& f) const {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(space_, 0, n), f);
  }

  /// parallel_for over a TeamPolicy of `league` teams on the context's instance;
  /// `team_size` 0 picks Kokkos::AUTO.
  template <class F>
  void for_each_team(const std::string& name, int league, int team_size, const F& f) const {
    using Policy = Kokkos::TeamPolicy<Space>;
    if (team_size > 0) {
      Kokkos::parallel_for(name, Policy(space_, league, team_size), f);
    } else {
      Kokkos::parallel_for(name, Policy(space_, league, Kokkos::AUTO), f);
    }
  }

  /// Device copy dst <- src on the context's instance.
  template <class D, class S>
  void copy(const D& dst, const S& src) const {
    Kokkos::deep_copy(space_, dst, src);
  }

  /// Fills `v` with `value` on the context's instance.
  template <class V, class T>
  void fill(const V& v, const T& value) const {
    Kokkos::deep_copy(space_, v, value);
  }

  /// Waits for all work issued on the instance.
  void fence() const { space_.fence(); }

 private:
  Space space_;
};

}  // namespace trackgen
