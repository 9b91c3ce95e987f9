// Shared test support: the list of execution spaces every backend-generic test
// is instantiated for, host <-> device copies, kernels that evaluate a device
// function, and the harness of the centerline generator tests.
#pragma once

#include <catch2/catch.hpp>

#include <trackgen/core/compat.hpp>
#include <trackgen/core/config.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

// TEMPLATE_TEST_CASE("name", "[tags]", TRACKGEN_TEST_SPACES) runs a test once per
// execution space of the library's list (trackgen/core/spaces.hpp): every enabled
// Kokkos backend; the test name carries the space ("name - Kokkos::OpenMP").
// test_spaces.cpp checks at compile time that the list has every backend Kokkos
// was built with.
#define TRACKGEN_TEST_SPACES TRACKGEN_SPACES

// TRACKGEN_TEST_HOST_SPACES: the enabled host backends, for the cases that record
// HostGraphs or read device memory directly (a Kokkos::Cuda context records CUDA
// graphs instead; those cases are in tests/cuda/test_kokkos_cuda_exec.cpp).
#define TRACKGEN_TEST_HOST_SPACES TRACKGEN_HOST_SPACES

namespace trackgen::test {

/// Copies a device View into a std::vector on the host.
template <class V>
auto to_vector(const V& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename V::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

/// Copies a host std::vector into a new device View of execution space Space.
template <class Space, class T>
Kokkos::View<T*, typename Space::memory_space> to_device(const std::vector<T>& v, const char* name = "test") {
  // std::string: Kokkos 3.4 does not take a `const char*` pointer as a View label.
  Kokkos::View<T*, typename Space::memory_space> d(std::string(name), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

/// Bitwise equality of two arrays (NaN == NaN when the bits agree).
template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// f() evaluated once in a kernel on execution space Space.
template <class Space, class F>
auto on_device(const F& f) -> decltype(f()) {  // explicit: nvcc deduces no return type around a device lambda
  using R = decltype(f());
  Kokkos::View<R*, typename Space::memory_space> out("TrackGen::test::probe", 1);
  Kokkos::parallel_for(
      "TrackGen::test::probe", Kokkos::RangePolicy<Space>(Space(), 0, 1), KOKKOS_LAMBDA(const int) { out(0) = f(); });
  return to_vector(out)[0];
}

/// out[i] = f(in[i]) computed in a kernel on execution space Space.
template <class Space, class F, class T>
auto map_on_device(const std::vector<T>& in, const F& f) -> std::vector<decltype(f(in[0]))> {
  using R = decltype(f(in[0]));
  const auto d_in = to_device<Space>(in);
  Kokkos::View<R*, typename Space::memory_space> out("TrackGen::test::out", in.size());
  Kokkos::parallel_for(
      "TrackGen::test::map", Kokkos::RangePolicy<Space>(Space(), 0, in.size()),
      KOKKOS_LAMBDA(const int i) { out(i) = f(d_in(i)); });
  return to_vector(out);
}

/// The centerline generator tests (test_generators*.cpp): a generator run on its
/// own, outside the pipeline, and its output on the host.
namespace generators {

/// Batch size of the generator tests unless a test says otherwise.
inline constexpr int default_envs = 64;

/// Seeds first, first + 1, ..., first + n - 1.
inline std::vector<std::int32_t> seed_range(int n, std::int32_t first = 0) {
  std::vector<std::int32_t> s(static_cast<std::size_t>(n));
  std::iota(s.begin(), s.end(), first);
  return s;
}

/// A default config selecting `generator` for `num_envs` envs.
inline TrackGenConfig make_config(const std::string& generator, int num_envs = default_envs) {
  TrackGenConfig c;
  c.generator = generator;
  c.num_envs = num_envs;
  return c;
}

/// Output of one generate() on the host.
struct Batch {
  std::vector<Vec2f> pts;  // [E*N]
  std::vector<std::int32_t> valid;
  int num_envs = 0;
  int n = 0;
  const Vec2f* env(int e) const { return pts.data() + static_cast<std::size_t>(e) * n; }
};

/// A generator and its device buffers, as the pipeline holds them.
template <class Space>
struct Harness {
  TrackGenConfig config;
  LaunchContext<Space> ctx;
  std::unique_ptr<Generator<Space>> gen;
  DView<std::int32_t, Space> seeds;
  DView<Vec2f, Space> out;
  DView<std::int32_t, Space> valid;

  Harness(const TrackGenConfig& c, const std::vector<std::int32_t>& seed_values, const Space& space = Space())
      : config(c),
        ctx(space),
        gen(get_generator<Space>(c.generator).make(space, c)),
        seeds(to_device<Space>(seed_values, "test_seeds")),
        out("test_centerline", std::size_t(c.num_envs) * c.num_points),
        valid("test_valid", std::size_t(c.num_envs)) {}

  Batch run() {
    gen->generate(ctx, seeds, out, valid);
    ctx.fence();
    return {to_vector(out), to_vector(valid), config.num_envs, config.num_points};
  }

  /// The generator as its concrete type G (the test fails if it is not one).
  template <class G>
  G& as() {
    auto* g = dynamic_cast<G*>(gen.get());
    REQUIRE(g != nullptr);
    return *g;
  }
};

template <class Space>
Batch generate_batch(const TrackGenConfig& c, const std::vector<std::int32_t>& seeds) {
  Harness<Space> h(c, seeds);
  return h.run();
}

/// Closed-loop perimeter of p[0..n) (float edge vectors, double sum).
inline double perimeter(const Vec2f* p, int n) {
  double l = 0.0;
  for (int i = 0; i < n; ++i) {
    const Vec2f d = p[(i + 1) % n] - p[i];
    l += std::sqrt(double(d.x) * d.x + double(d.y) * d.y);
  }
  return l;
}

/// For each env of `b`: checks out_valid == 1, requires every point finite, and
/// calls judge_closing(e, p, mean_edge) (under INFO("env " << e)) to check the
/// implicit closing edge p[n-1] -> p[0] of the env's loop p[0..n).
template <class F>
void check_closed_finite_with(const Batch& b, const F& judge_closing) {
  for (int e = 0; e < b.num_envs; ++e) {
    INFO("env " << e);
    CHECK(b.valid[e] == 1);
    const Vec2f* p = b.env(e);
    bool finite = true;
    for (int i = 0; i < b.n; ++i) finite = finite && std::isfinite(p[i].x) && std::isfinite(p[i].y);
    REQUIRE(finite);
    judge_closing(e, p, perimeter(p, b.n) / b.n);
  }
}

/// The point-family corner count of `seed` (stream `s`) drawn on the host.
inline int host_corner_count(std::int32_t seed, salt::Salt s, int min_num, int max_num) {
  std::uint32_t st = stream(seed, s);
  const float u = randf(st);
  return std::min(min_num + static_cast<int>(std::floor(u * static_cast<float>(max_num - min_num + 1))), max_num);
}

/// Kernel names, region names and allocations seen through the Kokkos Tools
/// callbacks below.
inline std::vector<std::string> g_kernels, g_regions;
inline int g_allocations = 0;
inline void on_begin_kernel(const char* name, std::uint32_t, std::uint64_t*) { g_kernels.emplace_back(name); }
inline void on_push_region(const char* name) { g_regions.emplace_back(name); }
inline void on_allocate(Kokkos::Profiling::SpaceHandle, const char*, const void*, std::uint64_t) { ++g_allocations; }

/// Runs one generate() of `h` with the callbacks installed.
template <class Space>
void record_generate(Harness<Space>& h) {
  namespace kte = Kokkos::Tools::Experimental;
  const auto saved = kte::get_callbacks();
  g_kernels.clear();
  g_regions.clear();
  g_allocations = 0;
  kte::set_begin_parallel_for_callback(on_begin_kernel);
  kte::set_push_region_callback(on_push_region);
  kte::set_allocate_data_callback(on_allocate);
  h.gen->generate(h.ctx, h.seeds, h.out, h.valid);
  h.ctx.fence();
  kte::set_callbacks(saved);
}

}  // namespace generators
}  // namespace trackgen::test
