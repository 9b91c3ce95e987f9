// CheckpointSampler, CheckpointSet and ProgressTracker: hand-placed checkpoints
// and motions (forward and backward passes, lap rollover, wrong checkpoint,
// NaN pausing, reset), checkpoints sampled on square tracks with and without
// truncation, and bad input.
#include "runtime_support.hpp"

#include <cmath>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;

/// Three envs of 4 checkpoints at x = 0, 1, 2, 3 across y in [-1, 1], facing +x
/// (stride 5: the last slot is padding).
template <class Space>
CheckpointSet<Space> line_checkpoints() {
  constexpr int E = 3, M = 5;
  std::vector<Vec3f> pos, left, right, tan;
  std::vector<float> up;
  for (int e = 0; e < E; ++e) {
    for (int k = 0; k < M; ++k) {
      const float x = k < 4 ? static_cast<float>(k) : nanf();
      pos.push_back({x, 0, 0});
      left.push_back({x, -1, 0});
      right.push_back({x, 1, 0});
      tan.push_back({1, 0, 0});
      up.push_back(1e30f);
    }
  }
  return CheckpointSet<Space>::wrap(tt::to_device<Space>(pos, "pos"), tt::to_device<Space>(left, "left"),
                                    tt::to_device<Space>(right, "right"), tt::to_device<Space>(tan, "tan"),
                                    tt::to_device<Space>(up, "up"),
                                    tt::to_device<Space>(std::vector<std::int32_t>(E, 4), "count"));
}

struct Expect {
  int passed, checkpoint_passed, next, laps, progress, wrong_way, wrong_checkpoint;
};

