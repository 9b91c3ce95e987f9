// CourseLine and FrameChecker on hand-made gate rings: the line passes through
// every gate centre and closes, degenerate envs are empty, a masked refresh
// touches only its envs; a sphere at a gate centre clears the frame, one offset
// by the half size hits it, only the window of gates around the target counts;
// bad input.
#include "gate_support.hpp"
#include "runtime_support.hpp"

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr float kPi = geom::pi_f;

/// A sphere position of env e's gate i in the gate's frame: centre + a
/// forward + b left + c up.
Vec3f gate_point(const tt::HostGates& g, int e, int i, float a, float b, float c) {
  const std::size_t s = static_cast<std::size_t>(e) * g.max_gates() + i;
  const Quatf q = g.orientation(s);
  return g.position(s) + geom::rotate(q, Vec3f{a, b, c});
}

}  // namespace

TEMPLATE_TEST_CASE("CourseLine: through every gate centre, closed, degenerate envs empty", "[runtime][course_line]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int G = 8, spg = 4;
  const std::vector<tt::RingEnv> envs{{6, 10.0f}, {8, 5.0f, 0.5f, 2.0f}, {2, 10.0f}, {5, 10.0f, 0.5f, 1.0f, 0}};
  const auto gates = tt::ring_gates<Space>(envs, G);
  CourseLine<Space> course(Space(), gates, spg);
  const auto line = course.line().to_host();
  const auto h = gates.to_host();
  REQUIRE(line.n_max() == G * spg);
  REQUIRE(&course.refresh() == &course.line());

  for (int e = 0; e < 2; ++e) {
    INFO("env " << e);
    const int n = envs[e].n, m = n * spg;
    const std::size_t b = static_cast<std::size_t>(e) * G * spg;
    CHECK(line.count(e) == m);
    CHECK(line.valid(e) == 1);
    CHECK(line.winding(e) == 0.0f);
    for (int i = 0; i < n; ++i) {  // point i * spg is gate i's centre, exactly
      const Vec3f p = line.center(b + static_cast<std::size_t>(i) * spg), q = h.position(e * G + i);
      CHECK((p.x == q.x && p.y == q.y && p.z == q.z));
    }
    for (int j = 0; j < m; ++j) {
      CHECK(length(line.tangent(b + j)) == Approx(1.0f).margin(1e-5));
      CHECK(line.center(b + j).z == Approx(envs[e].z).margin(1e-5));
      CHECK(std::hypot(line.center(b + j).x, line.center(b + j).y) ==
            Approx(envs[e].r).epsilon(0.05));  // a Catmull-Rom circle stays near the circle
      CHECK(!is_finite(line.outer(b + j)));
    }
    CHECK(line.arclen(b) == 0.0f);
    // Closed: the length adds the closing segment from the last point back to the first.
    const float closing = length(line.center(b) - line.center(b + m - 1));
    CHECK(line.length(e) == Approx(line.arclen(b + m - 1) + closing).epsilon(1e-6));
    CHECK(line.length(e) == Approx(2.0 * kPi * envs[e].r).epsilon(0.02));
    CHECK(!is_finite(line.center(b + m)));  // padding past count
  }
  for (int e = 2; e < 4; ++e) {  // fewer than 3 gates; an invalid course
    INFO("env " << e);
    CHECK(line.count(e) == 0);
    CHECK(line.valid(e) == 0);
    CHECK(!is_finite(line.center(static_cast<std::size_t>(e) * G * spg)));
  }

  // Bitwise the same as on Serial.
  CourseLine<Kokkos::Serial> serial(Kokkos::Serial(), tt::ring_gates<Kokkos::Serial>(envs, G), spg);
  const auto ls = serial.line().to_host();
  CHECK(tt::same_bits(line.center, ls.center));
  CHECK(tt::same_bits(line.tangent, ls.tangent));
  CHECK(tt::same_bits(line.arclen, ls.arclen));
  CHECK(tt::same_bits(line.length, ls.length));

  // A TrackLocalizer on the line finds gate 2 of env 0 at its arc length.
  const std::vector<Vec3f> pos{h.position(2), nan3(), nan3(), nan3()};
  TrackLocalizer<Space> localizer(Space(), course.line());
  const auto& frame = localizer.query(tt::to_device<Space>(pos, "pos"));
  CHECK(tt::to_vector(frame.s)[0] == Approx(line.arclen(2 * spg)).margin(1e-4));
  CHECK(tt::to_vector(frame.n)[0] == Approx(0.0f).margin(1e-4));
}

