// DiscChecker (see disc_checker.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/disc_checker.hpp>

#include <cmath>

namespace trackgen {
namespace {

/// One thread per box: every real, finite disc of the env.
template <class Space>
struct QueryDiscs {
  DView<Vec3f, Space> discs, position;
  DView<std::int32_t, Space> count;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  DiscContact<Space> out;
  float radius = 0;
  int boxes = 1;
  int slots = 1;

  KOKKOS_FUNCTION void operator()(const int b) const {
    out.hit(b) = 0;
    out.disc(b) = -1;
    out.depth(b) = 0.0f;
    out.nearest(b) = nan2();
    const Vec3f pos = position(b);
    if (!kmath::isfinite(pos.x) || !kmath::isfinite(pos.y)) return;
    const int e = b / boxes;
    const int n = count.data() != nullptr ? kmath::clamp(count(e), 0, slots) : slots;
    const geom::Box2 box = geom::make_box(geom::xy(pos), geom::yaw_of(orientation(b)), half(b));
    const std::size_t base = static_cast<std::size_t>(e) * slots;
    float deepest = -1.0f;
    for (int d = 0; d < n; ++d) {
      const Vec2f c = geom::xy(discs(base + d));
      if (!is_finite(c)) continue;
      const Vec2f q = geom::box_closest_point(c, box);
      const float pen = radius - length(q - c);
      if (pen >= 0.0f && pen > deepest) {
        deepest = pen;
        out.hit(b) = 1;
        out.disc(b) = d;
        out.depth(b) = pen;
        out.nearest(b) = c + radius * geom::safe_norm2(q - c);
      }
    }
  }
};

/// Validates the shared constructor arguments (before any allocation) and
/// returns the slots per env D.
template <class V>
int checked_slots(const V& discs, float radius, int max_boxes, int num_envs) {
  const std::string api = "trackgen::DiscChecker";
  detail::require(num_envs >= 1, api, "num_envs", ">= 1", std::to_string(num_envs));
  detail::require(discs.data() != nullptr && discs.extent(0) >= static_cast<std::size_t>(num_envs) &&
                      discs.extent(0) % static_cast<std::size_t>(num_envs) == 0,
                  api, "discs", "an allocated View of extent E*D (D >= 1)",
                  "extent " + std::to_string(discs.extent(0)) + " for E = " + std::to_string(num_envs));
  detail::require(std::isfinite(radius) && radius > 0.0f, api, "radius", "finite and > 0", std::to_string(radius));
  detail::require(max_boxes >= 1, api, "max_boxes", ">= 1", std::to_string(max_boxes));
  return static_cast<int>(discs.extent(0) / static_cast<std::size_t>(num_envs));
}

/// The env count of a count View, checked.
template <class V>
int count_envs(const V& count) {
  detail::require(count.data() != nullptr && count.extent(0) >= 1, "trackgen::DiscChecker", "count",
                  "an allocated [E] View with E >= 1", "extent " + std::to_string(count.extent(0)));
  return static_cast<int>(count.extent(0));
}

/// One thread per gate slot: its two posts (the gate's ends).
template <class Space>
struct InterleavePosts {
  DView<Vec3f, Space> left, right, posts;
  DView<std::int32_t, Space> mask;
  int G = 1;

