// The repulsive generator (docs/algorithms.md#repulsive) as a BOUNDED stage: schedule
// and Sobolev rows, the analytic gradient against double finite differences,
// the three bounded_loop lowerings, cross-backend and rerun determinism, the
// freeze diagnostic, and its quality thresholds.
#include "repulsive_oracle.hpp"
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/exec/check_stage.hpp>
#include <trackgen/generators/detail/repulsive.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <random>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;
namespace td = trackgen::detail;

/// A small repulsive config (the sizes of the original system's shape-variety test).
trackgen::TrackGenConfig small_config(int num_envs) {
  trackgen::TrackGenConfig c;
  c.generator = "repulsive";
  c.num_envs = num_envs;
  c.num_points = 64;
  c.repulsive_stages = {16, 32, 64};
  return c;
}

std::vector<std::int32_t> seed_range(int n, std::int32_t first) {
  std::vector<std::int32_t> s(static_cast<std::size_t>(n));
  std::iota(s.begin(), s.end(), first);
  return s;
}

/// A repulsive generator and its buffers.
template <class Space>
struct RepHarness {
  trackgen::TrackGenConfig config;
  td::RepulsiveGenerator<Space> gen;
  trackgen::DView<std::int32_t, Space> seeds;
  trackgen::DView<Vec2f, Space> out;
  trackgen::DView<std::int32_t, Space> valid;

  RepHarness(const trackgen::TrackGenConfig& c, const std::vector<std::int32_t>& s)
      : config(c),
        gen(Space(), c),
        seeds(tt::to_device<Space>(s, "rep_seeds")),
        out("rep_out", std::size_t(c.num_envs) * c.num_points),
        valid("rep_valid", std::size_t(c.num_envs)) {}

  std::vector<Vec2f> run(const trackgen::LaunchContext<Space>& ctx = trackgen::LaunchContext<Space>()) {
    gen.generate(ctx, seeds, out, valid);
    ctx.space().fence();
    return tt::to_vector(out);
  }
  int stop_iteration() const { return tt::to_vector(gen.stop_iteration())[0]; }
};

/// Launches the gradient kernel on one env's curve (named free function).
template <class Space>
std::vector<Vec2f> device_gradient(const td::RepulsiveKernelParams& kp, const std::vector<Vec2f>& curve,
                                   const tt::RepulsiveEnvState& env) {
  const int n = static_cast<int>(curve.size());
  auto x = tt::to_device<Space>(curve, "g_x");
  auto obs = tt::to_device<Space>(env.obs, "g_obs");
  auto mass = tt::to_device<Space>(env.mass, "g_mass");
  auto lt = tt::to_device<Space>(std::vector<float>{env.target_length}, "g_lt");
  auto li = tt::to_device<Space>(std::vector<float>{env.initial_length}, "g_li");
  auto re = tt::to_device<Space>(std::vector<std::int32_t>{env.reached ? 1 : 0}, "g_re");
  auto live = tt::to_device<Space>(std::vector<std::int32_t>{1}, "g_live");
  td::RepulsiveGradScratch<Space> scratch(Space(), 1, n);
  trackgen::DView<Vec2f, Space> grad("g_grad", n), lg("g_lg", n);
  trackgen::LaunchContext<Space> ctx;
  td::RepulsiveState<Space> state;
  state.curve = x;
  state.obstacles = obs;
  state.obstacle_mass = mass;
  state.initial_length = li;
  state.target_length = lt;
  state.reached = re;
  state.live = live;
  td::repulsive_gradient(ctx, "test::", kp, n, state, scratch, grad, lg);
  ctx.fence();
  return tt::to_vector(grad);
}

}  // namespace

TEST_CASE("repulsive: derived scalars and schedule at defaults", "[generators][repulsive]") {
  trackgen::TrackGenConfig c;
  c.generator = "repulsive";
  c.num_envs = 4;
  const auto p = td::RepulsiveParams::from_config(c);
  CHECK(p.n_ratchet == 143);
  CHECK(p.n_iters == 269);
  CHECK(p.stage_start == std::vector<int>{0, 59, 117});
  CHECK(p.kp.num_obs == 96 + 12 * 12);
  CHECK(p.first_check == 128);  // after the first stall test (it = 127) of the final stage
  CHECK(p.stall_at(127));
  CHECK_FALSE(p.stall_at(111));  // not the final stage yet
  CHECK(p.kp.fast);
  CHECK(p.r_dom == Approx(1.716).epsilon(1e-3));
  CHECK(p.r_init == Approx(0.429).epsilon(1e-3));
  CHECK(p.sobolev_s == Approx(5.0 / 6.0));

  // A last stage != num_points is refused by the config's own rule (the one
  // place it is stated; the generator resolves validated configs only).
  c.num_points = 128;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("TrackGenConfig.repulsive_stages") &&
                                      Catch::Contains("ending in num_points (128)"));
}

