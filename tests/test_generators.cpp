// Centerline generators (reference sections 2.1, 2.3), their shared kernel
// launchers (ARC, XCOUNT, NORM) and the generator registry.
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

// A user generator: a circle of radius 1 + 0.01 * seed per env.
template <class Space>
void write_circles(const trackgen::LaunchContext<Space>& ctx, const trackgen::DView<std::int32_t, Space>& seeds,
                   const trackgen::DView<Vec2f, Space>& out, int n) {
  ctx.for_each(
      "TrackGen::tests::circle", out.extent(0), KOKKOS_LAMBDA(const std::size_t t) {
        const std::size_t e = t / n;
        const int i = static_cast<int>(t % n);
        const float r = 1.0f + 0.01f * static_cast<float>(seeds(e));
        const float a = 2.0f * trackgen::geom::pi_f * static_cast<float>(i) / static_cast<float>(n);
        out(t) = Vec2f{r * trackgen::kmath::cos(a), r * trackgen::kmath::sin(a)};
      });
}

template <class Space>
class CircleGenerator final : public trackgen::Generator<Space> {
 public:
  explicit CircleGenerator(int n) : n_(n) {}
  void generate(const trackgen::LaunchContext<Space>& ctx, const trackgen::DView<std::int32_t, Space>& seeds,
                const trackgen::DView<Vec2f, Space>& out, const trackgen::DView<std::int32_t, Space>& valid) override {
    write_circles(ctx, seeds, out, n_);
    ctx.fill(valid, std::int32_t(1));
  }

 private:
  int n_;
};

// Hand-made inputs for the shared launchers, [E*stride] with NaN padding.
std::vector<Vec2f> square_loop(int per_side, float side) {
  std::vector<Vec2f> p;
  const Vec2f corners[4] = {{0, 0}, {side, 0}, {side, side}, {0, side}};
  for (int c = 0; c < 4; ++c) {
    const Vec2f a = corners[c], b = corners[(c + 1) % 4];
    for (int k = 0; k < per_side; ++k) p.push_back(a + (float(k) / float(per_side)) * (b - a));
  }
  return p;
}

// Sampled half a step off t = 0 so that the crossing lies inside two segments.
std::vector<Vec2f> figure_eight(int n) {
  std::vector<Vec2f> p;
  for (int i = 0; i < n; ++i) {
    const float t = 2.0f * trackgen::geom::pi_f * (float(i) + 0.5f) / float(n);
    p.push_back({std::sin(t), std::sin(t) * std::cos(t)});
  }
  return p;
}

std::vector<Vec2f> circle(int n, float r, Vec2f c = {0, 0}) {
  std::vector<Vec2f> p;
  for (int i = 0; i < n; ++i) {
    const float t = 2.0f * trackgen::geom::pi_f * float(i) / float(n);
    p.push_back(c + Vec2f{r * std::cos(t), r * std::sin(t)});
  }
  return p;
}

float dist(Vec2f a, Vec2f b) { return std::hypot(a.x - b.x, a.y - b.y); }

}  // namespace

// ---------------------------------------------------------------------------
// Shared launchers

TEMPLATE_TEST_CASE("generators: ARC resamples closed loops by arc length and skips NaN points", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int M = 48, num = 16;
  const Vec2f nan = trackgen::nan2();
  // env 0: a square of side 2 sampled unevenly, NaN holes; env 1: a single
  // finite point (NaN row out); env 2: all NaN; env 3: the square again (inactive
  // in the selected run).
  std::vector<Vec2f> dense(4 * M, nan);
  const auto sq = square_loop(8, 2.0f);  // 32 points
  for (int i = 0, j = 0; i < 32; ++i, j += (i % 5 == 0) ? 2 : 1) dense[j] = sq[i];
  dense[M + 7] = {1, 1};
  for (int i = 0; i < 32; ++i) dense[3 * M + i] = sq[i];

  trackgen::LaunchContext<Space> ctx;
  const trackgen::detail::ArcScratch<Space> scratch(ctx.space(), "test", 4, M);
  auto d_dense = tt::to_device<Space>(dense, "dense");
  trackgen::DView<Vec2f, Space> d_out("out", 4 * num);
  trackgen::detail::arc_resample(ctx, "TrackGen::tests::", d_dense, d_out, num, scratch);
  ctx.fence();
  const auto out = tt::to_vector(d_out);
  // perimeter 8, 16 points: every 0.5 along the square from (0, 0).
  for (int k = 0; k < num; ++k) {
    const float s = 0.5f * k;
    const int side = static_cast<int>(s / 2.0f);
    const float f = (s - 2.0f * side) / 2.0f;
    const Vec2f c[4] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    const Vec2f expect = c[side] + f * (c[(side + 1) % 4] - c[side]);
    INFO("k " << k);
    CHECK(dist(out[k], expect) < 1e-5f);
    CHECK(dist(out[3 * num + k], expect) < 1e-5f);
  }
  for (int k = 0; k < num; ++k) {
    CHECK(std::isnan(out[num + k].x));
    CHECK(std::isnan(out[2 * num + k].y));
  }

  // Selected: env 3 inactive keeps its sentinel row; env 0 is rewritten.
  std::vector<Vec2f> sentinel(4 * num, Vec2f{7.0f, 7.0f});
  auto d_sel = tt::to_device<Space>(sentinel, "sel");
  auto active = tt::to_device<Space>(std::vector<std::int32_t>{1, 0, 2, 0}, "active");
  trackgen::detail::arc_resample_selected(ctx, "TrackGen::tests::", d_dense, d_sel, num, active, scratch);
  ctx.fence();
  const auto sel = tt::to_vector(d_sel);
  for (int k = 0; k < num; ++k) {
    CHECK(dist(sel[k], out[k]) == 0.0f);
    CHECK(sel[num + k].x == 7.0f);
    CHECK(std::isnan(sel[2 * num + k].x));
    CHECK(sel[3 * num + k].x == 7.0f);
  }
}

