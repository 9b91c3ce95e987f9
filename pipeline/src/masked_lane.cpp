// The masked-regeneration lane of TrackGenerator (see masked_lane.hpp).
#include "masked_lane.hpp"

#include "pipeline_detail.hpp"

#include <algorithm>

namespace trackgen::detail {
namespace {

/// One team lists the masked envs in env order (an integer scan: the same on
/// every team size) and raises the flags of the rounds the lane needs, or of
/// the whole-batch fallback (the last flag) when the rounds cannot hold them.
template <class Space>
struct CompactMask {
  DView<std::int32_t, Space> mask, ids, count, flags;
  int num_envs = 0;
  int lanes = 0;
  int rounds = 0;

  KOKKOS_FUNCTION void operator()(const TeamMember<Space>& team) const {
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, num_envs), [&](const int e, int& rank, const bool final) {
      const int selected = mask(e) != 0 ? 1 : 0;
      if (final) {
        if (selected) ids(rank) = e;
        if (e == num_envs - 1) count(0) = rank + selected;
      }
      rank += selected;
    });
    team.team_barrier();
    const int n = count(0);
    const bool fits = n <= rounds * lanes;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rounds + 1), [&](const int r) {
      flags(r) = r < rounds ? (fits && n > r * lanes ? 1 : 0) : (fits ? 0 : 1);
    });
  }
};

/// Lane slot j of round `round` takes the effective seed of env ids[round*B + j]
/// (slots past the masked count repeat the round's first env).
template <class Space>
struct GatherSeeds {
  DView<std::int32_t, Space> ids, count, seed_buf, lane_seeds;
  int first = 0;  // round * B

  KOKKOS_FUNCTION void operator()(const int j) const {
    const int k = first + j < count(0) ? first + j : first;
    lane_seeds(j) = seed_buf(ids(k));
  }
};

/// Copies lane row j (every Track field, and the generator output and
/// constant-spacing chain of the pipeline scratch) into env ids[first + j], for
/// the lane slots the round covers. One thread per (slot, point) of the longer
/// of the two strides.
template <class Space>
struct ScatterRows {
  using M = typename Space::memory_space;
  DView<std::int32_t, Space> ids, count;
  Track<M> lane, out;
  DView<std::int32_t, Space> out_padded;  // the lane's rows are padded from their count on
  DView<Vec2f, Space> lane_cs, out_cs, lane_gen, out_gen;
  int first = 0;
  int n_max = 0;
  int num_points = 0;
  int stride = 0;  // max(n_max, num_points)

  KOKKOS_FUNCTION void operator()(const int t) const {
    const int j = t / stride, i = t % stride;
    if (first + j >= count(0)) return;
    const int e = ids(first + j);
    if (i < num_points) out_gen(std::size_t(e) * num_points + i) = lane_gen(std::size_t(j) * num_points + i);
    if (i >= n_max) return;
    const std::size_t src = static_cast<std::size_t>(j) * n_max + i;
    const std::size_t dst = static_cast<std::size_t>(e) * n_max + i;
    out_cs(dst) = lane_cs(src);
    Track<M>::for_each_field(lane, out, [&](const char*, const auto& from, const auto& to, auto shape) {
      if constexpr (decltype(shape)::value) {
        to(dst) = from(src);
      } else if (i == 0) {
        to(e) = from(j);
      }
    });
    if (i != 0) return;
    out_padded(e) = kmath::min(lane.count(j), n_max);
  }
};

TrackGenConfig lane_config(TrackGenConfig config, int lanes) {
  config.num_envs = lanes;
  return config;
}

}  // namespace

