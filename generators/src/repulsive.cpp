// The `repulsive` centerline generator (docs/algorithms.md#repulsive):
// tangent-point self-repulsive growth of a small circle inside a walled domain
// with disc obstacles, coarse to fine, as a capturable BOUNDED stage. The
// parameters and schedule are in repulsive_params.cpp, the energy gradient in
// repulsive_gradient.cpp.
//
// Capture design:
// - the iteration schedule (stage starts, resample and stall iterations) is
//   data-independent and computed on the host at construction; each iteration
//   issues a fixed sequence of kernels through the LaunchContext;
// - the original system's host readback of the frozen flags is replaced by a
//   device [1] `active` flag (any env not frozen) written by the stall test, and
//   the loop is ctx.bounded_loop(n_iters, ..., active, first_check,
//   stall_window) whose windows line up with the stall tests of the final stage;
// - every kernel skips frozen envs, so after an env freezes its state is
//   bitwise unchanged (absorbing), and a window with every env frozen is a
//   no-op: the host-poll (stops early), conditional-node and unrolled lowerings
//   give bitwise identical tracks. See RepulsiveGenerator for the one
//   deviation this requires (no periodic re-parameterization of frozen envs).
//
// Parallelisation: the O(n^2) gradient and Sobolev convolution run one team
// per env with team threads over vertices; each vertex's sums run over its
// partners in a fixed order in one thread (gather, no atomics). Per-env
// reductions (perimeter, projection, means, max, barycentre, area) run in one
// thread in index order with double accumulation. Results therefore do not
// depend on the backend or the thread count.
#include <trackgen/core/logging.hpp>
#include <trackgen/generators/detail/repulsive.hpp>

#include <sstream>

