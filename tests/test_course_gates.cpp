// Course in gates mode: a sphere flown along the course line through every
// gate centre passes the gates in order (each once, laps rolling over) without
// touching a frame and is localized on the line; offset by a gate's half size
// it hits the frame; a box at a gate's end hits its post; a masked regenerate
// leaves the other envs bit-identical; config rules and bad input.
#include "gate_support.hpp"
#include "runtime_support.hpp"
#include "test_pipeline_support.hpp"

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

/// A gates-mode Course config on `generator` (E envs, gate_width 0.1).
CourseConfig gates_config(int envs, const std::string& generator = "polar") {
  CourseConfig c;
  c.mode = CourseMode::gates;
  c.gate_gen = tt::gate_config(generator, envs);
  c.seed = 7;
  return c;
}

/// With frame collision: openings of 0.02 (gates at least 0.05 apart, so no
/// frame reaches a neighbour's line), frames 0.002 thick and deep, an agent
/// sphere of 0.001.
CourseConfig frames_config(int envs) {
  CourseConfig c = gates_config(envs);
  c.gate_gen.gate_width = 0.02f;
  c.frame_collision = true;
  c.frame_thickness = 0.002f;
  c.frame_depth = 0.002f;
  c.agent_radius = 0.001f;
  return c;
}

/// Env e's gate i point centre + b left + c up (in the gate's frame).
Vec3f gate_point(const tt::HostGates& g, int e, int i, float b, float c) {
  const std::size_t s = static_cast<std::size_t>(e) * g.max_gates() + i;
  return g.position(s) + geom::rotate(g.orientation(s), Vec3f{0.0f, b, c});
}

/// Every per-env piece of a gates-mode Course's state on the host.
struct GateCourseState {
  tt::HostGates gates;
  tt::HostTrack line;
  std::vector<Vec3f> prev;
  std::vector<int> next, laps, progress, last_segment;

  template <class Space>
  static GateCourseState of(Course<Space>& c) {
    return {c.gates().to_host(),
            tt::HostTrack::from(c.track()),
            tt::to_vector(c.progress().previous_position()),
            tt::to_vector(c.progress().next_checkpoint_state()),
            tt::to_vector(c.result().events.laps),
            tt::to_vector(c.result().events.progress),
            tt::to_vector(c.localizer()->last_segment())};
  }

  /// Whether env e is bitwise the same in both.
  bool same_env(const GateCourseState& o, int e) const {
    const std::size_t N = static_cast<std::size_t>(line.n_max), b = static_cast<std::size_t>(e) * N;
    const auto eq = [&](const auto& x, const auto& y) {
      return std::memcmp(x.data() + b, y.data() + b, N * sizeof(x[0])) == 0;
    };
    return tt::same_env(gates, o.gates, e) && eq(line.center, o.line.center) && eq(line.arclen, o.line.arclen) &&
           line.count[e] == o.line.count[e] && std::memcmp(&prev[e], &o.prev[e], sizeof(Vec3f)) == 0 &&
           next[e] == o.next[e] && laps[e] == o.laps[e] && progress[e] == o.progress[e] &&
           last_segment[e] == o.last_segment[e];
  }
};

}  // namespace

