// `trackgen drive`: the simulation loop of sim_loop.hpp (cars racing
// a Course with pure pursuit at the speed profile; finished envs regenerated
// every step) for --envs E x --steps T, on any backend. Prints env-steps per
// second, laps, collisions and regenerations, or one JSON object (--json);
// --svg FILE draws the first envs' tracks with their cars' first-episode paths.
#include "app.hpp"
#include "progress.hpp"

#include <CLI/CLI.hpp>

#include "sim_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>

namespace trackgen::app {
namespace {

struct DriveOptions {
  int envs = 4096;
  int steps = 3000;
  int seed = 0;
  std::string generator = "bezier";
  std::string backend;
  bool json = false;
  std::string svg;
  int traced = 6;  // envs drawn by --svg
};

/// Positions of the first `k` cars after every step while they are in their
/// first episode (NaN afterwards): [steps * k], written on the device.
template <class Space>
struct Trace {
  DView<Vec3f, Space> points;
  int k;
  Trace(const Space& space, int steps, int k_envs)
      : points(Kokkos::view_alloc(space, std::string("drive::trace")), std::size_t(steps) * k_envs), k(k_envs) {}

  void record(const Space& space, const sim::Cars<Space>& cars, int step) const {
    auto out = points;
    const int n = k;
    Kokkos::parallel_for(
        "drive::trace", Kokkos::RangePolicy<Space>(space, 0, n), KOKKOS_LAMBDA(const int e) {
          out(std::size_t(step) * n + e) = cars.episodes(e) == 0 ? cars.position(e) : nan3();
        });
  }
};

/// The first `k` envs' tracks and paths as an SVG.
template <class Space>
std::string paths_svg(const TrackGenConfig& config, const Track<Kokkos::HostSpace>& first_tracks,
                      const Trace<Space>& trace, int steps, int seed) {
  const auto pts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), trace.points);
  std::vector<std::vector<Vec3f>> paths(static_cast<std::size_t>(trace.k));
  for (int t = 0; t < steps; ++t) {
    for (int e = 0; e < trace.k; ++e) paths[e].push_back(pts(std::size_t(t) * trace.k + e));
  }
  Batch b{config, Space::name(), {}, first_tracks};
  for (int e = 0; e < trace.k; ++e) b.seeds.push_back(expand_seed(seed, e, SeedExpansion::arange));
  return batch_svg(b, &paths);
}

/// Host copy of the first `k` envs of `track` (only theirs is copied).
template <class M>
Track<Kokkos::HostSpace> first_envs(const Track<M>& track, int k) {
  Track<Kokkos::HostSpace> t(k, track.n_max());
  const std::size_t points = std::size_t(k) * track.n_max(), envs = std::size_t(k);
  const auto copy = [](const auto& to, const auto& from, std::size_t n) {
    Kokkos::deep_copy(to, Kokkos::subview(from, std::make_pair(std::size_t(0), n)));
  };
  copy(t.outer, track.outer, points), copy(t.center, track.center, points), copy(t.inner, track.inner, points);
  copy(t.tangent, track.tangent, points), copy(t.arclen, track.arclen, points);
  copy(t.length, track.length, envs), copy(t.valid, track.valid, envs), copy(t.count, track.count, envs);
  copy(t.winding, track.winding, envs);
  return t;
}

/// Bytes a drive run holds: its Course and cars, and with --svg the trace of
/// the first `k` cars (on the device, its host copy and the paths), their
/// tracks' host copy and the SVG text (about 20 characters a point).
template <class Space>
std::size_t drive_bytes(const sim::Settings& settings, int steps, int k) {
  const CourseConfig course = sim::course_config(settings);
  const std::size_t trace = std::size_t(steps) * std::size_t(k);
  return estimate_course_memory<Space>(course) + sim::Cars<Space>::bytes_for(settings.envs) +
         (k > 0 ? trace * (3 * sizeof(Vec3f) + 20) + json_writer_bytes(k, course.gen.N_max) : 0);
}