template <class Space>
void check_events(const ProgressEvents<Space>& ev, const std::vector<Expect>& want) {
  const auto passed = tt::to_vector(ev.passed), cp = tt::to_vector(ev.checkpoint_passed);
  const auto next = tt::to_vector(ev.next_checkpoint), laps = tt::to_vector(ev.laps);
  const auto progress = tt::to_vector(ev.progress), ww = tt::to_vector(ev.wrong_way);
  const auto wcp = tt::to_vector(ev.wrong_checkpoint);
  for (std::size_t e = 0; e < want.size(); ++e) {
    INFO("env " << e);
    CHECK(passed[e] == want[e].passed);
    CHECK(cp[e] == want[e].checkpoint_passed);
    CHECK(next[e] == want[e].next);
    CHECK(laps[e] == want[e].laps);
    CHECK(progress[e] == want[e].progress);
    CHECK(ww[e] == want[e].wrong_way);
    CHECK(wcp[e] == want[e].wrong_checkpoint);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("ProgressTracker: passes, wrong way, wrong checkpoint, laps, NaN pause, reset",
                   "[runtime][progress]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto set = line_checkpoints<Space>();
  ProgressTracker<Space> tracker(Space(), set);
  const float nan = nanf();
  // x of each env's agent per step (y = z = 0).
  const std::vector<std::array<float, 3>> xs{
      {-0.5f, 0.5f, -0.5f}, {0.5f, -0.5f, 1.5f}, {1.5f, nan, 1.6f}, {2.5f, -0.5f, 1.7f}, {3.5f, 0.5f, 0.9f}};
  const std::vector<std::vector<Expect>> want{
      // first positions: no previous one, no events
      {{0, -1, 0, 0, 0, 0, -1}, {0, -1, 0, 0, 0, 0, -1}, {0, -1, 0, 0, 0, 0, -1}},
      // env 0 passes 0; env 1 passes 0 backwards; env 2 passes 0 and skips through 1
      {{1, 0, 1, 0, 1, 0, -1}, {0, -1, 0, 0, 0, 1, -1}, {1, 0, 1, 0, 1, 0, 1}},
      // env 1 pauses on a NaN position
      {{1, 1, 2, 0, 2, 0, -1}, {0, -1, 0, 0, 0, 0, -1}, {0, -1, 1, 0, 1, 0, -1}},
      // env 1 resumes without a pass (no previous position)
      {{1, 2, 3, 0, 3, 0, -1}, {0, -1, 0, 0, 0, 0, -1}, {0, -1, 1, 0, 1, 0, -1}},
      // env 0 passes the last checkpoint: a lap, next wraps to 0; env 2 passes 1 backwards
      {{1, 3, 0, 1, 4, 0, -1}, {1, 0, 1, 0, 1, 0, -1}, {0, -1, 1, 0, 1, 1, -1}},
  };
  for (std::size_t t = 0; t < xs.size(); ++t) {
    INFO("step " << t);
    std::vector<Vec3f> p;
    for (float x : xs[t]) p.push_back({x, 0, 0});
    const auto& ev = tracker.update(tt::to_device<Space>(p, "position"));
    check_events(ev, want[t]);
    if (t == 2) CHECK(std::isnan(tt::to_vector(ev.dist_to_next)[1]));
  }
  const auto dist = tt::to_vector(tracker.events().dist_to_next);
  CHECK(dist[0] == 3.5f);  // to checkpoint 0 at the origin
  CHECK(dist[2] == Approx(0.1f));

  // Restart env 1 only; its next motion through checkpoint 0 starts from scratch.
  tracker.reset(LaunchContext<Space>(), tt::to_device<Space>(std::vector<std::int32_t>{0, 1, 0}, "mask"));
  CHECK(std::isnan(tt::to_vector(tracker.previous_position())[1].x));
  std::vector<Vec3f> p{{4.0f, 0, 0}, {-0.2f, 0, 0}, {0.8f, 0, 0}};
  tracker.update(tt::to_device<Space>(p, "position"));
  p = {{4.1f, 0, 0}, {0.2f, 0, 0}, {0.7f, 0, 0}};
  check_events(tracker.update(tt::to_device<Space>(p, "position")),
               {{0, -1, 0, 1, 4, 0, -1}, {1, 0, 1, 0, 1, 0, -1}, {0, -1, 1, 0, 1, 0, -1}});
}

TEMPLATE_TEST_CASE("ProgressTracker: the near index gives the events of testing every checkpoint",
                   "[runtime][progress]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Per env a ring of count[e] gates (radius 5, stride 40): tilted (the normal
  // off the ring's tangent) on odd envs, a finite vertical opening on every
  // third, the unbounded one otherwise; fewer gates than the index holds on env 0.
  constexpr int E = 24, M = 40, T = 800;
  std::vector<Vec3f> pos, left, right, tan;
  std::vector<float> up;
  std::vector<std::int32_t> count;
  for (int e = 0; e < E; ++e) {
    const int n = e == 0 ? 5 : M - (e % 7);
    count.push_back(n);
    for (int k = 0; k < M; ++k) {
      const double a = 2.0 * 3.14159265358979323846 * k / n, tilt = e % 2 ? 0.4 : 0.0;
      const Vec3f c{static_cast<float>(5 * std::cos(a)), static_cast<float>(5 * std::sin(a)), 0.0f};
      const Vec3f radial{static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)), 0.0f};
      const Vec3f t{static_cast<float>(-std::sin(a + tilt)), static_cast<float>(std::cos(a + tilt)), 0.0f};
      const bool real = k < n;
      pos.push_back(real ? c : nan3());
      left.push_back(real ? c - 0.6f * radial : nan3());
      right.push_back(real ? c + 0.6f * radial : nan3());
      tan.push_back(real ? t : nan3());
      up.push_back(e % 3 == 0 ? 0.5f : 1e30f);
    }
  }
  const auto set = CheckpointSet<Space>::wrap(
      tt::to_device<Space>(pos, "pos"), tt::to_device<Space>(left, "left"), tt::to_device<Space>(right, "right"),
      tt::to_device<Space>(tan, "tan"), tt::to_device<Space>(up, "up"), tt::to_device<Space>(count, "count"));
  ProgressTracker<Space> tracker(Space(), set);
  // Agents wander along the ring both ways (small steps, some large jumps
  // across several gates, vertical drift through the finite openings, now and
  // then a NaN); the reference tests every checkpoint of every env.
  std::vector<double> angle(E), height(E, 0.0);
  std::vector<Vec3f> prev(E, nan3());
  std::vector<int> next(E, 0);
  tt::Lcg rng{12345u};
  int wrong = 0, passes = 0, backwards = 0;
  for (int t = 0; t < T; ++t) {
    std::vector<Vec3f> p(E);
    for (int e = 0; e < E; ++e) {
      const double u = rng.uniform();
      angle[e] += u < 0.01 ? 2.5 * (rng.uniform() - 0.3) : 0.12 * (rng.uniform() - 0.3);
      height[e] = std::clamp(height[e] + 0.2 * (rng.uniform() - 0.5), -1.0, 1.0);
      const double r = 5.0 + 0.8 * (rng.uniform() - 0.5);
      p[e] = rng.uniform() < 0.01 ? nan3()
                              : Vec3f{static_cast<float>(r * std::cos(angle[e])),
                                      static_cast<float>(r * std::sin(angle[e])), static_cast<float>(height[e])};
    }
    const auto& ev = tracker.update(tt::to_device<Space>(p, "position"));
    const auto passed = tt::to_vector(ev.passed), nx = tt::to_vector(ev.next_checkpoint);
    const auto ww = tt::to_vector(ev.wrong_way), wcp = tt::to_vector(ev.wrong_checkpoint);
    const auto dist = tt::to_vector(ev.dist_to_next);
    for (int e = 0; e < E; ++e) {
      INFO("step " << t << " env " << e);
      const std::size_t base = static_cast<std::size_t>(e) * M;
      const auto pass = [&](int i) {
        return geom::plane_pass(prev[e], p[e], tan[base + i], left[base + i], right[base + i], up[base + i]);
      };
      int want_passed = 0, want_ww = 0, want_wcp = -1;
      if (is_finite(prev[e])) {
        const int c = pass(next[e]);
        want_passed = c > 0, want_ww = c < 0;
        for (int i = 0; i < count[e] && want_wcp < 0; ++i) {
          if (i != next[e] && pass(i) != 0) want_wcp = i;
        }
      }
      if (want_passed) next[e] = (next[e] + 1) % count[e];
      prev[e] = p[e];
      REQUIRE(passed[e] == want_passed);
      REQUIRE(ww[e] == want_ww);
      REQUIRE(wcp[e] == want_wcp);
      REQUIRE(nx[e] == next[e]);
      const float want_dist = length(pos[base + next[e]] - p[e]);  // NaN after a NaN position
      if (std::isnan(want_dist)) {
        REQUIRE(std::isnan(dist[e]));
      } else {
        REQUIRE(std::fabs(dist[e] - want_dist) <= 1e-5f * (1.0f + want_dist));
      }
      passes += want_passed, backwards += want_ww, wrong += want_wcp >= 0;
    }
  }
  // The motions exercise every event.
  CHECK(passes > 300);
  CHECK(backwards > 0);
  CHECK(wrong > 1000);

  // Checkpoints moved in place are seen after a reset of their env.
  for (int k = 0; k < M; ++k) {
    const std::size_t s = 5 * std::size_t(M) + k;
    pos[s].z += 10.0f, left[s].z += 10.0f, right[s].z += 10.0f;
  }
  Kokkos::deep_copy(set.position, tt::to_device<Space>(pos, "pos"));
  Kokkos::deep_copy(set.left, tt::to_device<Space>(left, "left"));
  Kokkos::deep_copy(set.right, tt::to_device<Space>(right, "right"));
  std::vector<std::int32_t> mask(E, 0);
  mask[5] = 1;
  tracker.reset(LaunchContext<Space>(), tt::to_device<Space>(mask, "mask"));
  const double a1 = 2.0 * 3.14159265358979323846 * 1 / count[5];
  const auto at = [&](double a, float z) {
    return Vec3f{static_cast<float>(5 * std::cos(a)), static_cast<float>(5 * std::sin(a)), z};
  };
  std::vector<Vec3f> p(E, nan3());
  p[5] = at(a1 - 0.05, 10.0f);
  tracker.update(tt::to_device<Space>(p, "position"));
  p[5] = at(a1 + 0.05, 10.0f);  // through checkpoint 1, not the next one (0)
  CHECK(tt::to_vector(tracker.update(tt::to_device<Space>(p, "position")).wrong_checkpoint)[5] == 1);
}

