// The repulsive generator's energy gradient on the device: the analytic
// per-vertex gather of docs/algorithms.md#repulsive (five mechanisms), one team
// per env, no atomics.
#include <trackgen/generators/detail/repulsive.hpp>

namespace trackgen::detail {

template <class Space>
RepulsiveGradScratch<Space>::RepulsiveGradScratch(const Space& space, const std::string& gen, int num_envs,
                                                  int stride_)
    : stride(stride_) {
  allocate_plan(*this, [&](auto&& f) { plan(std::size_t(num_envs), std::size_t(stride_), f); }, space, gen);
}

template <class Space>
std::size_t RepulsiveGradScratch<Space>::bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { plan(perimeter.extent(0), std::size_t(stride), f); });
}

template <class Space>
std::size_t RepulsiveGradScratch<Space>::bytes_for(std::size_t num_envs, std::size_t stride) {
  return plan_bytes<RepulsiveGradScratch>([&](auto&& f) { plan(num_envs, stride, f); });
}

template <class Space>
void repulsive_gradient(const LaunchContext<Space>& ctx, const std::string& prefix, const RepulsiveKernelParams& kp,
                        int n, const RepulsiveState<Space>& state, const RepulsiveGradScratch<Space>& scratch,
                        const DView<Vec2f, Space>& grad, const DView<Vec2f, Space>& lg) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const auto x = state.curve, obs = state.obstacles;
  const auto mass = state.obstacle_mass, target_length = state.target_length, initial_length = state.initial_length;
  const auto reached = state.reached, live = state.live;
  const std::size_t S = static_cast<std::size_t>(scratch.stride);
  const std::size_t M = static_cast<std::size_t>(kp.num_obs);
  const auto T = scratch.T, bt = scratch.b, diff = scratch.diff;
  const auto ell = scratch.ell, W = scratch.W, perim = scratch.perimeter, c_len = scratch.c_len;
  ctx.for_each_team(
      prefix + "gradient", static_cast<int>(live.extent(0)), 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = team.league_rank();
        if (live(e) == 0) return;
        const Vec2f* xe = x.data() + e * S;
        Vec2f* Te = T.data() + e * S;
        float* le = ell.data() + e * S;
        // Tangents and dual weights.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
          const Vec2f xm = xe[i == 0 ? n - 1 : i - 1], xc = xe[i], xp = xe[i + 1 == n ? 0 : i + 1];
          Te[i] = geom::safe_norm2(xp - xm);
          le[i] = 0.5f * (length(xp - xc) + length(xc - xm));
        });
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          double per = 0.0;
          for (int i = 0; i < n; ++i) per += static_cast<double>(length(xe[i + 1 == n ? 0 : i + 1] - xe[i]));
          const float pf = static_cast<float>(per);
          perim(e) = pf;
          c_len(e) = 2.0f * kp.w_len * (pf - target_length(e)) / (initial_length(e) * initial_length(e));
        });
        team.team_barrier();
        // Pair sums per vertex v, partners j = v+3 .. v+n-3 (circ > 2) in order:
        // W_v, the tangent term b_v and the diff mechanism.
        Vec2f* be = bt.data() + e * S;
        Vec2f* de = diff.data() + e * S;
        float* We = W.data() + e * S;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int v) {
          const Vec2f xv = xe[v], Tv = Te[v];
          float wsum = 0.0f;
          Vec2f A{0.0f, 0.0f}, dsum{0.0f, 0.0f};
          for (int k = 3; k <= n - 3; ++k) {
            const int j = v + k < n ? v + k : v + k - n;
            const Vec2f d = xe[j] - xv;
            const float lj = le[j];
            const TpPair own = tp_pair(kp, d, Tv);      // P(v, j)
            const TpPair oth = tp_pair(kp, -d, Te[j]);  // P(j, v), d' = x_v - x_j
            wsum += (own.P + oth.P) * lj;
            A += (own.gwd * lj) * Vec2f{-d.y, d.x};
            dsum += lj * (oth.dPdd - own.dPdd);
          }
          const float lv = le[v];
          We[v] = wsum;
          de[v] = lv * dsum;
          A = lv * A;
          const Vec2f u = xe[v + 1 == n ? 0 : v + 1] - xe[v == 0 ? n - 1 : v - 1];
          be[v] = (A - Tv * dot(Tv, A)) / kmath::max(length(u), 1e-8f);
        });
        team.team_barrier();
        // Gather: diff + weight + tangent + obstacle + length.
        const Vec2f* oe = obs.data() + e * M;
        const float* me = mass.data() + e * M;
        const bool re = reached(e) != 0;
        const float c = c_len(e);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int v) {
          const int vm = v == 0 ? n - 1 : v - 1, vp = v + 1 == n ? 0 : v + 1;
          const Vec2f em = geom::safe_norm2(xe[v] - xe[vm]), ep = geom::safe_norm2(xe[vp] - xe[v]);
          Vec2f g = de[v];
          g += (0.5f * (We[v] + We[vm])) * em - (0.5f * (We[v] + We[vp])) * ep;
          g += be[vm] - be[vp];
          const Vec2f xv = xe[v];
          for (std::size_t m = 0; m < M; ++m) {
            if (!obstacle_on(kp, static_cast<int>(m), me[m], re)) continue;
            const Vec2f r = xv - oe[m];
            const float s = length_sq(r) + 1e-8f;
            g += (me[m] * kp.p_obs * rpow(kp, s, kp.p_obs - 1.0f, kp.pm1_twice) * 2.0f) * r;
          }
          g += c * (em - ep);
          grad(e * S + v) = g;
          lg(e * S + v) = em - ep;
        });
      });
}

#define TRACKGEN_INSTANTIATE_REPULSIVE_GRADIENT(S)                                                                    \
  template struct RepulsiveGradScratch<S>;                                                                            \
  template void repulsive_gradient<S>(const LaunchContext<S>&, const std::string&, const RepulsiveKernelParams&, int, \
                                      const RepulsiveState<S>&, const RepulsiveGradScratch<S>&,                       \
                                      const DView<Vec2f, S>&, const DView<Vec2f, S>&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_REPULSIVE_GRADIENT)

}  // namespace trackgen::detail
