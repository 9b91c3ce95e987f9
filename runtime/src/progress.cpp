// ProgressTracker (see progress.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/progress.hpp>

namespace trackgen {
namespace {

template <class Space>
struct UpdateProgress {
  static constexpr int near_slots = ProgressTracker<Space>::near_slots;
  using NearPlane = typename ProgressTracker<Space>::NearPlane;
  CheckpointSet<Space> set;
  DView<Vec3f, Space> position, prev;
  DView<std::int32_t, Space> next, laps, progress;
  ProgressEvents<Space> ev;
  typename ProgressTracker<Space>::NearIndex near;
  int stride = 0;

  KOKKOS_FUNCTION int pass(std::size_t s, Vec3f p0, Vec3f pos) const {
    return geom::plane_pass(p0, pos, set.tangent(s), set.left(s), set.right(s), set.up_half(s));
  }

  /// plane_pass of checkpoint slot s from its indexed plane copy q: the posts
  /// and the opening are read from the set only when the motion crosses the
  /// plane.
  KOKKOS_FUNCTION int pass(std::size_t s, const NearPlane& q, Vec3f p0, Vec3f pos) const {
    float t = 0.0f;
    const int dir = geom::plane_cross(p0, pos, q.mid, q.tangent, t);
    return dir != 0 && geom::within_gate(p0, pos, t, q.mid, q.tangent, set.left(s), set.right(s), set.up_half(s)) ? dir
                                                                                                                  : 0;
  }

  /// The position of env e's checkpoint h: its copy in the near index when
  /// the index holds it, else the set's.
  KOKKOS_FUNCTION Vec3f checkpoint_position(int e, int n, int h) const {
    const std::size_t slots = static_cast<std::size_t>(e) * near_slots;
    if (near.count(e) == n) {
      const int m = kmath::min(n, near_slots);
      for (int k = 0; k < m; ++k) {
        if (near.index(slots + k) == h) return near.plane(slots + k).position;
      }
    }
    return set.position(static_cast<std::size_t>(e) * stride + h);
  }

  /// The pass test of the next checkpoint g (its result in `c`) and the first
  /// checkpoint i != g (ascending) the motion p0 -> pos passes either way (-1 if
  /// none): over the env's near index while both ends lie within its radius
  /// (an indexed checkpoint only when an end does not lie strictly within its
  /// reach: else it cannot be passed), else over all n checkpoints (and the
  /// index is rebuilt around pos).
  KOKKOS_FUNCTION int tests(int e, std::size_t base, int n, int g, Vec3f p0, Vec3f pos, int& c) const {
    const Vec3f centre = near.center(e);
    const float r2 = near.radius(e) * near.radius(e);
    const Vec3f a = p0 - centre, b = pos - centre;
    const float a2 = dot(a, a), b2 = dot(b, b);
    if (near.count(e) == n && a2 < r2 && b2 < r2) {
      const std::size_t slots = static_cast<std::size_t>(e) * near_slots;
      const int m = kmath::min(n, near_slots);
      int found = -1;
      bool tested_g = false;
      for (int k = 0; k < m; ++k) {
        const int i = near.index(slots + k);
        const float reach2 = near.reach(slots + k) * near.reach(slots + k);
        const bool may_pass = !(a2 < reach2 && b2 < reach2);
        if (i == g) {
          c = may_pass ? pass(base + i, near.plane(slots + k), p0, pos) : 0;
          tested_g = true;
        } else if (found < 0 && may_pass && pass(base + i, near.plane(slots + k), p0, pos) != 0) {
          found = i;
        }
      }
      if (!tested_g) c = pass(base + g, p0, pos);
      return found;
    }
    c = pass(base + g, p0, pos);
    return rebuild(e, base, n, g, p0, pos);
  }

