// Course: config validation and bad input, graph replay equal to eager,
// masked regeneration (unmasked envs bit-identical, regenerated ones equal to
// a fresh Course at their new seeds), recording into a caller's capture, reset
// and reseeding.
#include "runtime_support.hpp"

#include "test_pipeline_support.hpp"

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

/// A Course using every helper: sdf collision (a small grid), warm
/// localization, speed profile, height field.
CourseConfig full_config(int envs, std::optional<CollisionMethod> collision = CollisionMethod::sdf) {
  CourseConfig c;
  c.gen.num_envs = envs;
  c.seed = 100;
  c.checkpoint_spacing = 0.4f;
  c.collision = collision;
  if (collision == CollisionMethod::sdf) c.sdf_resolution = 16;
  c.heightfield_resolution = 8;
  c.localize = true;
  c.localize_window = 4;
  c.speed_limits = SpeedLimits{};
  return c;
}

/// Every piece of a Course's state on the host.
struct CourseState {
  tt::HostTrack track;
  std::vector<Vec3f> cp_position, cp_left, prev;
  std::vector<int> cp_count, next, laps, progress, last_segment, passed, oob, segment;
  std::vector<float> speed, curvature, height, phi, distance, s;
  int n_max = 0, cps = 0, texels = 0, hf_texels = 0;

  template <class Space>
  static CourseState of(const Course<Space>& c) {
    CourseState h;
    h.track = tt::HostTrack::from(c.track());
    h.n_max = c.track().n_max();
    h.cps = c.checkpoints().stride();
    h.cp_position = tt::to_vector(c.checkpoints().position);
    h.cp_left = tt::to_vector(c.checkpoints().left);
    h.cp_count = tt::to_vector(c.checkpoints().count);
    h.prev = tt::to_vector(c.progress().previous_position());
    h.next = tt::to_vector(c.progress().next_checkpoint_state());
    h.laps = tt::to_vector(c.result().events.laps);
    h.progress = tt::to_vector(c.result().events.progress);
    h.passed = tt::to_vector(c.result().events.passed);
    h.last_segment = tt::to_vector(c.localizer()->last_segment());
    h.s = tt::to_vector(c.result().frame.s);
    h.segment = tt::to_vector(c.result().frame.segment);
    h.speed = tt::to_vector(c.speed());
    h.curvature = tt::to_vector(c.curvature());
    h.height = tt::to_vector(c.heightfield()->height);
    h.hf_texels = c.heightfield()->resolution * c.heightfield()->resolution;
    if (c.collision()) {
      h.oob = tt::to_vector(c.result().contacts.oob);
      h.distance = tt::to_vector(c.result().contacts.distance);
      if (c.collision()->method() == CollisionMethod::sdf) {
        h.phi = tt::to_vector(c.collision()->sdf().phi);
        h.texels = c.collision()->sdf().resolution * c.collision()->sdf().resolution;
      }
    }
    return h;
  }

  /// Env e's slice of every per-env helper (not the step results).
  bool helpers_equal(int e, const CourseState& o, int eo) const {
    const auto rows = [](const auto& v, int env, int n) {
      return std::vector<std::decay_t<decltype(v[0])>>(v.begin() + std::size_t(env) * n,
                                                      v.begin() + std::size_t(env + 1) * n);
    };
    return tt::bitwise_equal(rows(track.center, e, n_max), rows(o.track.center, eo, n_max)) &&
           tt::bitwise_equal(rows(track.outer, e, n_max), rows(o.track.outer, eo, n_max)) &&
           track.valid[e] == o.track.valid[eo] && track.count[e] == o.track.count[eo] &&
           tt::bitwise_equal(rows(cp_position, e, cps), rows(o.cp_position, eo, cps)) &&
           tt::bitwise_equal(rows(cp_left, e, cps), rows(o.cp_left, eo, cps)) && cp_count[e] == o.cp_count[eo] &&
           tt::bitwise_equal(rows(speed, e, n_max), rows(o.speed, eo, n_max)) &&
           tt::bitwise_equal(rows(curvature, e, n_max), rows(o.curvature, eo, n_max)) &&
           tt::bitwise_equal(rows(height, e, hf_texels), rows(o.height, eo, hf_texels)) &&
           tt::bitwise_equal(rows(phi, e, texels), rows(o.phi, eo, texels));
  }

  /// Env e's progress and localizer state.
  bool tracking_equal(int e, const CourseState& o, int eo) const {
    return tt::bitwise_equal(std::vector<Vec3f>{prev[e]}, std::vector<Vec3f>{o.prev[eo]}) && next[e] == o.next[eo] &&
           last_segment[e] == o.last_segment[eo];
  }
};

