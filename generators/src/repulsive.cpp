// The `repulsive` centerline generator, reference section 2.6: tangent-point
// self-repulsive growth of a small circle inside a walled domain with disc
// obstacles, coarse to fine, as a capturable BOUNDED stage.
//
// Capture design (reference 2.6 [LATER], seeds/execution-layer-api.txt):
// - the iteration schedule (stage starts, resample and stall iterations) is
//   data-independent and computed on the host at construction; each iteration
//   issues a fixed sequence of kernels through the LaunchContext;
// - the reference's host readback of the frozen flags is replaced by a device
//   [1] `active` flag (any env not frozen) written by the stall test, and the
//   loop is ctx.bounded_loop(n_iters, ..., active, first_check, stall_window)
//   whose windows line up with the stall tests of the final stage;
// - every kernel skips frozen envs, so after an env freezes its state is
//   bitwise unchanged (absorbing), and a window with every env frozen is a
//   no-op: the host-poll (stops early), conditional-node and unrolled lowerings
//   give bitwise identical tracks. See RepulsiveGenerator for the one
//   deviation from the reference this requires (no periodic re-parameterization
//   of frozen envs).
//
// Parallelisation: the O(n^2) gradient and Sobolev convolution run one team
// per env with team threads over vertices; each vertex's sums run over its
// partners in a fixed order in one thread (gather, no atomics). Per-env
// reductions (perimeter, projection, means, max, barycentre, area) run in one
// thread in index order with double accumulation. Results therefore do not
// depend on the backend or the thread count.
#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/generators/detail/builtins.hpp>
#include <trackgen/generators/detail/repulsive.hpp>

#include <cmath>
#include <memory>
#include <sstream>

