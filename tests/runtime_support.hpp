// Support for the runtime tests: hand-made Tracks whose borders are exact
// scalings of the centerline (squares and circles centred at the origin, so
// every border point is index-aligned with its centerline point), and host
// helpers for the utilities' inputs.
#pragma once

#include "support.hpp"

#include <trackgen/core/track.hpp>
#include <trackgen/runtime.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

namespace trackgen::test {

/// Counter-clockwise square of half size `a` centred at the origin, `per_side`
/// points per side starting at (a, -a) (corners included, so every side is
/// straight).
inline std::vector<Vec3f> square_loop(float a, int per_side, float z = 0.0f) {
  const float c[5][2] = {{a, -a}, {a, a}, {-a, a}, {-a, -a}, {a, -a}};
  std::vector<Vec3f> p;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < per_side; ++i) {
      const float f = static_cast<float>(i) / static_cast<float>(per_side);
      p.push_back({c[k][0] + f * (c[k + 1][0] - c[k][0]), c[k][1] + f * (c[k + 1][1] - c[k][1]), z});
    }
  }
  return p;
}

/// Counter-clockwise circle of radius r centred at the origin, n points from (r, 0).
inline std::vector<Vec3f> circle_loop(double r, int n, float z = 0.0f) {
  std::vector<Vec3f> p;
  for (int i = 0; i < n; ++i) {
    const double t = 2.0 * 3.14159265358979323846 * i / n;
    p.push_back({static_cast<float>(r * std::cos(t)), static_cast<float>(r * std::sin(t)), z});
  }
  return p;
}

/// One env of a hand-made track: the centerline and the scale factors of its
/// borders (inner = center * inner_scale, outer = center * outer_scale).
struct BandEnv {
  std::vector<Vec3f> center;
  float inner_scale = 0.8f;
  float outer_scale = 1.2f;
  int valid = 1;
};

/// A Track of these envs (stride n_max, NaN padded): borders scaled from the
/// centerline, central-difference unit tangents, planar left normals, arc
/// lengths and length in 3D (double sums), count, valid, winding +1.
template <class Space>
Track<typename Space::memory_space> band_track(const std::vector<BandEnv>& envs, int n_max) {
  const int E = static_cast<int>(envs.size());
  Track<Kokkos::HostSpace> h(E, n_max);
  for (int e = 0; e < E; ++e) {
    const auto& c = envs[static_cast<std::size_t>(e)].center;
    const int m = static_cast<int>(c.size());
    REQUIRE(m <= n_max);
    double acc = 0.0;
    for (int i = 0; i < m; ++i) {
      const std::size_t s = static_cast<std::size_t>(e) * n_max + i;
      const Vec3f p = c[static_cast<std::size_t>(i)], q = c[static_cast<std::size_t>((i + 1) % m)];
      const Vec3f d = c[static_cast<std::size_t>((i + 1) % m)] - c[static_cast<std::size_t>((i + m - 1) % m)];
      const float dl = length(d);
      h.center(s) = p;
      h.inner(s) = Vec3f{p.x * envs[e].inner_scale, p.y * envs[e].inner_scale, p.z};
      h.outer(s) = Vec3f{p.x * envs[e].outer_scale, p.y * envs[e].outer_scale, p.z};
      h.tangent(s) = d * (1.0f / dl);
      h.normal(s) = Vec3f{-d.y / dl, d.x / dl, 0.0f};
      h.arclen(s) = static_cast<float>(acc);
      acc += static_cast<double>(length(q - p));
    }
    h.length(e) = static_cast<float>(acc);
    h.count(e) = m;
    h.valid(e) = envs[static_cast<std::size_t>(e)].valid;
    h.winding(e) = 1.0f;
  }
  return h.clone<typename Space::memory_space>();
}

/// [n] copies of `v` on the device.
template <class Space, class T>
Kokkos::View<T*, typename Space::memory_space> filled(std::size_t n, const T& v, const char* name = "filled") {
  return to_device<Space>(std::vector<T>(n, v), name);
}

/// Reproducible test inputs: a linear congruential generator whose draws in
/// [0, 1) have 24 bits (exact as float and as double).
struct Lcg {
  std::uint32_t state;
  double uniform() {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / 16777216.0;
  }
  float uniformf() { return static_cast<float>(uniform()); }
};

/// Identity orientation.
inline Quatf no_rotation() { return {0.0f, 0.0f, 0.0f, 1.0f}; }

/// Captures the warnings TrackGen logs while it lives (at level warn, whatever
/// TRACKGEN_LOG_LEVEL says; the environment's level is restored after).
struct WarningLog {
  std::vector<std::string> messages;
  logging::Sink previous;
  WarningLog() {
    logging::set_level("warn");
    previous = logging::set_sink([this](const std::string& level, const std::string& msg) {
      if (level == "warning" || level == "warn") messages.push_back(msg);
    });
  }
  ~WarningLog() {
    logging::set_sink(previous);
    const char* env = std::getenv("TRACKGEN_LOG_LEVEL");
    logging::set_level(env != nullptr && *env != '\0' ? env : "warn");
  }
  WarningLog(const WarningLog&) = delete;
  WarningLog& operator=(const WarningLog&) = delete;
};

/// Kernel launches seen through Kokkos Tools while it lives (View
/// initializations included).
struct LaunchCounter {
  static inline int launches = 0;
  static inline std::vector<std::string> names;
  Kokkos::Tools::Experimental::EventSet saved;
  static void on_kernel(const char* name, std::uint32_t, std::uint64_t*) {
    ++launches;
    names.emplace_back(name);
  }
  LaunchCounter() : saved(Kokkos::Tools::Experimental::get_callbacks()) {
    launches = 0;
    names.clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(on_kernel);
  }
  ~LaunchCounter() { Kokkos::Tools::Experimental::set_callbacks(saved); }
  LaunchCounter(const LaunchCounter&) = delete;
  LaunchCounter& operator=(const LaunchCounter&) = delete;
};

}  // namespace trackgen::test
