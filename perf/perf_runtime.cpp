// The runtime utilities and Course::step() over the batch size.
//
// Every benchmark runs at E = 1024, 4096, 16384, 65536 up to --envs (the sdf
// query up to 16384: its grids take E * 128^2 * 5 bytes; the grid bakes at
// 1024 only), on default bezier tracks: a batch of min(E, 1024) generated
// tracks tiled to E envs (the course benchmarks generate all E). One box or
// agent per env, on its centerline (progress_update_moving: agents that go
// around their track in 128 calls; course_step_moving: a third of a
// centerline point, about 0.02, further every step). The Courses: course_step, one box against the
// borders (segments) and checkpoints 0.2 apart; course_step_loop, the
// simulation loop's (apps/sim_loop.hpp: checkpoints 0.3 apart, warm
// localizer, speed profile); course_step_gates, gates mode with gate posts
// and the warm localizer on the course line; course_step_serial, course_step
// at E = 16384 on Kokkos::Serial when the default space runs more than one
// thread (the reference of the parallel efficiency). Counters: ns_per_env (the
// mean time of one call divided by E). After the run a summary prints, per
// benchmark, ns per env at every E of the fastest call of all iterations and
// repetitions (the least disturbed by other work on a shared machine), in
// wall-clock time and in the process's CPU time, and max/min over E (flat in
// E: the per-env cost does not grow with the batch); then sdf against
// segments queries, and the goals of the simulation step
// (docs/performance-notes.md): each with its value and whether it is met.
#include "perf_common.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>

