// ProgressTracker (see progress.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/progress.hpp>

namespace trackgen {
namespace {

template <class Space>
struct UpdateProgress {
  CheckpointSet<Space> set;
  DView<Vec3f, Space> position, prev;
  DView<std::int32_t, Space> next, laps, progress;
  ProgressEvents<Space> ev;
  int stride = 0;

  KOKKOS_FUNCTION void operator()(const int e) const {
    const Vec3f pos = position(e);
    const int n = kmath::clamp(set.count(e), 0, stride);
    int g = next(e);
    if (g < 0 || g >= n) g = 0;
    int passed = 0, wrong_way = 0, wrong_cp = -1;
    const Vec3f p0 = prev(e);
    if (n >= 1 && is_finite(p0)) {
      const std::size_t base = static_cast<std::size_t>(e) * stride;
      const auto pass = [&](int i) {
        const std::size_t s = base + i;
        return geom::plane_pass(p0, pos, set.tangent(s), set.left(s), set.right(s), set.up_half(s));
      };
      const int c = pass(g);
      passed = c > 0 ? 1 : 0;
      wrong_way = c < 0 ? 1 : 0;
      for (int i = 0; i < n && wrong_cp < 0; ++i) {
        if (i != g && pass(i) != 0) wrong_cp = i;
      }
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
    ev.dist_to_next(e) =
        n >= 1 ? length(set.position(static_cast<std::size_t>(e) * stride + next(e)) - pos) : nanf();
  }
};

template <class Space>
struct ResetProgress {
  DView<std::int32_t, Space> mask, next, laps, progress;
  DView<Vec3f, Space> prev;

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
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
  return {detail::clone_view(passed),   detail::clone_view(checkpoint_passed), detail::clone_view(next_checkpoint),
          detail::clone_view(laps),     detail::clone_view(progress),          detail::clone_view(wrong_way),
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
const ProgressEvents<Space>& ProgressTracker<Space>::update(const LaunchContext<Space>& ctx,
                                                            const Vec3View& position) {
  launch_update(ctx, inputs_.per_call({position}).position);
  return events_;
}

template <class Space>
void ProgressTracker<Space>::launch_update(const LaunchContext<Space>& ctx, const Vec3View& position) {
  UpdateProgress<Space> k{set_, position, prev_, next_, laps_, progress_, events_, set_.stride()};
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
               ResetProgress<Space>{mask, next_, laps_, progress_, prev_});
}

#define TRACKGEN_INSTANTIATE_PROGRESS(S) \
  template struct ProgressEvents<S>;     \
  template class ProgressTracker<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_PROGRESS)

}  // namespace trackgen