TEMPLATE_TEST_CASE("Course gates mode: through every gate centre in order, laps roll over, frames hit at the half size",
                   "[runtime][course][gates]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int E = 4;
  Course<Space> course(Space(), frames_config(E));
  REQUIRE(course.course_line() != nullptr);
  REQUIRE(course.frames() != nullptr);
  REQUIRE(course.posts() == nullptr);
  REQUIRE(&course.generate() == &course.track());
  const auto gates = course.gates().to_host();
  const auto line = tt::HostTrack::from(course.track());
  const int G = gates.max_gates(), spg = course.config().samples_per_gate, N = line.n_max;
  REQUIRE(N == G * spg);
  // The checkpoints are the gates (aliased).
  CHECK(course.checkpoints().position.data() == course.gates().position.data());
  CHECK(course.checkpoints().tangent.data() == course.gates().forward.data());

  auto position = tt::filled<Space>(E, nan3(), "position");
  course.bind(position);
  // Env e starts half a gate before gate 0 and moves one line point a step,
  // 1/32 into the line's segment j (so it never stops on a gate's plane, and
  // the chord between two positions passes a gate close to its centre).
  std::vector<int> n(E), m(E);
  int steps = 0;
  for (int e = 0; e < E; ++e) {
    REQUIRE(gates.valid(e) == 1);
    n[e] = gates.count(e);
    m[e] = line.count[e];
    REQUIRE(m[e] == n[e] * spg);
    steps = std::max(steps, 2 * m[e] + spg);
  }
  std::vector<int> arrivals(E, 0);
  for (int t = 0; t < steps; ++t) {
    std::vector<Vec3f> p(E);
    std::vector<int> at(E);
    std::vector<float> s_want(E);
    for (int e = 0; e < E; ++e) {
      at[e] = (m[e] - spg / 2 + t) % m[e];
      const std::size_t b = static_cast<std::size_t>(e) * N;
      const Vec3f a = line.center[b + at[e]], z = line.center[b + (at[e] + 1) % m[e]];
      p[e] = a + (1.0f / 32.0f) * (z - a);
      s_want[e] = line.arclen[b + at[e]] + (1.0f / 32.0f) * length(z - a);
    }
    Kokkos::deep_copy(position, tt::to_device<Space>(p, "p"));
    const auto& r = course.step();
    REQUIRE(r.has_frames());
    REQUIRE(r.has_frame());
    REQUIRE(!r.has_posts());
    const auto passed = tt::to_vector(r.events.passed), cp = tt::to_vector(r.events.checkpoint_passed);
    const auto progress = tt::to_vector(r.events.progress), laps = tt::to_vector(r.events.laps);
    const auto wrong = tt::to_vector(r.events.wrong_way), hit = tt::to_vector(r.frames.hit);
    const auto s = tt::to_vector(r.frame.s), lateral = tt::to_vector(r.frame.n);
    for (int e = 0; e < E; ++e) {
      INFO("step " << t << " env " << e);
      const bool arrival = t > 0 && at[e] % spg == 0;  // just past a gate centre
      CHECK(passed[e] == (arrival ? 1 : 0));
      if (arrival) {
        CHECK(cp[e] == arrivals[e] % n[e]);
        ++arrivals[e];
      }
      CHECK(progress[e] == arrivals[e]);
      CHECK(laps[e] == arrivals[e] / n[e]);
      CHECK(wrong[e] == 0);
      CHECK(hit[e] == 0);
      CHECK(s[e] == Approx(s_want[e]).margin(1e-5));
      CHECK(lateral[e] == Approx(0.0f).margin(1e-5));
    }
  }
  for (int e = 0; e < E; ++e) CHECK(arrivals[e] >= 2 * n[e]);  // two laps at least

  // Restart progress (target gate 0: the window holds gates n-1, 0, 1, 2), then
  // put each env's sphere on a side of gate 1's opening.
  course.reset(tt::filled<Space>(E, std::int32_t{1}, "all"));
  const float hs = gates.half_size(1);
  const std::vector<Vec3f> offset{gate_point(gates, 0, 1, hs, 0), gate_point(gates, 1, 1, 0, -hs),
                                  gate_point(gates, 2, 1, 0, 0), gate_point(gates, 3, 1, 0.5f * hs, 0)};
  Kokkos::deep_copy(position, tt::to_device<Space>(offset, "offset"));
  const auto& r = course.step();
  const auto hit = tt::to_vector(r.frames.hit);
  const auto depth = tt::to_vector(r.frames.depth);
  CHECK(hit == std::vector<std::int32_t>{1, 1, 0, 0});
  CHECK(depth[0] == Approx(0.001f).margin(1e-6));
  CHECK(depth[1] == Approx(0.001f).margin(1e-6));
  CHECK(tt::to_vector(r.events.passed) == std::vector<std::int32_t>(E, 0));  // just reset: no previous position
}

