// Elevation profiles (docs/algorithms.md#elevation) and the lift rules of the inflation:
// the profile functions on their own, then every z profile through the whole
// pipeline on every backend.
#include "test_pipeline_support.hpp"

#include <trackgen/core/elevation.hpp>
#include <trackgen/trackgen.hpp>

#include <algorithm>
#include <cmath>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

ZParams walk_params(int knots, float step) {
  ZParams p;
  p.profile = ZProfile::random_walk;
  p.min = -100.0f;
  p.max = 100.0f;
  p.max_step = step;
  p.knots = knots;
  return p;
}

}  // namespace

TEST_CASE("elevation: profile names", "[elevation]") {
  CHECK(parse_setting<ZProfile>("flat") == ZProfile::flat);
  CHECK(parse_setting<ZProfile>("uniform") == ZProfile::uniform);
  CHECK(parse_setting<ZProfile>("random_walk") == ZProfile::random_walk);
  CHECK(parse_setting<ZProfile>("noise") == ZProfile::noise);
  CHECK_FALSE(parse_setting<ZProfile>("hilly").has_value());
  CHECK(std::string(setting_name(ZProfile::random_walk)) == "random_walk");
  CHECK(z_uses_knots(ZProfile::uniform));
  CHECK(z_uses_knots(ZProfile::random_walk));
  CHECK_FALSE(z_uses_knots(ZProfile::noise));
  CHECK_FALSE(z_uses_knots(ZProfile::flat));
}

TEST_CASE("elevation: uniform knots draw one value per knot in [z_min, z_max]", "[elevation]") {
  ZParams p;
  p.profile = ZProfile::uniform;
  p.min = -0.25f;
  p.max = 0.75f;
  for (std::int32_t seed : {0, 1, 17, -5, 2147483647}) {
    for (int k = 0; k < 12; ++k) {
      // The stream is seed * 15679 + k (int32 wrap-around), one draw.
      std::uint32_t st = rand_init(salted(seed, 15679, k));
      const float u = randf(st);
      const float z = z_uniform_knot(seed, k, p);
      CHECK(z == p.min + u * (p.max - p.min));
      CHECK(z >= p.min);
      CHECK(z <= p.max);
    }
  }
}

TEST_CASE("elevation: the random walk is a closed bridge with bounded steps", "[elevation]") {
  const int K = 10;
  const float perim = 5.0f, step = 0.3f;
  for (std::int32_t seed = 0; seed < 50; ++seed) {
    const ZParams p = walk_params(K, step);
    std::vector<float> z(K);
    z_random_walk_knots(seed, perim, p, z.data());
    CHECK(z[0] == 0.0f);  // z_base + 0 - drift * 0
    // Recompute the raw walk: the bridge removes the drift in proportion to arc,
    // so each step differs from the raw one by drift / K.
    std::uint32_t st = rand_init(salted(seed, 15683));
    float acc = 0.0f;
    std::vector<float> raw(K);
    for (int k = 0; k < K; ++k) {
      if (k > 0) acc += (2.0f * randf(st) - 1.0f) * step * (z_knot_arc(k, K, perim) - z_knot_arc(k - 1, K, perim));
      raw[k] = acc;
    }
    const float h = perim / K;
    for (int k = 1; k < K; ++k) {
      CHECK(std::fabs(raw[k] - raw[k - 1]) <= step * h * (1.0f + 1e-5f));
      CHECK(std::fabs((z[k] - z[k - 1]) - ((raw[k] - raw[k - 1]) - acc / K)) <= 1e-5f);
    }
    // Closing step back to knot 0 is the last raw step's share of the bridge.
    CHECK(std::fabs(z[K - 1] - acc / K) <= 1e-5f);
  }
  // Clamping to [z_min, z_max] around z_base.
  ZParams tight = walk_params(K, 5.0f);
  tight.base = 1.0f;
  tight.min = 0.9f;
  tight.max = 1.1f;
  std::vector<float> z(K);
  z_random_walk_knots(3, perim, tight, z.data());
  for (float v : z) {
    CHECK(v >= 0.9f);
    CHECK(v <= 1.1f);
  }
}

