// Resamplers (docs/algorithms.md#uniform-resample, #constant-spacing).
//
// Both are one team kernel per env: one thread of the team builds the env's
// cumulative arc-length table (float64 accumulation in point order, stored as
// float32, so the table is scheduling-independent), a barrier, then the team's
// threads look up one output slot each (binary search + lerp); on a host space,
// where the team is one thread, the slots go in order and each walks up the
// table from the previous one's segment (the same segments).
#include "pipeline_detail.hpp"

#include <trackgen/core/errors.hpp>

#include <string>

namespace trackgen {
namespace {

/// The host lookups of a resample: out[k] = arc_point(p, s, m, target(k)) for
/// k < cnt and NaN for the other slots up to `slots`, the segments walked
/// (geom::ArcWalk: the same segments as the search).
template <class Target>
KOKKOS_INLINE_FUNCTION void host_lookup(const Vec2f* p, const float* s, int m, int cnt, int slots, Vec2f* out,
                                        const Target& target) {
  geom::ArcWalk walk(s, m);
  for (int k = 0; k < cnt; ++k) {
    const float t = target(k);
    out[k] = geom::arc_point_on(p, s, m, t, walk.segment(t));
  }
  for (int k = cnt; k < slots; ++k) out[k] = nan2();
}

template <class Space>
struct ConstantSpacingKernel {
  DView<Vec2f, Space> src;  // [E*N]
  DView<Vec2f, Space> dst;  // [E*N_max]
  DView<float, Space> s;    // [E*s_stride]
  DView<int, Space> count;
  DView<int, Space> truncated;
  int n = 0;
  int n_max = 0;
  int s_stride = 0;
  float spacing = 0;

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const Vec2f* p = src.data() + static_cast<std::size_t>(e) * n;
    float* se = s.data() + static_cast<std::size_t>(e) * s_stride;
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      double acc = 0.0;
      se[0] = 0.0f;
      for (int j = 0; j < n; ++j) {
        acc += static_cast<double>(length(p[j + 1 < n ? j + 1 : 0] - p[j]));
        se[j + 1] = static_cast<float>(acc);
      }
      const float total = se[n];
      int cnt = 0;
      int trunc = 0;
      if (total > 0.0f) {  // false for NaN
        const float q = kmath::floor(total / spacing);
        long long k = q < 2.0e9f ? static_cast<long long>(q) + 1 : 2000000001LL;
        while (k > 1 && static_cast<float>(k - 1) * spacing >= total) --k;
        trunc = k > n_max ? 1 : 0;
        cnt = static_cast<int>(kmath::min<long long>(kmath::max<long long>(k, 1), n_max));
      }
      count(e) = cnt;
      truncated(e) = trunc;
    });
    team.team_barrier();
    const int cnt = count(e);
    Vec2f* out = dst.data() + static_cast<std::size_t>(e) * n_max;
    if constexpr (detail::is_host_space<Space>()) {  // a team is one thread: the slots in order
      host_lookup(p, se, n, cnt, n_max, out, [&](const int k) { return static_cast<float>(k) * spacing; });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int k) {
        out[k] = k < cnt ? geom::arc_point(p, se, n, static_cast<float>(k) * spacing) : nan2();
      });
    }
  }
};

template <class Space>
struct UniformKernel {
  DView<Vec2f, Space> src;  // [E*n_max]
  DView<Vec2f, Space> dst;  // [E*n_max]
  DView<float, Space> s;    // [E*(n_max+1)]
  DView<int, Space> count;
  int n_max = 0;

  KOKKOS_FUNCTION void operator()(const detail::TeamMember<Space>& team) const {
    const int e = team.league_rank();
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const Vec2f* p = src.data() + base;
    float* se = s.data() + static_cast<std::size_t>(e) * (n_max + 1);
    const int cnt = kmath::min(count(e), n_max);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      double acc = 0.0;
      se[0] = 0.0f;
      for (int j = 0; j < cnt; ++j) {
        acc += static_cast<double>(length(p[j + 1 < cnt ? j + 1 : 0] - p[j]));
        se[j + 1] = static_cast<float>(acc);
      }
    });
    team.team_barrier();
    const float total = se[cnt > 0 ? cnt : 0];
    Vec2f* out = dst.data() + base;
    if constexpr (detail::is_host_space<Space>()) {  // a team is one thread: the slots in order
      host_lookup(p, se, cnt, cnt, n_max, out,
                  [&](const int k) { return static_cast<float>(k) * total / static_cast<float>(cnt); });
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int k) {
        out[k] = k < cnt ? geom::arc_point(p, se, cnt, static_cast<float>(k) * total / static_cast<float>(cnt)) : nan2();
      });
    }
  }
};

}  // namespace

template <class Space>
void resample_constant_spacing(const LaunchContext<Space>& ctx, const TrackGenConfig& config,
                               PipelineBuffers<Space>& buffers, Track<typename Space::memory_space>& track) {
  const auto region = ctx.region("TrackGen::pipeline::resample_constant_spacing");
  detail::check_inputs(ctx.space(), buffers, config, track, "trackgen::resample_constant_spacing");
  ConstantSpacingKernel<Space> k;
  k.src = buffers.gen_centerline;
  k.dst = buffers.cs_center;
  k.s = buffers.arc_s;
  k.count = track.count;
  k.truncated = track.truncated;
  k.n = buffers.num_points();
  k.n_max = buffers.n_max();
  k.s_stride = static_cast<int>(buffers.arc_s.extent(0) / static_cast<std::size_t>(buffers.num_envs()));
  k.spacing = pipeline_constants(config).spacing;
  ctx.for_each_team("TrackGen::pipeline::resample::constant_spacing", buffers.num_envs(),
                    detail::env_team_size<Space>(), k);
}

template <class Space>
void resample_uniform(const LaunchContext<Space>& ctx, const DView<Vec2f, Space>& in,
                      const DView<std::int32_t, Space>& count, const DView<Vec2f, Space>& out,
                      const DView<float, Space>& arc_s, int n_max, const char* kernel_label) {
  const int num_envs = static_cast<int>(count.extent(0));
  if (n_max < 1 || in.extent(0) != static_cast<std::size_t>(num_envs) * n_max || out.extent(0) != in.extent(0) ||
      arc_s.extent(0) < static_cast<std::size_t>(num_envs) * (n_max + 1)) {
    throw ConfigError("trackgen::resample_uniform: expected in/out of extent count.extent(0) * n_max = " +
                      std::to_string(static_cast<std::size_t>(num_envs) * n_max) + " and arc_s of at least " +
                      std::to_string(static_cast<std::size_t>(num_envs) * (n_max + 1)) + ", got in " +
                      std::to_string(in.extent(0)) + ", out " + std::to_string(out.extent(0)) + ", arc_s " +
                      std::to_string(arc_s.extent(0)));
  }
  UniformKernel<Space> k;
  k.src = in;
  k.dst = out;
  k.s = arc_s;
  k.count = count;
  k.n_max = n_max;
  ctx.for_each_team(kernel_label, num_envs, detail::env_team_size<Space>(), k);
}

#define TRACKGEN_INSTANTIATE_RESAMPLE(S)                                                                          \
  template void resample_constant_spacing<S>(const LaunchContext<S>&, const TrackGenConfig&, PipelineBuffers<S>&, \
                                             Track<typename S::memory_space>&);                                   \
  template void resample_uniform<S>(const LaunchContext<S>&, const DView<Vec2f, S>&, const DView<std::int32_t, S>&, \
                                    const DView<Vec2f, S>&, const DView<float, S>&, int, \
                                    const char*);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_RESAMPLE)

}  // namespace trackgen
