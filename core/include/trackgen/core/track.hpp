// Track: the output of the track pipeline (reference section 1.4), flat and
// NaN-padded: per-point fields hold E * N_max entries, env e owns
// [e*N_max, (e+1)*N_max); the first count[e] are real, the rest NaN.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/views.hpp>

#include <string>

namespace trackgen {

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Track {
 public:
  using memory_space = MemorySpace;
  template <class T>
  using view = Kokkos::View<T*, MemorySpace>;

  Track() = default;

  /// Allocates every field for `num_envs` envs of stride `n_max` and fills it
  /// with the "empty" state: NaN points and arc lengths, zero per-env fields.
  /// ConfigError unless both are >= 1.
  Track(int num_envs, int n_max)
      : outer(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "outer")), checked_size(num_envs, n_max)),
        center(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "center")), std::size_t(num_envs) * n_max),
        inner(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "inner")), std::size_t(num_envs) * n_max),
        tangent(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "tangent")), std::size_t(num_envs) * n_max),
        normal(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "normal")), std::size_t(num_envs) * n_max),
        arclen(Kokkos::view_alloc(Kokkos::WithoutInitializing, label("track", "arclen")), std::size_t(num_envs) * n_max),
        length(label("track", "length"), num_envs),
        valid(label("track", "valid"), num_envs),
        count(label("track", "count"), num_envs),
        winding(label("track", "winding"), num_envs),
        truncated(label("track", "truncated"), num_envs),
        sep_overflow(label("track", "sep_overflow"), num_envs),
        num_envs_(num_envs),
        n_max_(n_max) {
    Kokkos::deep_copy(outer, nan3());
    Kokkos::deep_copy(center, nan3());
    Kokkos::deep_copy(inner, nan3());
    Kokkos::deep_copy(tangent, nan3());
    Kokkos::deep_copy(normal, nan3());
    Kokkos::deep_copy(arclen, nanf());
  }

  /// Deep copy into freshly allocated Views of memory space `Dst` (default: the
  /// same space). The copy is independent of this Track.
  template <class Dst = MemorySpace>
  Track<Dst> clone() const {
    Track<Dst> t;
    t.num_envs_ = num_envs_;
    t.n_max_ = n_max_;
    copy_field(t.outer, outer);
    copy_field(t.center, center);
    copy_field(t.inner, inner);
    copy_field(t.tangent, tangent);
    copy_field(t.normal, normal);
    copy_field(t.arclen, arclen);
    copy_field(t.length, length);
    copy_field(t.valid, valid);
    copy_field(t.count, count);
    copy_field(t.winding, winding);
    copy_field(t.truncated, truncated);
    copy_field(t.sep_overflow, sep_overflow);
    return t;
  }

  /// Copies the whole Track to host memory in one call.
  Track<Kokkos::HostSpace> to_host() const { return clone<Kokkos::HostSpace>(); }

  int num_envs() const { return num_envs_; }
  int n_max() const { return n_max_; }

  view<Vec3f> outer;     ///< outer border [E*N_max]; index-aligned with center
  view<Vec3f> center;    ///< re-uniformized relaxed centerline [E*N_max]
  view<Vec3f> inner;     ///< inner border [E*N_max]
  view<Vec3f> tangent;   ///< unit central-difference tangent [E*N_max]
  view<Vec3f> normal;    ///< planar left normal (-t.y, t.x, 0) [E*N_max]
  view<float> arclen;    ///< arc length before point i, arclen[0] = 0 [E*N_max]
  view<float> length;    ///< closed-loop perimeter [E]
  view<int> valid;       ///< validity gate, 0/1 [E]
  view<int> count;       ///< real points per env [E]
  view<float> winding;   ///< +1 CCW, -1 CW, 0 degenerate [E]
  view<int> truncated;   ///< 1 if the track needed more than N_max points [E]
  view<int> sep_overflow;  ///< relaxation beads whose candidate cache overflowed [E]

 private:
  template <class>
  friend class Track;

  /// num_envs * n_max, checked before the first allocation.
  static std::size_t checked_size(int num_envs, int n_max) {
    if (num_envs < 1) throw ConfigError("trackgen::Track: num_envs must be >= 1, got " + std::to_string(num_envs));
    if (n_max < 1) throw ConfigError("trackgen::Track: n_max must be >= 1, got " + std::to_string(n_max));
    return std::size_t(num_envs) * std::size_t(n_max);
  }

  template <class D, class S>
  static void copy_field(D& dst, const S& src) {
    dst = D(Kokkos::view_alloc(Kokkos::WithoutInitializing, src.label()), src.extent(0));
    Kokkos::deep_copy(dst, src);
  }

  int num_envs_ = 0;
  int n_max_ = 0;
};

}  // namespace trackgen