namespace trackgen::detail {

namespace {

/// 2 * e when that is an integer with |2e| <= 16, else a sentinel (no fast path).
constexpr int kNoTwice = 1 << 20;
int twice_of(double e) {
  const double t = 2.0 * e;
  const double r = std::round(t);
  return (std::fabs(t - r) < 1e-12 && std::fabs(r) <= 16.0) ? static_cast<int>(r) : kNoTwice;
}

[[noreturn]] void fail(const std::string& field, const std::string& value, const std::string& rule) {
  throw ConfigError("trackgen::repulsive: " + field + " = " + value + " is invalid (" + rule + ")");
}

}  // namespace

RepulsiveParams RepulsiveParams::from_config(const TrackGenConfig& c) {
  if (c.num_envs < 1) fail("num_envs", std::to_string(c.num_envs), "must be >= 1");
  if (c.repulsive_stages.empty() || c.repulsive_stages.back() != c.num_points) {
    fail("repulsive_stages", c.repulsive_stages.empty() ? "()" : std::to_string(c.repulsive_stages.back()),
         "the last stage must equal num_points = " + std::to_string(c.num_points));
  }
  for (std::size_t i = 0; i < c.repulsive_stages.size(); ++i) {
    const int s = c.repulsive_stages[i];
    if (s <= 0 || s % 4 != 0 || (i > 0 && s <= c.repulsive_stages[i - 1])) {
      fail("repulsive_stages", std::to_string(s), "stages must be strictly increasing positive multiples of 4");
    }
  }
  if (!(c.repulsive_ratchet_rate > 0.0f))
    fail("repulsive_ratchet_rate", std::to_string(c.repulsive_ratchet_rate), "> 0");
  if (!(c.repulsive_grow_mult_max > 1.0f)) {
    fail("repulsive_grow_mult_max", std::to_string(c.repulsive_grow_mult_max), "> 1");
  }
  if (c.repulsive_obstacle_count_min < 1 || c.repulsive_obstacle_count_max < c.repulsive_obstacle_count_min) {
    fail("repulsive_obstacle_count_max", std::to_string(c.repulsive_obstacle_count_max), ">= count_min >= 1");
  }
  if (c.repulsive_stall_window < 1 || c.repulsive_resample_every < 1 || c.repulsive_settle_iters < 1) {
    fail("repulsive_stall_window/resample_every/settle_iters", "", "each >= 1");
  }
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
  kp.fast = kp.alpha_twice != kNoTwice && kp.alpha_twice % 2 == 0 && kp.alpham1_twice != kNoTwice &&
            kp.half_beta_twice != kNoTwice && kp.pm1_twice != kNoTwice && kp.p_twice != kNoTwice;
  kp.deactivate_obstacles = c.repulsive_deactivate_obstacles;
  kp.num_obs = repulsive_wall_points + repulsive_disc_points * p.count_max;
  return p;
}

bool RepulsiveParams::stall_at(int it) const {
  const int last = static_cast<int>(stages.size()) - 1;
  return it >= 0 && it < n_iters && stage_at[it] == last && (it + 1) % stall_window == 0;
}

double RepulsiveParams::expected_perimeter() const {
  return 2.0 * geom::pi_d * static_cast<double>(r_init) * static_cast<double>(grow_hi);
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

double repulsive_energy(const RepulsiveKernelParams& kp, const std::vector<double>& x, int n,
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
    if (!obstacle_on(kp, m, env.mass[m], env.reached)) continue;
    for (int i = 0; i < n; ++i) {
      const double rx = x[2 * i] - env.obs[m].x, ry = x[2 * i + 1] - env.obs[m].y;
      e_obs += static_cast<double>(env.mass[m]) * std::pow(rx * rx + ry * ry + 1e-8, static_cast<double>(kp.p_obs));
    }
  }
  const double r = (per - env.L_target) / env.L_init;
  return e_tp + e_obs + kp.w_len * r * r;
}

// ---------------------------------------------------------------------------
// Kernels

template <class Space>
RepulsiveGradScratch<Space>::RepulsiveGradScratch(const Space& space, int num_envs, int stride_)
    : T(gen_view<Vec2f>(space, "repulsive", "tangent", std::size_t(num_envs) * stride_)),
      b(gen_view<Vec2f>(space, "repulsive", "tangent_term", std::size_t(num_envs) * stride_)),
      diff(gen_view<Vec2f>(space, "repulsive", "diff_term", std::size_t(num_envs) * stride_)),
      ell(gen_view<float>(space, "repulsive", "dual_weight", std::size_t(num_envs) * stride_)),
      W(gen_view<float>(space, "repulsive", "weight_term", std::size_t(num_envs) * stride_)),
      perimeter(gen_view<float>(space, "repulsive", "perimeter", std::size_t(num_envs))),
      c_len(gen_view<float>(space, "repulsive", "length_coef", std::size_t(num_envs))),
      stride(stride_) {}

template <class Space>
std::size_t RepulsiveGradScratch<Space>::bytes() const {
  return (T.span() + b.span() + diff.span()) * sizeof(Vec2f) +
         (ell.span() + W.span() + perimeter.span() + c_len.span()) * sizeof(float);
}

template <class Space>
void repulsive_gradient(const LaunchContext<Space>& ctx, const std::string& prefix, const RepulsiveKernelParams& kp,
                        int n, const DView<Vec2f, Space>& x, const DView<Vec2f, Space>& obs,
                        const DView<float, Space>& mass, const DView<float, Space>& L_target,
                        const DView<float, Space>& L_init, const DView<std::int32_t, Space>& reached,
                        const DView<std::int32_t, Space>& live, const RepulsiveGradScratch<Space>& scratch,
                        const DView<Vec2f, Space>& grad, const DView<Vec2f, Space>& lg) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
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
          c_len(e) = 2.0f * kp.w_len * (pf - L_target(e)) / (L_init(e) * L_init(e));
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

namespace {

/// Resample of each env's closed loop src[e*S, +n_in) to n_out points at
/// uniform arc length into dst[e*S, +n_out) (reference 3.2.1/3.2.2 on finite
/// points: cumulative length accumulated in double, stored as float; target_k
/// = k * total / n_out), one team per env, only envs with live[e] != 0 (live
/// of extent 0: all). With copy_back, dst rows are copied back into src.
template <class Space>
void resample_loops(const LaunchContext<Space>& ctx, const std::string& label, const DView<Vec2f, Space>& src, int n_in,
                    const DView<Vec2f, Space>& dst, int n_out, int stride, const DView<std::int32_t, Space>& live,
                    const DView<float, Space>& cum, bool copy_back, int num_envs) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const std::size_t S = static_cast<std::size_t>(stride);
  const bool all = live.extent(0) == 0;
  ctx.for_each_team(
      label, num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = team.league_rank();
        if (!all && live(e) == 0) return;
        Vec2f* p = src.data() + e * S;
        Vec2f* q = dst.data() + e * S;
        float* s = cum.data() + e * (S + 1);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          double acc = 0.0;
          s[0] = 0.0f;
          for (int j = 0; j < n_in; ++j) {
            acc += static_cast<double>(length(p[j + 1 == n_in ? 0 : j + 1] - p[j]));
            s[j + 1] = static_cast<float>(acc);
          }
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_out), [&](const int k) {
          const float target = static_cast<float>(k) * s[n_in] / static_cast<float>(n_out);
          q[k] = geom::arc_point(p, s, n_in, target);
        });
        if (copy_back) {
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n_out), [&](const int k) { p[k] = q[k]; });
        }
      });
}

}  // namespace

