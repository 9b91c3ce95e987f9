// The bezier and polar generators (docs/algorithms.md#bezier,
// docs/algorithms.md#polar): closed loops, corner counts, winding, extent, the
// polygon fallback, style sampling, repeatability, labelled kernels, argument
// checks and determinism across backends.
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/common.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

using namespace trackgen::test::generators;  // Batch, Harness, seed_range, make_config, ...

double variance(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  double s = 0.0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / double(v.size());
}

/// Every point finite, out_valid 1, and each loop closed: the implicit closing
/// edge is an ordinary edge (neither a gap nor a duplicated end point).
void check_closed_finite(const Batch& b) {
  check_closed_finite_with(b, [&](int, const Vec2f* p, double mean_edge) {
    const Vec2f d = p[0] - p[b.n - 1];
    const double closing = std::sqrt(double(d.x) * d.x + double(d.y) * d.y);
    CHECK(closing > 0.1 * mean_edge);
    CHECK(closing < 2.0 * mean_edge);
  });
}

}  // namespace

TEMPLATE_TEST_CASE("generators: bezier and polar write closed finite loops with out_valid = 1", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "polar"}) {
    INFO("generator " << name);
    const auto cfg = make_config(name);
    const Batch b = generate_batch<Space>(cfg, seed_range(default_envs));
    REQUIRE(b.pts.size() == std::size_t(default_envs) * cfg.num_points);
    check_closed_finite(b);
  }
}

TEMPLATE_TEST_CASE("generators: bezier corner counts follow the salted RNG", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("bezier");
  SECTION("defaults") {}
  SECTION("wide range") {
    cfg.min_num_points = 3;
    cfg.max_num_points = 20;
  }
  const auto seeds = seed_range(default_envs);
  Harness<Space> h(cfg, seeds);
  h.run();
  auto* bez = dynamic_cast<trackgen::detail::BezierGenerator<Space>*>(h.gen.get());
  REQUIRE(bez != nullptr);
  const auto count = tt::to_vector(bez->corner_count());
  const auto corners = tt::to_vector(bez->corners());
  const int P = cfg.max_num_points;
  for (int e = 0; e < default_envs; ++e) {
    INFO("seed " << seeds[e]);
    const int m = host_corner_count(seeds[e], trackgen::salt::bezier_count, cfg.min_num_points, cfg.max_num_points);
    CHECK(count[e] == m);
    int finite = 0;
    for (int i = 0; i < P; ++i) finite += std::isfinite(corners[e * P + i].x) ? 1 : 0;
    CHECK(finite == m);
  }
}

TEMPLATE_TEST_CASE("generators: bezier loops run clockwise, polar loops counter-clockwise", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const Batch bez = generate_batch<Space>(make_config("bezier"), seed_range(default_envs));
  const Batch pol = generate_batch<Space>(make_config("polar"), seed_range(default_envs));
  int cw = 0, ccw = 0;
  for (int e = 0; e < default_envs; ++e) {
    cw += trackgen::geom::shoelace2(bez.env(e), bez.n) < 0.0 ? 1 : 0;
    ccw += trackgen::geom::shoelace2(pol.env(e), pol.n) > 0.0 ? 1 : 0;
  }
  CHECK(cw >= default_envs - 1);
  CHECK(ccw == default_envs);
}

TEMPLATE_TEST_CASE("generators: polar bbox longest extent is 1.44 * scale", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (float scale : {1.0f, 2.5f}) {
    auto cfg = make_config("polar");
    cfg.scale = scale;
    const Batch b = generate_batch<Space>(cfg, seed_range(default_envs));
    for (int e = 0; e < default_envs; ++e) {
      INFO("scale " << scale << " env " << e);
      float xmin = 1e30f, xmax = -1e30f, ymin = 1e30f, ymax = -1e30f;
      for (int i = 0; i < b.n; ++i) {
        const Vec2f p = b.env(e)[i];
        xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
        ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
      }
      CHECK(std::max(xmax - xmin, ymax - ymin) == Approx(1.44 * scale).margin(1e-3));
      CHECK(std::fabs(xmin + xmax) < 1e-3f);
      CHECK(std::fabs(ymin + ymax) < 1e-3f);
    }
  }
}

TEMPLATE_TEST_CASE("generators: bezier output rarely self-intersects (polygon fallback)", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto cfg = make_config("bezier");
  Harness<Space> h(cfg, seed_range(default_envs));
  const Batch b = h.run();
  auto* bez = dynamic_cast<trackgen::detail::BezierGenerator<Space>*>(h.gen.get());
  REQUIRE(bez != nullptr);
  const auto crossers = tt::to_vector(bez->crossers());
  int crossing = 0, fallbacks = 0;
  for (int e = 0; e < default_envs; ++e) {
    crossing += trackgen::geom::xcount(b.env(e), b.n) > 0 ? 1 : 0;
    fallbacks += crossers[e] > 0 ? 1 : 0;
  }
  INFO(fallbacks << " envs took the polygon fallback");
  CHECK(crossing <= default_envs / 100);  // >= 99% of envs cross-free
}