TEST_CASE("elevation: the periodic monotone cubic interpolates and stays between its knots", "[elevation]") {
  const int K = 7;
  const float perim = 3.5f;
  for (std::int32_t seed = 0; seed < 20; ++seed) {
    ZParams p;
    p.min = -1.0f;
    p.max = 2.0f;
    std::vector<float> z(K);
    for (int k = 0; k < K; ++k) z[k] = z_uniform_knot(seed, k, p);
    for (int k = 0; k < K; ++k) CHECK(z_knot_cubic(z.data(), K, z_knot_arc(k, K, perim), perim) == z[k]);
    CHECK(z_knot_cubic(z.data(), K, perim, perim) == z[0]);  // periodic: the end is knot 0
    for (int s = 0; s <= 700; ++s) {
      const float arc = perim * static_cast<float>(s) / 700.0f;
      const float v = z_knot_cubic(z.data(), K, arc, perim);
      const int k = std::min(static_cast<int>(std::floor(arc / perim * K)), K - 1);
      const float lo = std::min(z[k], z[(k + 1) % K]), hi = std::max(z[k], z[(k + 1) % K]);
      INFO("seed " << seed << " arc " << arc);
      CHECK(v >= lo);
      CHECK(v <= hi);
    }
  }
  // Monotone data gives a monotone curve; an extremum knot has a flat tangent.
  const std::vector<float> ramp{0.0f, 0.1f, 0.5f, 0.6f, 2.0f, 1.0f};
  float prev = -1.0f;
  for (int s = 0; s <= 400; ++s) {
    const float arc = 4.0f * static_cast<float>(s) / 400.0f;  // knots 0..4 of 6 at h = 1
    const float v = z_knot_cubic(ramp.data(), 6, arc, 6.0f);
    CHECK(v >= prev);
    prev = v;
  }
  CHECK(z_monotone_tangent(1.0f, -1.0f) == 0.0f);
  CHECK(z_monotone_tangent(0.1f, 10.0f) == 0.3f);  // limited to 3 min(|dp|, |dn|)
  // A degenerate loop reads knot 0.
  CHECK(z_knot_cubic(ramp.data(), 6, 0.5f, 0.0f) == 0.0f);
}

TEST_CASE("elevation: noise stays within z_base +- amplitude and is periodic", "[elevation]") {
  ZParams p;
  p.profile = ZProfile::noise;
  p.base = 0.5f;
  p.min = -10.0f;
  p.max = 10.0f;
  p.amplitude = 0.2f;
  p.harmonics = 4;
  for (std::int32_t seed = 0; seed < 20; ++seed) {
    float lo = 1e9f, hi = -1e9f;
    for (int s = 0; s <= 200; ++s) {
      const float v = z_noise(seed, 4.0f * s / 200.0f, 4.0f, p);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      CHECK(std::fabs(v - p.base) <= p.amplitude * (1.0f + 1e-5f));
    }
    CHECK(hi - lo > 0.0f);
    CHECK(std::fabs(z_noise(seed, 0.0f, 4.0f, p) - z_noise(seed, 4.0f, 4.0f, p)) <= 1e-5f);
  }
  p.min = 0.45f;
  p.max = 0.55f;
  for (int s = 0; s <= 100; ++s) {
    const float v = z_noise(9, s / 100.0f, 1.0f, p);
    CHECK(v >= 0.45f);
    CHECK(v <= 0.55f);
  }
}

namespace {

TrackGenConfig lifted_config(ZProfile profile) {
  TrackGenConfig c;
  c.generator = "bezier";
  c.num_envs = 24;
  c.z_profile = profile;
  c.z_base = 0.1f;
  c.z_min = -0.3f;
  c.z_max = 0.4f;
  c.z_max_step = 0.3f;
  c.z_noise_amplitude = 0.25f;
  c.z_noise_harmonics = 4;
  c.z_control_points = 8;
  return c;
}

template <class Space>
tt::HostTrack generate(const TrackGenConfig& cfg) {
  TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 7));
  return tt::HostTrack::from(tg.generate());
}