// ---------------------------------------------------------------------------
// The generator

template <class Space>
RepulsiveGenerator<Space>::RepulsiveGenerator(const TrackGenConfig& config, const Space& space)
    : p_(RepulsiveParams::from_config(config)), prefix_(gen_label("repulsive", "")) {
  const std::size_t E = p_.num_envs, N = p_.num_points, M = p_.kp.num_obs;
  auto v2 = [&](const char* name, std::size_t n) { return gen_view<Vec2f>(space, "repulsive", name, n); };
  auto vf = [&](const char* name, std::size_t n) { return gen_view<float>(space, "repulsive", name, n); };
  auto vi = [&](const char* name, std::size_t n) { return gen_view<std::int32_t>(space, "repulsive", name, n); };
  x_ = v2("curve", E * N);
  x2_ = v2("curve_tmp", E * N);
  grad_ = v2("gradient", E * N);
  lg_ = v2("length_gradient", E * N);
  g_ = v2("preconditioned", E * N);
  a_ = v2("preconditioned_length", E * N);
  obs_ = v2("obstacles", E * M);
  mass_ = vf("obstacle_mass", E * M);
  L_init_ = vf("L_init", E);
  L_target_ = vf("L_target", E);
  L_final_ = vf("L_final", E);
  area_prev_ = gen_view<double>(space, "repulsive", "area_prev", E);
  step_scal_ = vf("step_scalars", E * 4);
  step_vec_ = v2("step_vectors", E * 2);
  reached_ = vi("reached", E);
  live_ = vi("live", E);
  active_ = vi("active", 1);
  stop_iter_ = vi("stop_iteration", 1);
  cum_ = vf("arc_cum", E * (N + 1));
  gs_ = RepulsiveGradScratch<Space>(space, p_.num_envs, p_.num_points);

  // Sobolev rows of every stage: host inverse DFT, uploaded once.
  std::vector<float> rows;
  for (int n : p_.stages) {
    h_offset_.push_back(static_cast<int>(rows.size()));
    const auto r = sobolev_row(n, static_cast<double>(p_.sobolev_s));
    rows.insert(rows.end(), r.begin(), r.end());
  }
  h_ = vf("sobolev_rows", rows.size());
  auto hh = Kokkos::create_mirror_view(Kokkos::HostSpace(), h_);
  for (std::size_t i = 0; i < rows.size(); ++i) hh(i) = rows[i];
  Kokkos::deep_copy(space, h_, hh);
  space.fence();

  // Reference 7.3: repulsive perimeters can exceed N_max * spacing.
  const double spacing = as_python_double(config.resolved_spacing());
  const double need = p_.expected_perimeter() / spacing + 1.0;
  if (need > config.N_max) {
    std::ostringstream os;
    os << "trackgen::repulsive: the expected perimeter (~" << p_.expected_perimeter() << " = 2 pi r_init "
       << "grow_mult_max at scale " << config.scale << ") / spacing " << spacing << " + 1 = " << need
       << " exceeds N_max = " << config.N_max << "; long tracks will be truncated and fail validity";
    logging::warn(os.str());
  }
}

template <class Space>
std::size_t RepulsiveGenerator<Space>::device_bytes() const {
  return (x_.span() + x2_.span() + grad_.span() + lg_.span() + g_.span() + a_.span() + obs_.span() + step_vec_.span()) *
             sizeof(Vec2f) +
         (mass_.span() + L_init_.span() + L_target_.span() + L_final_.span() + step_scal_.span() + cum_.span() +
          h_.span()) *
             sizeof(float) +
         area_prev_.span() * sizeof(double) +
         (reached_.span() + live_.span() + active_.span() + stop_iter_.span()) * sizeof(std::int32_t) + gs_.bytes();
}