TEMPLATE_TEST_CASE("generators: XCOUNT counts proper crossings per env", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int n = 64, stride = 80;
  std::vector<Vec2f> pts(4 * stride, trackgen::nan2());
  const auto c = circle(n, 1.0f), f8 = figure_eight(n), sq = square_loop(16, 1.0f);
  std::copy(c.begin(), c.end(), pts.begin());
  std::copy(f8.begin(), f8.end(), pts.begin() + stride);
  std::copy(sq.begin(), sq.end(), pts.begin() + 2 * stride);
  // env 3: a pinched loop whose two lobes cross twice (a circle with a bar).
  std::vector<Vec2f> bow = {{0, 0}, {2, 0}, {2, 1}, {1.5f, 1}, {1.5f, -1}, {0.5f, -1}, {0.5f, 1}, {0, 1}};
  std::copy(bow.begin(), bow.end(), pts.begin() + 3 * stride);

  trackgen::LaunchContext<Space> ctx;
  auto d_pts = tt::to_device<Space>(pts, "pts");
  trackgen::DView<std::int32_t, Space> fixed("fixed", 4), counted("counted", 4);
  trackgen::detail::xcount(ctx, "TrackGen::tests::", d_pts, stride, n, fixed);
  auto counts = tt::to_device<Space>(std::vector<std::int32_t>{n, n, n, 8}, "counts");
  trackgen::detail::xcount(ctx, "TrackGen::tests::", d_pts, stride, counts, counted);
  ctx.fence();
  const auto xf = tt::to_vector(fixed), xc = tt::to_vector(counted);
  CHECK(xf[0] == 0);
  CHECK(xf[1] == 1);
  CHECK(xf[2] == 0);
  CHECK(xc[0] == 0);
  CHECK(xc[1] == 1);
  CHECK(xc[2] == 0);
  CHECK(xc[3] == 2);
  for (int e = 0; e < 4; ++e) {
    const int ne = e == 3 ? 8 : n;
    CHECK(xc[e] == trackgen::geom::xcount(pts.data() + e * stride, ne));
  }
}

namespace {

/// XCOUNT of segment i by its definition (reference 3.6.1): every j > i with
/// circ(i, j, n) > 1, through segments_cross_tol.
int xcount_segment_by_definition(const Vec2f* p, int n, int i) {
  namespace geom = trackgen::geom;
  int c = 0;
  const Vec2f ai = geom::nan_to_zero(p[i]), bi = geom::nan_to_zero(p[(i + 1) % n]);
  for (int j = i + 2; j < n; ++j) {
    if (geom::circ_dist(i, j, n) <= 1) continue;
    c += geom::segments_cross_tol(ai, bi, geom::nan_to_zero(p[j]), geom::nan_to_zero(p[(j + 1) % n])) ? 1 : 0;
  }
  return c;
}

}  // namespace

