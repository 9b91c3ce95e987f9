// The kernel launchers the generators share (docs/algorithms.md#generator-conventions):
// ARC, XCOUNT (and its per-segment form), NORM, and the reading of config floats
// as the decimal values they stand for.
#include "support.hpp"

#include <trackgen/core/geometry.hpp>
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/common.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

using namespace trackgen::test::generators;  // make_config

// Hand-made inputs for the shared launchers, [E*stride] with NaN padding.
std::vector<Vec2f> square_loop(int per_side, float side) {
  std::vector<Vec2f> p;
  const Vec2f corners[4] = {{0, 0}, {side, 0}, {side, side}, {0, side}};
  for (int c = 0; c < 4; ++c) {
    const Vec2f a = corners[c], b = corners[(c + 1) % 4];
    for (int k = 0; k < per_side; ++k) p.push_back(a + (float(k) / float(per_side)) * (b - a));
  }
  return p;
}

// Sampled half a step off t = 0 so that the crossing lies inside two segments.
std::vector<Vec2f> figure_eight(int n) {
  std::vector<Vec2f> p;
  for (int i = 0; i < n; ++i) {
    const float t = 2.0f * trackgen::geom::pi_f * (float(i) + 0.5f) / float(n);
    p.push_back({std::sin(t), std::sin(t) * std::cos(t)});
  }
  return p;
}

std::vector<Vec2f> circle(int n, float r, Vec2f c = {0, 0}) {
  std::vector<Vec2f> p;
  for (int i = 0; i < n; ++i) {
    const float t = 2.0f * trackgen::geom::pi_f * float(i) / float(n);
    p.push_back(c + Vec2f{r * std::cos(t), r * std::sin(t)});
  }
  return p;
}

float dist(Vec2f a, Vec2f b) { return std::hypot(a.x - b.x, a.y - b.y); }

}  // namespace

TEMPLATE_TEST_CASE("generators: ARC resamples closed loops by arc length and skips NaN points", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int M = 48, num = 16;
  const Vec2f nan = trackgen::nan2();
  // env 0: a square of side 2 sampled unevenly, NaN holes; env 1: a single
  // finite point (NaN row out); env 2: all NaN; env 3: the square again (inactive
  // in the selected run).
  std::vector<Vec2f> dense(4 * M, nan);
  const auto sq = square_loop(8, 2.0f);  // 32 points
  for (int i = 0, j = 0; i < 32; ++i, j += (i % 5 == 0) ? 2 : 1) dense[j] = sq[i];
  dense[M + 7] = {1, 1};
  for (int i = 0; i < 32; ++i) dense[3 * M + i] = sq[i];

  trackgen::LaunchContext<Space> ctx;
  const trackgen::detail::ArcScratch<Space> scratch(ctx.space(), "test", 4, M);
  auto d_dense = tt::to_device<Space>(dense, "dense");
  trackgen::DView<Vec2f, Space> d_out("out", 4 * num);
  trackgen::detail::arc_resample(ctx, "TrackGen::tests::", d_dense, d_out, num, scratch);
  ctx.fence();
  const auto out = tt::to_vector(d_out);
  // perimeter 8, 16 points: every 0.5 along the square from (0, 0).
  for (int k = 0; k < num; ++k) {
    const float s = 0.5f * k;
    const int side = static_cast<int>(s / 2.0f);
    const float f = (s - 2.0f * side) / 2.0f;
    const Vec2f c[4] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    const Vec2f expect = c[side] + f * (c[(side + 1) % 4] - c[side]);
    INFO("k " << k);
    CHECK(dist(out[k], expect) < 1e-5f);
    CHECK(dist(out[3 * num + k], expect) < 1e-5f);
  }
  for (int k = 0; k < num; ++k) {
    CHECK(std::isnan(out[num + k].x));
    CHECK(std::isnan(out[2 * num + k].y));
  }

  // Selected: env 3 inactive keeps its sentinel row; env 0 is rewritten.
  std::vector<Vec2f> sentinel(4 * num, Vec2f{7.0f, 7.0f});
  auto d_sel = tt::to_device<Space>(sentinel, "sel");
  auto active = tt::to_device<Space>(std::vector<std::int32_t>{1, 0, 2, 0}, "active");
  trackgen::detail::arc_resample_selected(ctx, "TrackGen::tests::", d_dense, d_sel, num, active, scratch);
  ctx.fence();
  const auto sel = tt::to_vector(d_sel);
  for (int k = 0; k < num; ++k) {
    CHECK(dist(sel[k], out[k]) == 0.0f);
    CHECK(sel[num + k].x == 7.0f);
    CHECK(std::isnan(sel[2 * num + k].x));
    CHECK(sel[3 * num + k].x == 7.0f);
  }
}