template <class Space>
void RepulsiveGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                         const Vec2View& out_centerline, const IntView& out_valid) {
  check_generate_args("trackgen::repulsive::generate", p_.num_envs, p_.num_points, seeds, out_centerline, out_valid);
  const auto region = ctx.region("TrackGen::generators::repulsive");
  const std::size_t S = p_.num_points, M = p_.kp.num_obs;
  const int N0 = p_.stages.front(), ncount = p_.count_max;
  const float r_dom = p_.r_dom, r_init = p_.r_init, rlo = p_.rfrac_lo, rhi = p_.rfrac_hi;
  const float glo = p_.grow_lo, ghi = p_.grow_hi;
  const int kmin = p_.count_min, kmax = p_.count_max;
  auto x = x_;
  auto obs = obs_;
  auto mass = mass_;
  auto L_init = L_init_, L_target = L_target_, L_final = L_final_;
  auto area_prev = area_prev_;
  auto reached = reached_, live = live_, active = active_, stop = stop_iter_;
  // Per-env initialisation (reference 2.6): obstacles, target length, circle.
  ctx.for_each(
      prefix_ + "init", S == 0 ? 0 : static_cast<std::size_t>(p_.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        constexpr float two_pi = 2.0f * geom::pi_f;
        Vec2f* o = obs.data() + e * M;
        float* ms = mass.data() + e * M;
        const float mw = (two_pi * r_dom / repulsive_wall_points) * 1.0f;
        for (int i = 0; i < repulsive_wall_points; ++i) {
          const float ang = two_pi * static_cast<float>(i) / static_cast<float>(repulsive_wall_points);
          o[i] = Vec2f{r_dom * kmath::cos(ang), r_dom * kmath::sin(ang)};
          ms[i] = mw;
        }
        std::uint32_t st = stream(seeds(e), salt::repulsive_obstacles);
        const int k = randi(st, kmin, kmax + 1);
        const float phase = two_pi * randf(st);
        for (int j = 0; j < ncount; ++j) {
          Vec2f* oj = o + repulsive_wall_points + j * repulsive_disc_points;
          float* mj = ms + repulsive_wall_points + j * repulsive_disc_points;
          bool on = false;
          Vec2f centre{0.0f, 0.0f};
          float r_disc = 0.0f;
          if (j < k) {
            r_disc = (rlo + (rhi - rlo) * randf(st)) * r_dom;
            const float lo = r_init + r_disc + 0.05f * r_dom, hi = 0.90f * r_dom;
            const float rad = lo + (hi - lo) * randf(st);  // drawn even if the disc is inactive
            on = lo < hi;
            const float ang = phase + two_pi * static_cast<float>(j) / static_cast<float>(k);
            centre = Vec2f{rad * kmath::cos(ang), rad * kmath::sin(ang)};
          }
          const float md = (two_pi * r_disc / repulsive_disc_points) * 0.25f;
          for (int i = 0; i < repulsive_disc_points; ++i) {
            const float ang = two_pi * static_cast<float>(i) / static_cast<float>(repulsive_disc_points);
            oj[i] = on ? centre + r_disc * Vec2f{kmath::cos(ang), kmath::sin(ang)} : nan2();
            mj[i] = on ? md : 0.0f;
          }
        }
        std::uint32_t sg = stream(seeds(e), salt::repulsive_growth);
        const float g = glo + (ghi - glo) * randf(sg);
        const float L0 = two_pi * r_init;
        L_init(e) = L0;
        L_target(e) = L0;
        L_final(e) = g * L0;
        reached(e) = 0;
        live(e) = 1;
        area_prev(e) = 0.0;
        Vec2f* xe = x.data() + e * S;
        for (int i = 0; i < N0; ++i) {
          const float ang = two_pi * static_cast<float>(i) / static_cast<float>(N0);
          xe[i] = Vec2f{r_init * kmath::cos(ang), r_init * kmath::sin(ang)};
        }
        if (e == 0) {
          active(0) = 1;
          stop(0) = -1;
        }
      });
  ctx.bounded_loop(
      p_.n_iters, [this](const LaunchContext<Space>& c, int it) { enqueue_iteration(c, it); }, active_, p_.first_check,
      p_.stall_window);
  // Every stage transition lies before the first check (start_i <= n_ratchet <
  // first_check), so the curve is at N here; the final uniform resample of
  // every env (frozen ones included) goes to the output.
  resample_loops(ctx, prefix_ + "final_resample", x_, p_.num_points, out_centerline, p_.num_points, p_.num_points,
                 IntView(), cum_, false, p_.num_envs);
  fill_valid(ctx, prefix_, out_valid);
}