Vec2f xy(const Vec3f& v) { return {v.x, v.y}; }

}  // namespace

TEMPLATE_TEST_CASE("elevation: every z profile lifts the plan-view track unchanged", "[elevation][pipeline]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto flat_cfg = lifted_config(ZProfile::flat);
  flat_cfg.z_base = 0.0f;
  const tt::HostTrack flat = generate<Space>(flat_cfg);
  for (const ZProfile profile : {ZProfile::uniform, ZProfile::random_walk, ZProfile::noise}) {
    INFO("z_profile " << setting_name(profile));
    const auto cfg = lifted_config(profile);
    const tt::HostTrack h = generate<Space>(cfg);
    CHECK(h.count == flat.count);
    CHECK(h.valid == flat.valid);  // the grade check is off: validity is plan-view
    int varied = 0;
    for (int e = 0; e < cfg.num_envs; ++e) {
      INFO("env " << e);
      const int n = h.count[e];
      REQUIRE(n >= 3);
      double perim3 = 0.0;
      float zlo = 1e9f, zhi = -1e9f;
      for (int i = 0; i < cfg.N_max; ++i) {
        const std::size_t s = h.at(e, i);
        if (i >= n) {  // padding: NaN plan view, z = 0
          CHECK(std::isnan(h.center[s].x));
          CHECK(h.center[s].z == 0.0f);
          CHECK(std::isnan(h.arclen[s]));
          continue;
        }
        // Plan view is the flat track's, bit for bit; one z per cross-section.
        CHECK(tt::bitwise_equal(std::vector<Vec2f>{xy(h.center[s]), xy(h.outer[s]), xy(h.inner[s])},
                                std::vector<Vec2f>{xy(flat.center[s]), xy(flat.outer[s]), xy(flat.inner[s])}));
        CHECK(h.outer[s].z == h.center[s].z);
        CHECK(h.inner[s].z == h.center[s].z);
        CHECK(length(xy(h.outer[s]) - xy(h.center[s])) == Approx(cfg.half_width).epsilon(1e-4));
        CHECK(length(xy(h.inner[s]) - xy(h.center[s])) == Approx(cfg.half_width).epsilon(1e-4));
        CHECK(h.center[s].z >= cfg.z_min);
        CHECK(h.center[s].z <= cfg.z_max);
        zlo = std::min(zlo, h.center[s].z);
        zhi = std::max(zhi, h.center[s].z);
        // Planar normals, 3D unit tangents along the lifted central difference.
        CHECK(tt::bitwise_equal(std::vector<Vec3f>{h.normal[s]}, std::vector<Vec3f>{flat.normal[s]}));
        const Vec3f d = h.center[h.at(e, (i + 1) % n)] - h.center[h.at(e, (i + n - 1) % n)];
        const Vec3f t = h.tangent[s];
        CHECK(length(t) == Approx(1.0f).epsilon(1e-5));
        CHECK(t.x * d.x + t.y * d.y + t.z * d.z == Approx(length(d)).epsilon(1e-4));
        // 3D arc length: the float64 running sum of the lifted edges.
        CHECK(h.arclen[s] == static_cast<float>(perim3));
        perim3 += length(h.center[h.at(e, (i + 1) % n)] - h.center[s]);
      }
      CHECK(h.length[e] == static_cast<float>(perim3));
      CHECK(h.length[e] >= flat.length[e]);
      if (zhi > zlo) ++varied;
    }
    CHECK(varied == cfg.num_envs);
  }
}