namespace trackgen::detail {
namespace {

/// One resample of every env's closed loop at uniform arc length.
template <class Space>
struct LoopResample {
  DView<Vec2f, Space> src;  ///< env e's loop at src[e*stride, +n_in)
  DView<Vec2f, Space> dst;  ///< its resample at dst[e*stride, +n_out)
  int n_in = 0;
  int n_out = 0;
  int stride = 0;
  DView<std::int32_t, Space> live;  ///< only envs with live[e] != 0 (extent 0: every env)
  bool copy_back = false;           ///< copy the dst rows back into src afterwards
};

/// The resample `r` (docs/algorithms.md#arc-resample on finite points:
/// cumulative length accumulated in double, stored as float into `table`
/// [E*(stride+1)]; target_k = k * total / n_out), one team per env.
template <class Space>
void resample_loops(const LaunchContext<Space>& ctx, const std::string& label, const LoopResample<Space>& r,
                    const DView<float, Space>& table, int num_envs) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const std::size_t S = static_cast<std::size_t>(r.stride);
  const bool all = r.live.extent(0) == 0;
  const auto src = r.src, dst = r.dst;
  const auto live = r.live;
  const int n_in = r.n_in, n_out = r.n_out;
  const bool copy_back = r.copy_back;
  ctx.for_each_team(
      label, num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = team.league_rank();
        if (!all && live(e) == 0) return;
        Vec2f* p = src.data() + e * S;
        Vec2f* q = dst.data() + e * S;
        float* s = table.data() + e * (S + 1);
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

/// Per-env initialisation, thread per env: the obstacles (stream
/// seed * 6247 + 23), the target lengths (stream seed * 5209 + 41) and the
/// initial circle of stages[0] points; the [1] flags active = 1, stop = -1.
template <class Space>
void repulsive_init(const LaunchContext<Space>& ctx, const std::string& label, const RepulsiveParams& p,
                    const DView<std::int32_t, Space>& seeds, const RepulsiveState<Space>& state,
                    const DView<double, Space>& previous_area, const DView<std::int32_t, Space>& active,
                    const DView<std::int32_t, Space>& stop) {
  const std::size_t S = p.num_points, M = p.kp.num_obs;
  const int N0 = p.stages.front(), ncount = p.count_max;
  const float r_dom = p.r_dom, r_init = p.r_init, rlo = p.rfrac_lo, rhi = p.rfrac_hi;
  const float glo = p.grow_lo, ghi = p.grow_hi;
  const int kmin = p.count_min, kmax = p.count_max;
  const auto x = state.curve, obs = state.obstacles;
  const auto mass = state.obstacle_mass;
  const auto initial_length = state.initial_length, target_length = state.target_length;
  const auto final_length = state.final_length;
  const auto reached = state.reached, live = state.live;
  ctx.for_each(
      label, S == 0 ? 0 : static_cast<std::size_t>(p.num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        constexpr float two_pi = geom::two_pi_f;
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
        initial_length(e) = L0;
        target_length(e) = L0;
        final_length(e) = g * L0;
        reached(e) = 0;
        live(e) = 1;
        previous_area(e) = 0.0;
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
}

/// The Views the step kernel reads and writes.
template <class Space>
struct StepBuffers {
  DView<Vec2f, Space> curve, gradient, length_gradient, precond_gradient, precond_length_gradient;
  DView<float, Space> perimeter, target_length;
  DView<float, Space> sobolev_row;  ///< the stage's row starts at sobolev_row.data() + row_offset
  std::size_t row_offset = 0;
  DView<std::int32_t, Space> live;
  DView<RepulsiveStepScalars, Space> scalars;
};

/// Steps 4-7 of an iteration, one team per live env over the first n points:
/// Sobolev preconditioning (circular convolution with the stage's row),
/// length-orthogonal projection, normalized barycentre-pinned step (tau times
/// the mean segment length over the largest deviation), hard rescale to the
/// target length with the perimeter of the gradient pass.
template <class Space>
void repulsive_step(const LaunchContext<Space>& ctx, const std::string& label, const StepBuffers<Space>& b,
                    int num_envs, std::size_t stride, int n, float tau) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const auto x = b.curve, grad = b.gradient, lg = b.length_gradient;
  const auto g = b.precond_gradient, a = b.precond_length_gradient;
  const auto perim = b.perimeter, target_length = b.target_length, rows = b.sobolev_row;
  const auto live = b.live;
  const auto scalars = b.scalars;
  const std::size_t S = stride, row_offset = b.row_offset;
  ctx.for_each_team(
      label, num_envs, 0, KOKKOS_LAMBDA(const member_type& team) {
        const std::size_t e = team.league_rank();
        if (live(e) == 0) return;
        const float* he = rows.data() + row_offset;
        Vec2f* xe = x.data() + e * S;
        const Vec2f* gr = grad.data() + e * S;
        const Vec2f* le = lg.data() + e * S;
        Vec2f* ge = g.data() + e * S;
        Vec2f* ae = a.data() + e * S;
        RepulsiveStepScalars& sc = scalars(e);
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
          sc.projection = static_cast<float>(num / kmath::max(den, 1e-12));
        });
        team.team_barrier();
        const float kproj = sc.projection;
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
          sc.mean_gradient = gbar;
          sc.step = tau * msl / gmax;
        });
        team.team_barrier();
        const Vec2f gbar = sc.mean_gradient;
        const float step = sc.step;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { xe[i] -= step * (ge[i] - gbar); });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          double sx = 0.0, sy = 0.0;
          for (int i = 0; i < n; ++i) {
            sx += static_cast<double>(xe[i].x);
            sy += static_cast<double>(xe[i].y);
          }
          sc.barycentre = Vec2f{static_cast<float>(sx / n), static_cast<float>(sy / n)};
          // The hard rescale uses the perimeter of the gradient pass (before the
          // step), for the mean segment length and the current length alike.
          sc.rescale = target_length(e) / kmath::max(perim(e), 1e-9f);
        });
        team.team_barrier();
        const Vec2f bc = sc.barycentre;
        const float f = sc.rescale;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { xe[i] = bc + (xe[i] - bc) * f; });
      });
}