TEMPLATE_TEST_CASE("CheckpointSampler: evenly spaced checkpoints on square tracks, capacity and truncation",
                   "[runtime][progress]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Env 0: perimeter 8; env 1: perimeter 2 (fewer than 3 at spacing 1: 3 of them).
  const auto track = tt::band_track<Space>({{tt::square_loop(1.0f, 4)}, {tt::square_loop(0.25f, 4)}}, 20);
  CheckpointSampler<Space> auto_cap(Space(), track, 1.0f);
  CHECK(auto_cap.capacity() == 13);  // ceil(1.25 * 20 points * 0.5 per point / 1)
  const auto& set = auto_cap.checkpoints();
  CHECK(tt::to_vector(set.count) == std::vector<std::int32_t>{8, 3});
  CHECK(tt::to_vector(auto_cap.truncated()) == std::vector<std::int32_t>{0, 0});
  const auto step = tt::to_vector(auto_cap.step());
  CHECK(step[0] == 1.0f);
  CHECK(step[1] == Approx(2.0f / 3.0f));
  const auto pos = tt::to_vector(set.position), left = tt::to_vector(set.left), right = tt::to_vector(set.right);
  const auto tan = tt::to_vector(set.tangent), up = tt::to_vector(set.up_half);
  // Checkpoint k of env 0 at arc length k from (1, -1), counter-clockwise.
  const std::vector<Vec2f> want{{1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}};
  for (int k = 0; k < 8; ++k) {
    INFO("checkpoint " << k);
    CHECK(pos[k].x == Approx(want[k].x).margin(1e-6));
    CHECK(pos[k].y == Approx(want[k].y).margin(1e-6));
    CHECK(left[k].x == Approx(0.8f * want[k].x).margin(1e-6));  // the inner border, same parameter
    CHECK(right[k].y == Approx(1.2f * want[k].y).margin(1e-6));
    CHECK(up[k] == 1e30f);
  }
  CHECK(tan[1].y == 1.0f);  // up the right side
  CHECK(tan[3].x == -1.0f);
  CHECK(std::isnan(pos[8].x));

  CheckpointSampler<Space> capped(Space(), track, 1.0f, 6);
  CHECK(tt::to_vector(capped.checkpoints().count) == std::vector<std::int32_t>{6, 3});
  CHECK(tt::to_vector(capped.truncated()) == std::vector<std::int32_t>{1, 0});
  CHECK(tt::to_vector(capped.step())[0] == Approx(8.0f / 6.0f));
  const auto snapshot = capped.checkpoints().clone();
  CHECK(tt::bitwise_equal(tt::to_vector(snapshot.position), tt::to_vector(capped.checkpoints().position)));
}