TEMPLATE_TEST_CASE("CourseLine: a masked refresh rewrites only its envs", "[runtime][course_line]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int G = 6;
  const std::vector<tt::RingEnv> envs{{6, 10.0f}, {6, 10.0f}};
  const auto gates = tt::ring_gates<Space>(envs, G);
  CourseLine<Space> course(Space(), gates);
  const auto before = course.line().to_host();
  // Move every gate (the line aliases the sequence), then refresh env 1 only.
  Kokkos::deep_copy(gates.position, tt::ring_gates<Space>({{6, 20.0f}, {6, 20.0f}}, G).position);
  course.refresh(LaunchContext<Space>(Space()), tt::to_device<Space>(std::vector<std::int32_t>{0, 1}, "mask"));
  const auto after = course.line().to_host();
  const std::size_t N = static_cast<std::size_t>(G) * 8;
  CHECK(std::memcmp(after.center.data(), before.center.data(), N * sizeof(Vec3f)) == 0);
  CHECK(after.length(0) == before.length(0));
  CHECK(after.length(1) == Approx(2.0 * kPi * 20.0).epsilon(0.02));
}

TEMPLATE_TEST_CASE("CourseLine: bad input names the argument", "[runtime][course_line]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto gates = tt::ring_gates<Space>({{6, 10.0f}}, 6);
  CHECK_THROWS_WITH(CourseLine<Space>(Space(), gates, 1), Catch::Contains("samples_per_gate"));
  CHECK_THROWS_WITH(CourseLine<Space>(Space(), GateSequence<typename Space::memory_space>()),
                    Catch::Contains("gates"));
  CourseLine<Space> course(Space(), gates);
  CHECK_THROWS_WITH(course.refresh(LaunchContext<Space>(Space()),
                                   tt::to_device<Space>(std::vector<std::int32_t>{1, 1}, "mask")),
                    Catch::Contains("mask"));
}

