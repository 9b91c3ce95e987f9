// GateSequence: the output of the gate pipeline (docs/design.md#data-model),
// flat and NaN-padded like Track: per-gate fields hold E * G entries
// (G = max_gates), env e owns [e*G, (e+1)*G); the first count[e] are real
// gates, the rest NaN (orientation: four NaNs).
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/fields.hpp>
#include <trackgen/core/quat.hpp>
#include <trackgen/core/views.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace trackgen {

template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class GateSequence {
 public:
  using memory_space = MemorySpace;
  template <class T>
  using view = Kokkos::View<T*, MemorySpace>;

  GateSequence() = default;

  /// Allocates every field for `num_envs` envs of stride `max_gates` on the
  /// execution-space instance `space`, filled with the "empty" state (NaN
  /// gates, zero per-env fields); waits for `space`. ConfigError unless both
  /// are >= 1.
  template <class ExecSpace>
  GateSequence(const ExecSpace& space, int num_envs, int max_gates) : num_envs_(num_envs), max_gates_(max_gates) {
    if (num_envs < 1 || max_gates < 1) {
      throw ConfigError("trackgen::GateSequence: num_envs and max_gates must be >= 1, got " +
                        std::to_string(num_envs) + " and " + std::to_string(max_gates));
    }
    detail::allocate_fields(*this, space, "gates", num_envs, max_gates);
  }

  /// Deep copy into freshly allocated Views of memory space `Dst`.
  template <class Dst = MemorySpace>
  GateSequence<Dst> clone() const {
    GateSequence<Dst> s;
    s.num_envs_ = num_envs_;
    s.max_gates_ = max_gates_;
    detail::clone_fields(s, *this);
    return s;
  }

  /// Copies the whole sequence to host memory.
  GateSequence<Kokkos::HostSpace> to_host() const { return clone<Kokkos::HostSpace>(); }

  /// Bytes the fields of a GateSequence of `num_envs` envs of stride
  /// `max_gates` hold, computed without allocating (bytes() of such a one).
  static std::size_t bytes_for(int num_envs, int max_gates) {
    return detail::field_bytes_for<GateSequence>(num_envs, max_gates);
  }

  /// Bytes of memory held by the fields.
  std::size_t bytes() const { return detail::field_bytes(*this); }

  /// Number of envs E (callable in kernels that capture the sequence).
  KOKKOS_INLINE_FUNCTION int num_envs() const { return num_envs_; }
  /// The stride G.
  KOKKOS_INLINE_FUNCTION int max_gates() const { return max_gates_; }

  view<Vec3f> position;     ///< gate centres, z from the elevation profile [E*G]
  view<Vec3f> tangent;      ///< unit central-difference tangent of the course through the centres [E*G]
  view<Vec3f> forward;      ///< unit gate-plane normal, the frame's x axis (direction of passage) [E*G]
  view<Quatf> orientation;  ///< roll-free frame: x forward, y left, z up [E*G]
  view<float> half_size;    ///< half the opening, gate_width / 2 [E*G]
  view<Vec3f> left;         ///< position + half_size * left axis [E*G]
  view<Vec3f> right;        ///< position - half_size * left axis [E*G]
  view<int> valid;          ///< gate validity, 0/1 [E]
  view<int> count;          ///< real gates per env [E]

  /// The one list of the fields (trackgen/core/fields.hpp): calls
  /// f(name, a.field, b.field, shape) for every field, in declaration order,
  /// where `a` and `b` are GateSequences (the same one, or of two memory
  /// spaces, const or not) and `shape` is PerPoint for the [E*G] per-gate
  /// fields, PerEnv for the [E] ones. Every output of a GateSequence iterates
  /// it; callable in kernels.
  TRACKGEN_FIELD_VISITOR
  template <class A, class B, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_field(A& a, B& b, F&& f) {
    constexpr PerPoint gate{};
    constexpr PerEnv env{};
    f("position", a.position, b.position, gate);
    f("tangent", a.tangent, b.tangent, gate);
    f("forward", a.forward, b.forward, gate);
    f("orientation", a.orientation, b.orientation, gate);
    f("half_size", a.half_size, b.half_size, gate);
    f("left", a.left, b.left, gate);
    f("right", a.right, b.right, gate);
    f("valid", a.valid, b.valid, env);
    f("count", a.count, b.count, env);
  }

  /// The same list over one GateSequence: f(name, s.field, shape).
  TRACKGEN_FIELD_VISITOR
  template <class S, class F>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_field(S& s, F&& f) {
    for_each_field(s, s, [&](const char* name, auto& field, const auto&, auto shape) { f(name, field, shape); });
  }

 private:
  template <class>
  friend class GateSequence;

  int num_envs_ = 0;
  int max_gates_ = 0;
};

}  // namespace trackgen
