// HeightFieldBaker (see heightfield.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/detail/grid_bounds.hpp>
#include <trackgen/runtime/detail/polyline.hpp>
#include <trackgen/runtime/heightfield.hpp>

namespace trackgen {
namespace {

/// One team per env: chunk boxes of the centerline, then one texel per thread.
template <class Space>
struct BakeHeight {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  Track<typename Space::memory_space> track;
  HeightField<Space> field;
  DView<Vec2f, Space> chunks;
  DView<std::int32_t, Space> mask;

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int e = team.league_rank();
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max(), res = field.resolution;
    const int m = kmath::clamp(track.count(e), 0, n_max);
    const int texels = res * res;
    float* const h = field.height.data() + static_cast<std::size_t>(e) * texels;
    if (m < 3 || track.valid(e) == 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, texels), [&](const int t) { h[t] = nanf(); });
      return;
    }
    const Vec3f* const c = track.center.data() + static_cast<std::size_t>(e) * n_max;
    Vec2f* const boxes = chunks.data() + static_cast<std::size_t>(e) * 2 * detail::chunk_boxes(n_max);
    Kokkos::single(Kokkos::PerTeam(team), [&] { detail::build_chunk_boxes(c, m, boxes); });
    team.team_barrier();
    const Vec2f lo = field.lo(e), hi = field.hi(e);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, texels), [&](const int t) {
      float best = 3.0e38f, u = 0.0f;
      int seg = 0;
      detail::nearest_on_polyline(c, m, boxes, detail::texel_center(t, res, lo, hi), best, seg, u);
      h[t] = c[seg].z + u * (c[seg + 1 < m ? seg + 1 : 0].z - c[seg].z);
    });
  }
};

template <class M>
const GridOptions& checked_grid(const Track<M>& track, const GridOptions& grid) {
  const std::string api = "trackgen::HeightFieldBaker";
  detail::track_stride(api, track);
  grid.validate(api);
  return grid;
}

}  // namespace

template <class Space>
HeightField<Space> HeightField<Space>::clone() const {
  return {detail::clone_view(height), detail::clone_view(lo), detail::clone_view(hi), resolution};
}

template <class Space>
HeightFieldBaker<Space>::HeightFieldBaker(Space space, const track_type& track, const GridOptions& grid)
    : ctx_(std::move(space)), track_(track), grid_(checked_grid(track, grid)) {
  const auto& s = ctx_.space();
  const std::size_t E = static_cast<std::size_t>(track.num_envs()), R = static_cast<std::size_t>(grid_.resolution);
  field_.resolution = grid_.resolution;
  field_.height = detail::runtime_view<float>(s, "height", E * R * R);
  field_.lo = detail::runtime_view<Vec2f>(s, "height_lo", E);
  field_.hi = detail::runtime_view<Vec2f>(s, "height_hi", E);
  chunks_ = detail::runtime_view<Vec2f>(s, "height_chunks", E * 2 * detail::chunk_boxes(track.n_max()));
  bake();
  s.fence();
}

template <class Space>
const HeightField<Space>& HeightFieldBaker<Space>::bake() {
  return bake(ctx_);
}

template <class Space>
const HeightField<Space>& HeightFieldBaker<Space>::bake(const LaunchContext<Space>& ctx, const IntView& mask) {
  detail::check_mask("trackgen::HeightFieldBaker::bake", mask, field_.lo.extent(0));
  ctx.for_each("TrackGen::runtime::heightfield::bounds", field_.lo.extent(0),
               detail::GridBounds<Space>{track_, field_.lo, field_.hi, mask, grid_.padding.value_or(-1.0f)});
  ctx.for_each_team("TrackGen::runtime::heightfield::bake", static_cast<int>(field_.lo.extent(0)), 0,
                    BakeHeight<Space>{track_, field_, chunks_, mask});
  return field_;
}

#define TRACKGEN_INSTANTIATE_HEIGHTFIELD(S) \
  template struct HeightField<S>;           \
  template class HeightFieldBaker<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_HEIGHTFIELD)

}  // namespace trackgen
