// Support for the pipeline stage tests: hand-made closed loops (circle, square,
// figure eight, pinched loop) and a rig that holds a config, PipelineBuffers and
// a Track, loads loops as the generator output and copies results to the host.
#pragma once

#include "support.hpp"

#include <trackgen/core/geometry.hpp>
#include <trackgen/pipeline/detail/stages.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace trackgen::test {

using Loop = std::vector<Vec2f>;

constexpr double two_pi = geom::two_pi_d;

/// Circle of radius r around (cx, cy), n points, counter-clockwise (or clockwise).
inline Loop circle(int n, double r, bool ccw = true, double cx = 0.0, double cy = 0.0) {
  Loop p(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = (ccw ? 1.0 : -1.0) * two_pi * i / n;
    p[static_cast<std::size_t>(i)] = {static_cast<float>(cx + r * std::cos(t)), static_cast<float>(cy + r * std::sin(t))};
  }
  return p;
}

/// Axis-aligned square of the given side from (0, 0), counter-clockwise, n points
/// (n divisible by 4, so the corners are points).
inline Loop square(int n, double side) {
  Loop p;
  const int q = n / 4;
  const double corners[5][2] = {{0, 0}, {side, 0}, {side, side}, {0, side}, {0, 0}};
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < q; ++i) {
      const double f = static_cast<double>(i) / q;
      p.push_back({static_cast<float>(corners[k][0] + f * (corners[k + 1][0] - corners[k][0])),
                   static_cast<float>(corners[k][1] + f * (corners[k + 1][1] - corners[k][1]))});
    }
  }
  return p;
}

/// Point at arc length s on the square of `side` above (counter-clockwise from the origin).
inline Vec2f square_point(double s, double side) {
  const int k = static_cast<int>(std::floor(s / side));
  const double f = s - k * side;
  switch (k % 4) {
    case 0: return {static_cast<float>(f), 0.0f};
    case 1: return {static_cast<float>(side), static_cast<float>(f)};
    case 2: return {static_cast<float>(side - f), static_cast<float>(side)};
    default: return {0.0f, static_cast<float>(side - f)};
  }
}

/// Figure eight (lemniscate of Gerono scaled by a): crosses itself at the origin.
inline Loop figure_eight(int n, double a = 1.0) {
  Loop p(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = two_pi * i / n;
    p[static_cast<std::size_t>(i)] = {static_cast<float>(a * std::cos(t)), static_cast<float>(a * std::sin(t) * std::cos(t))};
  }
  return p;
}

/// Pinched loop (a peanut): x = R cos t, y = R sin t (w + (1 - w) cos^2 t). Its
/// waist at x = 0 is 2 w R wide, far narrower than the road when w R < hw.
inline Loop pinched(int n, double R = 1.0, double w = 0.06) {
  Loop p(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = two_pi * i / n;
    const double c = std::cos(t);
    p[static_cast<std::size_t>(i)] = {static_cast<float>(R * c), static_cast<float>(R * std::sin(t) * (w + (1 - w) * c * c))};
  }
  return p;
}

/// A smooth wobbly loop r(t) = R (1 + a sin(k t + phase)): a nontrivial, valid input.
inline Loop wobbly(int n, double R, double a, int k, double phase) {
  Loop p(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = two_pi * i / n;
    const double r = R * (1.0 + a * std::sin(k * t + phase));
    p[static_cast<std::size_t>(i)] = {static_cast<float>(r * std::cos(t)), static_cast<float>(r * std::sin(t))};
  }
  return p;
}

inline double dist(Vec2f a, Vec2f b) { return std::hypot(double(a.x) - b.x, double(a.y) - b.y); }

/// Closed-loop perimeter of p[0..n) in double.
inline double perimeter(const Vec2f* p, int n) {
  double l = 0.0;
  for (int i = 0; i < n; ++i) l += dist(p[i], p[(i + 1) % n]);
  return l;
}

/// Signed area (CCW positive) of p[0..n) in double.
inline double signed_area(const Vec2f* p, int n) { return 0.5 * geom::shoelace2(p, n); }

/// Minimum distance between points i < j with circ(i, j, n) > band.
inline double min_nonadjacent(const Vec2f* p, int n, int band) {
  double m = 1e30;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (geom::circ_dist(i, j, n) > band) m = std::min(m, dist(p[i], p[j]));
    }
  }
  return m;
}

inline Vec2f xy(Vec3f v) { return {v.x, v.y}; }