TEST_CASE("generators: geom::xcount_segment counts XCOUNT by its definition", "[generators]") {
  // Random zig-zag loops (many crossings, near-collinear and repeated points,
  // NaNs) and every small n.
  std::uint32_t st = 12345u;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = trial < 8 ? trial : 4 + static_cast<int>(trackgen::randf(st) * 60.0f);
    std::vector<Vec2f> p(static_cast<std::size_t>(n));
    for (auto& q : p) {
      const float u = trackgen::randf(st);
      q = {std::round(trackgen::randf(st) * 8.0f) / 8.0f, std::round(trackgen::randf(st) * 8.0f) / 8.0f};
      if (u < 0.05f) q = trackgen::nan2();
      if (u > 0.95f && &q != p.data()) q = *(&q - 1);
    }
    for (int i = 0; i < n; ++i) {
      INFO("trial " << trial << " n " << n << " i " << i);
      CHECK(trackgen::geom::xcount_segment(p.data(), n, i) == xcount_segment_by_definition(p.data(), n, i));
    }
  }
}

TEMPLATE_TEST_CASE("generators: NORM centres the bbox and scales its longest side to the target", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int n = 40;
  std::vector<Vec2f> pts;
  for (const auto& p : circle(n, 3.0f, {5.0f, -2.0f})) pts.push_back({p.x, 0.5f * p.y});  // 6 x 3 ellipse
  for (const auto& p : square_loop(10, 0.25f)) pts.push_back(p);
  pts[n + 3] = trackgen::nan2();  // NaN points stay NaN and do not count

  trackgen::LaunchContext<Space> ctx;
  auto d = tt::to_device<Space>(pts, "pts");
  trackgen::detail::normalize_bbox(ctx, "TrackGen::tests::", d, n, n, 1.44f);
  ctx.fence();
  const auto out = tt::to_vector(d);
  for (int e = 0; e < 2; ++e) {
    float xmin = 1e30f, xmax = -1e30f, ymin = 1e30f, ymax = -1e30f;
    for (int i = 0; i < n; ++i) {
      const Vec2f p = out[e * n + i];
      if (!std::isfinite(p.x)) continue;
      xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
      ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
    }
    CHECK(std::max(xmax - xmin, ymax - ymin) == Approx(1.44f).margin(1e-5));
    CHECK(xmin + xmax == Approx(0.0f).margin(1e-5));
    CHECK(ymin + ymax == Approx(0.0f).margin(1e-5));
  }
  CHECK(std::isnan(out[n + 3].x));
}

TEST_CASE("generators: config floats are read as the Python doubles they stand for", "[generators]") {
  CHECK(trackgen::as_python_double(0.05f) == 0.05);
  CHECK(static_cast<int>(1.0 / (2.0 * trackgen::as_python_double(0.05f))) == 10);
  CHECK(static_cast<int>(1.0 / (2.0 * static_cast<double>(0.05f))) == 9);  // why the helper exists
  CHECK(trackgen::detail::BezierParams::from_config(make_config("bezier")).num_cells == 10);
}

// ---------------------------------------------------------------------------
// Generators

TEMPLATE_TEST_CASE("generators: bezier and polar write closed finite loops with out_valid = 1", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "polar"}) {
    INFO("generator " << name);
    const auto cfg = make_config(name);
    const Batch b = generate_batch<Space>(cfg, seed_range(kEnvs));
    REQUIRE(b.pts.size() == std::size_t(kEnvs) * cfg.num_points);
    check_closed_finite(b);
  }
}

