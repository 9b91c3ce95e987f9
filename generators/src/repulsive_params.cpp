// The repulsive generator's host side: its parameters, the iteration schedule
// and the Sobolev rows, all resolved at construction (docs/algorithms.md#repulsive).
#include <trackgen/generators/detail/repulsive.hpp>

#include <algorithm>
#include <cmath>

namespace trackgen::detail {
namespace {

/// 2 * e when that is an integer with |2e| <= 16, else no_twice (no fast path).
constexpr int no_twice = 1 << 20;
int twice_of(double e) {
  const double t = 2.0 * e;
  const double r = std::round(t);
  return (std::fabs(t - r) < 1e-12 && std::fabs(r) <= 16.0) ? static_cast<int>(r) : no_twice;
}

}  // namespace

RepulsiveParams RepulsiveParams::from_config(const TrackGenConfig& c) {
  auto d = [](float v) { return as_python_double(v); };
  RepulsiveParams p;
  p.num_envs = c.num_envs;
  p.num_points = c.num_points;
  p.stages = c.repulsive_stages;
  p.scale = c.scale;
  const double p_ref = 4.9029 * d(c.scale);
  const double r_dom = d(c.repulsive_domain_frac) * p_ref;
  const double r_init = r_dom / d(c.repulsive_domain_init_ratio);
  p.p_ref = static_cast<float>(p_ref);
  p.r_dom = static_cast<float>(r_dom);
  p.r_init = static_cast<float>(r_init);
  p.growth = c.repulsive_ratchet_rate;
  p.grow_lo = c.repulsive_grow_mult_min;
  p.grow_hi = c.repulsive_grow_mult_max;
  p.rfrac_lo = c.repulsive_obstacle_radius_min_frac;
  p.rfrac_hi = c.repulsive_obstacle_radius_max_frac;
  p.count_min = c.repulsive_obstacle_count_min;
  p.count_max = c.repulsive_obstacle_count_max;
  const double lg = std::log(1.0 + d(c.repulsive_ratchet_rate));
  p.n_ratchet = static_cast<int>(std::ceil(std::log(d(c.repulsive_grow_mult_max)) / lg));
  p.n_iters = static_cast<int>(std::ceil(1.6 * p.n_ratchet)) + c.repulsive_settle_iters;
  p.stage_start.assign(p.stages.size(), 0);
  for (std::size_t i = 1; i < p.stages.size(); ++i) {
    const int s = static_cast<int>(std::ceil(std::log(std::pow(2.0, static_cast<double>(i))) / lg));
    p.stage_start[i] = std::max(std::min(s, p.n_ratchet), p.stage_start[i - 1]);
  }
  p.stage_at.assign(static_cast<std::size_t>(p.n_iters), 0);
  for (int it = 0; it < p.n_iters; ++it) {
    int s = 0;
    while (s + 1 < static_cast<int>(p.stages.size()) && p.stage_start[s + 1] <= it) ++s;
    p.stage_at[it] = s;
  }
  p.resample_every = c.repulsive_resample_every;
  p.stall_window = c.repulsive_stall_window;
  p.stall_tol = c.repulsive_stall_area_tol;
  // The first check follows the first stall test (every check is preceded by one).
  p.first_check = p.n_iters;
  for (int it = 0; it < p.n_iters; ++it) {
    if (p.stall_at(it)) {
      p.first_check = it + 1;
      break;
    }
  }
  const double alpha = d(c.repulsive_alpha), beta = d(c.repulsive_beta);
  p.sobolev_s = static_cast<float>((beta - 1.0) / (2.0 * alpha));
  RepulsiveKernelParams& kp = p.kp;
  kp.alpha = c.repulsive_alpha;
  kp.beta = c.repulsive_beta;
  kp.eps = 1e-4f;
  const double pobs = -(beta - alpha) / 2.0;
  kp.p_obs = static_cast<float>(pobs);
  kp.w_len = c.repulsive_w_len;
  kp.tau = c.repulsive_tau;
  kp.alpha_twice = twice_of(alpha);
  kp.alpham1_twice = twice_of(alpha - 1.0);
  kp.half_beta_twice = twice_of(beta / 2.0);
  kp.pm1_twice = twice_of(pobs - 1.0);
  kp.p_twice = twice_of(pobs);
  // The fast path needs alpha integer (sign-free |w|^alpha = |w|^(alpha-1) |w|)
  // and every other exponent a half-integer.
  kp.fast = kp.alpha_twice != no_twice && kp.alpha_twice % 2 == 0 && kp.alpham1_twice != no_twice &&
            kp.half_beta_twice != no_twice && kp.pm1_twice != no_twice && kp.p_twice != no_twice;
  kp.deactivate_obstacles = c.repulsive_deactivate_obstacles;
  kp.num_obs = repulsive_wall_points + repulsive_disc_points * p.count_max;
  return p;
}

bool RepulsiveParams::stall_at(int it) const {
  const int last = static_cast<int>(stages.size()) - 1;
  return it >= 0 && it < n_iters && stage_at[it] == last && (it + 1) % stall_window == 0;
}

double RepulsiveParams::expected_perimeter() const {
  return geom::two_pi_d * static_cast<double>(r_init) * static_cast<double>(grow_hi);
}

std::vector<float> sobolev_row(int n, double s) {
  // irfft of the half spectrum H_k, k = 0..n/2 (n even): x_j = (1/n) [H_0 +
  // (-1)^j H_{n/2} + 2 sum_{0<k<n/2} H_k cos(2 pi k j / n)].
  std::vector<double> H(static_cast<std::size_t>(n / 2 + 1));
  for (int k = 0; k <= n / 2; ++k) {
    const double lam = 2.0 - 2.0 * std::cos(2.0 * geom::pi_d * k / n);
    H[k] = 1.0 / (std::pow(std::max(lam, 0.0), s) + 1e-3);
  }
  std::vector<float> h(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    double acc = H[0] + ((j % 2 == 0) ? H[n / 2] : -H[n / 2]);
    for (int k = 1; k < n / 2; ++k) {
      // cos(2 pi k j / n) with the argument reduced exactly: (k*j) mod n.
      acc += 2.0 * H[k] * std::cos(2.0 * geom::pi_d * static_cast<double>((static_cast<long>(k) * j) % n) / n);
    }
    h[j] = static_cast<float>(acc / n);
  }
  return h;
}

}  // namespace trackgen::detail