template <class Space>
void run_drive(const DriveOptions& o) {
  sim::Settings settings;
  settings.envs = o.envs;
  settings.seed = o.seed;
  settings.generator = o.generator;
  const int k = o.svg.empty() ? 0 : std::min(o.traced, o.envs);
  check_run_memory("trackgen drive", o.envs, "--envs", [&](int e) {
    sim::Settings s = settings;
    s.envs = e;
    return drive_bytes<Space>(s, o.steps, std::min(k, e));
  });
  const Space space;
  sim::SimLoop<Space> loop(space, settings);
  const Trace<Space> trace(space, k > 0 ? o.steps : 0, k);
  const auto tracks = k > 0 ? first_envs(loop.course().track(), k) : Track<Kokkos::HostSpace>();

  space.fence();
  const auto t0 = std::chrono::steady_clock::now();
  Progress progress("drive", o.steps, "steps");
  for (int t = 0; t < o.steps; ++t) {
    loop.step();
    if (!o.svg.empty()) trace.record(space, loop.cars(), t);
    progress.advance();
  }
  space.fence();
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sim::Stats st = loop.stats();
  st.seconds = seconds;

  if (!o.svg.empty()) {
    write_file(o.svg, paths_svg(loop.course().generator().config(), tracks, trace, o.steps, o.seed));
  }
  if (o.json) {
    const nlohmann::json j{{"envs", o.envs},
                           {"steps", o.steps},
                           {"env_steps_per_s", st.env_steps_per_s()},
                           {"lap_fraction", st.lap_fraction()},
                           {"collision_rate", st.collision_rate()},
                           {"regenerations", st.regenerations},
                           {"laps", st.laps},
                           {"collisions", st.collisions},
                           {"timeouts", st.timeouts},
                           {"raced_envs", st.raced},
                           {"seconds", seconds},
                           {"generator", o.generator},
                           {"seed", o.seed},
                           {"backend", Space::name()},
                           {"concurrency", compat::concurrency(space)}};
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf("trackgen drive: %s, E=%d, %d steps, seed %d, %s (concurrency %d)\n", o.generator.c_str(), o.envs,
              o.steps, o.seed, Space::name(), compat::concurrency(space));
  std::printf("  env-steps/s     %.0f (%.2f s)\n", st.env_steps_per_s(), seconds);
  std::printf("  lap fraction    %.4f (%d of %d envs lapped before any collision)\n", st.lap_fraction(),
              st.lapped_first, st.raced);
  std::printf("  episodes        %d: %d laps, %d collisions (rate %.4f), %d timeouts\n", st.episodes(), st.laps,
              st.collisions, st.collision_rate(), st.timeouts);
  std::printf("  regenerations   %d\n", st.regenerations);
  if (!o.svg.empty()) std::printf("  wrote           %s\n", o.svg.c_str());
}

}  // namespace

Command add_drive_command(CLI::App& app) {
  auto o = std::make_shared<DriveOptions>();
  CLI::App* cmd = app.add_subcommand(
      "drive", "race cars on a Course: pure pursuit at the speed profile, new tracks for finished envs every step");
  cmd->add_option("--envs", o->envs, "environments E (default: 4096)")
      ->check(int_in(1, std::numeric_limits<int>::max()));
  cmd->add_option("--steps", o->steps, "simulation steps T (default: 3000)")
      ->check(int_in(1, std::numeric_limits<int>::max()));
  cmd->add_option("--seed", o->seed, "base seed k; env e starts on track k + e (default: 0)")
      ->check(int_in(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  cmd->add_option("--generator", o->generator,
                  "centerline generator: " + comma_list(generator_names()) + " (default: bezier)");
  cmd->add_option("--backend", o->backend,
                  backend_help());
  cmd->add_flag("--json", o->json,
                "print one JSON object: envs, steps, env_steps_per_s, lap_fraction (envs whose car lapped before any "
                "collision / envs that raced a valid track), collision_rate (collisions / finished episodes), "
                "regenerations, and more");
  add_quiet_option(*cmd);
  CLI::Option* svg =
      cmd->add_option("--svg", o->svg, "draw the first 6 envs' tracks and their cars' first-episode paths into FILE");
  return {cmd, [o, svg] {
            if (svg->count() > 0) check_output_file(o->svg, "--svg");
            with_backend(o->backend, [&]<class Space>() { run_drive<Space>(*o); });
          }};
}

}  // namespace trackgen::app