template <class Space>
void RepulsiveGenerator<Space>::enqueue_iteration(const LaunchContext<Space>& ctx, int it) const {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int E = p_.num_envs;
  const std::size_t S = p_.num_points;
  // 1. Stage transitions at the precomputed iterations (ARC upsample).
  const int s_prev = it == 0 ? 0 : p_.stage_at[it - 1], s_cur = p_.stage_at[it];
  for (int s = s_prev + 1; s <= s_cur; ++s) {
    resample_loops(ctx, prefix_ + "upsample", x_, p_.stages[s - 1], x2_, p_.stages[s], p_.num_points, live_, cum_, true,
                   E);
  }
  const int n = p_.stages[s_cur];
  auto L_target = L_target_, L_final = L_final_;
  auto reached = reached_, live = live_;
  // 2. Ratchet (frozen envs skipped: they are reached, so it is a no-op anyway).
  const float growth = p_.growth;
  ctx.for_each(
      prefix_ + "ratchet", static_cast<std::size_t>(E), KOKKOS_LAMBDA(const std::size_t e) {
        if (live(e) == 0) return;
        const float lt = kmath::min(L_target(e) * (1.0f + growth), L_final(e));
        L_target(e) = lt;
        reached(e) = lt >= L_final(e) - 1e-9f ? 1 : 0;
      });
  // 3. Gradient.
  repulsive_gradient(ctx, prefix_, p_.kp, n, x_, obs_, mass_, L_target_, L_init_, reached_, live_, gs_, grad_, lg_);
  // 4-7. Sobolev preconditioning, length-orthogonal projection, normalized
  // barycentre-pinned step, hard rescale: one team per env.
  {
    auto x = x_;
    auto grad = grad_, lg = lg_, g = g_, a = a_;
    auto perim = gs_.perimeter;
    auto scal = step_scal_;
    auto vec = step_vec_;
    const float tau = p_.kp.tau;
    const auto hoff = static_cast<std::size_t>(h_offset_[s_cur]);
    auto hall = h_;
    ctx.for_each_team(
        prefix_ + "step", E, 0, KOKKOS_LAMBDA(const member_type& team) {
          const std::size_t e = team.league_rank();
          if (live(e) == 0) return;
          const float* he = hall.data() + hoff;
          Vec2f* xe = x.data() + e * S;
          const Vec2f* gr = grad.data() + e * S;
          const Vec2f* le = lg.data() + e * S;
          Vec2f* ge = g.data() + e * S;
          Vec2f* ae = a.data() + e * S;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
            Vec2f gi{0.0f, 0.0f}, ai{0.0f, 0.0f};
            for (int j = 0; j < n; ++j) {
              const float hk = he[i - j >= 0 ? i - j : i - j + n];
              gi += hk * gr[j];
              ai += hk * le[j];
            }
            ge[i] = gi;
            ae[i] = ai;
          });
          team.team_barrier();
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            double num = 0.0, den = 0.0;
            for (int i = 0; i < n; ++i) {
              num += static_cast<double>(dot(ge[i], le[i]));
              den += static_cast<double>(dot(le[i], ae[i]));
            }
            scal(e * 4 + 0) = static_cast<float>(num / kmath::max(den, 1e-12));
          });
          team.team_barrier();
          const float kproj = scal(e * 4 + 0);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { ge[i] -= kproj * ae[i]; });
          team.team_barrier();
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            double sx = 0.0, sy = 0.0;
            for (int i = 0; i < n; ++i) {
              sx += static_cast<double>(ge[i].x);
              sy += static_cast<double>(ge[i].y);
            }
            const Vec2f gbar{static_cast<float>(sx / n), static_cast<float>(sy / n)};
            float gmax = 0.0f;
            for (int i = 0; i < n; ++i) gmax = kmath::max(gmax, length(ge[i] - gbar));
            gmax = kmath::max(gmax, 1e-12f);
            const float msl = perim(e) / static_cast<float>(n);
            vec(e * 2 + 0) = gbar;
            scal(e * 4 + 1) = tau * msl / gmax;
          });
          team.team_barrier();
          const Vec2f gbar = vec(e * 2 + 0);
          const float s1 = scal(e * 4 + 1);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { xe[i] -= s1 * (ge[i] - gbar); });
          team.team_barrier();
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            double sx = 0.0, sy = 0.0;
            for (int i = 0; i < n; ++i) {
              sx += static_cast<double>(xe[i].x);
              sy += static_cast<double>(xe[i].y);
            }
            vec(e * 2 + 1) = Vec2f{static_cast<float>(sx / n), static_cast<float>(sy / n)};
            // Hard rescale with the perimeter of step 3 (before the step), as
            // reference 2.6 step 7 reads ("perimeter from step 3" for msl and cur).
            scal(e * 4 + 2) = L_target(e) / kmath::max(perim(e), 1e-9f);
          });
          team.team_barrier();
          const Vec2f bc = vec(e * 2 + 1);
          const float f = scal(e * 4 + 2);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { xe[i] = bc + (xe[i] - bc) * f; });
        });
  }
  // 8. Periodic uniform re-parameterization at the same n. DEVIATION (absorbing
  // freeze): frozen envs are skipped, the reference resamples them too.
  if ((it + 1) % p_.resample_every == 0) {
    resample_loops(ctx, prefix_ + "uniform", x_, n, x2_, n, p_.num_points, live_, cum_, true, E);
  }
  // 9. Stall test on the final stage, then the active flag for the next window.
  if (p_.stall_at(it)) {
    auto x = x_;
    auto area_prev = area_prev_;
    const float tol = p_.stall_tol;
    ctx.for_each(
        prefix_ + "stall", static_cast<std::size_t>(E), KOKKOS_LAMBDA(const std::size_t e) {
          if (live(e) == 0) return;
          const double area = 0.5 * kmath::fabs(geom::shoelace2(x.data() + e * S, n));
          const double rel = kmath::fabs(area - area_prev(e)) / kmath::max(area, 1e-9);
          area_prev(e) = area;
          if (reached(e) != 0 && rel < static_cast<double>(tol)) live(e) = 0;
        });
    auto active = active_, stop = stop_iter_;
    ctx.for_each(
        prefix_ + "active", 1, KOKKOS_LAMBDA(const std::size_t) {
          int any = 0;
          for (int e = 0; e < E; ++e) any |= live(e) != 0 ? 1 : 0;
          if (active(0) != 0 && any == 0) stop(0) = it + 1;
          active(0) = any;
        });
  }
}

