// Diverged agents and odd tracks: huge, tiny, infinite and NaN positions,
// orientations and extents through every runtime utility (a Course in track
// mode with every helper, in gates mode with posts and with frames, the
// standalone localizer, tracker, disc checker and grid sampling), and tracks
// with huge, tiny or non-finite coordinates through every sampler and bake.
// Each must give defined results (in range, or NaN where documented) and
// never read or write outside its Views (the sanitizer run of CI checks that).
#include "gate_support.hpp"
#include "runtime_support.hpp"

#include <trackgen/pipeline/track_generator.hpp>

#include <cmath>
#include <limits>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Coordinates of diverged agents (and ordinary ones among them).
const std::vector<float>& extreme_values() {
  static const std::vector<float> v{0.0f,   0.3f,  1e-30f, -1e-38f, 1e18f, -1e18f, 1e20f,
                                    -1e20f, 1e30f, -1e30f, 3e38f,   kInf,  -kInf,  nanf()};
  return v;
}

/// Orientations: identity, a yaw, huge, zero and non-finite quaternions.
const std::vector<Quatf>& extreme_orientations() {
  static const std::vector<Quatf> q{tt::no_rotation(),          geom::quat_from_yaw(2.0f), Quatf{0, 0, 1e30f, 1e30f},
                                    Quatf{0, 0, 0, 0},          Quatf{nanf(), 0, 0, 1},    Quatf{0, 0, kInf, 1},
                                    Quatf{1e-30f, 0, 0, 1e-30f}};
  return q;
}

/// Half extents: a car, zero, tiny, huge, infinite, NaN, negative.
const std::vector<Vec2f>& extreme_extents() {
  static const std::vector<Vec2f> h{{0.04f, 0.02f}, {0, 0},          {1e-30f, 1e-30f}, {1e30f, 1e30f},
                                    {kInf, 0.02f},  {nanf(), 0.02f}, {-0.04f, 0.02f}};
  return h;
}

/// Step k's inputs of E agents: agent e's position mixes extreme values
/// around its track (every value meets every other over the steps).
struct Agents {
  std::vector<Vec3f> position;
  std::vector<Quatf> orientation;
  std::vector<Vec2f> half;
};

Agents agents_at(int k, int E, const std::vector<Vec3f>& home) {
  const auto& v = extreme_values();
  const auto& q = extreme_orientations();
  const auto& h = extreme_extents();
  Agents a;
  for (int e = 0; e < E; ++e) {
    const std::size_t i = static_cast<std::size_t>(k + 3 * e);
    const float x = v[i % v.size()], y = v[(i / 2 + e) % v.size()];
    // Every other step the agent is back home, so that motions from and to
    // extreme places are tested too.
    a.position.push_back((k + e) % 2 == 0 ? home[static_cast<std::size_t>(e)]
                                          : Vec3f{home[e].x + x, home[e].y + y, v[(i + 5) % v.size()]});
    a.orientation.push_back(q[(i / 3) % q.size()]);
    a.half.push_back(h[(i / 5) % h.size()]);
  }
  return a;
}

void check_contacts(const std::vector<int>& oob, const std::vector<int>& boundary, const std::vector<float>& distance,
                    const std::vector<Vec2f>& normal) {
  for (std::size_t b = 0; b < oob.size(); ++b) {
    INFO("box " << b << " oob " << oob[b] << " boundary " << boundary[b] << " distance " << distance[b]);
    CHECK((oob[b] == 0 || oob[b] == 1));
    CHECK((boundary[b] >= -1 && boundary[b] <= 1));
    if (boundary[b] == -1) {
      CHECK(std::isnan(distance[b]));
      CHECK(std::isnan(normal[b].x));
    } else {
      CHECK(!std::isnan(distance[b]));
    }
  }
}

