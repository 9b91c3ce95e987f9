// FrameChecker (see frame_checker.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/frame_checker.hpp>

#include <cmath>

namespace trackgen {
namespace {

/// Signed distance from `p` to the solid axis-aligned box of centre `c` and
/// half extents `h` (negative inside).
KOKKOS_INLINE_FUNCTION float box_signed_distance(Vec3f p, Vec3f c, Vec3f h) {
  const Vec3f q{kmath::fabs(p.x - c.x) - h.x, kmath::fabs(p.y - c.y) - h.y, kmath::fabs(p.z - c.z) - h.z};
  const Vec3f o{kmath::max(q.x, 0.0f), kmath::max(q.y, 0.0f), kmath::max(q.z, 0.0f)};
  return length(o) + kmath::min(kmath::max(q.x, kmath::max(q.y, q.z)), 0.0f);
}

template <class Space>
struct QueryFrames {
  GateSequence<typename Space::memory_space> gates;
  DView<Vec3f, Space> position;
  DView<std::int32_t, Space> next;
  FrameContact<Space> out;
  float radius = 0, thickness = 0, depth = 0;
  int window = 1, G = 1;

  KOKKOS_FUNCTION void operator()(const int e) const {
    out.hit(e) = 0;
    out.depth(e) = 0.0f;
    const Vec3f p = position(e);
    const int n = kmath::clamp(gates.count(e), 0, G);
    if (gates.valid(e) == 0 || n < 1 || !is_finite(p)) return;
    const int target = kmath::clamp(next(e), 0, n - 1);
    const int w = kmath::min(window, n);
    const float t = thickness, d = depth;
    float deepest = 0.0f;
    for (int k = 0; k < w; ++k) {
      const std::size_t g = static_cast<std::size_t>(e) * G + (target - 1 + k + n) % n;
      const float hs = gates.half_size(g);
      const Vec3f local = geom::rotate_inverse(gates.orientation(g), p - gates.position(g));
      const Vec3f post{0.5f * d, 0.5f * t, hs + t}, bar{0.5f * d, hs + t, 0.5f * t};
      const float o = hs + 0.5f * t;
      const float sd = kmath::min(kmath::min(box_signed_distance(local, Vec3f{0, o, 0}, post),
                                             box_signed_distance(local, Vec3f{0, -o, 0}, post)),
                                  kmath::min(box_signed_distance(local, Vec3f{0, 0, o}, bar),
                                             box_signed_distance(local, Vec3f{0, 0, -o}, bar)));
      const float pen = radius - sd;
      if (pen > 0.0f) {
        out.hit(e) = 1;
        deepest = kmath::max(deepest, pen);
      }
    }
    out.depth(e) = deepest;
  }
};

}  // namespace

template <class Space>
FrameContact<Space> FrameContact<Space>::clone() const {
  return {detail::clone_view(hit), detail::clone_view(depth)};
}

template <class Space>
FrameChecker<Space>::FrameChecker(Space space, const sequence_type& gates, float radius, float frame_thickness,
                                  float frame_depth, int window)
    : ctx_(std::move(space)),
      gates_(gates),
      radius_(radius),
      thickness_(frame_thickness),
      depth_(frame_depth),
      window_(window) {
  const std::string api = "trackgen::FrameChecker";
  detail::gate_stride(api, gates);
  detail::require(std::isfinite(radius) && radius > 0.0f, api, "radius", "finite and > 0", std::to_string(radius));
  detail::require(std::isfinite(frame_thickness) && frame_thickness > 0.0f, api, "frame_thickness", "finite and > 0",
                  std::to_string(frame_thickness));
  detail::require(std::isfinite(frame_depth) && frame_depth > 0.0f, api, "frame_depth", "finite and > 0",
                  std::to_string(frame_depth));
  detail::require(window >= 1, api, "window", ">= 1", std::to_string(window));
  const std::size_t E = static_cast<std::size_t>(gates.num_envs());
  contacts_.hit = detail::runtime_view<std::int32_t>(ctx_.space(), "frame_hit", E);
  contacts_.depth = detail::runtime_view<float>(ctx_.space(), "frame_depth", E);
  ctx_.fence();
}

template <class Space>
void FrameChecker<Space>::bind_inputs(const Vec3View& position) {
  check_extent("trackgen::FrameChecker::bind_inputs", "position", position,
                       static_cast<std::size_t>(gates_.num_envs()), "E");
  position_ = position;
}

template <class Space>
void FrameChecker<Space>::bind_window(const IntView& next) {
  check_extent("trackgen::FrameChecker::bind_window", "next", next,
                       static_cast<std::size_t>(gates_.num_envs()), "E");
  next_ = next;
}

template <class Space>
const FrameContact<Space>& FrameChecker<Space>::query() {
  return query(ctx_);
}

template <class Space>
const FrameContact<Space>& FrameChecker<Space>::query(const LaunchContext<Space>& ctx) {
  if (position_.data() == nullptr || next_.data() == nullptr) {
    throw ConfigError("trackgen::FrameChecker::query: bind_inputs(position) and bind_window(next) first");
  }
  ctx.for_each("TrackGen::runtime::frame_query", static_cast<std::size_t>(gates_.num_envs()),
               QueryFrames<Space>{gates_, position_, next_, contacts_, radius_, thickness_, depth_, window_,
                                  gates_.max_gates()});
  return contacts_;
}

#define TRACKGEN_INSTANTIATE_FRAME_CHECKER(S) \
  template struct FrameContact<S>;            \
  template class FrameChecker<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_FRAME_CHECKER)

}  // namespace trackgen
