// libFuzzer target: the generate path on small random configs. The input
// bytes choose a TrackGenConfig (or a GateGenConfig) of one to four envs
// around the edges that size the stages' buffers and index them (point
// counts and strides from their smallest, spacings and half-widths over six
// decades, bands, cache slots, sweep schedules, elevation knots, corner and
// knot counts), and the producer of the Serial backend runs it: its
// constructor runs the whole pipeline once. The contract checked, besides
// what ASan and UBSan catch (an access outside the buffers above all):
//   - a config validate() refuses ends in a ConfigError (any other exception
//     is a finding);
//   - a config it accepts builds and runs without an exception, and every
//     env's count stays within its stride.
#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace {

using Space = Kokkos::Serial;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_generate: %s\n", what.c_str());
  std::abort();
}

/// A float spread over [lo, hi] on a log scale.
float log_uniform(FuzzedDataProvider& in, double lo, double hi) {
  const double t = in.ConsumeProbability<double>();
  return static_cast<float>(lo * std::pow(hi / lo, t));
}

/// One of `values`.
template <class T>
T pick(FuzzedDataProvider& in, std::initializer_list<const T> values) {
  return in.PickValueInArray(values);
}

/// A TrackGenConfig of 1 to 4 envs drawn from `in`.
trackgen::TrackGenConfig track_config(FuzzedDataProvider& in) {
  trackgen::TrackGenConfig c;
  c.generator = pick<const char*>(in, {"bezier", "hull", "polar", "voronoi", "checkpoint", "repulsive"});
  c.num_envs = in.ConsumeIntegralInRange(1, 4);
  const bool repulsive = c.generator == "repulsive";
  c.num_points = repulsive ? 4 * in.ConsumeIntegralInRange(1, 24) : in.ConsumeIntegralInRange(4, 600);
  if (repulsive) {
    c.repulsive_stages = {c.num_points};
    c.repulsive_grow_mult_min = 1.0f;
    c.repulsive_grow_mult_max = 1.0f + log_uniform(in, 1e-3, 1.0);
    c.repulsive_ratchet_rate = log_uniform(in, 0.01, 1.0);
    c.repulsive_settle_iters = in.ConsumeIntegralInRange(1, 8);
    c.repulsive_obstacle_count_min = in.ConsumeIntegralInRange(1, 6);
    c.repulsive_obstacle_count_max = c.repulsive_obstacle_count_min + in.ConsumeIntegralInRange(0, 6);
  }
  c.N_max = in.ConsumeBool() ? in.ConsumeIntegralInRange(3, 70) : in.ConsumeIntegralInRange(3, 1200);
  c.half_width = log_uniform(in, 1e-3, 2.0);
  if (in.ConsumeBool()) c.spacing = log_uniform(in, 1e-5, 3.0);
  c.min_num_points = in.ConsumeIntegralInRange(2, 40);
  c.max_num_points = c.min_num_points + in.ConsumeIntegralInRange(0, 40);
  c.num_points_per_segment = in.ConsumeIntegralInRange(2, 64);
  c.min_point_distance = log_uniform(in, 1e-4, 0.5);
  c.polar_num_knots = in.ConsumeIntegralInRange(1, 64);
  c.voronoi_control_points = in.ConsumeIntegralInRange(6, 64);
  c.voronoi_num_sites = c.voronoi_control_points + in.ConsumeIntegralInRange(0, 256);
  c.checkpoint_count = in.ConsumeIntegralInRange(3, 64);
  c.checkpoint_best_of_k = in.ConsumeIntegralInRange(1, 8);
  c.checkpoint_clip_fallback = in.ConsumeBool();
  c.validity_border_check = in.ConsumeBool();
  c.relax_enable = in.ConsumeIntegralInRange(0, 7) != 0;
  if (in.ConsumeBool())
    c.relax_band = in.ConsumeBool() ? in.ConsumeIntegralInRange(1, 40) : in.ConsumeIntegralInRange(1, 16384);
  c.relax_iters = in.ConsumeIntegralInRange(0, 60);
  c.relax_accel = in.ConsumeBool() ? trackgen::RelaxAccel::chebyshev : trackgen::RelaxAccel::none;
  c.relax_cheby_start = in.ConsumeIntegralInRange(1, 70);
  c.relax_smooth_passes = in.ConsumeIntegralInRange(0, 6);
  c.relax_smooth_spacing_iters = in.ConsumeIntegralInRange(0, 12);
  c.relax_sep_every = in.ConsumeIntegralInRange(1, 30);
  c.relax_sep_cache_slots = pick<int>(in, {0, 1, 2, 3, 5, 16, 40, 1024});
  c.relax_sep_cache_skin = log_uniform(in, 1e-3, 4.0);
  c.relax_margin = static_cast<float>(in.ConsumeFloatingPointInRange(-2.0, 2.0));
  c.z_profile = pick<trackgen::ZProfile>(in, {trackgen::ZProfile::flat, trackgen::ZProfile::uniform,
                                              trackgen::ZProfile::random_walk, trackgen::ZProfile::noise});
  c.z_max = c.z_profile == trackgen::ZProfile::flat ? 0.0f : log_uniform(in, 1e-3, 10.0);
  c.z_max_step = log_uniform(in, 1e-3, 10.0);
  c.z_noise_amplitude = log_uniform(in, 1e-3, 1.0);
  c.z_noise_harmonics = in.ConsumeIntegralInRange(1, 16);
  c.z_control_points = in.ConsumeIntegralInRange(3, 64);
  return c;
}