template <class Space>
void check_step(const Course<Space>& course, const StepResult<Space>& r, int n_max) {
  const auto passed = tt::to_vector(r.events.passed), next = tt::to_vector(r.events.next_checkpoint);
  const auto wrong = tt::to_vector(r.events.wrong_checkpoint), count = tt::to_vector(course.checkpoints().count);
  for (std::size_t e = 0; e < passed.size(); ++e) {
    CHECK((passed[e] == 0 || passed[e] == 1));
    CHECK((next[e] >= 0 && next[e] < std::max(count[e], 1)));
    CHECK((wrong[e] >= -1 && wrong[e] < std::max(count[e], 1)));
  }
  if (r.has_contacts()) {
    check_contacts(tt::to_vector(r.contacts.oob), tt::to_vector(r.contacts.boundary),
                   tt::to_vector(r.contacts.distance), tt::to_vector(r.contacts.normal));
  }
  if (r.has_posts()) {
    const auto hit = tt::to_vector(r.posts.hit), disc = tt::to_vector(r.posts.disc);
    for (std::size_t b = 0; b < hit.size(); ++b) {
      CHECK((hit[b] == 0 || hit[b] == 1));
      CHECK(disc[b] >= -1);
    }
  }
  if (r.has_frames()) {
    const auto hit = tt::to_vector(r.frames.hit);
    for (const int h : hit) CHECK((h == 0 || h == 1));
  }
  if (r.has_frame()) {
    const auto segment = tt::to_vector(r.frame.segment), s = tt::to_vector(r.frame.s);
    for (std::size_t e = 0; e < segment.size(); ++e) {
      CHECK((segment[e] >= -1 && segment[e] < n_max));
      if (segment[e] == -1) CHECK(std::isnan(s[e]));
    }
  }
}

/// Steps `course` 30 times with diverged agents (positions, orientations and
/// extents of extreme_values() and its kin) around their homes.
template <class Space>
void race_diverged(Course<Space>& course) {
  const int E = course.num_envs();
  const auto h = course.track().to_host();
  std::vector<Vec3f> home;
  for (int e = 0; e < E; ++e) home.push_back(h.center(static_cast<std::size_t>(e) * h.n_max()));
  DView<Vec3f, Space> position("position", E);
  DView<Quatf, Space> orientation("orientation", E);
  DView<Vec2f, Space> half("half", E);
  const bool boxes = course.collision() != nullptr || course.posts() != nullptr;
  if (boxes) {
    course.bind(position, orientation, half);
  } else {
    course.bind(position);
  }
  for (int k = 0; k < 30; ++k) {
    const Agents a = agents_at(k, E, home);
    Kokkos::deep_copy(position, tt::to_device<Space>(a.position, "p"));
    Kokkos::deep_copy(orientation, tt::to_device<Space>(a.orientation, "q"));
    Kokkos::deep_copy(half, tt::to_device<Space>(a.half, "h"));
    INFO("step " << k);
    check_step(course, course.step(), h.n_max());
  }
}

}  // namespace

TEMPLATE_TEST_CASE("Course: diverged agents give defined results in track mode (segments and sdf)",
                   "[runtime][course][extremes]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const CollisionMethod method : {CollisionMethod::segments, CollisionMethod::sdf}) {
    DYNAMIC_SECTION(to_string(method)) {
      // The setup of issue 50 item 8, with every other helper too.
      CourseConfig c;
      c.gen.num_envs = 6;
      c.checkpoint_spacing = 0.3f;
      c.collision = method;
      if (method == CollisionMethod::sdf) c.sdf_resolution = 32;
      c.localize = true;
      c.localize_window = 4;
      c.heightfield_resolution = 8;
      c.speed_limits = SpeedLimits{};
      Course<Space> course(Space(), c);
      race_diverged(course);
      // A cold localizer too.
      c.localize_window.reset();
      Course<Space> cold(Space(), c);
      race_diverged(cold);
    }
  }
}

TEMPLATE_TEST_CASE("Course: diverged agents give defined results in gates mode (posts and frames)",
                   "[runtime][course][extremes]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  CourseConfig c;
  c.mode = CourseMode::gates;
  c.gate_gen = tt::gate_config("polar", 4);
  c.post_radius = 0.01f;
  Course<Space> posts(Space(), c);
  race_diverged(posts);
  c.post_radius = 0.0f;
  c.gate_gen.gate_width = 0.02f;
  c.frame_collision = true;
  c.frame_thickness = 0.002f;
  c.frame_depth = 0.002f;
  c.agent_radius = 0.001f;
  Course<Space> frames(Space(), c);
  race_diverged(frames);
}

namespace {

/// How many of grid_sample's samples at grid_coord of points of coordinates
/// 0, +-1e30, +-inf, NaN and 1e-30 (each with each) lie within the values of
/// a grid of 8 x 8 texels holding 0 .. 63.
struct GridProbe {
  KOKKOS_FUNCTION float operator()() const {
    constexpr int R = 8;
    float grid[R * R];
    for (int t = 0; t < R * R; ++t) grid[t] = static_cast<float>(t);
    const float inf = 1e30f * 1e30f;
    const float v[] = {0.0f, 1e30f, -1e30f, inf, -inf, nanf(), 1e-30f};
    float inside = 0.0f;
    for (const float x : v) {
      for (const float y : v) {
        const float s = grid_sample(grid, R, grid_coord(Vec2f{x, y}, Vec2f{-1.0f, -1.0f}, Vec2f{1.0f, 1.0f}, R));
        inside += s >= 0.0f && s <= static_cast<float>(R * R - 1) ? 1.0f : 0.0f;
      }
    }
    return inside;
  }
};

}  // namespace