TEST_CASE("repulsive: Sobolev rows are the inverse DFT of the symbol", "[generators][repulsive]") {
  const double s = 5.0 / 6.0;
  for (int n : {16, 64, 256}) {
    const auto h = td::sobolev_row(n, s);
    REQUIRE(h.size() == std::size_t(n));
    for (int k : {0, 1, 3, n / 4, n / 2}) {
      double re = 0.0, im = 0.0;
      for (int j = 0; j < n; ++j) {
        re += h[j] * std::cos(2.0 * trackgen::geom::pi_d * k * j / n);
        im += h[j] * std::sin(2.0 * trackgen::geom::pi_d * k * j / n);
      }
      const double lam = 2.0 - 2.0 * std::cos(2.0 * trackgen::geom::pi_d * k / n);
      const double H = 1.0 / (std::pow(std::max(lam, 0.0), s) + 1e-3);
      INFO("n " << n << " k " << k);
      CHECK(re == Approx(H).epsilon(1e-4));
      CHECK(std::fabs(im) < 1e-3 * H);
    }
  }
}

TEMPLATE_TEST_CASE("repulsive: per-env obstacles and target length follow the salts", "[generators][repulsive]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto c = small_config(8);
  RepHarness<Space> h(c, seed_range(8, 11));
  h.run();
  const auto& p = h.gen.params();
  const auto mass = tt::to_vector(h.gen.obstacle_mass());
  const auto li = tt::to_vector(h.gen.initial_length());
  const auto lf = tt::to_vector(h.gen.final_length());
  const int M = p.kp.num_obs;
  for (int e = 0; e < 8; ++e) {
    std::uint32_t st = trackgen::stream(11 + e, trackgen::salt::repulsive_obstacles);
    const int k = trackgen::randi(st, p.count_min, p.count_max + 1);
    int discs = 0;
    for (int j = 0; j < p.count_max; ++j) discs += mass[e * M + 96 + 12 * j] > 0.0f ? 1 : 0;
    CHECK(discs <= k);
    for (int j = k; j < p.count_max; ++j) CHECK(mass[e * M + 96 + 12 * j] == 0.0f);
    std::uint32_t sg = trackgen::stream(11 + e, trackgen::salt::repulsive_growth);
    const float g = p.grow_lo + (p.grow_hi - p.grow_lo) * trackgen::randf(sg);
    CHECK(lf[e] == g * li[e]);
    CHECK(li[e] == Approx(2.0 * trackgen::geom::pi_d * p.r_init));
  }
}

TEMPLATE_TEST_CASE("repulsive: analytic gradient matches double finite differences", "[generators][repulsive]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Obstacles of a real env (seed 11).
  auto c = small_config(1);
  RepHarness<Space> h(c, {11});
  h.run();
  const auto& p = h.gen.params();
  tt::RepulsiveEnvState env;
  env.obs = tt::to_vector(h.gen.obstacles());
  env.mass = tt::to_vector(h.gen.obstacle_mass());
  env.initial_length = tt::to_vector(h.gen.initial_length())[0];
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> jitter(-0.03f, 0.03f);
  for (int n : {16, 24, 32}) {
    for (int reached = 0; reached < 2; ++reached) {
      std::vector<Vec2f> curve(n);
      for (int i = 0; i < n; ++i) {
        const float a = 2.0f * trackgen::geom::pi_f * i / n;
        curve[i] = Vec2f{p.r_init * std::cos(a) + jitter(rng), p.r_init * std::sin(a) + jitter(rng)};
      }
      env.reached = reached != 0;
      env.target_length = 1.3f * env.initial_length;  // a live length term
      const auto g = device_gradient<Space>(p.kp, curve, env);
      std::vector<double> x(2 * n);
      for (int i = 0; i < n; ++i) {
        x[2 * i] = curve[i].x;
        x[2 * i + 1] = curve[i].y;
      }
      double num = 0.0, den = 0.0;
      const double step = 1e-6;
      for (int k = 0; k < 2 * n; ++k) {
        auto xp = x, xm = x;
        xp[k] += step;
        xm[k] -= step;
        const double fd =
            (tt::repulsive_energy(p.kp, xp, n, env) - tt::repulsive_energy(p.kp, xm, n, env)) / (2 * step);
        const double an = (k % 2 == 0) ? g[k / 2].x : g[k / 2].y;
        num += (an - fd) * (an - fd);
        den += fd * fd;
      }
      const double rel = std::sqrt(num / den);
      INFO("n " << n << " reached " << reached << " relative error " << rel);
      CHECK(rel < 3e-3);
    }
  }
}