/// Agents on their tracks: env e at centerline point (start + 3 t) of env e
/// at step t, yawed along the track; written into `position` and friends.
template <class Space>
struct Agents {
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
  explicit Agents(int envs)
      : position("agents", envs), orientation("agents_q", envs), half(tt::filled<Space>(envs, Vec2f{0.02f, 0.01f})) {}

  void place(const Track<typename Space::memory_space>& track, int t) {
    const auto h = track.to_host();
    std::vector<Vec3f> p;
    std::vector<Quatf> q;
    for (int e = 0; e < h.num_envs(); ++e) {
      const int n = std::max(h.count(e), 1), i = (3 * t + 5 * e) % n;
      const Vec3f c = h.center(std::size_t(e) * h.n_max() + i), tan = h.tangent(std::size_t(e) * h.n_max() + i);
      p.push_back(c);
      q.push_back(geom::quat_from_yaw(std::atan2(tan.y, tan.x)));
    }
    Kokkos::deep_copy(position, tt::to_device<Space>(p, "p"));
    Kokkos::deep_copy(orientation, tt::to_device<Space>(q, "q"));
  }
};

}  // namespace

TEMPLATE_TEST_CASE("CourseConfig and Course: invalid or inapplicable options throw before any device work",
                   "[runtime][course]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto fails = [](const std::function<void(CourseConfig&)>& edit, const std::string& what) {
    CourseConfig c = full_config(4);
    edit(c);
    INFO(what);
    CHECK_THROWS_WITH(Course<Space>(Space(), c), Catch::Contains(what));
  };
  const tt::LaunchCounter launches;
  fails([](CourseConfig& c) { c.checkpoint_spacing.reset(); }, "checkpoint_spacing: null is invalid; must be set");
  fails([](CourseConfig& c) { c.checkpoint_spacing = -1.0f; }, "checkpoint_spacing: -1 is invalid; must be > 0");
  fails([](CourseConfig& c) { c.max_checkpoints = 2; }, "max_checkpoints: 2 is invalid; must be >= 3");
  fails([](CourseConfig& c) { c.max_boxes = 0; }, "max_boxes: 0 is invalid; must be >= 1");
  fails([](CourseConfig& c) { c.collision.reset(), c.sdf_resolution.reset(), c.max_boxes = 2; },
        "max_boxes: 2 applies only with a collision backend");
  fails([](CourseConfig& c) { c.collision = CollisionMethod::segments; }, "sdf_resolution: 16 applies only with");
  fails([](CourseConfig& c) { c.sdf_resolution = 4; }, "sdf_resolution: 4 is invalid; must be >= 8");
  fails([](CourseConfig& c) { c.sdf_padding = 0.0f; }, "sdf_padding: 0 is invalid; must be > 0");
  fails([](CourseConfig& c) { c.heightfield_resolution.reset(), c.heightfield_padding = 0.1f; },
        "heightfield_padding: 0.1 applies only with a height field");
  fails([](CourseConfig& c) { c.heightfield_resolution = 2; }, "heightfield_resolution: 2 is invalid; must be >= 8");
  fails([](CourseConfig& c) { c.localize = false; }, "localize_window: 4 applies only with localize = true");
  fails([](CourseConfig& c) { c.localize_window = 0; }, "localize_window: 0 is invalid; must be >= 1");
  fails([](CourseConfig& c) { c.speed_limits->v_cap = 0.0f; }, "SpeedLimits.v_cap: 0 is invalid; must be > 0");
  fails([](CourseConfig& c) { c.speed_limits.reset(), c.curvature_window = 3; },
        "curvature_window: 3 applies only with speed_limits set");
  fails([](CourseConfig& c) { c.gen.generator = "nope"; }, "nope");
  fails([](CourseConfig& c) { c.gen.half_width = -1.0f; }, "half_width");
  fails([](CourseConfig& c) { c.gen.num_envs = 0; }, "num_envs");
  CHECK(tt::LaunchCounter::launches == 0);
  const auto short_seeds = DView<std::int32_t, Space>("seeds", 3);
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(Course<Space>(Space(), full_config(4), short_seeds),
                    Catch::Contains("seeds must be a View of extent gen.num_envs = 4, got 3"));
  CHECK(tt::LaunchCounter::launches == 0);
}