/// Step 9, the stall test, thread per live env: area = |shoelace| / 2 of the
/// first n points, rel = |area - previous| / max(area, 1e-9); an env that
/// reached its target length freezes when rel < tol. Then one thread writes
/// active = any env live, and stop = it + 1 on the 1 -> 0 transition.
template <class Space>
void repulsive_stall(const LaunchContext<Space>& ctx, const std::string& prefix, const RepulsiveState<Space>& state,
                     const DView<double, Space>& previous_area, const DView<std::int32_t, Space>& active,
                     const DView<std::int32_t, Space>& stop, int num_envs, std::size_t stride, int n, int it,
                     float tol) {
  const auto x = state.curve;
  const auto reached = state.reached, live = state.live;
  const std::size_t S = stride;
  ctx.for_each(
      prefix + "stall", static_cast<std::size_t>(num_envs), KOKKOS_LAMBDA(const std::size_t e) {
        if (live(e) == 0) return;
        const double area = 0.5 * kmath::fabs(geom::shoelace2(x.data() + e * S, n));
        const double rel = kmath::fabs(area - previous_area(e)) / kmath::max(area, 1e-9);
        previous_area(e) = area;
        if (reached(e) != 0 && rel < static_cast<double>(tol)) live(e) = 0;
      });
  ctx.for_each(
      prefix + "active", 1, KOKKOS_LAMBDA(const std::size_t) {
        int any = 0;
        for (int e = 0; e < num_envs; ++e) any |= live(e) != 0 ? 1 : 0;
        if (active(0) != 0 && any == 0) stop(0) = it + 1;
        active(0) = any;
      });
}

}  // namespace

