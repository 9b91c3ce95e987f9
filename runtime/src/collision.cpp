// CollisionChecker (see collision.hpp); the backends are in collision_segments.cpp and sdf.cpp.
#include <trackgen/runtime/detail/collision_kernels.hpp>
#include <trackgen/runtime/detail/common.hpp>

#include <cmath>

namespace trackgen {
namespace {

/// Validates the constructor's arguments and the memory they need (before any
/// allocation).
template <class Space>
int checked_boxes(const Track<typename Space::memory_space>& track, int max_boxes, CollisionMethod method,
                  const GridOptions& grid) {
  const std::string api = "trackgen::CollisionChecker";
  detail::track_stride(api, track);
  detail::require(max_boxes >= 1, api, "max_boxes", ">= 1", std::to_string(max_boxes));
  detail::require(method == CollisionMethod::segments || method == CollisionMethod::sdf, api, "method",
                  "CollisionMethod::segments or CollisionMethod::sdf", std::to_string(static_cast<int>(method)));
  if (method == CollisionMethod::sdf) grid.validate(api);
  detail::check_runtime_memory(
      api, [&](int e) { return CollisionChecker<Space>::estimate_bytes(e, track.n_max(), max_boxes, method, grid); },
      track.num_envs(), std::string("collision ") + to_string(method));
  return max_boxes;
}

}  // namespace

const char* to_string(CollisionMethod m) {
  const char* name = setting_name(m);
  return name ? name : "?";
}

template <class Space>
BoxContact<Space> BoxContact<Space>::clone() const {
  return {detail::clone_view(oob), detail::clone_view(distance), detail::clone_view(nearest),
          detail::clone_view(normal), detail::clone_view(boundary)};
}

template <class Space>
SignedDistanceField<Space> SignedDistanceField<Space>::clone() const {
  return {detail::clone_view(phi), detail::clone_view(boundary), detail::clone_view(lo), detail::clone_view(hi),
          resolution};
}

template <class Space>
std::size_t CollisionChecker<Space>::estimate_bytes(int num_envs, int n_max, int max_boxes, CollisionMethod method,
                                                    const GridOptions& grid) {
  const std::size_t E = static_cast<std::size_t>(num_envs), boxes = E * static_cast<std::size_t>(max_boxes);
  std::size_t bytes = boxes * (2 * sizeof(std::int32_t) + sizeof(float) + 2 * sizeof(Vec2f));
  bytes += detail::border_grid_bytes(E, n_max);
  if (method == CollisionMethod::segments) bytes += boxes * sizeof(detail::NearSet);
  if (method == CollisionMethod::sdf) {
    const std::size_t R = static_cast<std::size_t>(grid.resolution);
    bytes += E * (R * R * (sizeof(float) + sizeof(std::int8_t)) + 2 * sizeof(Vec2f));
  }
  return bytes;
}

template <class Space>
CollisionChecker<Space>::CollisionChecker(Space space, const track_type& track, int max_boxes, CollisionMethod method,
                                          const GridOptions& grid)
    : ctx_(std::move(space)),
      track_(track),
      max_boxes_(checked_boxes<Space>(track, max_boxes, method, grid)),
      method_(method),
      grid_(grid),
      inputs_("trackgen::CollisionChecker", static_cast<std::size_t>(track.num_envs()) * max_boxes, "bind_inputs",
              "query") {
  const auto& s = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(track.num_envs()), n = E * max_boxes_;
  contacts_.oob = detail::runtime_view<std::int32_t>(s, "contact_oob", n);
  contacts_.distance = detail::runtime_view<float>(s, "contact_distance", n);
  contacts_.nearest = detail::runtime_view<Vec2f>(s, "contact_nearest", n);
  contacts_.normal = detail::runtime_view<Vec2f>(s, "contact_normal", n);
  contacts_.boundary = detail::runtime_view<std::int32_t>(s, "contact_boundary", n);
  Kokkos::deep_copy(s, contacts_.boundary, -1);
  border_grid_ =
      std::make_shared<detail::BorderGrid<Space>>(detail::make_border_grid(s, track.num_envs(), track.n_max()));
  near_sets_ = std::make_shared<detail::NearSets<Space>>();
  if (method_ == CollisionMethod::segments) near_sets_->sets = detail::runtime_view<detail::NearSet>(s, "near_sets", n);
  if (method_ == CollisionMethod::sdf) {
    const std::size_t R = static_cast<std::size_t>(grid_.resolution);
    sdf_.resolution = grid_.resolution;
    sdf_.phi = detail::runtime_view<float>(s, "sdf_phi", E * R * R);
    sdf_.boundary = detail::runtime_view<std::int8_t>(s, "sdf_boundary", E * R * R);
    sdf_.lo = detail::runtime_view<Vec2f>(s, "sdf_lo", E);
    sdf_.hi = detail::runtime_view<Vec2f>(s, "sdf_hi", E);
  }
  bake();
  s.fence();
}

template <class Space>
void CollisionChecker<Space>::bind_inputs(const Vec3View& position, const QuatView& orientation,
                                          const Vec2View& half_extents) {
  inputs_.bind({position, orientation, half_extents});
}

template <class Space>
const BoxContact<Space>& CollisionChecker<Space>::query() {
  return query(ctx_);
}

template <class Space>
const BoxContact<Space>& CollisionChecker<Space>::query(const LaunchContext<Space>& ctx) {
  return launch_query(ctx, inputs_.bound(ctx));
}

template <class Space>
const BoxContact<Space>& CollisionChecker<Space>::query(const Vec3View& position, const QuatView& orientation,
                                                        const Vec2View& half_extents) {
  return query(ctx_, position, orientation, half_extents);
}

template <class Space>
const BoxContact<Space>& CollisionChecker<Space>::query(const LaunchContext<Space>& ctx, const Vec3View& position,
                                                        const QuatView& orientation, const Vec2View& half_extents) {
  return launch_query(ctx, inputs_.per_call({position, orientation, half_extents}));
}

template <class Space>
const BoxContact<Space>& CollisionChecker<Space>::launch_query(const LaunchContext<Space>& ctx,
                                                               const BoxInputs<Space>& in) {
  if (method_ == CollisionMethod::segments) {
    detail::query_segments(ctx, track_, *border_grid_, near_sets_->sets, in.position, in.orientation, in.half_extents,
                           contacts_, max_boxes_);
  } else {
    detail::query_sdf(ctx, sdf_, in.position, in.orientation, in.half_extents, contacts_, max_boxes_);
  }
  return contacts_;
}

template <class Space>
void CollisionChecker<Space>::bake() {
  bake(ctx_);
}

template <class Space>
void CollisionChecker<Space>::bake(const LaunchContext<Space>& ctx, const IntView& mask) {
  const std::string api = "trackgen::CollisionChecker::bake";
  detail::check_mask(api, mask, static_cast<std::size_t>(track_.num_envs()));
  detail::build_border_grid(ctx, track_, *border_grid_, mask);
  if (method_ == CollisionMethod::sdf) {
    detail::bake_sdf(ctx, track_, *border_grid_, grid_.padding.value_or(-1.0f), sdf_, mask);
  }
}

#define TRACKGEN_INSTANTIATE_COLLISION(S) \
  template struct BoxContact<S>;          \
  template struct SignedDistanceField<S>; \
  template class CollisionChecker<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_COLLISION)

}  // namespace trackgen