  KOKKOS_FUNCTION void operator()(const int s) const {
    if (mask.data() != nullptr && mask(s / G) == 0) return;
    posts(2 * s) = left(s);
    posts(2 * s + 1) = right(s);
  }
};

}  // namespace

template <class Space>
DiscContact<Space> DiscContact<Space>::clone() const {
  return {detail::clone_view(hit), detail::clone_view(disc), detail::clone_view(depth), detail::clone_view(nearest)};
}

template <class Space>
DiscChecker<Space>::DiscChecker(Space space, const Vec3View& discs, float radius, int max_boxes, int num_envs)
    : ctx_(std::move(space)),
      discs_(discs),
      radius_(radius),
      max_boxes_(max_boxes),
      num_envs_(num_envs),
      slots_(checked_slots(discs, radius, max_boxes, num_envs)),
      inputs_("trackgen::DiscChecker", static_cast<std::size_t>(num_envs) * max_boxes, "bind_inputs", "query") {
  const auto& s = ctx_.space();
  const std::size_t n = static_cast<std::size_t>(num_envs_) * max_boxes_;
  contacts_.hit = detail::runtime_view<std::int32_t>(s, "disc_hit", n);
  contacts_.disc = detail::runtime_view<std::int32_t>(s, "disc_index", n);
  contacts_.depth = detail::runtime_view<float>(s, "disc_depth", n);
  contacts_.nearest = detail::runtime_view<Vec2f>(s, "disc_nearest", n);
  Kokkos::deep_copy(s, contacts_.disc, -1);
  Kokkos::deep_copy(s, contacts_.nearest, nan2());
  s.fence();
}

template <class Space>
DiscChecker<Space>::DiscChecker(Space space, const Vec3View& discs, float radius, int max_boxes, const IntView& count)
    : DiscChecker(std::move(space), discs, radius, max_boxes, count_envs(count)) {
  count_ = count;
}

template <class Space>
void DiscChecker<Space>::bind_inputs(const Vec3View& position, const QuatView& orientation,
                                     const Vec2View& half_extents) {
  inputs_.bind({position, orientation, half_extents});
}

template <class Space>
const DiscContact<Space>& DiscChecker<Space>::query() {
  return query(ctx_);
}

template <class Space>
const DiscContact<Space>& DiscChecker<Space>::query(const LaunchContext<Space>& ctx) {
  return launch_query(ctx, inputs_.bound(ctx));
}

template <class Space>
const DiscContact<Space>& DiscChecker<Space>::query(const Vec3View& position, const QuatView& orientation,
                                                    const Vec2View& half_extents) {
  return query(ctx_, position, orientation, half_extents);
}

template <class Space>
const DiscContact<Space>& DiscChecker<Space>::query(const LaunchContext<Space>& ctx, const Vec3View& position,
                                                    const QuatView& orientation, const Vec2View& half_extents) {
  return launch_query(ctx, inputs_.per_call({position, orientation, half_extents}));
}

template <class Space>
const DiscContact<Space>& DiscChecker<Space>::launch_query(const LaunchContext<Space>& ctx,
                                                           const BoxInputs<Space>& in) {
  QueryDiscs<Space> k{discs_, in.position, count_, in.orientation, in.half_extents, contacts_, radius_, max_boxes_,
                      slots_};
  ctx.for_each("TrackGen::runtime::discs::query", in.position.extent(0), k);
  return contacts_;
}

template <class Space>
void gate_posts(const LaunchContext<Space>& ctx, const GateSequence<typename Space::memory_space>& gates,
                const DView<Vec3f, Space>& posts, const DView<std::int32_t, Space>& mask) {
  const std::string api = "trackgen::gate_posts";
  const int G = detail::gate_stride(api, gates);
  check_extent(api, "posts", posts, 2 * gates.position.extent(0), "2*E*G");
  detail::check_mask(api, mask, static_cast<std::size_t>(gates.num_envs()));
  ctx.for_each("TrackGen::runtime::gate_posts", gates.position.extent(0),
               InterleavePosts<Space>{gates.left, gates.right, posts, mask, G});
}

#define TRACKGEN_INSTANTIATE_DISCS(S)                                                                   \
  template struct DiscContact<S>;                                                                       \
  template class DiscChecker<S>;                                                                        \
  template void gate_posts<S>(const LaunchContext<S>&, const GateSequence<typename S::memory_space>&, \
                              const DView<Vec3f, S>&, const DView<std::int32_t, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_DISCS)

}  // namespace trackgen