template <class Space>
GeneratorSpec<Space> repulsive_spec() {
  GeneratorSpec<Space> spec;
  spec.name = "repulsive";
  spec.make = [](const TrackGenConfig& config, const Space& space) -> std::unique_ptr<Generator<Space>> {
    return std::make_unique<RepulsiveGenerator<Space>>(config, space);
  };
  spec.capturable = true;
  spec.capture = CaptureClass::BOUNDED;
  return spec;
}

#define TRACKGEN_INSTANTIATE_REPULSIVE(S)                                                                             \
  template struct RepulsiveGradScratch<S>;                                                                            \
  template void repulsive_gradient<S>(const LaunchContext<S>&, const std::string&, const RepulsiveKernelParams&, int, \
                                      const DView<Vec2f, S>&, const DView<Vec2f, S>&, const DView<float, S>&,         \
                                      const DView<float, S>&, const DView<float, S>&, const DView<std::int32_t, S>&,  \
                                      const DView<std::int32_t, S>&, const RepulsiveGradScratch<S>&,                  \
                                      const DView<Vec2f, S>&, const DView<Vec2f, S>&);                                \
  template class RepulsiveGenerator<S>;                                                                               \
  template GeneratorSpec<S> repulsive_spec<S>();
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_REPULSIVE)

}  // namespace trackgen::detail
