// The `repulsive` centerline generator (docs/algorithms.md#repulsive):
// tangent-point self-repulsive growth, built as a capturable BOUNDED stage
// (bounded_loop, docs/design.md#execution-layer).
//
// Declared here so that tests can call the analytic gradient, and read the
// schedule and the diagnostics (stop_iteration()).
#pragma once

#include <trackgen/generators/detail/common.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace trackgen::detail {

/// Number of wall-ring obstacle points per env.
inline constexpr int repulsive_wall_points = 96;
/// Ring points per inner disc.
inline constexpr int repulsive_disc_points = 12;

/// The scalars the device kernels of the energy and gradient need (POD, passed
/// by value into kernels). Exponents that are (half-)integers are evaluated by
/// multiplications (and one sqrt) instead of pow: `*_twice` holds 2 * exponent
/// when that is an integer of modest size, and `fast` says whether every
/// exponent qualified.
struct RepulsiveKernelParams {
  float alpha = 3.0f;
  float beta = 6.0f;
  float eps = 1e-4f;    ///< tangent-point regulariser
  float p_obs = -1.5f;  ///< obstacle exponent -(beta - alpha) / 2
  float w_len = 30.0f;
  float tau = 0.4f;
  int alpha_twice = 6;      ///< 2 * alpha  (the pair kernel numerator)
  int alpham1_twice = 4;    ///< 2 * (alpha - 1)
  int half_beta_twice = 6;  ///< beta       (2 * beta / 2, the denominator)
  int pm1_twice = -5;       ///< 2 * (p - 1) (obstacle gradient)
  int p_twice = -3;         ///< 2 * p       (obstacle energy)
  bool fast = true;
  bool deactivate_obstacles = true;
  int num_obs = 0;  ///< M_obs = 96 + 12 * obstacle_count_max (obstacle stride)
};

/// The repulsive generator's parameters and iteration schedule, resolved on the
/// host from a config at construction (docs/algorithms.md#repulsive, "Set-up").
struct RepulsiveParams {
  int num_envs = 0;
  int num_points = 0;  ///< N (== stages.back())
  std::vector<int> stages;
  float scale = 1.0f;
  float p_ref = 0.0f;   ///< 4.9029 * scale
  float r_dom = 0.0f;   ///< domain_frac * P_ref
  float r_init = 0.0f;  ///< r_dom / domain_init_ratio
  float growth = 0.0f;  ///< ratchet_rate
  float grow_lo = 0.0f, grow_hi = 0.0f;
  float rfrac_lo = 0.0f, rfrac_hi = 0.0f;
  int count_min = 0, count_max = 0;
  int n_ratchet = 0;             ///< ceil(ln(grow_mult_max) / ln(1 + growth))
  int n_iters = 0;               ///< ceil(1.6 n_ratchet) + settle_iters
  std::vector<int> stage_start;  ///< start iteration per stage (non-decreasing, start_0 = 0)
  std::vector<int> stage_at;     ///< [n_iters] index of the stage in effect during iteration it
  int resample_every = 25;
  int stall_window = 16;
  float stall_tol = 0.05f;
  int first_check = 0;     ///< first bounded_loop check (the iteration after the first stall test)
  float sobolev_s = 0.0f;  ///< (beta - 1) / (2 alpha)
  RepulsiveKernelParams kp;

  /// Resolves a config that passed TrackGenConfig::validate (the repulsive
  /// stages' rules and every bound live in its field table only).
  static RepulsiveParams from_config(const TrackGenConfig& config);
  /// Whether iteration `it` ends with a stall test (final stage, (it+1) % W == 0).
  bool stall_at(int it) const;
  /// Expected final perimeter, about 2 pi r_init grow_mult_max.
  double expected_perimeter() const;
};

/// The Sobolev circulant row of a stage of size n:
/// h = irfft(1 / (max(lambda_k, 0)^s + 1e-3)), lambda_k = 2 - 2 cos(2 pi k / n),
/// k = 0..n/2, a real inverse DFT of length n computed in double and rounded to
/// float (no FFT library: O(n^2) at construction).
std::vector<float> sobolev_row(int n, double s);

