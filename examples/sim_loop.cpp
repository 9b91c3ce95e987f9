// A simulation loop on trackgen::Course: E cars race their own generated
// tracks; finished envs get a new track every step (see apps/sim_loop.hpp,
// the loop `trackgen drive` runs).
//
//   sim_loop [ENVS [STEPS]]     (default 128 envs, 700 steps)
#include "sim_loop.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);  // the application owns the Kokkos runtime
  sim::Settings settings;
  settings.envs = argc > 1 ? std::atoi(argv[1]) : 128;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 700;
  if (settings.envs < 1 || steps < 1) {
    std::fprintf(stderr, "usage: sim_loop [ENVS [STEPS]] (both >= 1)\n");
    return 2;
  }

  sim::SimLoop<> loop(Kokkos::DefaultExecutionSpace(), settings);  // generates every env's first track
  const sim::Stats st = loop.run(steps);

  std::printf("%d envs x %d steps on %s: %.0f env-steps/s\n", settings.envs, steps,
              Kokkos::DefaultExecutionSpace::name(), st.env_steps_per_s());
  std::printf("episodes %d: %d laps, %d collisions, %d timeouts; %d regenerations\n", st.episodes(), st.laps,
              st.collisions, st.timeouts, st.regenerations);
  std::printf("mean reward per env-step %.4f\n", st.reward / double(st.env_steps));
  std::printf("lap before any collision: %d of %d envs (%.3f)\n", st.lapped_first, st.raced, st.lap_fraction());
  return st.laps > 0 ? 0 : 1;
}