TEMPLATE_TEST_CASE("generators: XCOUNT counts proper crossings per env", "[generators]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int n = 64, stride = 80;
  std::vector<Vec2f> pts(4 * stride, trackgen::nan2());
  const auto c = circle(n, 1.0f), f8 = figure_eight(n), sq = square_loop(16, 1.0f);
  std::copy(c.begin(), c.end(), pts.begin());
  std::copy(f8.begin(), f8.end(), pts.begin() + stride);
  std::copy(sq.begin(), sq.end(), pts.begin() + 2 * stride);
  // env 3: a pinched loop whose two lobes cross twice (a circle with a bar).
  std::vector<Vec2f> bow = {{0, 0}, {2, 0}, {2, 1}, {1.5f, 1}, {1.5f, -1}, {0.5f, -1}, {0.5f, 1}, {0, 1}};
  std::copy(bow.begin(), bow.end(), pts.begin() + 3 * stride);

  trackgen::LaunchContext<Space> ctx;
  auto d_pts = tt::to_device<Space>(pts, "pts");
  trackgen::DView<std::int32_t, Space> fixed("fixed", 4), counted("counted", 4);
  trackgen::detail::xcount(ctx, "TrackGen::tests::", d_pts, stride, n, fixed);
  auto counts = tt::to_device<Space>(std::vector<std::int32_t>{n, n, n, 8}, "counts");
  trackgen::detail::xcount(ctx, "TrackGen::tests::", d_pts, stride, counts, counted);
  ctx.fence();
  const auto xf = tt::to_vector(fixed), xc = tt::to_vector(counted);
  CHECK(xf[0] == 0);
  CHECK(xf[1] == 1);
  CHECK(xf[2] == 0);
  CHECK(xc[0] == 0);
  CHECK(xc[1] == 1);
  CHECK(xc[2] == 0);
  CHECK(xc[3] == 2);
  for (int e = 0; e < 4; ++e) {
    const int ne = e == 3 ? 8 : n;
    CHECK(xc[e] == trackgen::geom::xcount(pts.data() + e * stride, ne));
  }
}

namespace {

/// XCOUNT of segment i by its definition (docs/algorithms.md#xcount): every j > i with
/// circ(i, j, n) > 1, through segments_cross_tol.
int xcount_segment_by_definition(const Vec2f* p, int n, int i) {
  namespace geom = trackgen::geom;
  int c = 0;
  const Vec2f ai = geom::nan_to_zero(p[i]), bi = geom::nan_to_zero(p[(i + 1) % n]);
  for (int j = i + 2; j < n; ++j) {
    if (geom::circ_dist(i, j, n) <= 1) continue;
    c += geom::segments_cross_tol(ai, bi, geom::nan_to_zero(p[j]), geom::nan_to_zero(p[(j + 1) % n])) ? 1 : 0;
  }
  return c;
}

}  // namespace

TEST_CASE("generators: geom::xcount_segment counts XCOUNT by its definition", "[generators]") {
  // Random zig-zag loops (many crossings, near-collinear and repeated points,
  // NaNs) and every small n.
  std::uint32_t st = 12345u;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = trial < 8 ? trial : 4 + static_cast<int>(trackgen::randf(st) * 60.0f);
    std::vector<Vec2f> p(static_cast<std::size_t>(n));
    for (auto& q : p) {
      const float u = trackgen::randf(st);
      q = {std::round(trackgen::randf(st) * 8.0f) / 8.0f, std::round(trackgen::randf(st) * 8.0f) / 8.0f};
      if (u < 0.05f) q = trackgen::nan2();
      if (u > 0.95f && &q != p.data()) q = *(&q - 1);
    }
    for (int i = 0; i < n; ++i) {
      INFO("trial " << trial << " n " << n << " i " << i);
      CHECK(trackgen::geom::xcount_segment(p.data(), n, i) == xcount_segment_by_definition(p.data(), n, i));
    }
  }
}