TEMPLATE_TEST_CASE("generators: bezier corner counts follow the reference RNG", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  auto cfg = make_config("bezier");
  SECTION("defaults") {}
  SECTION("wide range") {
    cfg.min_num_points = 3;
    cfg.max_num_points = 20;
  }
  const auto seeds = seed_range(kEnvs);
  Harness<Space> h(cfg, seeds);
  h.run();
  auto* bez = dynamic_cast<trackgen::detail::BezierGenerator<Space>*>(h.gen.get());
  REQUIRE(bez != nullptr);
  const auto count = tt::to_vector(bez->corner_count());
  const auto corners = tt::to_vector(bez->corners());
  const int P = cfg.max_num_points;
  for (int e = 0; e < kEnvs; ++e) {
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
  const Batch bez = generate_batch<Space>(make_config("bezier"), seed_range(kEnvs));
  const Batch pol = generate_batch<Space>(make_config("polar"), seed_range(kEnvs));
  int cw = 0, ccw = 0;
  for (int e = 0; e < kEnvs; ++e) {
    cw += trackgen::geom::shoelace2(bez.env(e), bez.n) < 0.0 ? 1 : 0;
    ccw += trackgen::geom::shoelace2(pol.env(e), pol.n) > 0.0 ? 1 : 0;
  }
  CHECK(cw >= kEnvs - 1);
  CHECK(ccw == kEnvs);
}

TEMPLATE_TEST_CASE("generators: polar bbox longest extent is 1.44 * scale", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (float scale : {1.0f, 2.5f}) {
    auto cfg = make_config("polar");
    cfg.scale = scale;
    const Batch b = generate_batch<Space>(cfg, seed_range(kEnvs));
    for (int e = 0; e < kEnvs; ++e) {
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
  Harness<Space> h(cfg, seed_range(kEnvs));
  const Batch b = h.run();
  auto* bez = dynamic_cast<trackgen::detail::BezierGenerator<Space>*>(h.gen.get());
  REQUIRE(bez != nullptr);
  const auto crossers = tt::to_vector(bez->crossers());
  int crossing = 0, fallbacks = 0;
  for (int e = 0; e < kEnvs; ++e) {
    crossing += trackgen::geom::xcount(b.env(e), b.n) > 0 ? 1 : 0;
    fallbacks += crossers[e] > 0 ? 1 : 0;
  }
  INFO(fallbacks << " envs took the polygon fallback");
  CHECK(crossing <= kEnvs / 100);  // >= 99% of envs cross-free
}

TEMPLATE_TEST_CASE("generators: bezier style sampling", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto seeds = seed_range(kEnvs);
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
    for (int e = 0; e < kEnvs; ++e) {
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
    Harness<Space> h(make_config(name), seed_range(kEnvs));
    const Batch a = h.run();
    const Batch b = h.run();
    CHECK(tt::bitwise_equal(a.pts, b.pts));
    CHECK(a.valid == b.valid);
    // A different seed batch changes the output, and going back restores it.
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(kEnvs, 1000), "s"));
    const Batch c = h.run();
    CHECK_FALSE(tt::bitwise_equal(a.pts, c.pts));
    Kokkos::deep_copy(h.seeds, tt::to_device<Space>(seed_range(kEnvs), "s"));
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
      Harness<Space> h(cfg, seed_range(kEnvs));
      h.run();  // first use: any lazy runtime set-up happens here
      record_generate(h);
      CHECK(g_allocations == 0);
      const std::string prefix = std::string("TrackGen::generators::") + name + "::";
      CHECK(g_kernels.size() >= 4);
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
      const auto seeds = seed_range(kEnvs, 17);
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

// ---------------------------------------------------------------------------
// Registry

TEMPLATE_TEST_CASE("generators: registry", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto names = trackgen::available_generators<Space>();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::count(names.begin(), names.end(), "bezier") == 1);
  CHECK(std::count(names.begin(), names.end(), "polar") == 1);
  CHECK(trackgen::get_generator<Space>("bezier").capturable);
  CHECK(trackgen::get_generator<Space>("polar").capturable);

  SECTION("an unknown name throws ConfigError listing the available names") {
    try {
      trackgen::get_generator<Space>("no_such_generator");
      FAIL("no exception");
    } catch (const trackgen::ConfigError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("no_such_generator") != std::string::npos);
      CHECK(msg.find("bezier") != std::string::npos);
      CHECK(msg.find("polar") != std::string::npos);
    }
  }
  SECTION("registering a duplicate name throws") {
    CHECK_THROWS_AS(trackgen::register_generator(trackgen::get_generator<Space>("bezier")), trackgen::ConfigError);
    trackgen::GeneratorSpec<Space> unnamed;
    unnamed.make = trackgen::get_generator<Space>("polar").make;
    CHECK_THROWS_AS(trackgen::register_generator(unnamed), trackgen::ConfigError);
  }
  SECTION("a user-registered generator can be fetched and run") {
    const std::string name = "test_user_circle";
    const auto current = trackgen::available_generators<Space>();
    if (std::find(current.begin(), current.end(), name) == current.end()) {
      trackgen::GeneratorSpec<Space> spec;
      spec.name = name;
      spec.make = [](const trackgen::TrackGenConfig& c, const Space&) -> std::unique_ptr<trackgen::Generator<Space>> {
        return std::make_unique<CircleGenerator<Space>>(c.num_points);
      };
      trackgen::register_generator(spec);
    }
    const auto after = trackgen::available_generators<Space>();
    CHECK(std::count(after.begin(), after.end(), name) == 1);
    auto cfg = make_config(name, 3);
    cfg.num_points = 32;
    const Batch b = generate_batch<Space>(cfg, {0, 1, 2});
    check_closed_finite(b);
    CHECK(std::hypot(b.env(2)[0].x, b.env(2)[0].y) == Approx(1.02f));
  }
}
