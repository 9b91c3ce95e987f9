// CollisionChecker and its segments backend (see collision.hpp).
#include <trackgen/runtime/detail/collision_kernels.hpp>

#include <cmath>

namespace trackgen {
namespace detail {
namespace {

/// One thread per box: every segment of both borders (inner first, each
/// closing m-1 -> 0) against the box's corners and solid body.
template <class Space>
struct QuerySegments {
  Track<typename Space::memory_space> track;
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  BoxContact<Space> out;
  int boxes = 1;

  KOKKOS_FUNCTION void degenerate(int b, int oob) const {
    out.oob(b) = oob;
    out.distance(b) = nanf();
    out.nearest(b) = nan2();
    out.normal(b) = nan2();
    out.boundary(b) = -1;
  }

  KOKKOS_FUNCTION void operator()(const int b) const {
    const Vec3f pos = position(b);
    if (!kmath::isfinite(pos.x) || !kmath::isfinite(pos.y)) return degenerate(b, 0);
    const int e = b / boxes, n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    if (m < 3) return degenerate(b, 1);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const geom::Box2 box = geom::make_box(geom::xy(pos), geom::yaw_of(orientation(b)), half(b));
    Vec2f corner[4];
    for (int k = 0; k < 4; ++k) corner[k] = geom::box_corner(box, k);
    int crossings[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    float corner_min[2][4] = {{3e38f, 3e38f, 3e38f, 3e38f}, {3e38f, 3e38f, 3e38f, 3e38f}};
    float best = 3e38f;
    int best_border = -1, best_i = 0;
    Vec2f best_point = nan2();
    bool cut = false;
    for (int border = 0; border < 2; ++border) {
      const Vec3f* const p = (border == 0 ? track.inner.data() : track.outer.data()) + base;
      for (int i = 0; i < m; ++i) {
        const Vec2f a = geom::xy(p[i]), c = geom::xy(p[i + 1 < m ? i + 1 : 0]);
        float d_seg = 3e38f;
        Vec2f q_seg = a;
        for (int k = 0; k < 4; ++k) {
          crossings[border][k] += geom::ray_crosses(corner[k], a, c) ? 1 : 0;
          const Vec2f q = geom::closest_point_on_segment(corner[k], a, c);
          const float d = length(corner[k] - q);
          corner_min[border][k] = kmath::min(corner_min[border][k], d);
          if (d < d_seg) {
            d_seg = d;
            q_seg = q;
          }
        }
        const float d_vertex = geom::point_box_distance(a, box);
        if (d_vertex < d_seg) {
          d_seg = d_vertex;
          q_seg = a;
        }
        if (geom::segment_hits_box(a, c, box)) {
          cut = true;
          d_seg = 0.0f;
          q_seg = geom::closest_point_on_segment(box.center, a, c);
        }
        if (d_seg < best) {
          best = d_seg;
          best_border = border;
          best_i = i;
          best_point = q_seg;
        }
      }
    }
    // Corners outside the band and their penetration into the violated border(s).
    bool outside = false;
    float penetration = 0.0f;
    for (int k = 0; k < 4; ++k) {
      const bool in_inner = crossings[0][k] % 2 == 1, in_outer = crossings[1][k] % 2 == 1;
      if (!in_inner && in_outer) continue;
      outside = true;
      if (in_inner) penetration = kmath::max(penetration, corner_min[0][k]);
      if (!in_outer) penetration = kmath::max(penetration, corner_min[1][k]);
    }
    const bool oob = outside || cut;
    // Normal of the nearest segment, pointing towards its centerline point.
    const Vec3f* const p = (best_border == 0 ? track.inner.data() : track.outer.data()) + base;
    const Vec2f seg = geom::xy(p[best_i + 1 < m ? best_i + 1 : 0]) - geom::xy(p[best_i]);
    const Vec2f to_center = geom::xy(track.center(base + best_i)) - best_point;
    Vec2f n = length_sq(seg) > 1e-12f ? Vec2f{-seg.y, seg.x} : to_center;
    n = geom::safe_norm2(n);
    if (dot(n, to_center) < 0.0f) n = -n;
    out.oob(b) = oob ? 1 : 0;
    out.distance(b) = oob ? (penetration > 0.0f ? -penetration : 0.0f) : best;
    out.nearest(b) = best_point;
    out.normal(b) = n;
    out.boundary(b) = best_border;
  }
};

}  // namespace

template <class Space>
void query_segments(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                    const DView<Vec3f, Space>& position, const DView<Quatf, Space>& orientation,
                    const DView<Vec2f, Space>& half_extents, const BoxContact<Space>& out, int boxes) {
  ctx.for_each("TrackGen::runtime::collision::segments", position.extent(0),
               QuerySegments<Space>{track, position, orientation, half_extents, out, boxes});
}

}  // namespace detail

namespace {

/// Validates the constructor's arguments (before any allocation).
template <class M>
int checked_boxes(const Track<M>& track, int max_boxes, CollisionMethod method, const GridOptions& grid) {
  const std::string api = "trackgen::CollisionChecker";
  detail::track_stride(api, track);
  detail::require(max_boxes >= 1, api, "max_boxes", ">= 1", std::to_string(max_boxes));
  detail::require(method == CollisionMethod::segments || method == CollisionMethod::sdf, api, "method",
                  "CollisionMethod::segments or CollisionMethod::sdf", std::to_string(static_cast<int>(method)));
  if (method == CollisionMethod::sdf) grid.validate(api);
  return max_boxes;
}

}  // namespace

const char* to_string(CollisionMethod m) {
  switch (m) {
    case CollisionMethod::segments: return "segments";
    case CollisionMethod::sdf: return "sdf";
  }
  return "?";
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
CollisionChecker<Space>::CollisionChecker(Space space, const track_type& track, int max_boxes,
                                          CollisionMethod method, const GridOptions& grid)
    : ctx_(std::move(space)),
      track_(track),
      max_boxes_(checked_boxes(track, max_boxes, method, grid)),
      method_(method),
      grid_(grid),
      inputs_("trackgen::CollisionChecker", static_cast<std::size_t>(track.num_envs()) * max_boxes, "bind_inputs", "query") {
  const auto& s = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(track.num_envs()), n = E * max_boxes_;
  contacts_.oob = detail::runtime_view<std::int32_t>(s, "contact_oob", n);
  contacts_.distance = detail::runtime_view<float>(s, "contact_distance", n);
  contacts_.nearest = detail::runtime_view<Vec2f>(s, "contact_nearest", n);
  contacts_.normal = detail::runtime_view<Vec2f>(s, "contact_normal", n);
  contacts_.boundary = detail::runtime_view<std::int32_t>(s, "contact_boundary", n);
  Kokkos::deep_copy(s, contacts_.boundary, -1);
  if (method_ == CollisionMethod::sdf) {
    const std::size_t R = static_cast<std::size_t>(grid_.resolution);
    sdf_.resolution = grid_.resolution;
    sdf_.phi = detail::runtime_view<float>(s, "sdf_phi", E * R * R);
    sdf_.boundary = detail::runtime_view<std::int8_t>(s, "sdf_boundary", E * R * R);
    sdf_.lo = detail::runtime_view<Vec2f>(s, "sdf_lo", E);
    sdf_.hi = detail::runtime_view<Vec2f>(s, "sdf_hi", E);
    chunks_ = detail::runtime_view<detail::ChunkBox>(s, "sdf_chunks", E * 2 * detail::chunk_boxes(track.n_max()));
    bake();
  }
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
                                                               const detail::BoxViews<Space>& in) {
  if (method_ == CollisionMethod::segments) {
    detail::query_segments(ctx, track_, in.position, in.orientation, in.half_extents, contacts_, max_boxes_);
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
  if (method_ != CollisionMethod::sdf) {
    throw ConfigError(api + ": the checker uses CollisionMethod::segments, which has nothing to bake");
  }
  detail::check_mask(api, mask, static_cast<std::size_t>(track_.num_envs()));
  detail::bake_sdf(ctx, track_, grid_.padding.value_or(-1.0f), sdf_, chunks_, mask);
}

#define TRACKGEN_INSTANTIATE_COLLISION(S)                                                                     \
  template struct BoxContact<S>;                                                                              \
  template struct SignedDistanceField<S>;                                                                     \
  template class CollisionChecker<S>;                                                                         \
  template void detail::query_segments<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&,    \
                                          const DView<Vec3f, S>&, const DView<Quatf, S>&, const DView<Vec2f, S>&, \
                                          const BoxContact<S>&, int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_COLLISION)

}  // namespace trackgen