template <class Space>
MaskedLane<Space>::MaskedLane(const Space& space, const TrackGenConfig& config, const GeneratorSpec<Space>& spec,
                              int lanes)
    : config_(lane_config(config, lanes)),
      num_envs_(config.num_envs),
      lanes_(lanes),
      rounds_(std::min((config.num_envs + lanes - 1) / lanes, masked_lane_rounds<Space>)),
      ids_(Kokkos::view_alloc(space, label("pipeline", "lane_ids")), static_cast<std::size_t>(config.num_envs)),
      count_(Kokkos::view_alloc(space, label("pipeline", "lane_count")), 1),
      flags_(Kokkos::view_alloc(space, label("pipeline", "lane_round_flags")), static_cast<std::size_t>(rounds_) + 1),
      seeds_(Kokkos::view_alloc(space, label("pipeline", "lane_seeds")), static_cast<std::size_t>(lanes)),
      generator_(spec.make(space, config_)),
      buffers_(space, config_),
      track_(space, lanes, config.N_max) {
  for (std::size_t r = 0; r < flags_.extent(0); ++r) {
    round_flags_.push_back(Kokkos::subview(flags_, std::make_pair(r, r + 1)));
  }
  space.fence();
}

template <class Space>
void MaskedLane<Space>::compact(const LaunchContext<Space>& ctx, const IntView& mask) const {
  CompactMask<Space> k{mask, ids_, count_, flags_, num_envs_, lanes_, rounds_};
  ctx.for_each_team("TrackGen::pipeline::lane::compact", 1, 0, k);
}

template <class Space>
void MaskedLane<Space>::run_round(const LaunchContext<Space>& ctx, int r, const IntView& seed_buf, track_type& track,
                                  const IntView& padded, PipelineBuffers<Space>& buffers) {
  const int first = r * lanes_;
  ctx.for_each("TrackGen::pipeline::lane::gather", static_cast<std::size_t>(lanes_),
               GatherSeeds<Space>{ids_, count_, seed_buf, seeds_, first});
  generator_->generate(ctx, seeds_, buffers_.gen_centerline, buffers_.gen_valid);
  run_pipeline(ctx, config_, buffers_, seeds_, track_);
  const int stride = std::max(config_.N_max, config_.num_points);
  ScatterRows<Space> s{ids_,
                       count_,
                       track_,
                       track,
                       padded,
                       buffers_.cs_center,
                       buffers.cs_center,
                       buffers_.gen_centerline,
                       buffers.gen_centerline,
                       first,
                       config_.N_max,
                       config_.num_points,
                       stride};
  ctx.for_each("TrackGen::pipeline::lane::scatter", static_cast<std::size_t>(lanes_) * stride, s);
}

template <class Space>
void MaskedLane<Space>::round_chain(const LaunchContext<Space>& ctx, int r, const IntView& seed_buf, track_type& track,
                                    const IntView& padded, PipelineBuffers<Space>& buffers) {
  // Round r + 1 is needed only if round r is (count > (r + 1) * B implies
  // count > r * B), so the chain is a no-op whenever round r's flag is 0.
  ctx.skip_unless(round_flags_[static_cast<std::size_t>(r)], [&](const LaunchContext<Space>& c) {
    run_round(c, r, seed_buf, track, padded, buffers);
    if (r + 1 < rounds_) round_chain(c, r + 1, seed_buf, track, padded, buffers);
  });
}

template <class Space>
void MaskedLane<Space>::regenerate(const LaunchContext<Space>& ctx, const IntView& seed_buf, track_type& track,
                                   const IntView& padded, PipelineBuffers<Space>& buffers,
                                   const std::function<void(const LaunchContext<Space>&)>& whole_batch) {
  if constexpr (host_accessible_v<Space>) {
    round_chain(ctx, 0, seed_buf, track, padded, buffers);  // up to 1024 rounds: stop at the first one not needed
  } else {
    for (int r = 0; r < rounds_; ++r) {  // 8 rounds: side by side, each its own conditional node
      ctx.skip_unless(round_flags_[static_cast<std::size_t>(r)],
                      [&](const LaunchContext<Space>& c) { run_round(c, r, seed_buf, track, padded, buffers); });
    }
  }
  ctx.skip_unless(round_flags_[static_cast<std::size_t>(rounds_)], whole_batch);
}

template <class Space>
std::size_t MaskedLane<Space>::device_bytes() const {
  return view_bytes(ids_) + view_bytes(count_) + view_bytes(flags_) + view_bytes(seeds_) + buffers_.device_bytes() +
         (generator_ ? generator_->device_bytes() : 0) + track_.bytes();
}

#define TRACKGEN_INSTANTIATE_MASKED_LANE(S) template class MaskedLane<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_MASKED_LANE)

}  // namespace trackgen::detail