// ---------------------------------------------------------------------------
// Device building blocks

/// x^(twice/2) for an integer `twice` (multiplications, one sqrt for odd twice,
/// a reciprocal for negative exponents).
KOKKOS_INLINE_FUNCTION float pow_half(float x, int twice) {
  const bool neg = twice < 0;
  const int k2 = neg ? -twice : twice;
  float r = 1.0f;
  for (int i = 0; i < k2 / 2; ++i) r *= x;
  if (k2 & 1) r *= kmath::sqrt(x);
  return neg ? 1.0f / r : r;
}

/// x^e, by pow_half when kp.fast.
KOKKOS_INLINE_FUNCTION float rpow(const RepulsiveKernelParams& kp, float x, float e, int twice) {
  return kp.fast ? pow_half(x, twice) : kmath::pow(x, e);
}

/// One ordered tangent-point pair (owner o with unit tangent T, partner at
/// offset d = x_q - x_o): P = (|w| + eps)^alpha / (|d|^2 + eps^2)^(beta/2) with
/// w = d x T, gwd = g_w / den with g_w = alpha (|w|+eps)^(alpha-1) sign(w)
/// (sign(0) = +1), and dP/dd = gwd (T.y, -T.x) - (P beta / (|d|^2+eps^2)) d.
struct TpPair {
  float P;
  float gwd;
  Vec2f dPdd;
};
KOKKOS_INLINE_FUNCTION TpPair tp_pair(const RepulsiveKernelParams& kp, Vec2f d, Vec2f T) {
  const float r2 = length_sq(d) + kp.eps * kp.eps;
  const float w = cross(d, T);
  const float aw = kmath::fabs(w) + kp.eps;
  const float awm1 = rpow(kp, aw, kp.alpha - 1.0f, kp.alpham1_twice);
  const float num = kp.fast ? awm1 * aw : kmath::pow(aw, kp.alpha);
  const float den = rpow(kp, r2, 0.5f * kp.beta, kp.half_beta_twice);
  const float P = num / den;
  const float gw = kp.alpha * awm1 * (w >= 0.0f ? 1.0f : -1.0f);
  const float gwd = gw / den;
  const float c = P * kp.beta / r2;
  return {P, gwd, Vec2f{gwd * T.y - c * d.x, -gwd * T.x - c * d.y}};
}

/// Whether obstacle column m (of mass `mass`) counts: mass > 0, and an inner
/// disc point (m >= 96) only while !(reached && deactivate_obstacles).
KOKKOS_INLINE_FUNCTION bool obstacle_on(const RepulsiveKernelParams& kp, int m, float mass, bool reached) {
  if (!(mass > 0.0f)) return false;
  return m < repulsive_wall_points || !(reached && kp.deactivate_obstacles);
}

// ---------------------------------------------------------------------------
// Kernel launchers (instantiated per space in repulsive.cpp)

/// Per-vertex scratch of the gradient at stride S per env: tangents T, dual
/// weights ell, weights W, tangent terms b, diff sums, and per-env perimeter
/// and length coefficient.
template <class Space>
struct RepulsiveGradScratch {
  DView<Vec2f, Space> T, b, diff;
  DView<float, Space> ell, W;
  DView<float, Space> perimeter, c_len;
  int stride = 0;
  RepulsiveGradScratch() = default;
  /// The scratch of `num_envs` envs of `stride` points, labelled
  /// TrackGen::generators::<gen>::<name> (gen: "repulsive").
  RepulsiveGradScratch(const Space& space, const std::string& gen, int num_envs, int stride);
  RepulsiveGradScratch(const Space& space, int num_envs, int stride)
      : RepulsiveGradScratch(space, "repulsive", num_envs, stride) {}
  std::size_t bytes() const;
  /// bytes() of the scratch of `num_envs` envs of `stride` points, without allocating.
  static std::size_t bytes_for(std::size_t num_envs, std::size_t stride);
  /// Its plan (see allocate_plan).
  template <class F>
  static void plan(std::size_t num_envs, std::size_t stride, F&& f) {
    f("tangent", TRACKGEN_MEMBER(T), num_envs * stride);
    f("tangent_term", TRACKGEN_MEMBER(b), num_envs * stride);
    f("diff_term", TRACKGEN_MEMBER(diff), num_envs * stride);
    f("dual_weight", TRACKGEN_MEMBER(ell), num_envs * stride);
    f("weight_term", TRACKGEN_MEMBER(W), num_envs * stride);
    f("perimeter", TRACKGEN_MEMBER(perimeter), num_envs);
    f("length_coef", TRACKGEN_MEMBER(c_len), num_envs);
  }
};

