// CheckpointSet and CheckpointSampler (see checkpoints.hpp).
#include <trackgen/runtime/checkpoints.hpp>
#include <trackgen/runtime/detail/arc.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/geometry.hpp>

#include <cmath>

namespace trackgen {
namespace {

/// One team per env (a masked-out env costs one check), one thread per
/// checkpoint slot: slot k placed at arc length k * step on the centerline (NaN
/// past the env's count); the env's count, step and truncation flag first.
template <class Space>
struct PlaceCheckpoints {
  Track<typename Space::memory_space> track;
  CheckpointSet<Space> set;
  DView<std::int32_t, Space> truncated, mask;
  DView<float, Space> step;
  float spacing = 0;
  int n_max = 0;
  int stride = 0;

  KOKKOS_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Space>::member_type& team) const {
    const int e = team.league_rank();
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int m = kmath::clamp(track.count(e), 0, n_max);
    detail::EvenSpacing sp;
    if (m >= 3) sp = detail::even_spacing(track.length(e), spacing, stride);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      set.count(e) = sp.n;
      step(e) = sp.step;
      truncated(e) = sp.truncated;
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, stride), [&](const int k) { place(e, k, m, sp); });
  }

  KOKKOS_FUNCTION void place(int e, int k, int m, const detail::EvenSpacing& sp) const {
    const std::size_t slot = static_cast<std::size_t>(e) * stride + k;
    if (k >= sp.n) {
      set.position(slot) = set.left(slot) = set.right(slot) = set.tangent(slot) = nan3();
      set.up_half(slot) = nanf();
      return;
    }
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const float s = static_cast<float>(k) * sp.step;
    const int j = detail::arc_index(track.arclen.data() + base, m, s);
    const float t = detail::arc_param(track.arclen.data() + base, m, track.length(e), j, s);
    const std::size_t a = base + j, b = base + (j + 1 < m ? j + 1 : 0);
    set.position(slot) = geom::lerp(track.center(a), track.center(b), t);
    set.left(slot) = geom::lerp(track.inner(a), track.inner(b), t);
    set.right(slot) = geom::lerp(track.outer(a), track.outer(b), t);
    set.tangent(slot) = geom::safe_norm3(track.center(b) - track.center(a));
    set.up_half(slot) = 1e30f;
  }
};

/// The sampler's capacity: `max_checkpoints` (checked) or the automatic rule.
template <class M>
int checkpoint_capacity(const Track<M>& track, float spacing, std::optional<int> max_checkpoints) {
  const std::string api = "trackgen::CheckpointSampler";
  const int n_max = detail::track_stride(api, track);
  detail::require(spacing > 0.0f && std::isfinite(spacing), api, "spacing", "finite and > 0", std::to_string(spacing));
  if (max_checkpoints) {
    detail::require(*max_checkpoints >= 3, api, "max_checkpoints", ">= 3", std::to_string(*max_checkpoints));
    return *max_checkpoints;
  }
  const auto h = track.to_host();
  const double s =
      detail::largest_point_spacing(api, h.length.data(), h.count.data(), h.valid.data(), track.num_envs());
  return detail::sampler_capacity(api, n_max, s, spacing);
}

}  // namespace

template <class Space>
CheckpointSet<Space>::CheckpointSet(const Space& space, int num_envs, int stride) {
  const std::string api = "trackgen::CheckpointSet";
  detail::require(num_envs >= 1, api, "num_envs", ">= 1", std::to_string(num_envs));
  detail::require(stride >= 1, api, "stride", ">= 1", std::to_string(stride));
  const std::size_t n = static_cast<std::size_t>(num_envs) * stride;
  position = detail::runtime_view<Vec3f>(space, "checkpoint_position", n);
  left = detail::runtime_view<Vec3f>(space, "checkpoint_left", n);
  right = detail::runtime_view<Vec3f>(space, "checkpoint_right", n);
  tangent = detail::runtime_view<Vec3f>(space, "checkpoint_tangent", n);
  up_half = detail::runtime_view<float>(space, "checkpoint_up_half", n);
  count = detail::runtime_view<std::int32_t>(space, "checkpoint_count", static_cast<std::size_t>(num_envs));
  for (const auto* v : {&position, &left, &right, &tangent}) Kokkos::deep_copy(space, *v, nan3());
  Kokkos::deep_copy(space, up_half, nanf());
  space.fence();
}

template <class Space>
CheckpointSet<Space> CheckpointSet<Space>::wrap(const Vec3View& position, const Vec3View& left, const Vec3View& right,
                                                const Vec3View& tangent, const FloatView& up_half,
                                                const IntView& count) {
  CheckpointSet s;
  s.position = position;
  s.left = left;
  s.right = right;
  s.tangent = tangent;
  s.up_half = up_half;
  s.count = count;
  s.check("trackgen::CheckpointSet::wrap");
  return s;
}

template <class Space>
void CheckpointSet<Space>::check(const std::string& api) const {
  detail::require(count.data() != nullptr && count.extent(0) >= 1, api, "count", "an allocated [E] View with E >= 1",
                  "extent " + std::to_string(count.extent(0)));
  const std::size_t E = count.extent(0);
  detail::require(position.data() != nullptr && position.extent(0) >= E && position.extent(0) % E == 0, api,
                  "position", "a View of extent E*M (M >= 1) for E = count.extent(0)",
                  "extent " + std::to_string(position.extent(0)) + " for E = " + std::to_string(E));
  const std::size_t n = position.extent(0);
  check_extent(api, "left", left, n, "E*M");
  check_extent(api, "right", right, n, "E*M");
  check_extent(api, "tangent", tangent, n, "E*M");
  check_extent(api, "up_half", up_half, n, "E*M");
}

template <class Space>
CheckpointSet<Space> CheckpointSet<Space>::clone() const {
  CheckpointSet c;
  c.position = detail::clone_view(position);
  c.left = detail::clone_view(left);
  c.right = detail::clone_view(right);
  c.tangent = detail::clone_view(tangent);
  c.up_half = detail::clone_view(up_half);
  c.count = detail::clone_view(count);
  return c;
}

template <class Space>
CheckpointSampler<Space>::CheckpointSampler(Space space, const track_type& track, float spacing,
                                            std::optional<int> max_checkpoints)
    : ctx_(std::move(space)),
      track_(track),
      spacing_(spacing),
      set_(ctx_.space(), track.num_envs(), checkpoint_capacity(track, spacing, max_checkpoints)),
      truncated_(detail::runtime_view<std::int32_t>(ctx_.space(), "checkpoint_truncated", track.num_envs())),
      step_(detail::runtime_view<float>(ctx_.space(), "checkpoint_step", track.num_envs())) {
  sample();
  ctx_.fence();
}

template <class Space>
const CheckpointSet<Space>& CheckpointSampler<Space>::sample() {
  return sample(ctx_);
}

template <class Space>
const CheckpointSet<Space>& CheckpointSampler<Space>::sample(const LaunchContext<Space>& ctx, const IntView& mask) {
  detail::check_mask("trackgen::CheckpointSampler::sample", mask, set_.count.extent(0));
  PlaceCheckpoints<Space> k{track_, set_, truncated_, mask, step_, spacing_, track_.n_max(), set_.stride()};
  ctx.for_each_team("TrackGen::runtime::checkpoints::place", set_.num_envs(), 0, k);
  return set_;
}

#define TRACKGEN_INSTANTIATE_CHECKPOINTS(S) \
  template struct CheckpointSet<S>;         \
  template class CheckpointSampler<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_CHECKPOINTS)

}  // namespace trackgen
