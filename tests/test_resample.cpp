// Resamplers (docs/algorithms.md#uniform-resample, #constant-spacing) on hand-made loops.
#include "test_pipeline_support.hpp"

#include <trackgen/core/errors.hpp>

#include <cmath>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

/// The constant-spacing count formula, evaluated on the host exactly as the kernel
/// does (float32 segments accumulated in double, float32 division).
int expected_count(const tt::Loop& p, float spacing, int n_max, bool* truncated = nullptr) {
  double acc = 0.0;
  const int n = static_cast<int>(p.size());
  for (int j = 0; j < n; ++j) {
    const Vec2f d{p[(j + 1) % n].x - p[j].x, p[(j + 1) % n].y - p[j].y};
    acc += static_cast<double>(std::sqrt(d.x * d.x + d.y * d.y));
  }
  const float total = static_cast<float>(acc);
  if (!(total > 0.0f)) return 0;
  long long k = static_cast<long long>(std::floor(total / spacing)) + 1;
  while (k > 1 && static_cast<float>(k - 1) * spacing >= total) --k;
  if (truncated) *truncated = k > n_max;
  return static_cast<int>(std::min<long long>(std::max<long long>(k, 1), n_max));
}

template <class Space>
void run_uniform(const trackgen::DView<Vec2f, Space>& in, const trackgen::DView<int, Space>& count,
                 const trackgen::DView<Vec2f, Space>& out, int n_max) {
  trackgen::LaunchContext<Space> ctx;
  trackgen::DView<float, Space> s(std::string("test_arc_s"), count.extent(0) * (n_max + 1));
  trackgen::resample_uniform(ctx, in, count, out, s, n_max);
  ctx.fence();
}

}  // namespace

TEMPLATE_TEST_CASE("constant-spacing resample: counts, exact spacing, NaN padding", "[pipeline][resample]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(3);
  tt::StageRig<TestType> rig(cfg);
  const tt::Loop sq = tt::square(256, 1.0), ci = tt::circle(256, 1.0), dot(256, Vec2f{0.25f, 0.5f});
  rig.load({sq, ci, dot});
  rig.resample();
  const float spacing = trackgen::pipeline_constants(cfg).spacing;
  CHECK(spacing == 0.06f);  // float32(0.6 * 0.1), as the original system's Python config

  const auto count = rig.count();
  const auto cs = rig.cs_center();
  const auto trunc = tt::to_vector(rig.track.truncated);
  const int M = cfg.N_max;

  // Square of perimeter 4: floor(4 / 0.06) + 1 = 67 beads at arc k * spacing.
  CHECK(count[0] == 67);
  CHECK(count[0] == expected_count(sq, spacing, M));
  for (int k = 0; k < count[0]; ++k) {
    const Vec2f want = tt::square_point(static_cast<double>(static_cast<float>(k) * spacing), 1.0);
    CHECK(tt::dist(cs[k], want) < 2e-6);
  }
  for (int k = 0; k + 1 < count[0]; ++k) {
    const int side0 = static_cast<int>(std::floor(k * 0.06)), side1 = static_cast<int>(std::floor((k + 1) * 0.06));
    if (side0 == side1) CHECK(tt::dist(cs[k], cs[k + 1]) == Approx(spacing).margin(2e-6));
  }
  // Closing gap in (0, spacing].
  const double gap = 4.0 - (count[0] - 1) * static_cast<double>(spacing);
  CHECK(gap > 0.0);
  CHECK(gap <= spacing + 1e-6);

  // Circle: count by the formula; every chord ~ spacing.
  CHECK(count[1] == expected_count(ci, spacing, M));
  CHECK(count[1] == 105);
  for (int k = 0; k + 1 < count[1]; ++k) CHECK(tt::dist(cs[M + k], cs[M + k + 1]) == Approx(spacing).margin(1e-4));
  for (int k = 0; k < count[1]; ++k) CHECK(std::hypot(cs[M + k].x, cs[M + k].y) == Approx(1.0).margin(1e-3));

  // A degenerate loop (zero perimeter) has no points.
  CHECK(count[2] == 0);
  for (int e = 0; e < 3; ++e) {
    CHECK(trunc[e] == 0);
    for (int k = count[e]; k < M; ++k) {
      CHECK(std::isnan(cs[e * M + k].x));
      CHECK(std::isnan(cs[e * M + k].y));
    }
  }
}

