// GateSequence: the output of the gate pipeline (docs/design.md#data-model),
// flat and NaN-padded like Track: per-gate fields hold E * G entries
// (G = max_gates), env e owns [e*G, (e+1)*G); the first count[e] are real
// gates, the rest NaN (orientation: four NaNs).
#pragma once

#include <trackgen/core/errors.hpp>
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
    const std::size_t gates = std::size_t(num_envs) * std::size_t(max_gates);
    for_each_field(*this, *this, [&](const char* name, auto& field, const auto&, auto per_gate) {
      using View = std::decay_t<decltype(field)>;
      const std::string l = label("gates", name);
      if constexpr (decltype(per_gate)::value) {
        field = View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, l), gates);
        Kokkos::deep_copy(space, field, empty_gate<typename View::value_type>());
      } else {
        field = View(Kokkos::view_alloc(space, l), static_cast<std::size_t>(num_envs));
      }
    });
    space.fence();
  }

  /// Deep copy into freshly allocated Views of memory space `Dst`.
  template <class Dst = MemorySpace>
  GateSequence<Dst> clone() const {
    GateSequence<Dst> s;
    s.num_envs_ = num_envs_;
    s.max_gates_ = max_gates_;
    for_each_field(s, *this, [](const char*, auto& dst, const auto& src, auto) {
      dst = std::decay_t<decltype(dst)>(Kokkos::view_alloc(Kokkos::WithoutInitializing, src.label()), src.extent(0));
      Kokkos::deep_copy(dst, src);
    });
    return s;
  }

  /// Copies the whole sequence to host memory.
  GateSequence<Kokkos::HostSpace> to_host() const { return clone<Kokkos::HostSpace>(); }

  /// Bytes the fields of a GateSequence of `num_envs` envs of stride
  /// `max_gates` hold, computed without allocating (bytes() of such a one).
  static std::size_t bytes_for(int num_envs, int max_gates) {
    const std::size_t gates = std::size_t(num_envs) * std::size_t(max_gates), envs = std::size_t(num_envs);
    std::size_t b = 0;
    GateSequence s;
    for_each_field(s, s, [&](const char*, const auto& field, const auto&, auto per_gate) {
      b += sizeof(typename std::decay_t<decltype(field)>::value_type) * (decltype(per_gate)::value ? gates : envs);
    });
    return b;
  }

  /// Bytes of memory held by the fields.
  std::size_t bytes() const {
    std::size_t b = 0;
    for_each_field(*this, *this, [&](const char*, const auto& field, const auto&, auto) { b += view_bytes(field); });
    return b;
  }

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

 private:
  template <class>
  friend class GateSequence;

  template <class T>
  static constexpr T empty_gate() {
    if constexpr (std::is_same_v<T, Vec3f>) {
      return nan3();
    } else if constexpr (std::is_same_v<T, Quatf>) {
      return nan_quat();
    } else {
      return nanf();
    }
  }

  /// The one list of the fields: f(name, a.field, b.field, per_gate) in
  /// declaration order; per_gate is std::true_type for the [E*G] fields.
  template <class A, class B, class F>
  static void for_each_field(A& a, B& b, F&& f) {
    constexpr std::true_type gate{};
    constexpr std::false_type env{};
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

  int num_envs_ = 0;
  int max_gates_ = 0;
};

}  // namespace trackgen
