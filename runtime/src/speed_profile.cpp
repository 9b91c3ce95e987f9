// Curvature and speed profile of a Track (see localizer.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/localizer.hpp>

namespace trackgen {
namespace {

/// One team per env (a masked-out env costs one check), one thread per point
/// slot: the windowed mean of the raw turn curvature.
template <class Space>
struct Curvature {
  Track<typename Space::memory_space> track;
  DView<float, Space> out;
  DView<std::int32_t, Space> mask;
  int window = 0;

  /// Raw curvature at point j of the env's closed centerline c[0..m).
  KOKKOS_FUNCTION static float raw(const Vec3f* c, int m, int j) {
    const Vec3f v1 = c[j] - c[(j + m - 1) % m], v2 = c[(j + 1) % m] - c[j];
    const float turn = kmath::atan2(v1.x * v2.y - v1.y * v2.x, dot(v1, v2));
    return turn / kmath::max(0.5f * (length(v1) + length(v2)), 1e-9f);
  }

  KOKKOS_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Space>::member_type& team) const {
    const int e = team.league_rank(), n_max = track.n_max();
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int m = kmath::clamp(track.count(e), 0, n_max);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    const Vec3f* const c = track.center.data() + base;
    const int span = kmath::min(2 * window + 1, m);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_max), [&](const int i) {
      if (m < 3 || i >= m) {
        out(base + i) = nanf();
        return;
      }
      const int first = span == 2 * window + 1 ? i - window : i - (m - 1) / 2;
      float sum = 0.0f;
      for (int k = 0; k < span; ++k) sum += raw(c, m, ((first + k) % m + m) % m);
      out(base + i) = sum / static_cast<float>(span);
    });
  }
};

/// One thread per env: the speed bound of every point, then two forward
/// (acceleration) and backward (braking) passes around the loop.
template <class Space>
struct SpeedProfile {
  Track<typename Space::memory_space> track;
  DView<float, Space> kappa, out;
  DView<std::int32_t, Space> mask;
  SpeedLimits limits;

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    float* const v = out.data() + base;
    const float* const arc = track.arclen.data() + base;
    for (int i = (m < 3 ? 0 : m); i < n_max; ++i) v[i] = nanf();
    if (m < 3) return;
    for (int i = 0; i < m; ++i) {
      const float k = kmath::fabs(kappa(base + i));
      v[i] = k > 1e-9f ? kmath::min(kmath::sqrt(limits.a_lat_max / k), limits.v_cap) : limits.v_cap;
    }
    const auto ds = [&](int i) { return (i + 1 < m ? arc[i + 1] : track.length(e)) - arc[i]; };
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < m; ++i) {
        const int j = i + 1 < m ? i + 1 : 0;
        v[j] = kmath::min(v[j], kmath::sqrt(v[i] * v[i] + 2.0f * limits.a_accel * ds(i)));
      }
      for (int i = m - 1; i >= 0; --i) {
        const int j = i + 1 < m ? i + 1 : 0;
        v[i] = kmath::min(v[i], kmath::sqrt(v[j] * v[j] + 2.0f * limits.a_brake * ds(i)));
      }
    }
  }
};

/// ConfigError unless `v` is an [E*N_max] View for `track`.
template <class M, class V>
void check_points(const std::string& api, const char* name, const Track<M>& track, const V& v) {
  const int n_max = detail::track_stride(api, track);
  check_extent(api, name, v, static_cast<std::size_t>(track.num_envs()) * n_max, "E*N_max");
}

}  // namespace

template <class Space>
void compute_curvature(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                       const DView<float, Space>& out, int window, const DView<std::int32_t, Space>& mask) {
  const std::string api = "trackgen::compute_curvature";
  check_points(api, "out", track, out);
  detail::require(window >= 0, api, "window", ">= 0", std::to_string(window));
  detail::check_mask(api, mask, static_cast<std::size_t>(track.num_envs()));
  ctx.for_each_team("TrackGen::runtime::curvature", track.num_envs(), 0, Curvature<Space>{track, out, mask, window});
}

template <class Space>
DView<float, Space> curvature(const Space& space, const Track<typename Space::memory_space>& track, int window) {
  check_points("trackgen::curvature", "track", track, track.arclen);
  detail::require(window >= 0, "trackgen::curvature", "window", ">= 0", std::to_string(window));
  auto out = detail::runtime_view<float>(space, "curvature", track.arclen.extent(0));
  compute_curvature(LaunchContext<Space>(space), track, out, window);
  space.fence();
  return out;
}

template <class Space>
void compute_speed_profile(const LaunchContext<Space>& ctx, const Track<typename Space::memory_space>& track,
                           const SpeedLimits& limits, const DView<float, Space>& kappa, const DView<float, Space>& out,
                           const DView<std::int32_t, Space>& mask) {
  const std::string api = "trackgen::compute_speed_profile";
  limits.validate(api);
  check_points(api, "kappa", track, kappa);
  check_points(api, "out", track, out);
  detail::check_mask(api, mask, static_cast<std::size_t>(track.num_envs()));
  ctx.for_each("TrackGen::runtime::speed_profile", static_cast<std::size_t>(track.num_envs()),
               SpeedProfile<Space>{track, kappa, out, mask, limits});
}

template <class Space>
DView<float, Space> speed_profile(const Space& space, const Track<typename Space::memory_space>& track,
                                  const SpeedLimits& limits, int window) {
  limits.validate("trackgen::speed_profile");
  detail::require(window >= 0, "trackgen::speed_profile", "window", ">= 0", std::to_string(window));
  const auto kappa = curvature(space, track, window);
  auto out = detail::runtime_view<float>(space, "speed_profile", kappa.extent(0));
  compute_speed_profile(LaunchContext<Space>(space), track, limits, kappa, out);
  space.fence();
  return out;
}

#define TRACKGEN_INSTANTIATE_SPEED(S)                                                                             \
  template void compute_curvature<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&,           \
                                     const DView<float, S>&, int, const DView<std::int32_t, S>&);               \
  template DView<float, S> curvature<S>(const S&, const Track<typename S::memory_space>&, int);                 \
  template void compute_speed_profile<S>(const LaunchContext<S>&, const Track<typename S::memory_space>&,       \
                                         const SpeedLimits&, const DView<float, S>&, const DView<float, S>&,    \
                                         const DView<std::int32_t, S>&);                                        \
  template DView<float, S> speed_profile<S>(const S&, const Track<typename S::memory_space>&, const SpeedLimits&, \
                                            int);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_SPEED)

}  // namespace trackgen