TEMPLATE_TEST_CASE("constant-spacing resample: truncation flag only above N_max", "[pipeline][resample]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(3);
  cfg.N_max = 67;
  tt::StageRig<TestType> rig(cfg);
  rig.load({tt::square(256, 1.0), tt::square(256, 1.1), tt::circle(256, 0.5)});
  rig.resample();
  const auto count = rig.count();
  const auto trunc = tt::to_vector(rig.track.truncated);
  CHECK(count[0] == 67);  // needs exactly N_max: not truncated
  CHECK(trunc[0] == 0);
  CHECK(count[1] == 67);  // needs 74
  CHECK(trunc[1] == 1);
  CHECK(count[2] == 53);
  CHECK(trunc[2] == 0);
  const auto cs = rig.cs_center();
  for (int k = 0; k < 67; ++k) CHECK(std::isfinite(cs[67 + k].x));
}

TEMPLATE_TEST_CASE("constant-spacing resample: a perimeter that is a multiple of the spacing", "[pipeline][resample]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(1);
  cfg.spacing = 0.05f;
  tt::StageRig<TestType> rig(cfg);
  rig.load({tt::square(256, 1.0)});
  rig.resample();
  // floor(4 / 0.05) + 1 = 81, but 80 * 0.05 >= 4, so 80 beads and a closing gap of one step.
  CHECK(rig.count()[0] == 80);
  const auto cs = rig.cs_center();
  CHECK(tt::dist(cs[79], Vec2f{0.0f, 0.05f}) < 2e-6);
}

TEMPLATE_TEST_CASE("uniform resample: count-aware re-parameterization", "[pipeline][resample]", TRACKGEN_TEST_SPACES) {
  constexpr int M = 12;
  const Vec2f nan = trackgen::nan2();
  std::vector<Vec2f> in(3 * M, nan);
  // env 0: a unit square given by 8 unevenly spaced points.
  const Vec2f sq[8] = {{0, 0}, {0.3f, 0}, {1, 0}, {1, 0.3f}, {1, 1}, {0.7f, 1}, {0, 1}, {0, 0.7f}};
  for (int i = 0; i < 8; ++i) in[i] = sq[i];
  // env 1: no points; env 2: a single point.
  in[2 * M] = {0.5f, -0.25f};
  auto d_in = tt::to_device<TestType>(in, "in");
  auto d_count = tt::to_device<TestType>(std::vector<int>{8, 0, 1}, "count");
  trackgen::DView<Vec2f, TestType> d_out(std::string("out"), 3 * M);
  run_uniform<TestType>(d_in, d_count, d_out, M);
  const auto out = tt::to_vector(d_out);
  const Vec2f want[8] = {{0, 0}, {0.5f, 0}, {1, 0}, {1, 0.5f}, {1, 1}, {0.5f, 1}, {0, 1}, {0, 0.5f}};
  for (int k = 0; k < 8; ++k) CHECK(tt::dist(out[k], want[k]) < 1e-6);
  for (int k = 8; k < M; ++k) CHECK(std::isnan(out[k].x));
  for (int k = 0; k < M; ++k) CHECK(std::isnan(out[M + k].x));
  CHECK(out[2 * M].x == 0.5f);
  CHECK(out[2 * M].y == -0.25f);
  for (int k = 1; k < M; ++k) CHECK(std::isnan(out[2 * M + k].y));
}

TEMPLATE_TEST_CASE("uniform resample: shape errors throw before any work", "[pipeline][resample]",
                   TRACKGEN_TEST_SPACES) {
  trackgen::DView<Vec2f, TestType> in(std::string("in"), 10), out(std::string("out"), 10);
  auto count = tt::to_device<TestType>(std::vector<int>{1, 1}, "count");
  CHECK_THROWS_AS(run_uniform<TestType>(in, count, out, 4), trackgen::ConfigError);
}
