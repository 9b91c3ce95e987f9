// The test oracle of the repulsive generator: its energy in double precision on
// the host (docs/algorithms.md#repulsive, "Energy"), which the analytic device
// gradient is checked against by finite differences.
#pragma once

#include <trackgen/generators/detail/repulsive.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace trackgen::test {

/// Per-env state of the energy: obstacles [num_obs] (points and masses), the
/// target and initial lengths, and whether the target length is reached.
struct RepulsiveEnvState {
  std::vector<Vec2f> obs;
  std::vector<float> mass;
  float target_length = 0.0f;
  float initial_length = 1.0f;
  bool reached = false;
};

/// E_TP + E_obs + E_len of the closed curve (x[2i], x[2i+1]), i < n, in double.
inline double repulsive_energy(const detail::RepulsiveKernelParams& kp, const std::vector<double>& x, int n,
                               const RepulsiveEnvState& env) {
  auto X = [&](int i) {
    i = ((i % n) + n) % n;
    return std::pair<double, double>{x[2 * i], x[2 * i + 1]};
  };
  std::vector<double> Tx(n), Ty(n), ell(n);
  double per = 0.0;
  for (int i = 0; i < n; ++i) {
    const auto [mx, my] = X(i - 1);
    const auto [cx, cy] = X(i);
    const auto [px, py] = X(i + 1);
    const double ux = px - mx, uy = py - my;
    const double ul = std::max(std::hypot(ux, uy), 1e-8);
    Tx[i] = ux / ul;
    Ty[i] = uy / ul;
    ell[i] = 0.5 * (std::hypot(px - cx, py - cy) + std::hypot(cx - mx, cy - my));
    per += std::hypot(px - cx, py - cy);
  }
  const double a = kp.alpha, b = kp.beta, eps = kp.eps;
  double e_tp = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int dd = std::abs(i - j), circ = std::min(dd, n - dd);
      if (circ <= 2) continue;
      const double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
      const double w = dx * Ty[i] - dy * Tx[i];
      const double P = std::pow(std::fabs(w) + eps, a) / std::pow(dx * dx + dy * dy + eps * eps, b / 2.0);
      e_tp += P * ell[i] * ell[j];
    }
  }
  double e_obs = 0.0;
  for (int m = 0; m < kp.num_obs; ++m) {
    if (!detail::obstacle_on(kp, m, env.mass[m], env.reached)) continue;
    for (int i = 0; i < n; ++i) {
      const double rx = x[2 * i] - env.obs[m].x, ry = x[2 * i + 1] - env.obs[m].y;
      e_obs += static_cast<double>(env.mass[m]) * std::pow(rx * rx + ry * ry + 1e-8, static_cast<double>(kp.p_obs));
    }
  }
  const double r = (per - env.target_length) / env.initial_length;
  return e_tp + e_obs + kp.w_len * r * r;
}

}  // namespace trackgen::test