/// A config for hand-made inputs: `envs` envs of `n` points.
inline TrackGenConfig stage_config(int envs, int n = 256) {
  TrackGenConfig c;
  c.num_envs = envs;
  c.num_points = n;
  return c;
}

/// Host copy of a Track (every field as a std::vector).
struct HostTrack {
  std::vector<Vec3f> outer, center, inner, tangent, normal;
  std::vector<float> arclen, length, winding;
  std::vector<int> valid, count, truncated, sep_overflow, invalid_reason;
  int n_max = 0;

  template <class M>
  static HostTrack from(const Track<M>& t) {
    HostTrack h;
    h.outer = to_vector(t.outer);
    h.center = to_vector(t.center);
    h.inner = to_vector(t.inner);
    h.tangent = to_vector(t.tangent);
    h.normal = to_vector(t.normal);
    h.arclen = to_vector(t.arclen);
    h.length = to_vector(t.length);
    h.winding = to_vector(t.winding);
    h.valid = to_vector(t.valid);
    h.count = to_vector(t.count);
    h.truncated = to_vector(t.truncated);
    h.sep_overflow = to_vector(t.sep_overflow);
    h.invalid_reason = to_vector(t.invalid_reason);
    h.n_max = t.n_max();
    return h;
  }

  /// The 2D centerline of env e (its count real points).
  std::vector<Vec2f> center2(int e) const {
    std::vector<Vec2f> p;
    for (int i = 0; i < count[e]; ++i) p.push_back(xy(center[static_cast<std::size_t>(e) * n_max + i]));
    return p;
  }
  std::size_t at(int e, int i) const { return static_cast<std::size_t>(e) * n_max + i; }

  bool bitwise_equal(const HostTrack& o) const {
    using trackgen::test::bitwise_equal;
    return bitwise_equal(outer, o.outer) && bitwise_equal(center, o.center) && bitwise_equal(inner, o.inner) &&
           bitwise_equal(tangent, o.tangent) && bitwise_equal(normal, o.normal) && bitwise_equal(arclen, o.arclen) &&
           bitwise_equal(length, o.length) && bitwise_equal(winding, o.winding) && bitwise_equal(valid, o.valid) &&
           bitwise_equal(count, o.count) && bitwise_equal(truncated, o.truncated) &&
           bitwise_equal(sep_overflow, o.sep_overflow) && bitwise_equal(invalid_reason, o.invalid_reason);
  }
};

/// Config + buffers + Track on one execution space, fed with hand-made loops.
template <class Space>
struct StageRig {
  using track_type = Track<typename Space::memory_space>;
  TrackGenConfig config;
  LaunchContext<Space> ctx;
  PipelineBuffers<Space> buffers;
  DView<std::int32_t, Space> seeds;  ///< env e has seed e (read by the z profiles)
  track_type track;

  explicit StageRig(const TrackGenConfig& c)
      : config(c), buffers(c), seeds("StageRig::seeds", c.num_envs), track(c.num_envs, c.N_max) {
    auto h = Kokkos::create_mirror_view(seeds);
    for (int e = 0; e < c.num_envs; ++e) h(e) = e;
    Kokkos::deep_copy(seeds, h);
  }

  /// Loads one loop of num_points points per env as the generator output
  /// (gen_valid = 1).
  void load(const std::vector<Loop>& loops) {
    REQUIRE(static_cast<int>(loops.size()) == config.num_envs);
    std::vector<Vec2f> flat;
    for (const auto& l : loops) {
      REQUIRE(static_cast<int>(l.size()) == config.num_points);
      flat.insert(flat.end(), l.begin(), l.end());
    }
    auto h = Kokkos::create_mirror_view(buffers.gen_centerline);
    for (std::size_t i = 0; i < flat.size(); ++i) h(i) = flat[i];
    Kokkos::deep_copy(buffers.gen_centerline, h);
    Kokkos::deep_copy(buffers.gen_valid, 1);
  }

  void resample() { resample_constant_spacing(ctx, config, buffers, track); ctx.fence(); }
  void relax_all() { relax(ctx, config, buffers, track); ctx.fence(); }
  void inflate_all() { inflate(ctx, config, buffers, seeds, track); ctx.fence(); }
  void run() { run_pipeline(ctx, config, buffers, seeds, track); ctx.fence(); }

  HostTrack host() const { return HostTrack::from(track); }
  std::vector<Vec2f> cs_center() const { return to_vector(buffers.cs_center); }
  std::vector<Vec2f> relaxed() const { return to_vector(buffers.relaxed); }
  std::vector<int> count() const { return to_vector(track.count); }
};

}  // namespace trackgen::test
