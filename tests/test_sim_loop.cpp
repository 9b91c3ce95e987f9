// The simulation loop of apps/sim_loop.hpp (the `trackgen drive` loop) at a
// small size: cars finish a lap before any collision on at least 90% of the
// envs, which needs checkpoints, progress, localization, the speed profile and
// collision to agree; and the run is the same on every backend.
#include "support.hpp"

#include <sim_loop.hpp>

namespace {

sim::Settings small_run() {
  sim::Settings s;
  s.envs = 96;
  s.seed = 7;
  return s;
}

constexpr int kSteps = 1000;

}  // namespace

TEMPLATE_TEST_CASE("sim loop: at least 90% of the envs lap before any collision", "[runtime][sim_loop]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  sim::SimLoop<Space> loop(Space(), small_run());
  const sim::Stats st = loop.run(kSteps);
  INFO("laps " << st.laps << ", collisions " << st.collisions << ", timeouts " << st.timeouts << ", raced "
               << st.raced << ", lapped first " << st.lapped_first);
  CHECK(st.raced == small_run().envs);
  CHECK(st.lap_fraction() >= 0.9);
  CHECK(st.regenerations >= st.episodes());
  CHECK(st.env_steps == static_cast<long long>(kSteps) * small_run().envs);
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("sim loop: Serial and OpenMP give the same run", "[runtime][sim_loop]") {
  const auto run = [](auto space) {
    sim::SimLoop<decltype(space)> loop(space, small_run());
    loop.run(300);
    return std::make_pair(loop.stats(), trackgen::test::to_vector(loop.cars().position));
  };
  const auto [a, pa] = run(Kokkos::Serial());
  const auto [b, pb] = run(Kokkos::OpenMP());
  CHECK(a.laps == b.laps);
  CHECK(a.collisions == b.collisions);
  CHECK(a.regenerations == b.regenerations);
  CHECK(a.reward == b.reward);
  CHECK(trackgen::test::bitwise_equal(pa, pb));
}
#endif