/// A GateGenConfig of 1 to 4 envs drawn from `in`.
trackgen::GateGenConfig gate_config(FuzzedDataProvider& in) {
  trackgen::GateGenConfig c;
  c.generator = pick<const char*>(in, {"bezier", "hull", "polar", "voronoi", "checkpoint"});
  c.num_envs = in.ConsumeIntegralInRange(1, 4);
  c.min_gates = in.ConsumeIntegralInRange(2, 12);
  c.max_gates = c.min_gates + in.ConsumeIntegralInRange(0, 120);
  c.gate_radius = log_uniform(in, 1e-4, 1.0);
  c.gate_solve_iters = in.ConsumeIntegralInRange(0, 12);
  c.gate_width = in.ConsumeBool() ? 0.0f : log_uniform(in, 1e-3, 1.0);
  c.min_num_points = in.ConsumeIntegralInRange(2, 40);
  c.max_num_points = c.min_num_points + in.ConsumeIntegralInRange(0, 40);
  c.polar_num_knots = in.ConsumeIntegralInRange(1, 64);
  c.voronoi_control_points = in.ConsumeIntegralInRange(3, 64);
  c.voronoi_num_sites = c.voronoi_control_points + in.ConsumeIntegralInRange(0, 256);
  c.checkpoint_count = in.ConsumeIntegralInRange(3, 64);
  return c;
}

/// Runs `make` (which builds a producer and runs it) and checks the contract.
template <class Make>
void run(const char* what, Make make) {
  try {
    make();
  } catch (const trackgen::ConfigError&) {
    return;  // refused, naming the field: the documented way
  } catch (const std::exception& e) {
    finding(std::string(what) + ": an exception other than ConfigError: " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::initialize();
  std::atexit([] { Kokkos::finalize(); });
  // Random configs draw the producers' warnings (truncated tracks, ...) by the
  // thousand; they are expected, and would bury a finding in the log.
  trackgen::logging::set_level("error");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeIntegralInRange(0, 3) != 0) {
    const trackgen::TrackGenConfig c = track_config(in);
    run("TrackGenerator", [&] {
      trackgen::TrackGenerator<Space> gen(c,
                                          trackgen::SeedState<Space>(c.num_envs, in.ConsumeIntegral<std::int16_t>()));
      const auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gen.track().count);
      for (int e = 0; e < c.num_envs; ++e) {
        if (count(e) < 0 || count(e) > c.N_max) finding("a track's count is outside [0, N_max]");
      }
    });
  } else {
    const trackgen::GateGenConfig c = gate_config(in);
    run("GateGenerator", [&] {
      trackgen::GateGenerator<Space> gen(c, trackgen::SeedState<Space>(c.num_envs, in.ConsumeIntegral<std::int16_t>()));
      const auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gen.gates().count);
      for (int e = 0; e < c.num_envs; ++e) {
        if (count(e) < 0 || count(e) > c.max_gates) finding("a course's gate count is outside [0, max_gates]");
      }
    });
  }
  return 0;
}
