// The generator registry: built-in names, errors, and a user generator
// registered and run by name.
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

using namespace trackgen::test::generators;  // Batch, make_config, generate_batch, ...

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

}  // namespace

TEMPLATE_TEST_CASE("generators: registry", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto names = trackgen::available_generators<Space>();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::count(names.begin(), names.end(), "bezier") == 1);
  CHECK(std::count(names.begin(), names.end(), "polar") == 1);
  CHECK(trackgen::get_generator<Space>("bezier").capturable());
  CHECK(trackgen::get_generator<Space>("polar").capturable());

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
      spec.make = [](const Space&, const trackgen::TrackGenConfig& c) -> std::unique_ptr<trackgen::Generator<Space>> {
        return std::make_unique<CircleGenerator<Space>>(c.num_points);
      };
      trackgen::register_generator(spec);
    }
    const auto after = trackgen::available_generators<Space>();
    CHECK(std::count(after.begin(), after.end(), name) == 1);
    auto cfg = make_config(name, 3);
    cfg.num_points = 32;
    const Batch b = generate_batch<Space>(cfg, {0, 1, 2});
    check_closed_finite_with(b, [&](int, const Vec2f* p, double mean_edge) {
      CHECK(trackgen::length(p[0] - p[b.n - 1]) < 2.0 * mean_edge);  // the closing edge is an ordinary edge
    });
    CHECK(std::hypot(b.env(2)[0].x, b.env(2)[0].y) == Approx(1.02f));
  }
}

TEMPLATE_TEST_CASE("generators: every built-in is registered and capturable", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto names = trackgen::available_generators<Space>();
  const auto builtin = trackgen::builtin_generator_names();
  for (const char* name : {"bezier", "checkpoint", "hull", "polar", "voronoi", "repulsive"}) {
    INFO(name);
    CHECK(std::count(names.begin(), names.end(), name) == 1);
    CHECK(std::count(builtin.begin(), builtin.end(), name) == 1);
    CHECK(trackgen::get_generator<Space>(name).capturable());
  }
}