  /// The near index of env e around `c` (the motion's end): the near_slots
  /// checkpoints of least gate_reach from c, in ascending order, and as radius
  /// the least reach of the others (unbounded when n <= near_slots). Every
  /// checkpoint left out has a reach >= the radius, so no motion within it
  /// passes one. Returns the first checkpoint other than g that the motion
  /// p0 -> c passes (-1 if none), testing only those whose reach from c is
  /// within the motion's length (a crossing point lies on the motion, so no
  /// other can pass); a non-finite c passes none and drops the index.
  KOKKOS_FUNCTION int rebuild(int e, std::size_t base, int n, int g, Vec3f p0, Vec3f c) const {
    if (!is_finite(c)) {
      near.count(e) = -1;
      return -1;
    }
    const float motion = length(c - p0) * (1.0f + 1e-6f);
    int found = -1;
    int idx[near_slots];
    float reach[near_slots];
    int m = 0;
    float radius = 3.0e38f;  // unbounded: its square is +inf, above every finite distance
    for (int i = 0; i < n; ++i) {
      const std::size_t s = base + i;
      const float d = geom::gate_reach(c, set.tangent(s), set.left(s), set.right(s), set.up_half(s));
      if (found < 0 && i != g && !(d > motion) && pass(s, p0, c) != 0) found = i;
      if (m == near_slots) {  // full: the largest kept one leaves unless i is farther
        if (!(d < reach[m - 1])) {
          radius = kmath::min(radius, d);
          continue;
        }
        radius = kmath::min(radius, reach[m - 1]);
        --m;
      }
      int k = m++;  // insertion by reach (ties: the earlier index first)
      for (; k > 0 && reach[k - 1] > d; --k) {
        reach[k] = reach[k - 1];
        idx[k] = idx[k - 1];
      }
      reach[k] = d;
      idx[k] = i;
    }
    for (int k = 1; k < m; ++k) {  // ascending indices: the first pass found is the scan's
      const int v = idx[k];
      const float d = reach[k];
      int q = k;
      for (; q > 0 && idx[q - 1] > v; --q) idx[q] = idx[q - 1], reach[q] = reach[q - 1];
      idx[q] = v, reach[q] = d;
    }
    const std::size_t slots = static_cast<std::size_t>(e) * near_slots;
    for (int k = 0; k < m; ++k) {
      const std::size_t s = base + idx[k];
      near.index(slots + k) = idx[k];
      near.reach(slots + k) = reach[k];
      near.plane(slots + k) = {0.5f * (set.left(s) + set.right(s)), set.tangent(s), set.position(s)};
    }
    near.center(e) = c;
    near.radius(e) = radius;
    near.count(e) = n;
    return found;
  }

  /// How many envs ahead an update prefetches the near index.
  static constexpr int prefetch_ahead = 8;

  /// Prefetches env f's near index.
  KOKKOS_FUNCTION void prefetch_index(const int f) const {
    if (f >= static_cast<int>(next.extent(0))) return;
    const std::size_t slots = static_cast<std::size_t>(f) * near_slots;
    detail::prefetch(&near.plane(slots), sizeof(NearPlane) * near_slots);
    detail::prefetch(&near.index(slots), sizeof(std::int32_t) * near_slots);
    detail::prefetch(&near.reach(slots), sizeof(float) * near_slots);
  }

  KOKKOS_FUNCTION void operator()(const int e) const {
    prefetch_index(e + prefetch_ahead);
    const Vec3f pos = position(e);
    const int n = kmath::clamp(set.count(e), 0, stride);
    int g = next(e);
    if (g < 0 || g >= n) g = 0;
    int passed = 0, wrong_way = 0, wrong_cp = -1;
    const Vec3f p0 = prev(e);
    if (n >= 1 && is_finite(p0)) {
      int c = 0;
      wrong_cp = tests(e, static_cast<std::size_t>(e) * stride, n, g, p0, pos, c);
      passed = c > 0 ? 1 : 0;
      wrong_way = c < 0 ? 1 : 0;
    }
    ev.checkpoint_passed(e) = passed ? g : -1;
    if (passed) {
      g += 1;
      progress(e) += 1;
      if (g == n) {
        g = 0;
        laps(e) += 1;
      }
    }
    if (n >= 1) next(e) = g;
    prev(e) = pos;
    ev.passed(e) = passed;
    ev.next_checkpoint(e) = next(e);
    ev.laps(e) = laps(e);
    ev.progress(e) = progress(e);
    ev.wrong_way(e) = wrong_way;
    ev.wrong_checkpoint(e) = wrong_cp;
    ev.dist_to_next(e) = n >= 1 ? length(checkpoint_position(e, n, next(e)) - pos) : nanf();
  }
};

template <class Space>
struct ResetProgress {
  DView<std::int32_t, Space> mask, next, laps, progress, near_count;
  DView<Vec3f, Space> prev;

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    near_count(e) = -1;
    prev(e) = nan3();
    next(e) = 0;
    laps(e) = 0;
    progress(e) = 0;
  }
};

template <class Space>
const CheckpointSet<Space>& checked_set(const CheckpointSet<Space>& set) {
  set.check("trackgen::ProgressTracker");
  return set;
}

}  // namespace

template <class Space>
ProgressEvents<Space> ProgressEvents<Space>::clone() const {
  return {detail::clone_view(passed),           detail::clone_view(checkpoint_passed),
          detail::clone_view(next_checkpoint),  detail::clone_view(laps),
          detail::clone_view(progress),         detail::clone_view(wrong_way),
          detail::clone_view(wrong_checkpoint), detail::clone_view(dist_to_next)};
}