TEMPLATE_TEST_CASE("Grid sampling: huge, infinite and NaN points read the grid's texels only", "[runtime][extremes]",
                   TRACKGEN_TEST_SPACES) {
  CHECK(tt::on_device<TestType>(GridProbe{}) == 49.0f);
}

TEMPLATE_TEST_CASE("Samplers and bakes: tracks of huge, tiny and non-finite coordinates give defined results",
                   "[runtime][extremes]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto circle = tt::circle_loop(1.0, 40);
  auto scaled = [&](float s) {
    std::vector<Vec3f> p;
    for (const Vec3f& q : circle) p.push_back(q * s);
    return p;
  };
  auto broken = circle;
  broken[7] = nan3();
  auto infinite = circle;
  infinite[3] = Vec3f{kInf, 0.0f, 0.0f};
  auto far = circle;  // a circle translated far from the origin
  for (Vec3f& q : far) q = q + Vec3f{1e7f, -1e7f, 0.0f};
  const auto track = tt::band_track<Space>({{scaled(1e18f), 0.8f, 1.2f},
                                            {scaled(1e-18f), 0.8f, 1.2f},
                                            {broken, 0.8f, 1.2f},
                                            {infinite, 0.8f, 1.2f},
                                            {far, 0.8f, 1.2f},
                                            {circle, 0.8f, 1.2f}},
                                           40);
  const int E = track.num_envs();
  CheckpointSampler<Space> checkpoints(Space(), track, 0.3f, 64);
  const auto count = tt::to_vector(checkpoints.checkpoints().count);
  for (const int n : count) CHECK((n >= 0 && n <= 64));
  PropSampler<Space> props(Space(), track, 0.2f, PropBoundary::outer, PropMode::points, 64);
  for (const int n : tt::to_vector(props.props().count)) CHECK((n >= 0 && n <= 64));
  HeightFieldBaker<Space> heights(Space(), track, GridOptions{16, std::nullopt});
  CHECK(tt::to_vector(heights.heightfield().height).size() == std::size_t(E) * 16 * 16);
  DView<float, Space> kappa("kappa", track.arclen.extent(0)), speed("speed", track.arclen.extent(0));
  const LaunchContext<Space> ctx;
  compute_curvature(ctx, track, kappa);
  compute_speed_profile(ctx, track, SpeedLimits{}, kappa, speed);
  Space().fence();
  // Collision, progress and localization of agents on and around them.
  std::vector<Vec3f> home;
  const auto h = track.to_host();
  for (int e = 0; e < E; ++e) home.push_back(h.center(static_cast<std::size_t>(e) * 40 + 1));
  CollisionChecker<Space> segments(Space(), track, 1);
  CollisionChecker<Space> sdf(Space(), track, 1, CollisionMethod::sdf, GridOptions{16, std::nullopt});
  ProgressTracker<Space> tracker(Space(), checkpoints.checkpoints());
  TrackLocalizer<Space> warm(Space(), track, 4), cold(Space(), track);
  for (int k = 0; k < 20; ++k) {
    INFO("step " << k);
    const Agents a = agents_at(k, E, home);
    const auto p = tt::to_device<Space>(a.position, "p");
    const auto q = tt::to_device<Space>(a.orientation, "q");
    const auto hx = tt::to_device<Space>(a.half, "h");
    for (CollisionChecker<Space>* checker : {&segments, &sdf}) {
      const auto& c = checker->query(p, q, hx);
      check_contacts(tt::to_vector(c.oob), tt::to_vector(c.boundary), tt::to_vector(c.distance),
                     tt::to_vector(c.normal));
    }
    const auto& ev = tracker.update(p);
    for (const int n : tt::to_vector(ev.next_checkpoint)) CHECK((n >= 0 && n < 64));
    for (auto* loc : {&warm, &cold}) {
      const auto& f = loc->query(p);
      for (const int s : tt::to_vector(f.segment)) CHECK((s >= -1 && s < 40));
    }
  }
}
