// Track: the output of the track pipeline (docs/design.md#data-model), flat and
// NaN-padded: per-point fields hold E * N_max entries, env e owns
// [e*N_max, (e+1)*N_max); the first count[e] are real, the rest NaN.
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/fields.hpp>
#include <trackgen/core/invalid_reason.hpp>
#include <trackgen/core/views.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace trackgen {

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Track {
 public:
  using memory_space = MemorySpace;
  template <class T>
  using view = Kokkos::View<T*, MemorySpace>;

  Track() = default;

  /// Allocates every field for `num_envs` envs of stride `n_max` on the
  /// execution-space instance `space` and fills it with the "empty" state: NaN
  /// points and arc lengths, zero per-env fields; waits for `space` before
  /// returning. ConfigError unless both are >= 1.
  template <class ExecSpace>
  Track(const ExecSpace& space, int num_envs, int n_max) : num_envs_(num_envs), n_max_(n_max) {
    check_shape(num_envs, n_max);
    detail::allocate_fields(*this, space, "track", num_envs, n_max);
  }

  /// The same on the default instance of the memory space's own execution space
  /// (e.g. the default host space for a HostSpace Track in a CUDA build).
  Track(int num_envs, int n_max) : Track(typename MemorySpace::execution_space(), num_envs, n_max) {}

  /// Deep copy into freshly allocated Views of memory space `Dst` (default: the
  /// same space). The copy is independent of this Track.
  template <class Dst = MemorySpace>
  Track<Dst> clone() const {
    Track<Dst> t;
    t.num_envs_ = num_envs_;
    t.n_max_ = n_max_;
    detail::clone_fields(t, *this);
    return t;
  }

  /// Envs [first, first + n) of this Track as a Track of n envs, without a
  /// copy: each field an unmanaged View of those envs' entries, valid while
  /// this Track's allocations are. Writes through it land in this Track.
  /// ConfigError unless 0 <= first, n >= 1 and first + n <= num_envs().
  Track window(int first, int n) const {
    if (first < 0 || n < 1 || first > num_envs_ - n) {
      throw ConfigError("trackgen::Track::window: envs [" + std::to_string(first) + ", " + std::to_string(first) +
                        " + " + std::to_string(n) + ") are not a non-empty range of the Track's " +
                        std::to_string(num_envs_) + " envs");
    }
    Track t;
    t.num_envs_ = n;
    t.n_max_ = n_max_;
    for_each_field(t, *this, [&](const char*, auto& dst, const auto& src, auto shape) {
      const std::size_t stride = decltype(shape)::value ? std::size_t(n_max_) : 1u;
      dst = std::decay_t<decltype(dst)>(src.data() + std::size_t(first) * stride, std::size_t(n) * stride);
    });
    return t;
  }

  /// Copies the whole Track to host memory in one call.
  Track<Kokkos::HostSpace> to_host() const { return clone<Kokkos::HostSpace>(); }

  /// Bytes of memory held by the Track's fields.
  std::size_t bytes() const { return detail::field_bytes(*this); }

  /// Bytes the fields of a Track of `num_envs` envs of stride `n_max` hold,
  /// computed without allocating (bytes() of such a Track).
  static std::size_t bytes_for(int num_envs, int n_max) { return detail::field_bytes_for<Track>(num_envs, n_max); }

  /// Number of envs E and the stride N_max (callable in kernels that capture the Track).
  KOKKOS_INLINE_FUNCTION int num_envs() const { return num_envs_; }
  KOKKOS_INLINE_FUNCTION int n_max() const { return n_max_; }

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
  view<int> invalid_reason;  ///< why the track is invalid, InvalidReason bits; 0 for a valid track [E]

  /// The one list of the Track's fields (trackgen/core/fields.hpp): calls
  /// f(name, a.field, b.field, shape) for every field, in declaration order,
  /// where `a` and `b` are Tracks (the same one, or Tracks of two memory
  /// spaces, const or not) and `shape` is PerPoint for the [E*N_max] fields,
  /// PerEnv for the [E] ones. Every output of a Track iterates it; callable
  /// in kernels.
  TRACKGEN_FIELD_VISITOR
  template <class A, class B, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_field(A& a, B& b, F&& f) {
    constexpr PerPoint point{};
    constexpr PerEnv env{};
    f("outer", a.outer, b.outer, point);
    f("center", a.center, b.center, point);
    f("inner", a.inner, b.inner, point);
    f("tangent", a.tangent, b.tangent, point);
    f("normal", a.normal, b.normal, point);
    f("arclen", a.arclen, b.arclen, point);
    f("length", a.length, b.length, env);
    f("valid", a.valid, b.valid, env);
    f("count", a.count, b.count, env);
    f("winding", a.winding, b.winding, env);
    f("truncated", a.truncated, b.truncated, env);
    f("sep_overflow", a.sep_overflow, b.sep_overflow, env);
    f("invalid_reason", a.invalid_reason, b.invalid_reason, env);
  }

  /// The same list over one Track: f(name, t.field, shape).
  TRACKGEN_FIELD_VISITOR
  template <class T, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_field(T& t, F&& f) {
    for_each_field(t, t, [&](const char* name, auto& field, const auto&, auto shape) { f(name, field, shape); });
  }

 private:
  template <class>
  friend class Track;

  /// ConfigError before the first allocation unless both are >= 1.
  static void check_shape(int num_envs, int n_max) {
    if (num_envs < 1) throw ConfigError("trackgen::Track: num_envs must be >= 1, got " + std::to_string(num_envs));
    if (n_max < 1) throw ConfigError("trackgen::Track: n_max must be >= 1, got " + std::to_string(n_max));
  }

  int num_envs_ = 0;
  int n_max_ = 0;
};

}  // namespace trackgen