template <class Space>
ProgressTracker<Space>::ProgressTracker(Space space, const CheckpointSet<Space>& checkpoints)
    : ctx_(std::move(space)),
      set_(checked_set(checkpoints)),
      inputs_("trackgen::ProgressTracker", checkpoints.count.extent(0), "bind", "update") {
  const auto& s = ctx_.space();
  const std::size_t E = set_.count.extent(0);
  prev_ = detail::runtime_view<Vec3f>(s, "progress_prev", E);
  next_ = detail::runtime_view<std::int32_t>(s, "progress_next", E);
  laps_ = detail::runtime_view<std::int32_t>(s, "progress_laps", E);
  progress_ = detail::runtime_view<std::int32_t>(s, "progress_count", E);
  events_.passed = detail::runtime_view<std::int32_t>(s, "progress_passed", E);
  events_.checkpoint_passed = detail::runtime_view<std::int32_t>(s, "progress_checkpoint_passed", E);
  events_.next_checkpoint = detail::runtime_view<std::int32_t>(s, "progress_next_checkpoint", E);
  events_.laps = detail::runtime_view<std::int32_t>(s, "progress_event_laps", E);
  events_.progress = detail::runtime_view<std::int32_t>(s, "progress_event_progress", E);
  events_.wrong_way = detail::runtime_view<std::int32_t>(s, "progress_wrong_way", E);
  events_.wrong_checkpoint = detail::runtime_view<std::int32_t>(s, "progress_wrong_checkpoint", E);
  events_.dist_to_next = detail::runtime_view<float>(s, "progress_dist_to_next", E);
  near_.index = detail::runtime_view<std::int32_t>(s, "progress_near_index", E * near_slots);
  near_.reach = detail::runtime_view<float>(s, "progress_near_reach", E * near_slots);
  near_.plane = detail::runtime_view<NearPlane>(s, "progress_near_plane", E * near_slots);
  near_.center = detail::runtime_view<Vec3f>(s, "progress_near_center", E);
  near_.radius = detail::runtime_view<float>(s, "progress_near_radius", E);
  near_.count = detail::runtime_view<std::int32_t>(s, "progress_near_count", E);
  Kokkos::deep_copy(s, near_.count, -1);
  Kokkos::deep_copy(s, prev_, nan3());
  Kokkos::deep_copy(s, events_.checkpoint_passed, -1);
  Kokkos::deep_copy(s, events_.wrong_checkpoint, -1);
  Kokkos::deep_copy(s, events_.dist_to_next, nanf());
  s.fence();
}

template <class Space>
void ProgressTracker<Space>::bind(const Vec3View& position) {
  inputs_.bind({position});
}

template <class Space>
const ProgressEvents<Space>& ProgressTracker<Space>::update() {
  return update(ctx_);
}

template <class Space>
const ProgressEvents<Space>& ProgressTracker<Space>::update(const LaunchContext<Space>& ctx) {
  launch_update(ctx, inputs_.bound(ctx).position);
  return events_;
}

template <class Space>
const ProgressEvents<Space>& ProgressTracker<Space>::update(const Vec3View& position) {
  return update(ctx_, position);
}

template <class Space>
const ProgressEvents<Space>& ProgressTracker<Space>::update(const LaunchContext<Space>& ctx, const Vec3View& position) {
  launch_update(ctx, inputs_.per_call({position}).position);
  return events_;
}

template <class Space>
void ProgressTracker<Space>::launch_update(const LaunchContext<Space>& ctx, const Vec3View& position) {
  UpdateProgress<Space> k{set_, position, prev_, next_, laps_, progress_, events_, near_, set_.stride()};
  ctx.for_each("TrackGen::runtime::progress::update", set_.count.extent(0), k);
}

template <class Space>
void ProgressTracker<Space>::reset() {
  reset(ctx_);
}

template <class Space>
void ProgressTracker<Space>::reset(const LaunchContext<Space>& ctx, const IntView& mask) {
  detail::check_mask("trackgen::ProgressTracker::reset", mask, set_.count.extent(0));
  ctx.for_each("TrackGen::runtime::progress::reset", set_.count.extent(0),
               ResetProgress<Space>{mask, next_, laps_, progress_, near_.count, prev_});
}

#define TRACKGEN_INSTANTIATE_PROGRESS(S) \
  template struct ProgressEvents<S>;     \
  template class ProgressTracker<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_PROGRESS)

}  // namespace trackgen
