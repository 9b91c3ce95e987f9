// A complete, small simulator built on trackgen::Course: E cars, one per
// environment, each driving its own generated track.
//
// Every step:
//  1. the agent kernel (yours): a kinematic car follows its track with a
//     pure-pursuit controller at the track's speed profile (finished envs are
//     first put back on the start line of their new track);
//  2. course.step(): checkpoint progress, collision of the car's box with the
//     track borders, localization (arc length s and lateral offset n);
//  3. the reward kernel (yours): reward = progress towards the next
//     checkpoint + a bonus per checkpoint passed; done = collision, a lap
//     completed, or a timeout (or an invalid track);
//  4. course.regenerate(done, /*advance=*/true): new tracks for the finished
//     envs only, every other env untouched.
// Nothing here reads device data on the host until stats(): the loop is a
// fixed sequence of launches on one execution-space instance.
//
// The `trackgen drive` command runs it (apps/drive.cpp); examples/sim_loop.cpp
// runs it as an embedding would, and tests/test_sim_loop.cpp checks it. It uses
// the public API only.
#pragma once

#include <trackgen/trackgen.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

namespace sim {

using trackgen::DView;
using trackgen::Quatf;
using trackgen::Vec2f;
using trackgen::Vec3f;

/// The car, the controller and the episode rules.
struct Settings {
  int envs = 4096;             ///< environments E
  std::int32_t seed = 0;       ///< base seed: env e starts on track seed + e
  std::string generator = "bezier";
  float dt = 0.02f;            ///< seconds per step
  int timeout_steps = 1500;    ///< an episode ends after this many steps
  float lookahead = 0.12f;     ///< pure-pursuit lookahead along the track
  Vec2f half_extents{0.04f, 0.02f};  ///< the car's box (half length, half width)
  float max_curvature = 12.0f;       ///< steering limit (1 / turning radius)
  trackgen::SpeedLimits limits{1.0f, 1.0f, 2.0f, 1.0f};  ///< lateral, accel, brake, top speed
  float checkpoint_spacing = 0.3f;
  float checkpoint_bonus = 1.0f;
};

/// The Course a simulation of `s` races on: segment collision, warm
/// localization, a speed profile.
inline trackgen::CourseConfig course_config(const Settings& s) {
  trackgen::CourseConfig c;
  c.gen.generator = s.generator;
  c.gen.num_envs = s.envs;
  c.seed = s.seed;
  c.checkpoint_spacing = s.checkpoint_spacing;
  c.collision = trackgen::CollisionMethod::segments;
  c.localize = true;
  c.localize_window = 8;
  c.speed_limits = s.limits;
  return c;
}

/// Outcomes counted over a run (host copies, see SimLoop::stats()).
struct Stats {
  long long env_steps = 0;
  double seconds = 0;
  int laps = 0;           ///< episodes ended by a completed lap
  int collisions = 0;     ///< episodes ended by a collision
  int timeouts = 0;       ///< episodes ended by the timeout
  int regenerations = 0;  ///< envs regenerated (every done, invalid tracks included)
  int lapped_first = 0;   ///< envs whose car completed a lap before any collision
  int raced = 0;          ///< envs that started at least one episode on a valid track
  double reward = 0;      ///< summed reward of every env and step

  int episodes() const { return laps + collisions + timeouts; }
  double lap_fraction() const { return raced > 0 ? double(lapped_first) / raced : 0.0; }
  double collision_rate() const { return episodes() > 0 ? double(collisions) / episodes() : 0.0; }
  double env_steps_per_s() const { return seconds > 0 ? env_steps / seconds : 0.0; }
};

/// Per-env state of the cars and of the episode bookkeeping.
template <class Space>
struct Cars {
  DView<Vec3f, Space> position;   ///< bound to the Course
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half_extents;
  DView<float, Space> yaw, speed, last_dist, reward;
  DView<std::int32_t, Space> done, episode_steps, episodes;
  // Counters: laps, collisions, timeouts, regenerations, first outcome (1 lap,
  // 2 collision), raced.
  DView<std::int32_t, Space> laps, collisions, timeouts, regenerations, first_outcome, raced;

  /// Bytes the constructor allocates for E cars.
  static std::size_t bytes_for(int E) {
    return static_cast<std::size_t>(E) *
           (sizeof(Vec3f) + sizeof(Quatf) + sizeof(Vec2f) + 4 * sizeof(float) + 9 * sizeof(std::int32_t));
  }

