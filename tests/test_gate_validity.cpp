// Gate validity and separation on constructed cases (docs/algorithms.md#gate-validity):
// one valid square course, then each failure cause on its own.
#include "gate_support.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr int G = 8;

GateParams square_params() {
  GateParams p;
  p.num_envs = 1;
  p.max_gates = G;
  p.anchor_stride = G;
  p.min_gates = 4;
  p.sep_target = 0.05f;
  p.gate_width = 0.1f;
  p.half_size = 0.05f;
  p.z_valid_grade = 0.5f;
  return p;
}

/// The framed unit square course (4 gates) of one env, as the pipeline frames it.
template <class Space>
GateSequence<typename Space::memory_space> square_course(const GateParams& p) {
  GateSequence<typename Space::memory_space> s(Space(), 1, G);
  auto h = s.to_host();
  const Vec3f corners[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  for (int i = 0; i < 4; ++i) h.position(i) = corners[i];
  h.count(0) = 4;
  Kokkos::deep_copy(s.position, h.position);
  Kokkos::deep_copy(s.count, h.count);
  DView<std::int32_t, Space> fallbacks(std::string("fallbacks"), 1);
  gate_frames(LaunchContext<Space>(), p, s, fallbacks);
  Kokkos::fence();
  return s;
}

template <class Space>
int validity_of(const GateParams& p, const GateSequence<typename Space::memory_space>& s) {
  gate_validity(LaunchContext<Space>(), p, s);
  return tt::to_vector(s.valid)[0];
}

}  // namespace

TEMPLATE_TEST_CASE("Gate validity rejects each failure cause on its own", "[gates][validity]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const GateParams p = square_params();
  const auto base = square_course<Space>(p);
  REQUIRE(validity_of<Space>(p, base) == 1);
  using Host = tt::HostGates;
  const std::vector<std::pair<std::string, std::function<void(Host&)>>> causes{
      {"fewer gates than min_gates", [](Host& h) { h.count(0) = 3; }},
      {"more gates than the stride", [](Host& h) { h.count(0) = G + 1; }},
      {"a non-finite left end", [](Host& h) { h.left(2).y = nanf(); }},
      {"a non-finite orientation", [](Host& h) { h.orientation(1).w = nanf(); }},
      {"a non-finite half size", [](Host& h) { h.half_size(3) = nanf(); }},
      {"a zero tangent",
       [](Host& h) {
         h.tangent(1) = Vec3f{0, 0, 0};
       }},
      {"two centres closer than 2 gate_radius",
       [](Host& h) {
         h.position(3) = Vec3f{0.03f, 0.02f, 0.0f};
       }},
      {"two bars crossing",
       [](Host& h) {
         h.left(1) = Vec3f{-0.05f, 0.001f, 0.0f};
         h.right(1) = Vec3f{0.05f, 0.001f, 0.0f};
       }},
      {"a bar touching another bar",
       [](Host& h) {
         h.left(1) = h.position(0);  // an end point on gate 0's bar
         h.right(1) = Vec3f{0.2f, 0.3f, 0.0f};
       }},
      {"a climb steeper than z_valid_grade", [](Host& h) { h.position(2).z = 0.9f; }},
  };
  for (const auto& [cause, mutate] : causes) {
    INFO("cause: " << cause);
    auto s = base.clone();
    auto h = s.to_host();
    mutate(h);
    Kokkos::deep_copy(s.position, h.position);
    Kokkos::deep_copy(s.tangent, h.tangent);
    Kokkos::deep_copy(s.orientation, h.orientation);
    Kokkos::deep_copy(s.half_size, h.half_size);
    Kokkos::deep_copy(s.left, h.left);
    Kokkos::deep_copy(s.right, h.right);
    Kokkos::deep_copy(s.count, h.count);
    CHECK(validity_of<Space>(p, s) == 0);
  }
  SECTION("the same bars pass without a gate width, the climb without a grade limit") {
    GateParams q = p;
    q.gate_width = 0.0f;
    q.z_valid_grade = 0.0f;
    auto s = base.clone();
    auto h = s.to_host();
    h.left(1) = Vec3f{-0.05f, 0.001f, 0.0f};
    h.right(1) = Vec3f{0.05f, 0.001f, 0.0f};
    h.position(2).z = 0.9f;
    Kokkos::deep_copy(s.left, h.left);
    Kokkos::deep_copy(s.right, h.right);
    Kokkos::deep_copy(s.position, h.position);
    CHECK(validity_of<Space>(q, s) == 1);
  }
}

TEMPLATE_TEST_CASE("Gate separation pushes coincident gates apart to the target, deterministically",
                   "[gates][separation]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  GateParams p;
  p.num_envs = 2;
  p.max_gates = 4;
  p.sep_target = 0.1f;
  p.solve_iters = 32;
  const std::vector<Vec2f> start{{0, 0}, {0, 0},     {0, 0},    {nanf(), nanf()},
                                 {0, 0}, {0.05f, 0}, {0.5f, 0}, {0.5f, 0.01f}};
  std::vector<std::vector<Vec2f>> runs;
  for (int r = 0; r < 2; ++r) {
    const auto staging = tt::to_device<Space>(start, "staging");
    const auto count = tt::to_device<Space>(std::vector<std::int32_t>{3, 4}, "count");
    separate_gates(LaunchContext<Space>(), p, count, staging);
    runs.push_back(tt::to_vector(staging));
  }
  CHECK(tt::bitwise_equal(runs[0], runs[1]));
  const auto& q = runs[0];
  for (int e = 0; e < 2; ++e) {
    const int n = e == 0 ? 3 : 4;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) CHECK(length(q[e * 4 + j] - q[e * 4 + i]) >= 0.1f - 1e-6f);
    }
  }
  CHECK(std::isnan(q[3].x));
}