TEMPLATE_TEST_CASE("generators: bezier style sampling", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto seeds = seed_range(default_envs);
  const auto plain_cfg = make_config("bezier");
  const Batch plain = generate_batch<Space>(plain_cfg, seeds);

  SECTION("without ranges it reproduces the unstyled batch") {
    auto cfg = plain_cfg;
    cfg.style_sampling = true;
    CHECK(tt::bitwise_equal(generate_batch<Space>(cfg, seeds).pts, plain.pts));
  }
  SECTION("ranges are ignored unless style_sampling is set") {
    auto cfg = plain_cfg;
    cfg.scale_range = trackgen::FloatRange{0.5f, 1.5f};
    CHECK(tt::bitwise_equal(generate_batch<Space>(cfg, seeds).pts, plain.pts));
  }
  SECTION("it increases the per-env length variance") {
    auto cfg = plain_cfg;
    cfg.style_sampling = true;
    cfg.scale_range = trackgen::FloatRange{0.5f, 1.5f};
    cfg.rad_range = trackgen::FloatRange{0.2f, 0.5f};
    cfg.handle_clamp_frac_range = trackgen::FloatRange{0.3f, 0.5f};
    const Batch styled = generate_batch<Space>(cfg, seeds);
    check_closed_finite(styled);
    std::vector<double> l0, l1;
    for (int e = 0; e < default_envs; ++e) {
      l0.push_back(perimeter(plain.env(e), plain.n));
      l1.push_back(perimeter(styled.env(e), styled.n));
    }
    CHECK(variance(l1) > 2.0 * variance(l0));
  }
}

TEMPLATE_TEST_CASE("generators: repeated generate() gives the identical batch", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "polar"}) {
    INFO("generator " << name);
    Harness<Space> h(make_config(name), seed_range(default_envs));
    const Batch a = h.run();
    const Batch b = h.run();
    CHECK(tt::bitwise_equal(a.pts, b.pts));
    CHECK(a.valid == b.valid);
    // A different seed batch changes the output, and going back restores it.
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(default_envs, 1000), "s"));
    const Batch c = h.run();
    CHECK_FALSE(tt::bitwise_equal(a.pts, c.pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(default_envs), "s"));
    CHECK(tt::bitwise_equal(a.pts, h.run().pts));
  }
}

TEMPLATE_TEST_CASE("generators: generate() launches labelled kernels and allocates nothing", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "polar"}) {
    for (bool styled : {false, true}) {
      INFO("generator " << name << " styled " << styled);
      auto cfg = make_config(name);
      cfg.style_sampling = styled;
      Harness<Space> h(cfg, seed_range(default_envs));
      h.run();  // first use: any lazy runtime set-up happens here
      record_generate(h);
      CHECK(g_allocations == 0);
      const std::string prefix = std::string("TrackGen::generators::") + name + "::";
      // Polar runs as one fused launch on host spaces (polar.hpp).
      if (std::string(name) == "polar" && trackgen::detail::is_host_space<Space>()) {
        CHECK(g_kernels == std::vector<std::string>{prefix + "centerline"});
      } else {
        CHECK(g_kernels.size() >= 4);
      }
      for (const auto& k : g_kernels) {
        INFO("kernel " << k);
        CHECK(k.rfind(prefix, 0) == 0);
      }
      const bool has_style = std::count(g_kernels.begin(), g_kernels.end(), prefix + "style") == 1;
      CHECK(has_style == (styled && std::string(name) == "bezier"));
    }
  }
}

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("generators: Serial and OpenMP give bitwise identical batches", "[generators]") {
  for (const char* name : {"bezier", "polar"}) {
    for (bool styled : {false, true}) {
      INFO("generator " << name << " styled " << styled);
      auto cfg = make_config(name);
      cfg.style_sampling = styled;
      if (styled) cfg.scale_range = trackgen::FloatRange{0.5f, 1.5f};
      const auto seeds = seed_range(default_envs, 17);
      const Batch s = generate_batch<Kokkos::Serial>(cfg, seeds);
      const Batch o = generate_batch<Kokkos::OpenMP>(cfg, seeds);
      CHECK(tt::bitwise_equal(s.pts, o.pts));
      CHECK(s.valid == o.valid);
    }
  }
}
#endif

TEMPLATE_TEST_CASE("generators: generate() rejects buffers of the wrong size", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "polar"}) {
    Harness<Space> h(make_config(name, 4), seed_range(4));
    trackgen::DView<std::int32_t, Space> bad_seeds("bad", 3);
    CHECK_THROWS_AS(h.gen->generate(h.ctx, bad_seeds, h.out, h.valid), trackgen::ConfigError);
    trackgen::DView<Vec2f, Space> bad_out("bad", 5);
    CHECK_THROWS_AS(h.gen->generate(h.ctx, h.seeds, bad_out, h.valid), trackgen::ConfigError);
  }
}