namespace trackgen::perf {
namespace {

using TrackT = Track<Space::memory_space>;

/// ns per env of every benchmark family at every E: of wall-clock time, and of
/// the process's CPU time (all threads; immune to the time other processes take
/// from a shared machine, so the fair measure of a 1-thread run under load).
std::map<std::string, std::map<int, double>> g_ns_per_env, g_cpu_ns_per_env;
std::optional<TrackGenerator<Space>> g_base;
std::map<int, TrackT> g_tiled;

/// The batch sizes of the sweep (see the file comment).
std::vector<int> sweep(int cap = 1 << 30) {
  std::vector<int> es;
  const int n = num_envs();
  if (n < 1024) es.push_back(n);
  for (int e = 1024; e <= n; e *= 4) es.push_back(e);
  es.erase(std::remove_if(es.begin(), es.end(), [&](int e) { return e > cap; }), es.end());
  return es;
}

TrackGenConfig bezier_config(int envs) {
  TrackGenConfig c;
  c.num_envs = envs;
  return c;
}

/// Default bezier tracks for E envs: min(E, 1024) generated ones, tiled.
const TrackT& tiled_track(int E) {
  if (auto it = g_tiled.find(E); it != g_tiled.end()) return it->second;
  const int B = std::min(num_envs(), 1024);
  if (!g_base) g_base.emplace(bezier_config(B), SeedState<Space>(B, 0));
  const TrackT& base = g_base->track();
  TrackT t(E, base.n_max());
  const int n_max = base.n_max();
  Kokkos::parallel_for(
      "TrackGen::perf::tile", Kokkos::RangePolicy<Space>(0, std::size_t(E) * n_max), KOKKOS_LAMBDA(const std::size_t s) {
        const std::size_t e = s / n_max, i = s % n_max, src = (e % B) * n_max + i;
        t.outer(s) = base.outer(src), t.center(s) = base.center(src), t.inner(s) = base.inner(src);
        t.tangent(s) = base.tangent(src), t.normal(s) = base.normal(src), t.arclen(s) = base.arclen(src);
        if (i == 0) {
          t.length(e) = base.length(e % B), t.valid(e) = base.valid(e % B), t.count(e) = base.count(e % B);
        }
      });
  Space().fence();
  return g_tiled.emplace(E, t).first->second;
}

/// One box per env on its centerline (point 7 e mod count), along the track.
struct Boxes {
  DView<Vec3f, Space> position;
  DView<Quatf, Space> orientation;
  DView<Vec2f, Space> half;
};

Boxes boxes_on(const TrackT& t) {
  Boxes b{DView<Vec3f, Space>("perf_position", t.num_envs()), DView<Quatf, Space>("perf_orientation", t.num_envs()),
          DView<Vec2f, Space>("perf_half", t.num_envs())};
  const int n_max = t.n_max();
  Kokkos::parallel_for(
      "TrackGen::perf::boxes", Kokkos::RangePolicy<Space>(0, t.num_envs()), KOKKOS_LAMBDA(const int e) {
        const std::size_t s = std::size_t(e) * n_max + (7 * e) % kmath::max(t.count(e), 1);
        b.position(e) = t.center(s);
        b.orientation(e) = geom::quat_from_yaw(kmath::atan2(t.tangent(s).y, t.tangent(s).x));
        b.half(e) = Vec2f{0.04f, 0.02f};
      });
  Space().fence();
  return b;
}

/// `laps` positions per env going once around its centerline: position k of
/// env e is centerline point (7 e + k count / laps) mod count, so consecutive
/// calls move every agent forward by count / laps points and the last one
/// leads back to the first.
std::vector<DView<Vec3f, Space>> around_track(const TrackT& t, int laps) {
  std::vector<DView<Vec3f, Space>> ring;
  const int n_max = t.n_max();
  for (int k = 0; k < laps; ++k) {
    DView<Vec3f, Space> p("perf_position_ring", t.num_envs());
    Kokkos::parallel_for(
        "TrackGen::perf::around", Kokkos::RangePolicy<Space>(0, t.num_envs()), KOKKOS_LAMBDA(const int e) {
          const int m = kmath::max(t.count(e), 1);
          p(e) = t.center(std::size_t(e) * n_max + (7 * e + (k * m) / laps) % m);
        });
    ring.push_back(p);
  }
  Space().fence();
  return ring;
}

/// Seconds of CPU time this process used so far (every thread).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// Keeps the smaller of `kept` (0: none yet) and `v`.
void keep_min(double& kept, double v) { kept = kept > 0.0 ? std::min(kept, v) : v; }

/// The benchmark loop: times `body()` between fences (after two untimed
/// calls); reports the mean ns per env (counter ns_per_env) and records the
/// fastest call's wall and CPU time for the summary (the least disturbed by
/// other work on a shared machine).
template <class F>
void timed(benchmark::State& state, const std::string& family, int E, F&& body) {
  body();  // warm: the first call after a rebuild of the utilities' own state (progress near
  body();  // index, collision near lists) rebuilds it; the calls timed are those of a running loop
  Space().fence();
  double total = 0, fastest = 1e300, fastest_cpu = 1e300;
  for (auto _ : state) {
    const double cpu0 = process_cpu_seconds();
    const double t = fenced_seconds(Space(), body);
    fastest_cpu = std::min(fastest_cpu, process_cpu_seconds() - cpu0);
    total += t;
    fastest = std::min(fastest, t);
    state.SetIterationTime(t);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(E));
  state.counters["E"] = E;
  state.counters["ns_per_env"] = 1e9 * total / double(state.iterations()) / E;
  keep_min(g_ns_per_env[family][E], 1e9 * fastest / E);
  keep_min(g_cpu_ns_per_env[family][E], 1e9 * fastest_cpu / E);
}

/// The body of the benchmark running now (repetitions reuse it) and its name.
std::string g_current;
std::function<void()> g_body;

/// Registers `family` at every E of `es`: make(E) builds the body it times
/// (once for all repetitions; the previous benchmark's is released first).
template <class Make>
void add_sweep(const std::string& family, const std::vector<int>& es, Make make) {
  for (const int E : es) {
    const std::string name = family + "/E:" + std::to_string(E);
    add(name, [family, name, E, make](benchmark::State& state) {
      try {
        if (g_current != name) {
          g_body = nullptr;
          g_current = name;
          g_body = make(E);
        }
        timed(state, family, E, g_body);
      } catch (const std::exception& ex) {
        state.SkipWithError(ex.what());
      }
    });
  }
}

void register_utilities() {
  add_sweep("checkpoints_sample", sweep(), [](int E) {
    auto s = std::make_shared<CheckpointSampler<Space>>(Space(), tiled_track(E), 0.3f, 96);
    return [s] { s->sample(); };
  });
  add_sweep("progress_update", sweep(), [](int E) {
    const auto& t = tiled_track(E);
    auto cps = std::make_shared<CheckpointSampler<Space>>(Space(), t, 0.3f, 96);
    auto tracker = std::make_shared<ProgressTracker<Space>>(Space(), cps->checkpoints());
    auto boxes = std::make_shared<Boxes>(boxes_on(t));
    tracker->bind(boxes->position);
    return [cps, tracker, boxes] { tracker->update(); };
  });
  add_sweep("progress_update_moving", sweep(), [](int E) {
    const auto& t = tiled_track(E);
    auto cps = std::make_shared<CheckpointSampler<Space>>(Space(), t, 0.3f, 96);
    auto tracker = std::make_shared<ProgressTracker<Space>>(Space(), cps->checkpoints());
    auto ring = std::make_shared<std::vector<DView<Vec3f, Space>>>(around_track(t, 128));
    auto step = std::make_shared<std::size_t>(0);
    return [cps, tracker, ring, step] { tracker->update((*ring)[(*step)++ % ring->size()]); };
  });
  const auto collision = [](CollisionMethod method) {
    return [method](int E) {
      auto c = std::make_shared<CollisionChecker<Space>>(Space(), tiled_track(E), 1, method);
      auto boxes = std::make_shared<Boxes>(boxes_on(tiled_track(E)));
      c->bind_inputs(boxes->position, boxes->orientation, boxes->half);
      return [c, boxes] { c->query(); };
    };
  };
  add_sweep("collision_segments", sweep(), collision(CollisionMethod::segments));
  add_sweep("collision_sdf_query", sweep(16384), collision(CollisionMethod::sdf));
  add_sweep("collision_sdf_bake", sweep(1024), [](int E) {
    auto c = std::make_shared<CollisionChecker<Space>>(Space(), tiled_track(E), 1, CollisionMethod::sdf);
    return [c] { c->bake(); };
  });
  add_sweep("discs_16", sweep(), [](int E) {
    const auto& t = tiled_track(E);
    auto boxes = std::make_shared<Boxes>(boxes_on(t));
    DView<Vec3f, Space> discs("perf_discs", std::size_t(E) * 16);
    Kokkos::deep_copy(discs, Vec3f{0.3f, 0.2f, 0.0f});
    auto d = std::make_shared<DiscChecker<Space>>(Space(), discs, 0.05f, 1, E);
    d->bind_inputs(boxes->position, boxes->orientation, boxes->half);
    return [d, boxes] { d->query(); };
  });
  for (const std::optional<int> window : {std::optional<int>(), std::optional<int>(8)}) {
    add_sweep(window ? "localizer_warm" : "localizer_cold", sweep(), [window](int E) {
      const auto& t = tiled_track(E);
      auto loc = std::make_shared<TrackLocalizer<Space>>(Space(), t, window);
      auto boxes = std::make_shared<Boxes>(boxes_on(t));
      loc->bind(boxes->position);
      return [loc, boxes] { loc->query(); };
    });
  }
  add_sweep("speed_profile", sweep(), [](int E) {
    const auto& t = tiled_track(E);
    DView<float, Space> kappa("perf_kappa", t.arclen.extent(0)), v("perf_v", t.arclen.extent(0));
    return [&t, kappa, v] {
      const LaunchContext<Space> ctx;
      compute_curvature(ctx, t, kappa);
      compute_speed_profile(ctx, t, SpeedLimits{}, kappa, v);
    };
  });
  add_sweep("props_sample", sweep(), [](int E) {
    auto p = std::make_shared<PropSampler<Space>>(Space(), tiled_track(E), 0.1f, PropBoundary::outer, PropMode::points,
                                                  256);
    return [p] { p->sample(); };
  });
  add_sweep("heightfield_bake_64", sweep(1024), [](int E) {
    auto h = std::make_shared<HeightFieldBaker<Space>>(Space(), tiled_track(E), GridOptions{64, std::nullopt});
    return [h] { h->bake(); };
  });
}

/// The Course of course_step: one box per env checked against the borders
/// (segments) and checkpoint progress (checkpoints 0.2 apart), nothing else.
CourseConfig step_config(int envs) {
  CourseConfig c;
  c.gen.num_envs = envs;
  c.checkpoint_spacing = 0.2f;
  c.collision = CollisionMethod::segments;
  return c;
}

/// The Course of the simulation loop (apps/sim_loop.hpp): step_config's
/// with checkpoints 0.3 apart, a warm localizer and a speed profile.
CourseConfig loop_config(int envs) {
  CourseConfig c = step_config(envs);
  c.checkpoint_spacing = 0.3f;
  c.localize = true;
  c.localize_window = 8;
  c.speed_limits = SpeedLimits{1.0f, 1.0f, 2.0f, 1.0f};
  return c;
}

/// A gates-mode Course: default bezier gates 0.1 wide, one box per env
/// checked against the gate posts (radius 0.01), progress through the gates
/// and the warm localizer on the course line.
CourseConfig gates_config(int envs) {
  CourseConfig c;
  c.mode = CourseMode::gates;
  c.gate_gen.num_envs = envs;
  c.gate_gen.gate_width = 0.1f;
  c.post_radius = 0.01f;
  c.localize_window = 8;
  return c;
}

/// A Course of E envs on `S` with its agents bound on their centerlines (the
/// course line in gates mode).
template <class S>
struct BoundCourse {
  Course<S> course;
  DView<Vec3f, S> position;
  DView<Quatf, S> orientation;
  DView<Vec2f, S> half;
  int step = 0;
  explicit BoundCourse(const CourseConfig& config)
      : course(S(), config),
        position("perf_position", config.num_envs()),
        orientation("perf_orientation", config.num_envs()),
        half("perf_half", config.num_envs()) {
    place();
    course.bind(position, orientation, half);
  }
  /// Every agent on its centerline, step / 3 points further than at the
  /// start (point 7 e, about 0.02 per step: the simulation loop's top speed),
  /// along the track.
  void place() {
    const auto& t = course.track();
    const int n_max = t.n_max(), k = step;
    auto p = position;
    auto q = orientation;
    auto h = half;
    Kokkos::parallel_for(
        "TrackGen::perf::place", Kokkos::RangePolicy<S>(0, t.num_envs()), KOKKOS_LAMBDA(const int e) {
          const int m = kmath::max(t.count(e), 1);
          const std::size_t base = std::size_t(e) * n_max;
          const std::size_t s = base + (7 * e + k / 3) % m, s1 = base + (7 * e + k / 3 + 1) % m;
          p(e) = geom::lerp(t.center(s), t.center(s1), static_cast<float>(k % 3) / 3.0f);
          q(e) = geom::quat_from_yaw(kmath::atan2(t.tangent(s).y, t.tangent(s).x));
          h(e) = Vec2f{0.04f, 0.02f};
        });
  }
};

/// The Serial space when it is enabled and is not the default one (the
/// 1-thread reference of the 2-thread efficiency), else void.
#if defined(KOKKOS_ENABLE_SERIAL)
using SerialSpace = std::conditional_t<std::is_same_v<Space, Kokkos::Serial>, void, Kokkos::Serial>;
#else
using SerialSpace = void;
#endif

void register_course() {
  add_sweep("course_step", sweep(), [](int E) {
    g_tiled.clear();  // the tiled tracks are no longer needed: make room
    g_base.reset();
    auto c = std::make_shared<BoundCourse<Space>>(step_config(E));
    return [c] { c->course.step(); };
  });
  // Agents moving a third of a centerline point (about 0.02) per step: the
  // moves (one small kernel, timed too) take every agent out of its box's
  // list of near segments and its progress index now and then.
  add_sweep("course_step_moving", sweep(), [](int E) {
    auto c = std::make_shared<BoundCourse<Space>>(step_config(E));
    return [c] {
      ++c->step;
      c->place();
      c->course.step();
    };
  });
  add_sweep("course_step_loop", sweep(), [](int E) {
    auto c = std::make_shared<BoundCourse<Space>>(loop_config(E));
    return [c] { c->course.step(); };
  });
  add_sweep("course_step_gates", sweep(), [](int E) {
    auto c = std::make_shared<BoundCourse<Space>>(gates_config(E));
    return [c] { c->course.step(); };
  });
  if constexpr (!std::is_void_v<SerialSpace>) {
    if (Space().concurrency() > 1 && num_envs() >= 16384) {
      add_sweep("course_step_serial", {16384}, [](int E) {
        auto c = std::make_shared<BoundCourse<SerialSpace>>(step_config(E));
        return [c] { c->course.step(); };
      });
    }
  }
  const int E = std::min(num_envs(), 4096);
  add_sweep("generate", {E}, [](int envs) {
    auto c = std::make_shared<BoundCourse<Space>>(step_config(envs));
    return [c] { c->course.generator().generate(); };
  });
  add_sweep("course_regenerate_8", {E}, [](int envs) {
    auto c = std::make_shared<BoundCourse<Space>>(step_config(envs));
    std::vector<std::int32_t> mask_h(static_cast<std::size_t>(envs), 0);
    for (int k = 0; k < 8; ++k) mask_h[static_cast<std::size_t>((k * 997) % envs)] = 1;
    auto mask = std::make_shared<DView<std::int32_t, Space>>("perf_mask", envs);
    auto h = Kokkos::create_mirror_view(*mask);
    for (int e = 0; e < envs; ++e) h(e) = mask_h[static_cast<std::size_t>(e)];
    Kokkos::deep_copy(*mask, h);
    return [c, mask] { c->course.regenerate(*mask, true); };
  });
}

/// ns per env of `family` at E in `table` (0 when it did not run).
double at(const std::map<std::string, std::map<int, double>>& table, const std::string& family, int E) {
  const auto f = table.find(family);
  if (f == table.end()) return 0.0;
  const auto it = f->second.find(E);
  return it == f->second.end() ? 0.0 : it->second;
}

/// Prints the table of `by_family` (ns per env at each E, max/min over E).
void print_table(const char* title, const std::map<std::string, std::map<int, double>>& by_family,
                 const std::vector<int>& all) {
  std::printf("\n%s, max/min over E:\n%-22s", title, "benchmark");
  for (const int E : all) std::printf(" %10d", E);
  std::printf(" %9s\n", "max/min");
  for (const auto& [family, by_e] : by_family) {
    std::printf("%-22s", family.c_str());
    double lo = 1e300, hi = 0;
    for (const int E : all) {
      const auto it = by_e.find(E);
      if (it == by_e.end()) {
        std::printf(" %10s", "-");
        continue;
      }
      std::printf(" %10.1f", it->second);
      lo = std::min(lo, it->second), hi = std::max(hi, it->second);
    }
    std::printf(" %9.3f\n", hi / lo);
  }
}

/// The largest and smallest of `family`'s CPU ns per env over E (0, 0 when it
/// did not run).
std::pair<double, double> cpu_range(const std::string& family) {
  const auto f = g_cpu_ns_per_env.find(family);
  if (f == g_cpu_ns_per_env.end() || f->second.empty()) return {0.0, 0.0};
  double lo = 1e300, hi = 0;
  for (const auto& [E, ns] : f->second) lo = std::min(lo, ns), hi = std::max(hi, ns);
  return {hi, lo};
}

/// One line of the goals (docs/performance-notes.md): `what`, the measured
/// value and whether it meets `goal`.
void goal_line(const std::string& what, const std::string& value, bool measured, bool met) {
  std::printf("  %-58s %-26s %s\n", what.c_str(), value.c_str(), !measured ? "not measured" : met ? "met" : "NOT met");
}

/// The goals of the simulation step, from the process CPU times per env (one
/// thread) and the wall times of the 2-thread efficiency.
void print_goals(const std::vector<int>& all) {
  char buf[96];
  std::printf("\nGoals (process CPU ns per env, fastest call; docs/performance-notes.md):\n");
  for (const char* family : {"course_step", "collision_segments"}) {
    const double limit = std::string(family) == "course_step" ? 250.0 : 150.0;
    for (const int E : all) {
      const double v = at(g_cpu_ns_per_env, family, E);
      if (v <= 0) continue;
      std::snprintf(buf, sizeof buf, "%.1f ns", v);
      goal_line(std::string(family) + " <= " + std::to_string(int(limit)) + " ns/env at E=" + std::to_string(E), buf,
                true, v <= limit);
    }
  }
  const auto [hi, lo] = cpu_range("course_step");
  std::snprintf(buf, sizeof buf, "%.3f", lo > 0 ? hi / lo : 0.0);
  goal_line("course_step max/min over E <= 1.5", buf, lo > 0, lo > 0 && hi / lo <= 1.5);
  const double bake = at(g_cpu_ns_per_env, "collision_sdf_bake", 1024);
  std::snprintf(buf, sizeof buf, "%.3f ms", bake / 1e6);
  goal_line("collision_sdf_bake <= 0.3 ms/env (R = 128)", buf, bake > 0, bake <= 0.3e6);
  const int E = std::min(num_envs(), 4096);
  const double regen = at(g_cpu_ns_per_env, "course_regenerate_8", E);
  std::snprintf(buf, sizeof buf, "%.1f us per call", regen * E / 1e3);
  goal_line("course_regenerate_8 (8 of E=" + std::to_string(E) + " envs) reported", buf, regen > 0, true);
  const double step = at(g_cpu_ns_per_env, "course_step", E), gen = at(g_cpu_ns_per_env, "generate", E);
  std::snprintf(buf, sizeof buf, "%.3f (%.1f / %.1f ns)", gen > 0 ? step / (gen / 100) : 0.0, step, gen / 100);
  goal_line("step / (generate / 100) <= 0.25 at E=" + std::to_string(E), buf, step > 0 && gen > 0,
            step > 0 && gen > 0 && step / (gen / 100) <= 0.25);
  const double serial = at(g_ns_per_env, "course_step_serial", 16384), omp = at(g_ns_per_env, "course_step", 16384);
  const int threads = Space().concurrency();
  const double eff = serial > 0 && omp > 0 ? serial / (threads * omp) : 0.0;
  std::snprintf(buf, sizeof buf, "%.2f (%d threads)", eff, threads);
  goal_line("course_step efficiency at E=16384 >= 0.9 (wall, vs Serial)", buf, eff > 0, eff >= 0.9);
}

void summary() {
  g_body = nullptr;
  g_tiled.clear();
  g_base.reset();
  std::vector<int> all;
  for (const auto& [family, by_e] : g_ns_per_env) {
    for (const auto& [E, ns] : by_e) all.push_back(E);
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  print_table("wall-clock ns per env (fastest call / E)", g_ns_per_env, all);
  print_table("process CPU ns per env (fastest call / E, every thread)", g_cpu_ns_per_env, all);
  for (const int E : all) {
    const double seg = at(g_ns_per_env, "collision_segments", E), sdf = at(g_ns_per_env, "collision_sdf_query", E);
    if (seg > 0 && sdf > 0) std::printf("E=%d: sdf query / segments query = %.3f\n", E, sdf / seg);
  }
  print_goals(all);
}

}  // namespace

void register_benchmarks() {
  register_utilities();
  register_course();
  add_summary(summary);
}

}  // namespace trackgen::perf