TEMPLATE_TEST_CASE("FrameChecker: the opening clears, the frame at the half size hits, the window",
                   "[runtime][frames]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int G = 6;
  constexpr float hs = 0.5f, t = 0.1f, d = 0.2f, radius = 0.2f;
  // Env 3 is an invalid course (never hits).
  const std::vector<tt::RingEnv> envs{{6, 10.0f, hs}, {6, 10.0f, hs}, {6, 10.0f, hs}, {6, 10.0f, hs, 1.0f, 0}};
  const auto gates = tt::ring_gates<Space>(envs, G);
  const auto h = gates.to_host();
  FrameChecker<Space> checker(Space(), gates, radius, t, d);
  CHECK(checker.window() == 4);
  auto position = tt::filled<Space>(envs.size(), Vec3f{0, 0, 0}, "position");
  auto next = tt::filled<Space>(envs.size(), std::int32_t{0}, "next");
  CHECK_THROWS_WITH(checker.query(), Catch::Contains("bind_inputs"));
  checker.bind_inputs(position);
  CHECK_THROWS_WITH(checker.query(), Catch::Contains("bind_window"));
  checker.bind_window(next);

  struct Case {
    const char* what;
    std::vector<Vec3f> pos;
    std::vector<std::int32_t> next;
    std::vector<int> hit;
    std::vector<float> depth;
  };
  const float r = radius;
  const std::vector<Case> cases{
      {"gate centres clear; a sphere inside the opening clears",
       {gate_point(h, 0, 2, 0, 0, 0), gate_point(h, 1, 2, 0, hs - r - 0.01f, 0), gate_point(h, 2, 2, 0, 0, -(hs - r - 0.01f)),
        gate_point(h, 3, 2, 0, hs, 0)},
       {2, 2, 2, 2},
       {0, 0, 0, 0},
       {0, 0, 0, 0}},
      {"offset by the half size: the left post, the right post, the top bar touch at their faces",
       {gate_point(h, 0, 2, 0, hs, 0), gate_point(h, 1, 2, 0, -hs, 0), gate_point(h, 2, 2, 0, 0, hs),
        gate_point(h, 3, 2, 0, hs, 0)},
       {2, 2, 2, 2},
       {1, 1, 1, 0},
       {r, r, r, 0}},
      {"the window: gates next-1 .. next+2 only (wrapping)",
       {gate_point(h, 0, 5, 0, hs, 0), gate_point(h, 1, 5, 0, hs, 0), gate_point(h, 2, 0, 0, hs, 0),
        gate_point(h, 3, 0, 0, hs, 0)},
       {2, 0, 5, 0},  // gate 5 outside 1..4; gate 5 = 0-1 inside; gate 0 = 5+1 inside
       {0, 1, 1, 0},
       {0, r, r, 0}},
      {"a NaN position never hits",
       {nan3(), gate_point(h, 1, 2, 0, hs + 0.05f, 0), gate_point(h, 2, 2, 0.5f * d + r + 0.01f, hs, 0), nan3()},
       {2, 2, 2, 2},
       {0, 1, 0, 0},  // env 1 is inside the post; env 2 is past the frame's depth
       {0, r + 0.05f, 0, 0}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    Kokkos::deep_copy(position, tt::to_device<Space>(c.pos, "pos"));
    Kokkos::deep_copy(next, tt::to_device<Space>(c.next, "next"));
    const auto& contacts = checker.query();
    REQUIRE(&contacts == &checker.contacts());
    const auto hit = tt::to_vector(contacts.hit);
    const auto depth = tt::to_vector(contacts.depth);
    for (std::size_t e = 0; e < envs.size(); ++e) {
      INFO("env " << e);
      CHECK(hit[e] == c.hit[e]);
      CHECK(depth[e] == Approx(c.depth[e]).margin(1e-4));
    }
  }

  // A window of 1 examines the gate just passed only.
  FrameChecker<Space> narrow(Space(), gates, radius, t, d, 1);
  narrow.bind_inputs(position);
  narrow.bind_window(next);
  Kokkos::deep_copy(position, tt::to_device<Space>(std::vector<Vec3f>{gate_point(h, 0, 1, 0, hs, 0),
                                                                      gate_point(h, 1, 2, 0, hs, 0), nan3(), nan3()},
                                                   "pos"));
  Kokkos::deep_copy(next, tt::to_device<Space>(std::vector<std::int32_t>{2, 2, 0, 0}, "next"));
  CHECK(tt::to_vector(narrow.query().hit) == std::vector<std::int32_t>{1, 0, 0, 0});
  const auto copy = narrow.contacts().clone();
  CHECK(copy.hit.data() != narrow.contacts().hit.data());
  CHECK(tt::to_vector(copy.hit) == std::vector<std::int32_t>{1, 0, 0, 0});
}

TEMPLATE_TEST_CASE("FrameChecker: bad input names the argument", "[runtime][frames]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto gates = tt::ring_gates<Space>({{6, 10.0f}, {6, 10.0f}}, 6);
  const float nan = nanf();
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), gates, 0.0f, 0.1f, 0.1f), Catch::Contains("radius"));
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), gates, nan, 0.1f, 0.1f), Catch::Contains("radius"));
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), gates, 0.1f, -1.0f, 0.1f), Catch::Contains("frame_thickness"));
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), gates, 0.1f, 0.1f, 0.0f), Catch::Contains("frame_depth"));
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), gates, 0.1f, 0.1f, 0.1f, 0), Catch::Contains("window"));
  CHECK_THROWS_WITH(FrameChecker<Space>(Space(), GateSequence<typename Space::memory_space>(), 0.1f, 0.1f, 0.1f),
                    Catch::Contains("gates"));
  FrameChecker<Space> checker(Space(), gates, 0.1f, 0.1f, 0.1f);
  CHECK_THROWS_WITH(checker.bind_inputs(tt::filled<Space>(3, Vec3f{0, 0, 0})), Catch::Contains("position"));
  CHECK_THROWS_WITH(checker.bind_window(tt::filled<Space>(1, std::int32_t{0})), Catch::Contains("next"));
}
