// GateGenerator end to end (docs/design.md#gategenerator, docs/algorithms.md#gates):
// determinism, the fields against their definitions, the yield and count bands,
// orderings, masked regeneration and graph replay.
#include "gate_support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/exec/host_graph.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

const std::vector<std::string> gate_generators{"bezier", "hull", "polar", "voronoi", "checkpoint"};

double dist3(Vec3f a, Vec3f b) { return std::sqrt(double(dot(a - b, a - b))); }

}  // namespace

#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
TEST_CASE("GateGenerator: same seeds give bit-identical gates on Serial and OpenMP", "[gates][determinism]") {
  INFO("OpenMP threads: " << Kokkos::OpenMP::concurrency());
  for (const auto& g : gate_generators) {
    for (const bool variant : {false, true}) {
      INFO("generator " << g << (variant ? ", second ordering, noise elevation, full_tangent" : ""));
      auto c = tt::gate_config(g, 96);
      if (variant) {
        c.gate_ordering = (g == "bezier" || g == "hull") ? GateOrdering::random_pairs : GateOrdering::raw;
        c.gate_align = GateAlign::full_tangent;
        c.z_profile = ZProfile::noise;
        c.z_noise_amplitude = 0.3f;
        c.z_min = -1.0f;
        c.z_max = 1.0f;
      }
      CHECK(tt::same_bits(tt::gate_batch<Kokkos::Serial>(c, 500), tt::gate_batch<Kokkos::OpenMP>(c, 500)));
    }
  }
}
#endif