TEMPLATE_TEST_CASE("repulsive: the three bounded_loop lowerings are bitwise identical", "[generators][repulsive]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  if constexpr (trackgen::host_accessible_v<Space>) {
    auto c = small_config(8);
    RepHarness<Space> h(c, seed_range(8, 11));
    // The polled eager run must actually stop early for the check to mean something.
    h.run();
    const int stop = h.stop_iteration();
    INFO("all envs frozen after " << stop << " of " << h.gen.params().n_iters << " iterations");
    CHECK(stop > 0);
    CHECK(stop < h.gen.params().n_iters);

    trackgen::Stage<Space> stage;
    stage.id = "repulsive";
    stage.capture = trackgen::get_generator<Space>("repulsive").capture;
    REQUIRE(stage.capture == trackgen::CaptureClass::BOUNDED);
    stage.reads = {trackgen::buffer("seeds", h.seeds)};
    stage.writes = {
        trackgen::buffer("centerline", h.out),          trackgen::buffer("valid", h.valid),
        trackgen::buffer("curve", h.gen.curve()),       trackgen::buffer("live", h.gen.live()),
        trackgen::buffer("target_length", h.gen.target_length()), trackgen::buffer("stop_iteration", h.gen.stop_iteration()),
        trackgen::buffer("active", h.gen.active())};
    auto* gen = &h.gen;
    auto seeds = h.seeds;
    auto out = h.out;
    auto valid = h.valid;
    stage.enqueue = [gen, seeds, out, valid](const trackgen::LaunchContext<Space>& ctx) {
      gen->generate(ctx, seeds, out, valid);
    };
    auto reset = [&] {
      Kokkos::deep_copy(h.out, Vec2f{0.0f, 0.0f});
      Kokkos::deep_copy(h.valid, 0);
      Kokkos::deep_copy(h.gen.curve(), Vec2f{0.0f, 0.0f});
    };
    const auto report = trackgen::check_stage(stage, reset);
    for (const auto& m : report.problems) UNSCOPED_INFO(m);
    CHECK(report.ok);
  }
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("repulsive: Serial and OpenMP bitwise identical, reruns identical - Kokkos::OpenMP",
          "[generators][repulsive]") {
  auto c = small_config(6);
  const auto seeds = seed_range(6, 11);
  RepHarness<Kokkos::OpenMP> omp(c, seeds);
  const auto a = omp.run();
  const auto b = omp.run();
  CHECK(tt::bitwise_equal(a, b));
  RepHarness<Kokkos::Serial> ser(c, seeds);
  const auto s = ser.run();
  CHECK(tt::bitwise_equal(a, s));
  CHECK(omp.stop_iteration() == ser.stop_iteration());
  for (const auto& p : a) REQUIRE((std::isfinite(p.x) && std::isfinite(p.y)));
}
#endif

TEMPLATE_TEST_CASE("repulsive: registered as a capturable BOUNDED built-in", "[generators][repulsive]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto& spec = trackgen::get_generator<Space>("repulsive");
  CHECK(spec.capturable());
  CHECK(spec.capture == trackgen::CaptureClass::BOUNDED);
  const auto names = trackgen::builtin_generator_names();
  CHECK(std::count(names.begin(), names.end(), "repulsive") == 1);
}

// The original system's repulsive test: E=64, base seed 11, defaults: >= 58/64
// valid; median compactness of valid tracks well below a circle's (there
// ~0.15; asserted < 0.25 here). Default space only (slow).
TEST_CASE("repulsive: quality thresholds (E=64, seed 11)", "[generators][repulsive][slow]") {
  using Space = Kokkos::DefaultExecutionSpace;
  trackgen::TrackGenConfig cfg;
  cfg.generator = "repulsive";
  cfg.num_envs = 64;
  trackgen::SeedState<Space> seeds(cfg.num_envs, 11);
  trackgen::TrackGenerator<Space> tg(cfg, seeds);
  tg.generate();
  const auto stats = trackgen::batch_stats(tg);
  INFO("valid " << stats.num_valid << "/64, median compactness " << stats.compactness_p50 << ", mean length "
                << stats.mean_length);
  CHECK(stats.num_valid >= 58);
  CHECK(stats.compactness_p50 < 0.25);
}

// Measurement (hidden; run with "[.measure]" and TRACKGEN_REP_ENVS=E): wall and
// CPU time per batch of the generator alone (defaults, seeds 11..) and the
// iteration at which every env had frozen.
TEMPLATE_TEST_CASE("repulsive: measure time per batch and freeze iteration", "[.measure]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const char* env_e = std::getenv("TRACKGEN_REP_ENVS");
  const int E = env_e ? std::atoi(env_e) : 64;
  trackgen::TrackGenConfig c;
  c.generator = "repulsive";
  c.num_envs = E;
  RepHarness<Space> h(c, seed_range(E, 11));
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  h.run();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN(Space::name() << " E=" << E << ": " << wall << " s wall, " << cpu << " s CPU per batch; all envs frozen after "
                     << h.stop_iteration() << " of " << h.gen.params().n_iters << " iterations");
}
