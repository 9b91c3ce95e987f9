// Property test of the validity promise: every track flagged valid has a simple
// centre line, simple outer and inner borders, borders that do not fold back,
// every border point at hw from its own centre point, and borders that keep
// (1 - relax_tol) hw from the centre line (where the centre line between two
// points may be the chord or the arc through their neighbours). The geometry is
// re-checked on the host in double by track_properties.hpp, which shares no code
// with the library's validity.
//
// The sweep: 6 half-widths (0.01 .. 0.06) x the 5 static generators x 4 settings
// (resolution, spacing, N_max, elevation), TRACKGEN_PROPERTY_ENVS envs each
// (default 168: 20,160 tracks) on the default execution space; every enabled
// backend runs the same sweep with 1/32 of the envs. Set TRACKGEN_PROPERTY_ENVS
// to shrink the sweep (sanitizer and debug builds), or skip it with ~[property].
#include "test_pipeline_support.hpp"
#include "track_properties.hpp"

#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/trackgen.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace tt = trackgen::test;
namespace props = trackgen::test::props;
using trackgen::TrackGenConfig;

/// Envs per configuration of the full sweep (TRACKGEN_PROPERTY_ENVS, default 168).
int sweep_envs() {
  const char* v = std::getenv("TRACKGEN_PROPERTY_ENVS");
  const int n = v != nullptr ? std::atoi(v) : 168;
  return n > 0 ? n : 168;
}

/// The sweep's configurations, `envs` envs each.
std::vector<TrackGenConfig> sweep_configs(int envs) {
  std::vector<TrackGenConfig> out;
  for (const float hw : {0.01f, 0.015f, 0.02f, 0.03f, 0.045f, 0.06f}) {
    for (const char* g : {"bezier", "polar", "hull", "voronoi", "checkpoint"}) {
      for (int setting = 0; setting < 4; ++setting) {
        TrackGenConfig c;
        c.generator = g;
        c.num_envs = envs;
        c.half_width = hw;
        switch (setting) {
          case 0:  // the defaults (narrow tracks are truncated at N_max 384)
            break;
          case 1:  // a random-walk elevation profile
            c.z_profile = trackgen::ZProfile::random_walk;
            c.z_min = -0.3f;
            c.z_max = 0.4f;
            c.z_max_step = 0.3f;
            c.z_control_points = 8;
            break;
          case 2:  // coarse: fewer generator points, wide spacing, noise elevation
            c.num_points = 128;
            c.spacing = 0.9f * hw;
            c.z_profile = trackgen::ZProfile::noise;
            c.z_base = 0.1f;
            c.z_min = -0.3f;  // noise is clamped to [z_min, z_max]
            c.z_max = 0.4f;
            c.z_noise_amplitude = 0.25f;
            c.z_noise_harmonics = 4;
            break;
          default:  // fine: more generator points, narrow spacing, room for long tracks
            c.num_points = 512;
            c.spacing = 0.45f * hw;
            c.N_max = 768;
            break;
        }
        out.push_back(c);
      }
    }
  }
  return out;
}

std::vector<props::P> loop_of(const std::vector<trackgen::Vec3f>& v, const tt::HostTrack& h, int e) {
  std::vector<props::P> p;
  for (int i = 0; i < h.count[e]; ++i) p.push_back({v[h.at(e, i)].x, v[h.at(e, i)].y});
  return p;
}

/// What is wrong with env e (empty when it keeps the promise).
std::string broken_promise(const tt::HostTrack& h, int e, const TrackGenConfig& c) {
  const double hw = c.half_width;
  const auto center = loop_of(h.center, h, e), outer = loop_of(h.outer, h, e), inner = loop_of(h.inner, h, e);
  std::ostringstream why;
  if (!props::is_simple_loop(center)) why << " centre line not simple;";
  if (!props::is_simple_loop(outer)) why << " outer border not simple;";
  if (!props::is_simple_loop(inner)) why << " inner border not simple;";
  for (const auto* b : {&outer, &inner}) {
    const double off = props::offset_error(*b, center, hw);
    if (!(off <= 1e-4)) why << " border point off hw by " << off << " hw;";
    const double adv = props::min_advance(*b, center);
    if (!(adv > 0.0)) why << " border folds back (advance " << adv << ");";
    // (1 - relax_tol) hw, less 1e-3 hw for the float rounding of the library's test
    const double need = (1.0 - c.relax_tol - 1e-3) * hw;
    const double clear = props::arc_clearance(*b, center, hw);
    if (!(clear >= need)) why << " border " << clear / hw << " hw from the centre line;";
  }
  return why.str();
}

struct SweepResult {
  long tracks = 0;
  long valid = 0;
  long broken = 0;
};

/// Generates every configuration on Space (seeds 7919 k + arange(E) for the
/// k-th), checks every flagged-valid track, and fails the test case on each
/// broken one.
template <class Space>
SweepResult run_sweep(int envs) {
  SweepResult r;
  const auto configs = sweep_configs(envs);
  for (std::size_t k = 0; k < configs.size(); ++k) {
    const TrackGenConfig& c = configs[k];
    trackgen::TrackGenerator<Space> tg(c, trackgen::SeedState<Space>(c.num_envs, static_cast<std::int32_t>(7919 * k)));
    const auto h = tt::HostTrack::from(tg.generate());
    for (int e = 0; e < c.num_envs; ++e) {
      ++r.tracks;
      if (h.valid[e] == 0) continue;
      ++r.valid;
      const std::string why = broken_promise(h, e, c);
      if (!why.empty()) {
        ++r.broken;
        FAIL_CHECK(c.generator << " hw " << c.half_width << " setting " << k % 4 << " env " << e << ":" << why);
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("validity property: every flagged-valid track keeps the promise (full sweep)", "[validity][property]") {
  const int envs = sweep_envs();
  const SweepResult r = run_sweep<Kokkos::DefaultExecutionSpace>(envs);
  WARN(r.tracks << " tracks, " << r.valid << " flagged valid, " << r.broken << " broken");
  CHECK(r.broken == 0);
  CHECK(r.tracks == 120L * envs);
  CHECK(r.valid > r.tracks / 2);
}

TEMPLATE_TEST_CASE("validity property: every flagged-valid track keeps the promise (every backend)",
                   "[validity][property]", TRACKGEN_TEST_SPACES) {
  const SweepResult r = run_sweep<TestType>(std::max(1, sweep_envs() / 32));
  CHECK(r.broken == 0);
  CHECK(r.valid > r.tracks / 2);
}
