// CourseLine (see course_line.hpp).
#include <trackgen/core/geometry.hpp>
#include <trackgen/runtime/course_line.hpp>
#include <trackgen/runtime/detail/common.hpp>

namespace trackgen {
namespace {

/// The uniform Catmull-Rom of docs/algorithms.md#generator-conventions in 3D: the
/// plan-view curve and the height curve of the same basis.
KOKKOS_INLINE_FUNCTION Vec3f catmull_rom3(Vec3f p0, Vec3f p1, Vec3f p2, Vec3f p3, float t) {
  const Vec2f xy = geom::catmull_rom({p0.x, p0.y}, {p1.x, p1.y}, {p2.x, p2.y}, {p3.x, p3.y}, t);
  const Vec2f z = geom::catmull_rom({p0.z, 0}, {p1.z, 0}, {p2.z, 0}, {p3.z, 0}, t);
  return {xy.x, xy.y, z.x};
}

/// One thread per env: the points, then the tangents and arc lengths of env e.
template <class Space>
struct LineKernel {
  using M = typename Space::memory_space;
  GateSequence<M> gates;
  Track<M> line;
  DView<std::int32_t, Space> mask;
  int spg = 8;
  int G = 1;  // gate stride

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int N = G * spg;
    const int n = kmath::clamp(gates.count(e), 0, G);
    const bool ok = n >= 3 && gates.valid(e) != 0;
    const int m = ok ? n * spg : 0;
    const std::size_t g = static_cast<std::size_t>(e) * G, b = static_cast<std::size_t>(e) * N;
    // Every field of env e empty first (NaN rows, zero per-env entries); the
    // line then writes the ones it defines.
    Track<M>::for_each_field(line, [&](const char*, const auto& field, auto shape) {
      using T = typename std::decay_t<decltype(field)>::value_type;
      if constexpr (decltype(shape)::value) {
        for (int j = 0; j < N; ++j) field(b + j) = empty_entry<T>(shape);
      } else {
        field(e) = empty_entry<T>(shape);
      }
    });
    for (int j = 0; j < m; ++j) {
      const int i = j / spg;
      const float t = static_cast<float>(j % spg) / static_cast<float>(spg);
      line.center(b + j) = catmull_rom3(gates.position(g + (i + n - 1) % n), gates.position(g + i),
                                        gates.position(g + (i + 1) % n), gates.position(g + (i + 2) % n), t);
    }
    double acc = 0.0;
    for (int j = 0; j < m; ++j) {
      const Vec3f prev = line.center(b + (j + m - 1) % m), next = line.center(b + (j + 1) % m);
      line.tangent(b + j) = geom::safe_norm3(next - prev);
      line.arclen(b + j) = static_cast<float>(acc);
      acc += static_cast<double>(length(next - line.center(b + j)));
    }
    line.length(e) = static_cast<float>(acc);
    line.count(e) = m;
    line.valid(e) = ok ? 1 : 0;
    line.invalid_reason(e) = ok ? 0 : InvalidReason::generator;  // the gate course is invalid
  }
};

}  // namespace

template <class Space>
CourseLine<Space>::CourseLine(Space space, const sequence_type& gates, int samples_per_gate)
    : ctx_(std::move(space)), gates_(gates), spg_(samples_per_gate) {
  const int G = detail::gate_stride("trackgen::CourseLine", gates);
  detail::require(samples_per_gate >= 2, "trackgen::CourseLine", "samples_per_gate", ">= 2",
                  std::to_string(samples_per_gate));
  line_ = track_type(ctx_.space(), gates.num_envs(), G * samples_per_gate);
  refresh();
  ctx_.fence();
}

template <class Space>
const typename CourseLine<Space>::track_type& CourseLine<Space>::refresh() {
  return refresh(ctx_);
}

template <class Space>
const typename CourseLine<Space>::track_type& CourseLine<Space>::refresh(const LaunchContext<Space>& ctx,
                                                                       const IntView& mask) {
  if (mask.data() != nullptr) detail::check_mask("trackgen::CourseLine::refresh", mask, gates_.num_envs());
  ctx.for_each("TrackGen::runtime::course_line", static_cast<std::size_t>(gates_.num_envs()),
               LineKernel<Space>{gates_, line_, mask, spg_, gates_.max_gates()});
  return line_;
}

#define TRACKGEN_INSTANTIATE_COURSE_LINE(S) template class CourseLine<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_COURSE_LINE)

}  // namespace trackgen