TEMPLATE_TEST_CASE("Course: bind and step errors", "[runtime][course]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  Course<Space> course(Space(), full_config(4, CollisionMethod::segments));
  Agents<Space> a(4);
  const auto five = DView<Vec3f, Space>("p5", 4 * 2);
  const auto mask = DView<std::int32_t, Space>("mask", 5);
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(course.step(), Catch::Contains("call bind(position, ...) first"));
  CHECK_THROWS_WITH(course.bind(a.position), Catch::Contains("orientation must be a View of extent E*max_boxes = 4"));
  CHECK_THROWS_WITH(course.bind(five, a.orientation, a.half), Catch::Contains("position must be a View of extent E = 4, got 8"));
  CHECK_THROWS_WITH(course.bind(a.position, a.orientation, a.half, five), Catch::Contains("box_position was given"));
  CHECK_THROWS_WITH(course.regenerate(mask, true), Catch::Contains("mask must be a View of extent E = 4, got 5"));
  CHECK_THROWS_WITH(course.reset(mask), Catch::Contains("mask must be a View of extent E = 4, got 5"));
  CHECK(tt::LaunchCounter::launches == 0);
  CHECK_THROWS_WITH(course.step(), Catch::Contains("first"));  // nothing was bound by the failed binds

  CourseConfig plain = full_config(4, std::nullopt);
  Course<Space> no_collision(Space(), plain);
  CHECK_THROWS_WITH(no_collision.bind(a.position, a.orientation), Catch::Contains("no collision backend"));
  no_collision.bind(a.position);
  CHECK_FALSE(no_collision.step().has_contacts());
  CHECK(no_collision.step().has_frame());
  CHECK(no_collision.collision() == nullptr);

  // Two boxes per env: their own positions, contacts [E*2].
  CourseConfig two = full_config(4, CollisionMethod::segments);
  two.max_boxes = 2;
  Course<Space> pairs(Space(), two);
  Agents<Space> b(8);
  b.place(tt::band_track<Space>({{tt::square_loop(1.0f, 4)}, {tt::square_loop(1.0f, 4)}, {tt::square_loop(1.0f, 4)},
                                 {tt::square_loop(1.0f, 4)}, {tt::square_loop(1.0f, 4)}, {tt::square_loop(1.0f, 4)},
                                 {tt::square_loop(1.0f, 4)}, {tt::square_loop(1.0f, 4)}},
                                20),
          0);
  CHECK_THROWS_WITH(pairs.bind(a.position, b.orientation, b.half), Catch::Contains("box_position must be a View"));
  pairs.bind(a.position, b.orientation, b.half, b.position);
  const auto& r = pairs.step();
  CHECK(r.contacts.oob.extent(0) == 8);
  // Boxes on a square loop of half size 1 are far off the generated tracks (around the unit square).
  CHECK(tt::to_vector(r.contacts.boundary) != std::vector<std::int32_t>(8, -1));
}

TEMPLATE_TEST_CASE("Course: own-graph replay equals eager bitwise through steps and regenerations",
                   "[runtime][course]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  constexpr int E = 6;
  Course<Space> replayed(Space(), full_config(E)), eager(Space(), full_config(E));
  eager.set_policy(Policy::eager);
  Agents<Space> a(E), b(E);
  replayed.bind(a.position, a.orientation, a.half);
  eager.bind(b.position, b.orientation, b.half);
  const auto mask = tt::to_device<Space>(std::vector<std::int32_t>{0, 1, 0, 0, 1, 0}, "mask");
  for (int t = 0; t < 12; ++t) {
    INFO("step " << t);
    a.place(replayed.track(), t);
    b.place(eager.track(), t);
    replayed.step();
    eager.step();
    if (t % 5 == 4) {
      replayed.regenerate(mask, true);
      eager.regenerate(mask, true);
    }
    const auto x = CourseState::of(replayed), y = CourseState::of(eager);
    CHECK(x.track.bitwise_equal(y.track));
    for (int e = 0; e < E; ++e) CHECK(x.helpers_equal(e, y, e));
    CHECK(tt::bitwise_equal(x.distance, y.distance));
    CHECK(tt::bitwise_equal(x.s, y.s));
    CHECK(x.next == y.next);
    CHECK(x.laps == y.laps);
  }
  REQUIRE(replayed.step_runner().graph_for() != nullptr);
  CHECK(replayed.step_runner().graph_for()->launch_nodes() == 3);
  CHECK(replayed.generation_runner().graph_keys().size() == 1);  // the one mask (generate() was never called)
  CHECK(eager.step_runner().graph_for() == nullptr);
  CHECK(tt::to_vector(replayed.seeds().epoch()) == std::vector<std::int32_t>{0, 2, 0, 0, 2, 0});
}