TEST_CASE("generators: geom::xcount_broadphase counts exactly what geom::xcount counts", "[generators]") {
  namespace geom = trackgen::geom;
  // Star-shaped wiggly loops (few or no crossings, the broadphase path), random
  // points in a box (many crossings), pinched loops whose lobes touch within a
  // segment's tolerance, and the zig-zag loops of the test above (repeated
  // points and NaNs: the all-pairs fallback).
  std::uint32_t st = 777u;
  int broadphase_loops = 0, fallback_loops = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int kind = trial % 4;
    const int n = trial < 20 ? trial : 8 + static_cast<int>(trackgen::randf(st) * 400.0f);
    std::vector<Vec2f> p(static_cast<std::size_t>(n));
    const float amp = 0.1f + trackgen::randf(st), freq = std::round(2.0f + trackgen::randf(st) * 9.0f);
    for (int i = 0; i < n; ++i) {
      const float t = 2.0f * geom::pi_f * static_cast<float>(i) / static_cast<float>(n);
      const float u = trackgen::randf(st), v = trackgen::randf(st);
      if (kind == 0) {
        const float r = 1.0f + amp * std::sin(freq * t) + 0.02f * u;
        p[i] = {r * std::cos(t), r * std::sin(t)};
      } else if (kind == 1) {
        p[i] = {100.0f * u - 50.0f, 20.0f * v};
      } else if (kind == 2) {  // a waist that closes to about a tolerance
        const float w = 0.5f + 0.5f * std::cos(t) * std::cos(t) - 0.499f;
        p[i] = {2.0f * std::cos(t), w * std::sin(t) + 1e-4f * (u - 0.5f)};
      } else {
        p[i] = {std::round(u * 8.0f) / 8.0f, std::round(v * 8.0f) / 8.0f};
        if (u < 0.05f) p[i] = trackgen::nan2();
        if (v > 0.95f && i > 0) p[i] = p[i - 1];
      }
    }
    float lmin2 = 3.0e38f, x0 = 3.0e38f, x1 = -3.0e38f, y0 = 3.0e38f, y1 = -3.0e38f;
    for (int i = 0; i < n; ++i) {
      const Vec2f a = geom::nan_to_zero(p[i]), b = geom::nan_to_zero(p[(i + 1) % n]);
      lmin2 = std::min(lmin2, trackgen::length_sq(b - a));
      x0 = std::min(x0, a.x), x1 = std::max(x1, a.x), y0 = std::min(y0, a.y), y1 = std::max(y1, a.y);
    }
    const bool exact = n >= 16 && geom::xcount_broadphase_exact((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0), lmin2);
    (exact ? broadphase_loops : fallback_loops) += 1;
    INFO("trial " << trial << " kind " << kind << " n " << n);
    CHECK(geom::xcount_broadphase(p.data(), n) == geom::xcount(p.data(), n));
  }
  CHECK(broadphase_loops > 200);
  CHECK(fallback_loops > 50);
}

TEMPLATE_TEST_CASE("generators: NORM centres the bbox and scales its longest side to the target", "[generators]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const int n = 40;
  std::vector<Vec2f> pts;
  for (const auto& p : circle(n, 3.0f, {5.0f, -2.0f})) pts.push_back({p.x, 0.5f * p.y});  // 6 x 3 ellipse
  for (const auto& p : square_loop(10, 0.25f)) pts.push_back(p);
  pts[n + 3] = trackgen::nan2();  // NaN points stay NaN and do not count

  trackgen::LaunchContext<Space> ctx;
  auto d = tt::to_device<Space>(pts, "pts");
  trackgen::detail::normalize_bbox(ctx, "TrackGen::tests::", d, n, n, 1.44f);
  ctx.fence();
  const auto out = tt::to_vector(d);
  for (int e = 0; e < 2; ++e) {
    float xmin = 1e30f, xmax = -1e30f, ymin = 1e30f, ymax = -1e30f;
    for (int i = 0; i < n; ++i) {
      const Vec2f p = out[e * n + i];
      if (!std::isfinite(p.x)) continue;
      xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
      ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
    }
    CHECK(std::max(xmax - xmin, ymax - ymin) == Approx(1.44f).margin(1e-5));
    CHECK(xmin + xmax == Approx(0.0f).margin(1e-5));
    CHECK(ymin + ymax == Approx(0.0f).margin(1e-5));
  }
  CHECK(std::isnan(out[n + 3].x));
}

TEST_CASE("generators: config floats are read as the Python doubles they stand for", "[generators]") {
  CHECK(trackgen::as_python_double(0.05f) == 0.05);
  CHECK(static_cast<int>(1.0 / (2.0 * trackgen::as_python_double(0.05f))) == 10);
  CHECK(static_cast<int>(1.0 / (2.0 * static_cast<double>(0.05f))) == 9);  // why the helper exists
  CHECK(trackgen::detail::BezierParams::from_config(make_config("bezier")).num_cells == 10);
}