template <class Space>
RepulsiveGenerator<Space>::RepulsiveGenerator(const Space& space, const TrackGenConfig& config)
    : Base("repulsive", RepulsiveParams::from_config(config)) {
  allocate_plan(*this, [&](auto&& f) { scratch_plan(p_, f); }, space, this->name_);

  // Sobolev rows of every stage: host inverse DFT, uploaded once.
  std::vector<float> rows;
  for (int n : p_.stages) {
    sobolev_offset_.push_back(static_cast<int>(rows.size()));
    const auto r = sobolev_row(n, static_cast<double>(p_.sobolev_s));
    rows.insert(rows.end(), r.begin(), r.end());
  }
  auto host_rows = Kokkos::create_mirror_view(Kokkos::HostSpace(), sobolev_rows_);
  for (std::size_t i = 0; i < rows.size(); ++i) host_rows(i) = rows[i];
  Kokkos::deep_copy(space, sobolev_rows_, host_rows);
  space.fence();

  // Repulsive perimeters can exceed N_max * spacing (docs/algorithms.md#repulsive).
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
template <class F>
void RepulsiveGenerator<Space>::scratch_plan(const RepulsiveParams& p, F&& f) {
  const std::size_t E = p.num_envs, N = p.num_points, M = p.kp.num_obs;
  std::size_t rows = 0;  // the Sobolev rows: one per stage size
  for (const int n : p.stages) rows += static_cast<std::size_t>(n);
  f("curve", TRACKGEN_MEMBER(state_.curve), E * N);
  f("obstacles", TRACKGEN_MEMBER(state_.obstacles), E * M);
  f("obstacle_mass", TRACKGEN_MEMBER(state_.obstacle_mass), E * M);
  f("initial_length", TRACKGEN_MEMBER(state_.initial_length), E);
  f("target_length", TRACKGEN_MEMBER(state_.target_length), E);
  f("final_length", TRACKGEN_MEMBER(state_.final_length), E);
  f("reached", TRACKGEN_MEMBER(state_.reached), E);
  f("live", TRACKGEN_MEMBER(state_.live), E);
  f("curve_tmp", TRACKGEN_MEMBER(curve_scratch_), E * N);
  f("gradient", TRACKGEN_MEMBER(gradient_), E * N);
  f("length_gradient", TRACKGEN_MEMBER(length_gradient_), E * N);
  f("preconditioned", TRACKGEN_MEMBER(precond_gradient_), E * N);
  f("preconditioned_length", TRACKGEN_MEMBER(precond_length_gradient_), E * N);
  f("previous_area", TRACKGEN_MEMBER(previous_area_), E);
  f("step_scalars", TRACKGEN_MEMBER(step_scalars_), E);
  f("active", TRACKGEN_MEMBER(active_), 1);
  f("stop_iteration", TRACKGEN_MEMBER(stop_iteration_), 1);
  f("arc_cum", TRACKGEN_MEMBER(arc_table_), E * (N + 1));
  f("gradient_scratch", TRACKGEN_MEMBER(grad_scratch_), E, N);
  f("sobolev_rows", TRACKGEN_MEMBER(sobolev_rows_), rows);
}

template <class Space>
std::size_t RepulsiveGenerator<Space>::scratch_bytes(const TrackGenConfig& config) {
  const RepulsiveParams p = RepulsiveParams::from_config(config);
  return plan_bytes<RepulsiveGenerator>([&](auto&& f) { scratch_plan(p, f); });
}

template <class Space>
std::size_t RepulsiveGenerator<Space>::device_bytes() const {
  return plan_device_bytes(*this, [&](auto&& f) { scratch_plan(p_, f); });
}

template <class Space>
void RepulsiveGenerator<Space>::generate(const LaunchContext<Space>& ctx, const IntView& seeds,
                                         const Vec2View& out_centerline, const IntView& out_valid) {
  const auto region = this->begin_generate(ctx, seeds, out_centerline, out_valid);
  repulsive_init(ctx, prefix_ + "init", p_, seeds, state_, previous_area_, active_, stop_iteration_);
  ctx.bounded_loop(
      p_.n_iters, [this](const LaunchContext<Space>& c, int it) { enqueue_iteration(c, it); }, active_, p_.first_check,
      p_.stall_window);
  // Every stage transition lies before the first check (start_i <= n_ratchet <
  // first_check), so the curve is at N here; the final uniform resample of
  // every env (frozen ones included) goes to the output.
  const int N = p_.num_points;
  resample_loops(ctx, prefix_ + "final_resample",
                 LoopResample<Space>{state_.curve, out_centerline, N, N, N, IntView(), /*copy_back=*/false}, arc_table_,
                 p_.num_envs);
  fill_valid(ctx, prefix_, out_valid);
}

template <class Space>
void RepulsiveGenerator<Space>::enqueue_iteration(const LaunchContext<Space>& ctx, int it) const {
  const int E = p_.num_envs, N = p_.num_points;
  // 1. Stage transitions at the precomputed iterations (upsample by ARC).
  const int s_prev = it == 0 ? 0 : p_.stage_at[it - 1], s_cur = p_.stage_at[it];
  for (int s = s_prev + 1; s <= s_cur; ++s) {
    resample_loops(ctx, prefix_ + "upsample",
                   LoopResample<Space>{state_.curve, curve_scratch_, p_.stages[s - 1], p_.stages[s], N, state_.live,
                                       /*copy_back=*/true},
                   arc_table_, E);
  }
  const int n = p_.stages[s_cur];
  // 2. Ratchet (frozen envs skipped: they are reached, so it is a no-op anyway).
  const auto target_length = state_.target_length, final_length = state_.final_length;
  const auto reached = state_.reached, live = state_.live;
  const float growth = p_.growth;
  ctx.for_each(
      prefix_ + "ratchet", static_cast<std::size_t>(E), KOKKOS_LAMBDA(const std::size_t e) {
        if (live(e) == 0) return;
        const float lt = kmath::min(target_length(e) * (1.0f + growth), final_length(e));
        target_length(e) = lt;
        reached(e) = lt >= final_length(e) - 1e-9f ? 1 : 0;
      });
  // 3. Gradient.
  repulsive_gradient(ctx, prefix_, p_.kp, n, state_, grad_scratch_, gradient_, length_gradient_);
  // 4-7. Preconditioning, projection, step, rescale.
  const StepBuffers<Space> step{state_.curve,
                                gradient_,
                                length_gradient_,
                                precond_gradient_,
                                precond_length_gradient_,
                                grad_scratch_.perimeter,
                                state_.target_length,
                                sobolev_rows_,
                                static_cast<std::size_t>(sobolev_offset_[s_cur]),
                                state_.live,
                                step_scalars_};
  repulsive_step(ctx, prefix_ + "step", step, E, static_cast<std::size_t>(N), n, p_.kp.tau);
  // 8. Periodic uniform re-parameterization at the same n. DEVIATION (absorbing
  // freeze): frozen envs are skipped; the original system resamples them too.
  if ((it + 1) % p_.resample_every == 0) {
    resample_loops(ctx, prefix_ + "uniform",
                   LoopResample<Space>{state_.curve, curve_scratch_, n, n, N, state_.live, /*copy_back=*/true},
                   arc_table_, E);
  }
  // 9. Stall test on the final stage, then the active flag for the next window.
  if (p_.stall_at(it)) {
    repulsive_stall(ctx, prefix_, state_, previous_area_, active_, stop_iteration_, E, static_cast<std::size_t>(N), n,
                    it, p_.stall_tol);
  }
}

#define TRACKGEN_INSTANTIATE_REPULSIVE(S) template class RepulsiveGenerator<S>;
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_REPULSIVE)

}  // namespace trackgen::detail