TEMPLATE_TEST_CASE("GateGenerator: every field matches its definition", "[gates]", TRACKGEN_TEST_SPACES) {
  for (const auto& g : gate_generators) {
    for (const auto align : {GateAlign::yaw_only, GateAlign::full_tangent}) {
      INFO("generator " << g << ", align " << setting_name(align));
      auto c = tt::gate_config(g, 32);
      c.gate_align = align;
      c.z_profile = ZProfile::random_walk;
      c.z_max_step = 0.4f;
      c.z_min = -0.5f;
      c.z_max = 0.5f;
      const auto h = tt::gate_batch<TestType>(c, 3);
      const int G = c.max_gates;
      for (int e = 0; e < c.num_envs; ++e) {
        const int n = h.count(e);
        REQUIRE(n >= 1);
        REQUIRE(n <= G);
        CHECK((h.valid(e) == 0 || h.valid(e) == 1));
        for (int i = 0; i < G; ++i) {
          const std::size_t k = e * G + i;
          if (i >= n) {
            CHECK(std::isnan(h.position(k).x));
            CHECK(std::isnan(h.tangent(k).y));
            CHECK(std::isnan(h.forward(k).z));
            CHECK((std::isnan(h.orientation(k).x) && std::isnan(h.orientation(k).w)));
            CHECK(std::isnan(h.half_size(k)));
            CHECK((std::isnan(h.left(k).x) && std::isnan(h.right(k).x)));
            continue;
          }
          const Vec3f p = h.position(k), f = h.forward(k), t = h.tangent(k);
          const Quatf q = h.orientation(k);
          // tangent: the unit central difference of the lifted centres.
          const Vec3f d = h.position(e * G + (i + 1) % n) - h.position(e * G + (i + n - 1) % n);
          const double dl = std::sqrt(double(dot(d, d)));
          CHECK(std::sqrt(double(dot(t, t))) == Approx(1.0).margin(1e-5));
          CHECK(dot(t, d) / dl == Approx(1.0).margin(1e-5));
          // forward: unit, the frame's x axis, = tangent (full_tangent) or its
          // horizontal direction (yaw_only).
          CHECK(std::sqrt(double(dot(f, f))) == Approx(1.0).margin(1e-5));
          CHECK(std::sqrt(double(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w)) == Approx(1.0).margin(1e-5));
          const Vec3f x_axis = geom::rotate(q, Vec3f{1, 0, 0}), y_axis = geom::rotate(q, Vec3f{0, 1, 0});
          CHECK(dist3(x_axis, f) < 1e-5);
          CHECK(std::fabs(y_axis.z) < 1e-6);  // roll-free: the left axis is level
          if (align == GateAlign::full_tangent) {
            CHECK(dist3(f, t) < 1e-6);
          } else {
            CHECK(f.z == 0.0f);
            CHECK(f.x * t.y - f.y * t.x == Approx(0.0).margin(1e-6));
          }
          // left/right at half_size along the level left axis.
          CHECK(h.half_size(k) == 0.05f);
          CHECK(dist3(h.left(k), p) == Approx(0.05).margin(1e-6));
          CHECK(dist3(h.right(k), p) == Approx(0.05).margin(1e-6));
          const Vec3f lr = h.left(k) - h.right(k);
          CHECK(dist3(lr * 0.5f, y_axis * 0.05f) < 1e-6);
          CHECK(p.z >= c.z_min);
          CHECK(p.z <= c.z_max);
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("GateGenerator: yield, count and separation bands at E = 512, seed 0", "[gates][bands]",
                   TRACKGEN_TEST_SPACES) {
  const std::map<std::string, double> min_yield{
      {"bezier", 0.89}, {"hull", 0.90}, {"polar", 1.0}, {"voronoi", 0.98}, {"checkpoint", 0.97}};
  const std::map<std::string, std::pair<int, int>> counts{
      {"bezier", {9, 13}}, {"hull", {9, 13}}, {"polar", {12, 12}}, {"voronoi", {18, 18}}, {"checkpoint", {12, 12}}};
  for (const auto& g : gate_generators) {
    INFO("generator " << g);
    const auto c = tt::gate_config(g, 512);
    const auto h = tt::gate_batch<TestType>(c, 0);
    int valid = 0;
    double min_dist = 1e30;
    for (int e = 0; e < c.num_envs; ++e) {
      CHECK(h.count(e) >= counts.at(g).first);
      CHECK(h.count(e) <= counts.at(g).second);
      if (h.valid(e) == 0) continue;
      ++valid;
      min_dist = std::min(min_dist, tt::min_centre_distance(h, e));
    }
    const double yield = valid / double(c.num_envs);
    INFO("yield " << yield << ", min centre distance " << min_dist);
    CHECK(yield >= min_yield.at(g));
    CHECK(min_dist >= 2.0 * c.gate_radius * (1.0 - 1e-5));
  }
}

TEMPLATE_TEST_CASE("GateGenerator: orderings", "[gates][ordering]", TRACKGEN_TEST_SPACES) {
  SECTION("raw keeps the source's order; ccw runs clockwise around the centroid") {
    auto c = tt::gate_config("polar", 16);
    c.gate_radius = 0.0f;  // no separation: the course is the (normalized) anchors
    for (const auto o : {GateOrdering::raw, GateOrdering::ccw}) {
      c.gate_ordering = o;
      const auto h = tt::gate_batch<TestType>(c, 11);
      for (int e = 0; e < c.num_envs; ++e) {
        const int n = h.count(e), G = c.max_gates;
        double cx = 0, cy = 0;
        for (int i = 0; i < n; ++i) cx += h.position(e * G + i).x / n, cy += h.position(e * G + i).y / n;
        double area2 = 0;
        for (int i = 0; i < n; ++i) {
          const Vec3f a = h.position(e * G + i), b = h.position(e * G + (i + 1) % n);
          area2 += (double(a.x) - cx) * (double(b.y) - cy) - (double(a.y) - cy) * (double(b.x) - cx);
        }
        CHECK((o == GateOrdering::raw ? area2 > 0 : area2 < 0));  // polar anchors are CCW
      }
    }
  }
  SECTION("random_pairs emits the source's pairs (2q, 2q+1) together") {
    auto c = tt::gate_config("bezier", 16);
    c.gate_radius = 0.0f;
    c.gate_ordering = GateOrdering::random_pairs;
    GateGenerator<TestType> gen(c, SeedState<TestType>(c.num_envs, 5));
    const auto h = gen.generate().to_host();
    const auto anchors = tt::to_vector(gen.anchors());
    const int S = c.max_num_points, G = c.max_gates;
    for (int e = 0; e < c.num_envs; ++e) {
      const int n = h.count(e);
      std::set<int> seen;
      for (int i = 0; i < n;) {
        const Vec3f p = h.position(e * G + i);
        int src = -1;
        for (int a = 0; a < n; ++a) {
          if (anchors[e * S + a].x == p.x && anchors[e * S + a].y == p.y) src = a;
        }
        REQUIRE(src % 2 == 0);
        seen.insert(src);
        if (src + 1 < n) {
          const Vec3f q = h.position(e * G + i + 1);
          CHECK((q.x == anchors[e * S + src + 1].x && q.y == anchors[e * S + src + 1].y));
          seen.insert(src + 1);
          i += 2;
        } else {
          i += 1;
        }
      }
      CHECK(static_cast<int>(seen.size()) == n);
    }
  }
}

TEMPLATE_TEST_CASE("GateGenerator: masked regeneration leaves other envs bit-identical", "[gates][masked]",
                   TRACKGEN_TEST_SPACES) {
  const auto c = tt::gate_config("voronoi", 24);
  GateGenerator<TestType> gen(c, SeedState<TestType>(c.num_envs, 2));
  const auto before = gen.generate().to_host();
  std::vector<std::int32_t> m(c.num_envs, 0);
  m[3] = m[17] = 1;
  const auto mask = tt::to_device<TestType>(m, "mask");
  const auto zero = tt::to_device<TestType>(std::vector<std::int32_t>(c.num_envs, 0), "zero");
  CHECK(tt::same_bits(gen.generate(zero, true).to_host(), before));
  const auto after = gen.generate(mask, /*advance=*/true).to_host();
  // The regenerated envs equal a fresh generator's at the same epochs.
  SeedState<TestType> fresh_seeds(c.num_envs, 2);
  fresh_seeds.advance(mask);
  GateGenerator<TestType> fresh(c, fresh_seeds);
  const auto expect = fresh.generate().to_host();
  for (int e = 0; e < c.num_envs; ++e) {
    INFO("env " << e);
    CHECK(tt::same_env(after, before, e) == (m[e] == 0));
    CHECK(tt::same_env(after, expect, e));
  }
}

TEMPLATE_TEST_CASE("GateGenerator: graph replay, eager runs and a caller's capture agree bitwise", "[gates][exec]",
                   TRACKGEN_TEST_HOST_SPACES) {
  for (const auto& g : gate_generators) {
    INFO("generator " << g);
    const auto c = tt::gate_config(g, 16);
    GateGenerator<TestType> automatic(c, SeedState<TestType>(c.num_envs, 9));
    GateGenerator<TestType> eager(c, SeedState<TestType>(c.num_envs, 9));
    eager.set_policy(Policy::eager);
    CHECK(automatic.capturable());
    const void* position = automatic.gates().position.data();
    automatic.generate();
    const auto replayed = automatic.generate().to_host();  // the self-graph's replay
    CHECK(automatic.gates().position.data() == position);
    CHECK(tt::same_bits(replayed, eager.generate().to_host()));
    // A caller's capture reads the live seeds at replay.
    auto seeds = tt::to_device<TestType>(std::vector<std::int32_t>(c.num_envs, 1), "seeds");
    GateGenerator<TestType> captured(c, seeds);
    HostGraph caller;
    captured.generate(LaunchContext<TestType>::capture(caller));
    Kokkos::deep_copy(seeds, 9);
    Kokkos::parallel_for(
        Kokkos::RangePolicy<TestType>(0, c.num_envs), KOKKOS_LAMBDA(const int e) { seeds(e) += e; });
    Kokkos::fence();
    caller.replay();
    CHECK(tt::same_bits(captured.gates().to_host(), replayed));
  }
}