TEMPLATE_TEST_CASE("elevation: the grade check invalidates exactly the too-steep tracks", "[elevation][pipeline]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = lifted_config(ZProfile::random_walk);
  cfg.num_envs = 48;
  cfg.z_min = -5.0f;
  cfg.z_max = 5.0f;
  cfg.z_control_points = 10;
  const tt::HostTrack free = generate<Space>(cfg);
  cfg.z_valid_grade = 0.35f;
  const tt::HostTrack graded = generate<Space>(cfg);
  int kept = 0, dropped = 0;
  for (int e = 0; e < cfg.num_envs; ++e) {
    const int n = free.count[e];
    bool steep = false;
    for (int i = 0; i < n; ++i) {
      const Vec3f a = free.center[free.at(e, i)], b = free.center[free.at(e, (i + 1) % n)];
      steep = steep || std::fabs(b.z - a.z) > cfg.z_valid_grade * std::max(length(xy(b) - xy(a)), 1e-9f);
    }
    INFO("env " << e << " steep " << steep);
    CHECK(graded.valid[e] == (free.valid[e] && !steep ? 1 : 0));
    if (free.valid[e]) (steep ? dropped : kept) += 1;
  }
  // Like the original system's measurement (z_max_step 0.3, grade 0.35: ~1/3 kept),
  // the knot cubic makes some tracks steeper than the knot grade, not all.
  CHECK(kept > 0);
  CHECK(dropped > 0);
  // The geometry itself does not depend on the check.
  CHECK(tt::bitwise_equal(graded.center, free.center));
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("elevation: Serial and OpenMP give bitwise identical lifted tracks", "[elevation][determinism]") {
  for (const ZProfile profile : {ZProfile::uniform, ZProfile::random_walk, ZProfile::noise}) {
    INFO("z_profile " << setting_name(profile));
    auto cfg = lifted_config(profile);
    cfg.z_valid_grade = 0.5f;
    CHECK(generate<Kokkos::Serial>(cfg).bitwise_equal(generate<Kokkos::OpenMP>(cfg)));
  }
}
#endif

TEMPLATE_TEST_CASE("elevation: masked regeneration redraws z from the effective seed", "[elevation][exec]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto cfg = lifted_config(ZProfile::random_walk);
  TrackGenerator<Space> tg(cfg, SeedState<Space>(cfg.num_envs, 7));
  const auto before = tt::HostTrack::from(tg.generate());
  std::vector<std::int32_t> mask_h(cfg.num_envs, 0);
  mask_h[2] = mask_h[11] = 1;
  const auto after = tt::HostTrack::from(tg.generate(tt::to_device<Space>(mask_h, "mask"), /*advance=*/true));
  std::vector<std::int32_t> eff(cfg.num_envs);
  for (int e = 0; e < cfg.num_envs; ++e) eff[e] = effective_seed(7 + e, mask_h[e]);
  TrackGenerator<Space> fresh(cfg, tt::to_device<Space>(eff, "eff"));
  const auto ref = tt::HostTrack::from(fresh.generate());
  CHECK(after.bitwise_equal(ref));
  // Unmasked envs kept their z.
  CHECK(after.center[after.at(0, 5)].z == before.center[before.at(0, 5)].z);
}

TEMPLATE_TEST_CASE("elevation: the buffers refuse a config with other z knots", "[elevation][pipeline]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(2);
  cfg.z_profile = ZProfile::uniform;
  tt::StageRig<TestType> rig(cfg);
  auto other = cfg;
  other.z_control_points = cfg.z_control_points + 1;
  CHECK_THROWS_AS(trackgen::inflate(rig.ctx, other, rig.buffers, rig.seeds, rig.track), trackgen::ConfigError);
  other = cfg;
  other.z_profile = ZProfile::flat;
  CHECK_THROWS_AS(trackgen::inflate(rig.ctx, other, rig.buffers, rig.seeds, rig.track), trackgen::ConfigError);
  const DView<std::int32_t, TestType> short_seeds("short", 1);
  CHECK_THROWS_AS(trackgen::inflate(rig.ctx, cfg, rig.buffers, short_seeds, rig.track), trackgen::ConfigError);
}
