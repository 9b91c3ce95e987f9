// Inflation and validity (docs/algorithms.md#inflation, #validity) on hand-made loops.
#include "test_pipeline_support.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace {

using trackgen::Vec2f;
using trackgen::Vec3f;
namespace tt = trackgen::test;

/// Runs resample + relax + inflate on `loops` and returns the Track on the host.
template <class Space>
tt::HostTrack run_loops(const trackgen::TrackGenConfig& cfg, const std::vector<tt::Loop>& loops) {
  tt::StageRig<Space> rig(cfg);
  rig.load(loops);
  rig.run();
  return rig.host();
}

/// Checks the geometric invariants of every env of a Track.
void check_geometry(const tt::HostTrack& h, const trackgen::TrackGenConfig& cfg) {
  const double hw = cfg.half_width;
  for (int e = 0; e < static_cast<int>(h.count.size()); ++e) {
    INFO("env " << e);
    const int n = h.count[e];
    const auto c = h.center2(e);
    std::vector<Vec2f> o, in;
    for (int i = 0; i < n; ++i) {
      o.push_back(tt::xy(h.outer[h.at(e, i)]));
      in.push_back(tt::xy(h.inner[h.at(e, i)]));
    }
    for (int i = 0; i < n; ++i) {
      CHECK(tt::dist(o[i], c[i]) == Approx(hw).margin(1e-4));
      CHECK(tt::dist(c[i], in[i]) == Approx(hw).margin(1e-4));
      const Vec3f t = h.tangent[h.at(e, i)], nm = h.normal[h.at(e, i)];
      CHECK(std::hypot(t.x, t.y) == Approx(1.0).margin(1e-5));
      CHECK(nm.x == -t.y);
      CHECK(nm.y == t.x);
      CHECK(t.z == 0.0f);
    }
    if (n >= 3) {
      // outer is the candidate with the larger |area|, whatever the winding
      CHECK(std::fabs(tt::signed_area(o.data(), n)) > std::fabs(tt::signed_area(in.data(), n)));
      const double area = tt::signed_area(c.data(), n);
      CHECK(h.winding[e] == (area > 0 ? 1.0f : -1.0f));
      // the left normal points to outer on CW loops, to inner on CCW loops
      const Vec3f nm = h.normal[h.at(e, 0)];
      const double d = nm.x * (o[0].x - c[0].x) + nm.y * (o[0].y - c[0].y);
      CHECK(d * h.winding[e] < 0.0);
    }
    // arclen: 0 at the start, increments = chord lengths, length = perimeter.
    if (n > 0) CHECK(h.arclen[h.at(e, 0)] == 0.0f);
    for (int i = 1; i < n; ++i) {
      CHECK(h.arclen[h.at(e, i)] == Approx(h.arclen[h.at(e, i - 1)] + tt::dist(c[i - 1], c[i])).margin(1e-5));
    }
    CHECK(h.length[e] == Approx(tt::perimeter(c.data(), n)).margin(1e-5));
    // NaN padding, z = z_base everywhere.
    for (int i = n; i < h.n_max; ++i) {
      const std::size_t s = h.at(e, i);
      CHECK(std::isnan(h.center[s].x));
      CHECK(std::isnan(h.outer[s].y));
      CHECK(std::isnan(h.inner[s].x));
      CHECK(std::isnan(h.tangent[s].x));
      CHECK(std::isnan(h.normal[s].y));
      CHECK(std::isnan(h.arclen[s]));
    }
    for (int i = 0; i < h.n_max; ++i) {
      CHECK(h.center[h.at(e, i)].z == cfg.z_base);
      CHECK(h.outer[h.at(e, i)].z == cfg.z_base);
      CHECK(h.inner[h.at(e, i)].z == cfg.z_base);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("inflation: borders, frames, arc length, winding on circles", "[pipeline][inflate]",
                   TRACKGEN_TEST_SPACES) {
  for (const bool relax : {false, true}) {
    auto cfg = tt::stage_config(2);
    cfg.relax_enable = relax;
    cfg.z_base = 0.25f;
    const auto h = run_loops<TestType>(cfg, {tt::circle(256, 1.0, true), tt::circle(256, 0.8, false, 2.0, 1.0)});
    check_geometry(h, cfg);
    CHECK(h.winding[0] == 1.0f);
    CHECK(h.winding[1] == -1.0f);
    CHECK(h.valid == std::vector<int>{1, 1});
    CHECK(h.length[0] == Approx(2.0 * M_PI).epsilon(2e-3));
    // outer of a circle is the concentric circle hw further out
    for (int i = 0; i < h.count[0]; ++i) {
      const double r = std::hypot(h.center[i].x, h.center[i].y);
      CHECK(std::hypot(h.outer[i].x, h.outer[i].y) - r == Approx(cfg.half_width).margin(5e-4));
      CHECK(r - std::hypot(h.inner[i].x, h.inner[i].y) == Approx(cfg.half_width).margin(5e-4));
    }
  }
}

TEMPLATE_TEST_CASE("validity rejects a figure eight, a pinched loop and a square corner without relaxation",
                   "[pipeline][inflate]", TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(4);
  cfg.relax_enable = false;
  cfg.validity_border_check = false;
  const std::vector<tt::Loop> loops{tt::figure_eight(256), tt::pinched(256), tt::square(256, 1.0),
                                    tt::circle(256, 1.0)};
  const auto h = run_loops<TestType>(cfg, loops);
  CHECK(h.valid == std::vector<int>{0, 0, 0, 1});
  CHECK(h.winding[3] == 1.0f);
  check_geometry(h, cfg);

  // With the loop check, the figure eight's borders cross as well.
  cfg.validity_border_check = true;
  const auto hb = run_loops<TestType>(cfg, loops);
  CHECK(hb.valid == std::vector<int>{0, 0, 0, 1});

  // With relaxation, the pinched loop and the square become valid tracks; the
  // figure eight stays invalid (the relaxation cannot untie a crossing).
  cfg.relax_enable = true;
  const auto hr = run_loops<TestType>(cfg, loops);
  CHECK(hr.valid == std::vector<int>{0, 1, 1, 1});
  for (int e = 1; e < 4; ++e) {
    const auto c = hr.center2(e);
    CHECK(tt::min_nonadjacent(c.data(), hr.count[e], 3) >= 1.96 * cfg.half_width);
  }
}

TEMPLATE_TEST_CASE("validity uses the relax_band override as its thickness band", "[pipeline][inflate]",
                   TRACKGEN_TEST_SPACES) {
  // Without relaxation the pinched loop fails the thickness test at its waist.
  // A band of half the loop excludes every pair from that test, so with the
  // override (the band the relaxation would use) the track passes; the
  // original system would have ignored the override here. (The loop check, off
  // here, rejects the waist anyway: its borders overlap.)
  auto cfg = tt::stage_config(1);
  cfg.relax_enable = false;
  cfg.validity_border_check = false;
  CHECK(run_loops<TestType>(cfg, {tt::pinched(256)}).valid[0] == 0);
  cfg.relax_band = 200;
  CHECK(run_loops<TestType>(cfg, {tt::pinched(256)}).valid[0] == 1);
}

TEMPLATE_TEST_CASE("inflation: generator validity, width floor and empty tracks", "[pipeline][inflate]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(3);
  tt::StageRig<TestType> rig(cfg);
  rig.load({tt::circle(256, 1.0), tt::circle(256, 1.0), tt::Loop(256, Vec2f{0.5f, 0.5f})});
  // env 1: the generator flagged it invalid
  auto gv = Kokkos::create_mirror_view(rig.buffers.gen_valid);
  gv(0) = 1;
  gv(1) = 0;
  gv(2) = 1;
  Kokkos::deep_copy(rig.buffers.gen_valid, gv);
  rig.run();
  const auto h = rig.host();
  CHECK(h.valid == std::vector<int>{1, 0, 0});
  CHECK(h.count[2] == 0);
  CHECK(h.length[2] == 0.0f);
  CHECK(h.winding[2] == 0.0f);
  for (int i = 0; i < cfg.N_max; ++i) CHECK(std::isnan(h.center[h.at(2, i)].x));

  // A half-width at the floor fails the width test.
  auto narrow = tt::stage_config(1);
  narrow.half_width = 0.01f;
  narrow.w_floor = 0.01f;
  narrow.N_max = 1200;
  CHECK(run_loops<TestType>(narrow, {tt::circle(256, 1.0)}).valid[0] == 0);
  narrow.w_floor = 0.005f;
  CHECK(run_loops<TestType>(narrow, {tt::circle(256, 1.0)}).valid[0] == 1);
}