TEMPLATE_TEST_CASE("Course: masked regeneration keeps other envs and equals a fresh Course at the new seeds",
                   "[runtime][course]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int E = 40;  // more envs than a regeneration round on host spaces
  const CourseConfig config = full_config(E);
  Course<Space> course(Space(), config);
  Agents<Space> agents(E);
  course.bind(agents.position, agents.orientation, agents.half);
  for (int t = 0; t < 4; ++t) {
    agents.place(course.track(), t);
    course.step();
  }
  const auto before = CourseState::of(course);
  std::vector<std::int32_t> mask_h(E, 0);
  mask_h[3] = mask_h[17] = mask_h[39] = 1;
  course.regenerate(tt::to_device<Space>(mask_h, "mask"), /*advance=*/true);
  const auto after = CourseState::of(course);

  const auto epochs = tt::to_vector(course.seeds().epoch());
  std::vector<std::int32_t> eff(E);
  for (int e = 0; e < E; ++e) eff[e] = effective_seed(100 + e, epochs[e]);
  Course<Space> fresh(Space(), config, tt::to_device<Space>(eff, "eff"));
  const auto ref = CourseState::of(fresh);
  for (int e = 0; e < E; ++e) {
    INFO("env " << e << (mask_h[e] ? " (regenerated)" : ""));
    if (mask_h[e]) {
      CHECK(epochs[e] == 1);
      CHECK(after.helpers_equal(e, ref, e));
      CHECK(after.tracking_equal(e, ref, e));  // progress and localizer restarted
      CHECK_FALSE(after.helpers_equal(e, before, e));
    } else {
      CHECK(after.helpers_equal(e, before, e));
      CHECK(after.tracking_equal(e, before, e));
    }
  }
  // An all-zero mask changes nothing at all.
  course.regenerate(DView<std::int32_t, Space>("zero", E), true);
  const auto again = CourseState::of(course);
  for (int e = 0; e < E; ++e) CHECK(again.helpers_equal(e, after, e));
  CHECK(again.next == after.next);
}

TEMPLATE_TEST_CASE("Course: step and regenerate recorded into a caller's capture; rebinding warns",
                   "[runtime][course]", TRACKGEN_TEST_HOST_SPACES) {
  using Space = TestType;
  constexpr int E = 5;
  Course<Space> recorded(Space(), full_config(E, CollisionMethod::segments));
  Course<Space> direct(Space(), full_config(E, CollisionMethod::segments));
  Agents<Space> a(E), b(E);
  recorded.bind(a.position, a.orientation, a.half);
  direct.bind(b.position, b.orientation, b.half);
  const auto mask = tt::to_device<Space>(std::vector<std::int32_t>{1, 0, 0, 1, 0}, "mask");
  HostGraph caller;
  const auto ctx = LaunchContext<Space>::capture(caller);
  recorded.step(ctx);
  recorded.regenerate(ctx, mask, true);
  CHECK(caller.launch_nodes() > 10);
  for (int t = 0; t < 6; ++t) {
    INFO("replay " << t);
    a.place(recorded.track(), t);
    b.place(direct.track(), t);
    caller.replay();
    direct.step();
    direct.regenerate(mask, true);
    const auto x = CourseState::of(recorded), y = CourseState::of(direct);
    CHECK(x.track.bitwise_equal(y.track));
    CHECK(x.next == y.next);
    CHECK(tt::bitwise_equal(x.distance, y.distance));
    for (int e = 0; e < E; ++e) CHECK(x.helpers_equal(e, y, e));
  }
  const tt::WarningLog log;
  recorded.bind(a.position, a.orientation, a.half);  // the same Views: silent
  CHECK(log.messages.empty());
  recorded.bind(b.position, b.orientation, b.half);
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0].find("Course::bind") != std::string::npos);
}

TEMPLATE_TEST_CASE("Course: reset restarts progress; generate(k) reseeds; bound seeds refuse it",
                   "[runtime][course]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  constexpr int E = 4;
  CourseConfig config = full_config(E, CollisionMethod::segments);
  Course<Space> course(Space(), config);
  Agents<Space> a(E);
  course.bind(a.position, a.orientation, a.half);
  for (int t = 0; t < 3; ++t) {
    a.place(course.track(), t);
    course.step();
  }
  course.reset(tt::to_device<Space>(std::vector<std::int32_t>{0, 1, 0, 0}, "mask"));
  const auto prev = tt::to_vector(course.progress().previous_position());
  CHECK(std::isfinite(prev[0].x));
  CHECK(std::isnan(prev[1].x));
  CHECK(tt::to_vector(course.localizer()->last_segment())[1] == -1);

  course.generate(std::int32_t(500));
  config.seed = 500;
  Course<Space> fresh(Space(), config);
  CHECK(tt::HostTrack::from(course.track()).bitwise_equal(tt::HostTrack::from(fresh.track())));
  CHECK(tt::to_vector(course.seeds().seeds()) == std::vector<std::int32_t>{500, 501, 502, 503});

  Course<Space> bound(Space(), config, tt::to_device<Space>(std::vector<std::int32_t>{1, 2, 3, 4}, "seeds"));
  CHECK_THROWS_WITH(bound.generate(std::int32_t(1)), Catch::Contains("write that View instead"));
}