/// The per-env state of the growth as the kernels see it (Views of the
/// generator's buffers, M_obs obstacle columns per env).
template <class Space>
struct RepulsiveState {
  DView<Vec2f, Space> curve;           ///< [E*N] the working curve (first n points of the current stage)
  DView<Vec2f, Space> obstacles;       ///< [E*M_obs] wall ring, then disc points (NaN when inactive)
  DView<float, Space> obstacle_mass;   ///< [E*M_obs] (0 when inactive)
  DView<float, Space> initial_length;  ///< [E] L_init = 2 pi r_init
  DView<float, Space> target_length;   ///< [E] L_target, ratcheted towards final_length
  DView<float, Space> final_length;    ///< [E] L_final = grow_mult * L_init
  DView<std::int32_t, Space> reached;  ///< [E] target length reached
  DView<std::int32_t, Space> live;     ///< [E] 1 while the env is not frozen
};

/// The analytic per-vertex gather gradient of the energy
/// (docs/algorithms.md#repulsive, the five mechanisms), one team per env, for
/// envs with state.live[e] != 0 (the others are untouched): the first n points
/// of each env's curve -> grad[e*S, +n) and lg[e*S, +n) (the length gradient
/// direction -dir(x_{i+1}-x_i) + dir(x_i - x_{i-1})), plus
/// scratch.perimeter[e] (double accumulation, index order) and c_len[e].
/// Every vertex's sums run over partners in a fixed order by one thread: no
/// atomics, deterministic. Label: <prefix>gradient.
template <class Space>
void repulsive_gradient(const LaunchContext<Space>& ctx, const std::string& prefix, const RepulsiveKernelParams& kp,
                        int n, const RepulsiveState<Space>& state, const RepulsiveGradScratch<Space>& scratch,
                        const DView<Vec2f, Space>& grad, const DView<Vec2f, Space>& lg);

/// The per-env scalars of one step (written and read inside the step kernel).
struct RepulsiveStepScalars {
  float projection;     ///< num / den of the length-orthogonal projection
  float step;           ///< tau * mean segment length / max |g - mean g|
  float rescale;        ///< L_target / perimeter
  Vec2f mean_gradient;  ///< mean of the projected gradient
  Vec2f barycentre;     ///< mean of the curve after the step
};

// ---------------------------------------------------------------------------
// The generator