TEMPLATE_TEST_CASE("CheckpointSampler, CheckpointSet and ProgressTracker: bad input throws before any device work",
                   "[runtime][progress]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const auto track = tt::band_track<Space>({{tt::square_loop(1.0f, 4), 0.8f, 1.2f, 0}}, 20);  // no valid env
  const auto set = line_checkpoints<Space>();
  const auto short_right = DView<Vec3f, Space>("r", 14), long_position = DView<Vec3f, Space>("p", 16);
  const auto four = DView<Vec3f, Space>("p", 4);
  const auto short_mask = DView<std::int32_t, Space>("m", 2);
  const auto p = tt::filled<Space>(3, Vec3f{0, 0, 0});
  const tt::LaunchCounter launches;
  CHECK_THROWS_WITH(CheckpointSampler<Space>(Space(), track, 0.0f, 5), Catch::Contains("spacing must be finite and > 0"));
  CHECK_THROWS_WITH(CheckpointSampler<Space>(Space(), track, 1.0f, 2), Catch::Contains("max_checkpoints must be >= 3"));
  CHECK_THROWS_WITH(CheckpointSampler<Space>(Space(), Track<typename Space::memory_space>(), 1.0f, 5),
                    Catch::Contains("track must be an allocated Track"));
  CHECK_THROWS_WITH(CheckpointSet<Space>::wrap(set.position, set.left, short_right, set.tangent,
                                               set.up_half, set.count),
                    Catch::Contains("right must be a View of extent E*M = 15, got 14"));
  CHECK_THROWS_WITH(CheckpointSet<Space>::wrap(long_position, set.left, set.right, set.tangent,
                                               set.up_half, set.count),
                    Catch::Contains("position must be a View of extent E*M"));
  CHECK_THROWS_WITH(CheckpointSet<Space>(Space(), 0, 4), Catch::Contains("num_envs must be >= 1, got 0"));
  CheckpointSet<Space> broken = set;
  broken.up_half = DView<float, Space>();
  CHECK_THROWS_WITH(ProgressTracker<Space>(Space(), broken), Catch::Contains("up_half must be a View"));
  CHECK(tt::LaunchCounter::launches == 0);
  // The automatic capacity reads the track (a copy to the host) before it can fail.
  CHECK_THROWS_WITH(CheckpointSampler<Space>(Space(), track, 1.0f), Catch::Contains("no valid env"));

  ProgressTracker<Space> tracker(Space(), set);
  tt::LaunchCounter::launches = 0;
  CHECK_THROWS_WITH(tracker.update(), Catch::Contains("no inputs bound"));
  CHECK_THROWS_WITH(tracker.bind(four), Catch::Contains("position must be a View of extent E = 3, got 4"));
  CHECK_THROWS_WITH(tracker.reset(LaunchContext<Space>(), short_mask),
                    Catch::Contains("mask must be a View of extent E = 3, got 2"));
  tracker.bind(p);
  CHECK_THROWS_WITH(tracker.update(p), Catch::Contains("bound mode"));
  CHECK(tt::LaunchCounter::launches == 0);
  CHECK(&tracker.update() == &tracker.events());
}