  /// Zero-initialized state of E cars, allocated on `space`.
  Cars(const Space& space, int E) {
    const auto make = [&](auto& v, const char* name) { v = std::decay_t<decltype(v)>(Kokkos::view_alloc(space, std::string(name)), E); };
    make(position, "sim::position"), make(orientation, "sim::orientation"), make(half_extents, "sim::half_extents");
    make(yaw, "sim::yaw"), make(speed, "sim::speed"), make(last_dist, "sim::last_dist"), make(reward, "sim::reward");
    make(done, "sim::done"), make(episode_steps, "sim::episode_steps"), make(episodes, "sim::episodes");
    make(laps, "sim::laps"), make(collisions, "sim::collisions"), make(timeouts, "sim::timeouts");
    make(regenerations, "sim::regenerations"), make(first_outcome, "sim::first_outcome"), make(raced, "sim::raced");
  }
};

/// The point of env e's centerline at arc length s (wrapped into [0, length)),
/// and the segment it lies on.
template <class Track>
KOKKOS_INLINE_FUNCTION Vec3f centerline_at(const Track& t, int e, float s, int& segment) {
  const int n = t.count(e);
  const std::size_t base = static_cast<std::size_t>(e) * t.n_max();
  const float len = t.length(e);
  s = s - len * trackgen::kmath::floor(s / len);
  int lo = 0, hi = n - 1;  // the last point at or before s
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (t.arclen(base + mid) <= s) lo = mid; else hi = mid - 1;
  }
  segment = lo;
  const float a = t.arclen(base + lo), b = lo + 1 < n ? t.arclen(base + lo + 1) : len;
  const float u = b > a ? (s - a) / (b - a) : 0.0f;
  const Vec3f p = t.center(base + lo), q = t.center(base + (lo + 1 < n ? lo + 1 : 0));
  return p + u * (q - p);
}

/// 1. The agent kernel: put cars starting an episode on their track's start
/// line (half a checkpoint before checkpoint 0, at rest); drive the others.
template <class Space>
struct DriveCars {
  using Track = trackgen::Track<typename Space::memory_space>;
  Track track;
  trackgen::TrackFrame<Space> frame;  // from the previous course.step()
  DView<float, Space> speed_profile, checkpoint_step;
  Cars<Space> cars;
  Settings s;

  KOKKOS_FUNCTION void operator()(const int e) const {
    int seg = 0;
    if (cars.episode_steps(e) == 0) {
      cars.speed(e) = 0.0f;
      if (track.valid(e) == 0) {  // paused (a NaN position) until it is regenerated
        cars.position(e) = trackgen::nan3();
        return;
      }
      const Vec3f p = centerline_at(track, e, -0.5f * checkpoint_step(e), seg);
      const Vec3f t = track.tangent(static_cast<std::size_t>(e) * track.n_max() + seg);
      cars.position(e) = p;
      cars.yaw(e) = trackgen::kmath::atan2(t.y, t.x);
      cars.orientation(e) = trackgen::geom::quat_from_yaw(cars.yaw(e));
      cars.half_extents(e) = s.half_extents;
      return;
    }
    const Vec3f pos = cars.position(e);
    const Vec3f target = centerline_at(track, e, frame.s(e) + s.lookahead, seg);
    const float yaw = cars.yaw(e);
    const Vec2f heading{trackgen::kmath::cos(yaw), trackgen::kmath::sin(yaw)};
    const Vec2f to_target{target.x - pos.x, target.y - pos.y};
    const float dist = trackgen::length(to_target);
    const float alpha = trackgen::kmath::atan2(trackgen::cross(heading, to_target), trackgen::dot(heading, to_target));
    const float kappa = trackgen::kmath::clamp(2.0f * trackgen::kmath::sin(alpha) / trackgen::kmath::max(dist, 1e-3f),
                                               -s.max_curvature, s.max_curvature);
    const float v_target = speed_profile(static_cast<std::size_t>(e) * track.n_max() + seg);
    const float v = cars.speed(e) + trackgen::kmath::clamp(v_target - cars.speed(e), -s.limits.a_brake * s.dt,
                                                           s.limits.a_accel * s.dt);
    const float new_yaw = yaw + v * kappa * s.dt;
    cars.speed(e) = v;
    cars.yaw(e) = new_yaw;
    cars.position(e) = Vec3f{pos.x + v * s.dt * trackgen::kmath::cos(new_yaw),
                             pos.y + v * s.dt * trackgen::kmath::sin(new_yaw), target.z};
    cars.orientation(e) = trackgen::geom::quat_from_yaw(new_yaw);
  }
};