TEMPLATE_TEST_CASE("Course gates mode: posts, masked regenerate leaves other envs bit-identical",
                   "[runtime][course][gates]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int E = 4;
  CourseConfig config = gates_config(E, "checkpoint");
  config.post_radius = 0.01f;
  config.localize_window = 2;
  Course<Space> course(Space(), config);
  course.generate();
  REQUIRE(course.posts() != nullptr);
  auto position = tt::filled<Space>(E, nan3(), "position");
  const auto orientation = tt::filled<Space>(E, tt::no_rotation(), "orientation");
  const auto half_extents = tt::filled<Space>(E, Vec2f{0.005f, 0.005f}, "half_extents");
  course.bind(position, orientation, half_extents);

  // A few steps from gate 0 towards gate 1 along the line so the state is not fresh.
  const auto line = tt::HostTrack::from(course.track());
  for (int t = 0; t < 12; ++t) {
    std::vector<Vec3f> p(E);
    for (int e = 0; e < E; ++e) p[e] = line.center[static_cast<std::size_t>(e) * line.n_max + t];
    Kokkos::deep_copy(position, tt::to_device<Space>(p, "p"));
    course.step();
  }
  const auto before = GateCourseState::of(course);
  const auto mask = tt::to_device<Space>(std::vector<std::int32_t>{0, 1, 0, 1}, "mask");
  course.regenerate(mask, /*advance=*/true);
  const auto after = GateCourseState::of(course);
  for (int e = 0; e < E; ++e) {
    INFO("env " << e);
    if (e % 2 == 0) {
      CHECK(after.same_env(before, e));
    } else {
      CHECK(!tt::same_env(after.gates, before.gates, e));  // a new course
      CHECK(after.next[e] == 0);
      CHECK(!is_finite(after.prev[e]));
      CHECK(after.last_segment[e] == -1);
    }
  }
  // The refreshed line is the line of the new gates.
  CourseLine<Space> fresh(Space(), course.gates(), config.samples_per_gate);
  const auto fresh_line = tt::HostTrack::from(fresh.line());
  CHECK(tt::bitwise_equal(after.line.center, fresh_line.center));
  CHECK(tt::bitwise_equal(after.line.arclen, fresh_line.arclen));

  // The posts follow the new gates: a box on gate 2's right end of every env hits disc 2*2+1.
  std::vector<Vec3f> p(E);
  for (int e = 0; e < E; ++e) p[e] = after.gates.right(static_cast<std::size_t>(e) * after.gates.max_gates() + 2);
  Kokkos::deep_copy(position, tt::to_device<Space>(p, "p"));
  const auto& r = course.step();
  REQUIRE(r.has_posts());
  CHECK(tt::to_vector(r.posts.hit) == std::vector<std::int32_t>(E, 1));
  CHECK(tt::to_vector(r.posts.disc) == std::vector<std::int32_t>(E, 5));
  const auto copy = r.clone();
  CHECK(copy.posts.hit.data() != r.posts.hit.data());
}

TEMPLATE_TEST_CASE("Course gates mode: options of the other mode and bad values name the field",
                   "[runtime][course][gates]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto rejects = [](const CourseConfig& c, const char* field) {
    INFO(field);
    CHECK_THROWS_WITH(Course<Space>(Space(), c), Catch::Contains(field));
  };
  CourseConfig c = gates_config(2);
  c.checkpoint_spacing = 0.4f;
  rejects(c, "checkpoint_spacing");
  c = gates_config(2);
  c.collision = CollisionMethod::segments;
  rejects(c, "collision");
  c = gates_config(2);
  c.gate_gen.gate_width = 0.0f;
  rejects(c, "gate_gen.gate_width");
  c = gates_config(2);
  c.gate_gen.generator = "nope";
  rejects(c, "generator");
  c = gates_config(2);
  c.samples_per_gate = 1;
  rejects(c, "samples_per_gate");
  c = gates_config(2);
  c.post_radius = -1.0f;
  rejects(c, "post_radius");
  c = frames_config(2);
  c.post_radius = 0.01f;
  rejects(c, "frame_collision");
  c = frames_config(2);
  c.frame_thickness = 0.0f;
  rejects(c, "frame_thickness");
  c = gates_config(2);
  c.agent_radius = 0.1f;
  rejects(c, "agent_radius");
  c = gates_config(2);
  c.frame_window = 2;
  rejects(c, "frame_window");
  c = gates_config(2);
  c.max_boxes = 2;
  rejects(c, "max_boxes");

  CourseConfig track;  // track mode rejects the gates options
  track.gen.num_envs = 2;
  track.checkpoint_spacing = 0.4f;
  track.samples_per_gate = 4;
  rejects(track, "samples_per_gate");
  track.samples_per_gate = 8;
  track.post_radius = 0.1f;
  rejects(track, "post_radius");
  track.post_radius = 0.0f;
  track.frame_depth = 0.1f;
  rejects(track, "frame_depth");
  track.frame_depth = 0.0f;
  Course<Space> track_course(Space(), track);
  CHECK_THROWS_WITH(track_course.gates(), Catch::Contains("gates"));
  CHECK_THROWS_WITH(track_course.gate_generator(), Catch::Contains("gate_generator"));
  CHECK(track_course.course_line() == nullptr);

  Course<Space> course(Space(), frames_config(2));
  CHECK_THROWS_WITH(course.generator(), Catch::Contains("gate_generator"));
  CHECK_THROWS_WITH(course.checkpoint_sampler(), Catch::Contains("checkpoint_sampler"));
  CHECK_THROWS_WITH(course.step(), Catch::Contains("bind"));
  const auto position = tt::filled<Space>(2, Vec3f{0, 0, 0});
  CHECK_THROWS_WITH(course.bind(position, tt::filled<Space>(2, tt::no_rotation())), Catch::Contains("orientation"));
  CHECK_THROWS_WITH(course.bind(tt::filled<Space>(3, Vec3f{0, 0, 0})), Catch::Contains("position"));
}
