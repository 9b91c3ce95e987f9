// Batch statistics (docs/algorithms.md#batch-statistics) of a synthetic batch,
// and the batch counts every summary starts from.
#include "metrics_support.hpp"
#include "support.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/metrics/metrics.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace {

using trackgen::BatchMetrics;
using trackgen::BatchStats;
using trackgen::Track;
using namespace trackgen::test::metrics;  // Loop, circle, square, make_batch, ...

constexpr double pi = trackgen::geom::pi_d;

}  // namespace

TEMPLATE_TEST_CASE("metrics: batch statistics of a synthetic batch", "[metrics]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  using Mem = typename Space::memory_space;
  const int E = 5, N = 256;
  const Loop c = circle(200, 1.0), s = square(2.0, 50), f8 = figure_eight(120), tri = circle(3, 1.0);
  const Loop shifted_c = [&] {
    Loop p = c;
    for (auto& q : p) q.x += 0.1f;
    return p;
  }();
  const Loop shifted_s = [&] {
    Loop p = s;
    for (auto& q : p) q.y -= 0.1f;
    return p;
  }();
  // env: post, pre, valid
  //   0: circle, circle shifted by 0.1, valid
  //   1: square, square shifted by 0.1, valid
  //   2: figure eight, figure eight, invalid  -> counts as a pre-relax crossing
  //   3: triangle (count 3), invalid          -> not measured
  //   4: circle with a NaN point, valid       -> not measured (non-finite post)
  Loop c_nan = c;
  c_nan[10] = trackgen::nan2();
  const std::vector<Loop> post{c, s, f8, tri, c_nan}, pre{shifted_c, shifted_s, f8, tri, c};
  const std::vector<int> valid{1, 1, 0, 0, 1};

  Track<Mem> track(E, N);
  {
    auto center = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.center);
    auto count = Kokkos::create_mirror_view(track.count);
    auto val = Kokkos::create_mirror_view(track.valid);
    for (int e = 0; e < E; ++e) {
      set_env(center, e, N, post[e]);
      count(e) = static_cast<int>(post[e].size());
      val(e) = valid[e];
    }
    Kokkos::deep_copy(track.center, center);
    Kokkos::deep_copy(track.count, count);
    Kokkos::deep_copy(track.valid, val);
  }
  const HostBatch pre_b = make_batch(pre, N);
  const auto pre_chain = trackgen::test::to_device<Space>(pre_b.points, "pre");

  BatchMetrics<Space> bm(E, N);
  const BatchStats st = bm.compute(track, pre_chain, 12.5);
  CHECK(st.num_envs == E);
  CHECK(st.num_valid == 3);
  CHECK(st.num_measured == 2);
  CHECK(st.yield == Approx(0.6));
  CHECK(st.pre_relax_self_intersection_rate == Approx(0.2));
  // pooled over the points of the measured envs 0-2, the invalid figure eight
  // (displacement 0) included
  const double moved = static_cast<double>(c.size() + s.size());
  CHECK(st.xpbd_displacement == Approx(0.1 * moved / (moved + static_cast<double>(f8.size()))).epsilon(1e-4));
  CHECK(st.mean_length == Approx((2 * pi + 8.0) / 2).epsilon(1e-3));
  const double cc = 1.0, cs = pi / 4;
  CHECK(st.mean_compactness == Approx((cc + cs) / 2).epsilon(1e-3));
  CHECK(st.compactness_p10 == Approx(cs + 0.1 * (cc - cs)).epsilon(1e-3));
  CHECK(st.compactness_p50 == Approx((cc + cs) / 2).epsilon(1e-3));
  CHECK(st.compactness_p90 == Approx(cs + 0.9 * (cc - cs)).epsilon(1e-3));
  CHECK(st.compactness_degenerate_rate == Approx(0.5));
  CHECK_FALSE(st.shape_variety_pass);
  CHECK(st.mean_chicanes == 0.0);
  CHECK(st.straight_frac == Approx((0.0 + 196.0 / 200.0) / 2));
  CHECK(st.peak_curvature == Approx((1.0 + (pi / 2) / 0.04) / 2).epsilon(1e-3));
  CHECK(st.lap_time == Approx((2 * pi + bm.post().to_host().lap_time(1)) / 2).epsilon(1e-3));
  CHECK(st.gen_ms_per_call == 12.5);

  const nlohmann::json j = st;
  CHECK(j.at("yield").get<double>() == st.yield);
  CHECK(j.at("shape_variety_pass").get<bool>() == false);
  CHECK(j.at("compactness_p90").get<double>() == st.compactness_p90);
  CHECK(j.size() == 19);

  // wrong shape
  Track<Mem> other(E, N + 1);
  CHECK_THROWS_AS(bm.compute(other, pre_chain, 0.0), trackgen::ConfigError);
}

TEMPLATE_TEST_CASE("metrics: track_counts counts valid and truncated envs", "[metrics]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  Track<typename Space::memory_space> track(Space(), 4, 8);
  Kokkos::deep_copy(track.valid, trackgen::test::to_device<Space>(std::vector<int>{1, 0, 1, 1}, "valid"));
  Kokkos::deep_copy(track.truncated, trackgen::test::to_device<Space>(std::vector<int>{0, 0, 1, 0}, "truncated"));
  const trackgen::TrackCounts c = trackgen::track_counts(track);
  CHECK(c.num_envs == 4);
  CHECK(c.num_valid == 3);
  CHECK(c.num_truncated == 1);
  CHECK(c.yield() == 0.75);
  CHECK(trackgen::TrackCounts{}.yield() == 0.0);
}