/// 3. The reward kernel: reward, done and the episode counters.
template <class Space>
struct ScoreCars {
  DView<std::int32_t, Space> valid;
  trackgen::StepResult<Space> result;
  Cars<Space> cars;
  Settings s;

  KOKKOS_FUNCTION void operator()(const int e) const {
    const int steps = cars.episode_steps(e) + 1;
    const float dist = result.events.dist_to_next(e);
    int done = 0;
    if (valid(e) == 0) {
      done = 1;  // nothing to race: regenerate
    } else {
      if (steps == 1) cars.raced(e) = 1;
      // The first step of an episode has no previous distance to improve on.
      const float shaped = steps > 1 ? cars.last_dist(e) - dist : 0.0f;
      cars.reward(e) += shaped + s.checkpoint_bonus * static_cast<float>(result.events.passed(e));
      if (result.contacts.oob(e) != 0) {
        done = 1;
        cars.collisions(e) += 1;
        if (cars.first_outcome(e) == 0) cars.first_outcome(e) = 2;
      } else if (result.events.laps(e) >= 1) {
        done = 1;
        cars.laps(e) += 1;
        if (cars.first_outcome(e) == 0) cars.first_outcome(e) = 1;
      } else if (steps >= s.timeout_steps) {
        done = 1;
        cars.timeouts(e) += 1;
      }
    }
    cars.last_dist(e) = dist;
    cars.done(e) = done;
    cars.regenerations(e) += done;
    cars.episodes(e) += done;
    cars.episode_steps(e) = done ? 0 : steps;
  }
};

template <class Space = Kokkos::DefaultExecutionSpace>
class SimLoop {
 public:
  /// Builds the Course (generating every env's first track) and the cars.
  SimLoop(Space space, const Settings& settings)
      : settings_(settings), space_(space), course_(space, course_config(settings)), cars_(space, settings.envs) {
    course_.bind(cars_.position, cars_.orientation, cars_.half_extents);
  }

  /// One step of every env (see the file comment).
  void step() {
    const auto E = static_cast<std::size_t>(settings_.envs);
    using Policy = Kokkos::RangePolicy<Space>;
    Kokkos::parallel_for("sim::drive", Policy(space_, 0, E),
                         DriveCars<Space>{course_.track(), course_.result().frame, course_.speed(),
                                          course_.checkpoint_sampler().step(), cars_, settings_});
    const auto& result = course_.step();
    Kokkos::parallel_for("sim::score", Policy(space_, 0, E),
                         ScoreCars<Space>{course_.track().valid, result, cars_, settings_});
    course_.regenerate(cars_.done, /*advance=*/true);
    ++steps_;
  }

  /// Runs `steps` steps and returns the statistics so far (timed between fences).
  Stats run(int steps) {
    space_.fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < steps; ++t) step();
    space_.fence();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats();
  }

  /// The counters, summed on the host (reads the device).
  Stats stats() const {
    Stats st;
    st.env_steps = static_cast<long long>(steps_) * settings_.envs;
    st.seconds = seconds_;
    const auto sum = [](const auto& v) {
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      double total = 0;
      for (std::size_t i = 0; i < h.extent(0); ++i) total += h(i);
      return total;
    };
    st.laps = static_cast<int>(sum(cars_.laps));
    st.collisions = static_cast<int>(sum(cars_.collisions));
    st.timeouts = static_cast<int>(sum(cars_.timeouts));
    st.regenerations = static_cast<int>(sum(cars_.regenerations));
    st.raced = static_cast<int>(sum(cars_.raced));
    st.reward = sum(cars_.reward);
    const auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cars_.first_outcome);
    for (std::size_t e = 0; e < first.extent(0); ++e) st.lapped_first += first(e) == 1 ? 1 : 0;
    return st;
  }

  trackgen::Course<Space>& course() { return course_; }
  const Cars<Space>& cars() const { return cars_; }
  const Settings& settings() const { return settings_; }

 private:
  Settings settings_;
  Space space_;
  trackgen::Course<Space> course_;
  Cars<Space> cars_;
  int steps_ = 0;
  double seconds_ = 0;
};

}  // namespace sim