/// docs/algorithms.md#repulsive as a BOUNDED stage. Launch sequence of
/// generate() (E envs, n the stage size of the iteration; every launch is
/// fixed by the host schedule, data only decides what a kernel writes):
///   init (E) .
///   bounded_loop(n_iters, active, first_check, check_every = stall_window) of
///     [upsample (E teams)]          at the precomputed stage starts,
///     ratchet (E) . gradient (E teams) . step (E teams)   every iteration,
///     [uniform (E teams)]           when (it+1) % resample_every == 0,
///     [stall (E) . active (1)]      final stage, (it+1) % stall_window == 0 .
///   final uniform resample to out (E teams) . valid (E).
///
/// Absorbing freeze: live[e] = 0 once env e froze; every kernel of the loop
/// leaves a frozen env's state untouched, and the active kernel only writes
/// stop_iteration on the 1 -> 0 transition, so once every env is frozen a
/// whole window is an exact no-op. DEVIATION from the original system (which
/// is eager and host-driven, docs/differences.md#generators): it keeps applying
/// the periodic uniform re-parameterization to frozen envs (and the ratchet, a
/// no-op there since reached => L_target == L_final); here frozen envs are
/// skipped, so they keep exactly the curve they froze with. Envs are
/// unaffected until they freeze.
///
/// Diagnostics: stop_iteration()[0] = the number of iterations run when the
/// active flag fell to 0 (every env frozen), -1 if some env never froze.
template <class Space>
class RepulsiveGenerator final : public BuiltinGenerator<Space, RepulsiveParams> {
  using Base = BuiltinGenerator<Space, RepulsiveParams>;

 public:
  using typename Base::FloatView;
  using typename Base::IntView;
  using typename Base::Vec2View;

  /// Resolves `config`, allocates the scratch on `space` and uploads the
  /// Sobolev rows of every stage.
  RepulsiveGenerator(const Space& space, const TrackGenConfig& config);

  void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                const IntView& out_valid) override;
  std::size_t device_bytes() const override;
  /// The bytes the constructor allocates for `config` (validated), without
  /// allocating: device_bytes() of the generator it would build.
  static std::size_t scratch_bytes(const TrackGenConfig& config);
  /// The one list of its scratch (see allocate_plan): the constructor
  /// allocates it, device_bytes() and scratch_bytes() count it.
  template <class F>
  static void scratch_plan(const RepulsiveParams& p, F&& f);

  /// [1] int32: iterations run when every env had frozen, -1 if never.
  const IntView& stop_iteration() const { return stop_iteration_; }
  /// [1] int32: any env not frozen (the bounded_loop flag).
  const IntView& active() const { return active_; }
  /// [E] int32: 1 while env e is not frozen.
  const IntView& live() const { return state_.live; }
  /// [E] int32: target length reached.
  const IntView& reached() const { return state_.reached; }
  /// Obstacles [E*M_obs] and their masses.
  const Vec2View& obstacles() const { return state_.obstacles; }
  const FloatView& obstacle_mass() const { return state_.obstacle_mass; }
  /// Per-env initial, target and final lengths [E].
  const FloatView& initial_length() const { return state_.initial_length; }
  const FloatView& target_length() const { return state_.target_length; }
  const FloatView& final_length() const { return state_.final_length; }
  /// The working curve [E*N] (stride N; first n points of the current stage).
  const Vec2View& curve() const { return state_.curve; }

  /// Emits iteration `it` of the loop body (internal; public only because
  /// device lambdas may not live in private member functions).
  void enqueue_iteration(const LaunchContext<Space>& ctx, int it) const;

 private:
  using Base::p_;
  using Base::prefix_;
  RepulsiveState<Space> state_;
  Vec2View curve_scratch_;            ///< [E*N] resample destination, copied back into the curve
  Vec2View gradient_;                 ///< [E*N] energy gradient
  Vec2View length_gradient_;          ///< [E*N] direction of the perimeter's gradient
  Vec2View precond_gradient_;         ///< [E*N] Sobolev-preconditioned gradient
  Vec2View precond_length_gradient_;  ///< [E*N] Sobolev-preconditioned length gradient
  DView<double, Space> previous_area_;             ///< [E] area at the previous stall test
  DView<RepulsiveStepScalars, Space> step_scalars_;  ///< [E]
  IntView active_, stop_iteration_;   ///< [1] each
  FloatView arc_table_;               ///< [E*(N+1)] cumulative arc lengths of the resamples
  FloatView sobolev_rows_;            ///< the Sobolev rows of all stages, concatenated
  std::vector<int> sobolev_offset_;   ///< start of each stage's row in sobolev_rows_
  RepulsiveGradScratch<Space> grad_scratch_;
};

}  // namespace trackgen::detail
