// Relaxation (docs/algorithms.md#relaxation) on hand-made loops.
#include "relax_host_loops.hpp"
#include "relax_solve.hpp"
#include "test_pipeline_support.hpp"

#include <trackgen/pipeline/detail/simd.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;

}  // namespace

TEMPLATE_TEST_CASE("relaxation setup: band and L0", "[pipeline][relax]", TRACKGEN_TEST_SPACES) {
  for (const bool override_band : {false, true}) {
    auto cfg = tt::stage_config(3);
    if (override_band) cfg.relax_band = 7;
    tt::StageRig<TestType> rig(cfg);
    rig.load({tt::circle(256, 1.0), tt::circle(256, 0.3), tt::Loop(256, Vec2f{1.0f, 1.0f})});
    rig.resample();
    trackgen::relax_setup(rig.ctx, rig.config, rig.buffers, rig.track);
    rig.ctx.fence();
    const auto band = tt::to_vector(rig.buffers.band);
    const auto l0 = tt::to_vector(rig.buffers.l0);
    const auto count = rig.count();
    const auto cs = rig.cs_center();
    for (int e = 0; e < 2; ++e) {
      const double want = tt::perimeter(cs.data() + e * cfg.N_max, count[e]) / count[e];
      CHECK(l0[e] == Approx(want).epsilon(1e-6));
      // SEPBAND(L0, 2 hw) = round(0.2 / ~0.06) = 3
      CHECK(band[e] == (override_band ? 7 : 3));
    }
    CHECK(count[2] == 0);
    CHECK(std::isnan(l0[2]));
    CHECK(band[2] == (override_band ? 7 : 1));
  }
}

TEST_CASE("Chebyshev schedule: exact omega values", "[pipeline][relax]") {
  trackgen::TrackGenConfig cfg;
  const auto w = trackgen::chebyshev_schedule(cfg);
  REQUIRE(w.size() == static_cast<std::size_t>(cfg.relax_iters - cfg.relax_cheby_start));  // 42
  const double rho2 = 0.98 * 0.98;
  double prev = 2.0 / (2.0 - rho2);
  CHECK(w[0] == 1.0f);
  CHECK(w[1] == static_cast<float>(2.0 / (2.0 - rho2)));
  CHECK(w[1] == Approx(1.923817).epsilon(1e-6));
  for (std::size_t j = 2; j < w.size(); ++j) {
    const double omega = 4.0 / (4.0 - rho2 * prev);
    CHECK(w[j] == static_cast<float>(omega));
    prev = omega;
  }
  // Converges to 2 / (1 + sqrt(1 - rho^2)).
  CHECK(w.back() == Approx(2.0 / (1.0 + std::sqrt(1.0 - rho2))).epsilon(1e-4));
  cfg.relax_accel = trackgen::RelaxAccel::none;
  CHECK(trackgen::chebyshev_schedule(cfg).empty());
  cfg.relax_accel = trackgen::RelaxAccel::chebyshev;
  cfg.relax_iters = 8;
  CHECK(trackgen::chebyshev_schedule(cfg).empty());
}

TEMPLATE_TEST_CASE("relaxation keeps a circle a circle", "[pipeline][relax]", TRACKGEN_TEST_SPACES) {
  for (const trackgen::RelaxAccel accel : {trackgen::RelaxAccel::chebyshev, trackgen::RelaxAccel::none}) {
    auto cfg = tt::stage_config(2);
    cfg.relax_accel = accel;
    tt::StageRig<TestType> rig(cfg);
    rig.load({tt::circle(256, 1.0), tt::circle(256, 0.5, false, 3.0, -1.0)});
    rig.resample();
    rig.relax_all();
    const auto count = rig.count();
    const auto out = rig.relaxed();
    for (int e = 0; e < 2; ++e) {
      const double r0 = e == 0 ? 1.0 : 0.5;
      for (int i = 0; i < count[e]; ++i) {
        const Vec2f p = out[static_cast<std::size_t>(e) * cfg.N_max + i];
        const double r = std::hypot(p.x - (e == 0 ? 0.0 : 3.0), p.y - (e == 0 ? 0.0 : -1.0));
        // The spacing constraint redistributes the closing gap of the chain
        // along it, which leaves a shallow bump, well under the road width.
        CHECK(r == Approx(r0).margin(0.15 * cfg.half_width));
      }
      // Spacing equalized: every chord close to L0.
      const double l0 = tt::perimeter(out.data() + e * cfg.N_max, count[e]) / count[e];
      for (int i = 0; i < count[e]; ++i) {
        const std::size_t b = static_cast<std::size_t>(e) * cfg.N_max;
        CHECK(tt::dist(out[b + i], out[b + (i + 1) % count[e]]) == Approx(l0).margin(2e-3));
      }
      // Padding beads copy through (NaN).
      for (int i = count[e]; i < cfg.N_max; ++i) CHECK(std::isnan(out[static_cast<std::size_t>(e) * cfg.N_max + i].x));
    }
    CHECK(tt::to_vector(rig.track.sep_overflow) == std::vector<int>{0, 0});
  }
}

TEMPLATE_TEST_CASE("relaxation separates a pinched loop", "[pipeline][relax]", TRACKGEN_TEST_SPACES) {
  struct Mode {
    const char* name;
    int slots, sep_every;
    trackgen::RelaxAccel accel;
  };
  using trackgen::RelaxAccel;
  for (const Mode m : {Mode{"cached", 16, 20, RelaxAccel::chebyshev}, Mode{"dense", 0, 1, RelaxAccel::chebyshev},
                       Mode{"dense, plain Jacobi", 0, 1, RelaxAccel::none}}) {
    INFO("mode " << m.name);
    auto cfg = tt::stage_config(1);
    cfg.relax_sep_cache_slots = m.slots;
    cfg.relax_sep_every = m.sep_every;
    cfg.relax_accel = m.accel;
    tt::StageRig<TestType> rig(cfg);
    const tt::Loop loop = tt::pinched(256);
    rig.load({loop});
    rig.resample();
    const int n = rig.count()[0];
    const auto cs = rig.cs_center();
    const int band = 3;
    REQUIRE(tt::min_nonadjacent(cs.data(), n, band) < 1.3 * cfg.half_width);  // the waist before
    rig.relax_all();
    const auto out = rig.relaxed();
    CHECK(tt::min_nonadjacent(out.data(), n, band) >= 1.96 * cfg.half_width);
    // The solver aims at 2 hw (1 + margin) (intentional overshoot, docs/algorithms.md#overshoot).
    CHECK(tt::min_nonadjacent(out.data(), n, band) >= 2.0 * cfg.half_width);
  }
}

TEMPLATE_TEST_CASE("relaxation: broadphase cache overflow is surfaced per env", "[pipeline][relax]",
                   TRACKGEN_TEST_SPACES) {
  // On a circle at spacing ~0.06, every bead has 4 candidates outside the band
  // (index distance 4 and 5 on both sides) within target * 1.5 = 0.345; beads
  // next to the shorter closing gap have 5 or 6 at the first refresh.
  for (const int slots : {2, 8, 16}) {
    auto cfg = tt::stage_config(2);
    cfg.relax_sep_cache_slots = slots;
    tt::StageRig<TestType> rig(cfg);
    rig.load({tt::circle(256, 1.0), tt::circle(256, 0.7)});
    rig.resample();
    rig.relax_all();
    const auto count = rig.count();
    const auto ovf = tt::to_vector(rig.track.sep_overflow);
    const auto cache_count = tt::to_vector(rig.buffers.sep_cache_count);
    if (slots < 4) {
      CHECK(ovf[0] == count[0]);
      CHECK(ovf[1] == count[1]);
    } else {
      CHECK(ovf == std::vector<int>{0, 0});
    }
    // The lists themselves, where the cache is the env's own (on a host space
    // a thread's scratch serves env after env; the host refresh test checks
    // its lists).
    if (rig.buffers.relax_units() == cfg.num_envs && !trackgen::detail::is_host_space<TestType>()) {
      for (int i = 0; i < count[0]; ++i) CHECK(cache_count[i] == std::min(slots, 4));
      for (int i = count[0]; i < cfg.N_max; ++i) CHECK(cache_count[i] == 0);
    }
  }
}

TEMPLATE_TEST_CASE("relaxation disabled: cs_center goes straight to inflation", "[pipeline][relax]",
                   TRACKGEN_TEST_SPACES) {
  auto cfg = tt::stage_config(1);
  cfg.relax_enable = false;
  tt::StageRig<TestType> rig(cfg);
  rig.load({tt::pinched(256)});
  rig.run();
  const auto h = rig.host();
  CHECK(h.sep_overflow[0] == 0);
  const auto cs = rig.cs_center();
  // The re-uniformized center moves the constant-spacing beads along the chain
  // by less than one step (it only spreads the closing gap).
  for (int i = 0; i < h.count[0]; ++i) CHECK(tt::dist(tt::xy(h.center[i]), cs[i]) < cfg.resolved_spacing());
  CHECK(h.valid[0] == 0);  // the waist is too narrow without relaxation
}

TEMPLATE_TEST_CASE("relaxation: every host instruction set gives the same bits in every mode", "[pipeline][relax]",
                   TRACKGEN_TEST_SPACES) {
  namespace d = trackgen::detail;
  using trackgen::RelaxAccel;
  struct Mode {
    const char* name;
    int slots, sep_every;
    RelaxAccel accel;
  };
  // The cache with Chebyshev (the default), lists that overflow, lists longer
  // than a bit word, the dense separation, separation every 5th sweep without a
  // cache (zero pushes in between), plain Jacobi.
  const Mode modes[] = {{"cached", 16, 20, RelaxAccel::chebyshev},     {"overflowing", 2, 20, RelaxAccel::chebyshev},
                        {"long lists", 40, 20, RelaxAccel::chebyshev}, {"dense", 0, 1, RelaxAccel::chebyshev},
                        {"sparse dense", 0, 5, RelaxAccel::chebyshev}, {"plain Jacobi", 16, 20, RelaxAccel::none}};
  std::vector<d::HostSimd> levels{d::HostSimd::baseline};
  if constexpr (d::is_host_space<TestType>()) {
    for (const auto l : {d::HostSimd::avx2, d::HostSimd::avx512}) {
      if (d::host_simd_available(l)) levels.push_back(l);
    }
  }
  for (const Mode& m : modes) {
    auto cfg = tt::stage_config(4);
    cfg.relax_sep_cache_slots = m.slots;
    cfg.relax_sep_every = m.sep_every;
    cfg.relax_accel = m.accel;
    std::vector<Vec2f> first;
    std::vector<int> first_overflow;
    for (const auto level : levels) {
      INFO("mode " << m.name << ", level " << d::host_simd_name(level));
      if constexpr (d::is_host_space<TestType>()) d::set_host_simd(level);
      tt::StageRig<TestType> rig(cfg);
      rig.load({tt::pinched(256), tt::wobbly(256, 1.0, 0.3, 5, 0.2), tt::figure_eight(256), tt::circle(256, 0.7)});
      rig.resample();
      rig.relax_all();
      const auto out = rig.relaxed();
      const auto ovf = tt::to_vector(rig.track.sep_overflow);
      if (first.empty()) {
        first = out;
        first_overflow = ovf;
        if (m.slots == 2) CHECK(ovf[0] > 0);
      } else {
        CHECK(std::memcmp(out.data(), first.data(), out.size() * sizeof(Vec2f)) == 0);
        CHECK(ovf == first_overflow);
      }
    }
  }
  if constexpr (d::is_host_space<TestType>()) d::set_host_simd(std::nullopt);
  CHECK(d::host_simd_available(d::host_simd()));
  for (const auto l : {d::HostSimd::avx2, d::HostSimd::avx512}) {
    if (!d::host_simd_available(l)) CHECK_THROWS_AS(d::set_host_simd(l), trackgen::ConfigError);
  }
}

#if TRACKGEN_HOST_LANES
// The host refresh (near pairs a tile at a time around the loop, far entries,
// lists cut at the slots) against the per-bead scan the GPU runs: bead by bead
// the same ascending list, count and overflow flag, for short, cut and long
// lists, on every instruction-set level this CPU runs.
TEMPLATE_TEST_CASE("relaxation: the host refresh lists what the per-bead scan lists", "[pipeline][relax]",
                   TRACKGEN_TEST_HOST_SPACES) {
  namespace d = trackgen::detail;
  namespace rx = d::relaxation;
  auto cfg = tt::stage_config(5);
  tt::Loop rose(256);  // r = cos 3t: three passes through the centre, the middle one with partners either side
  for (int i = 0; i < 256; ++i) {
    const double t = 0.5 * tt::two_pi * i / 256, r = 1.2 * std::cos(3.0 * t);
    rose[static_cast<std::size_t>(i)] = {static_cast<float>(r * std::cos(t)), static_cast<float>(r * std::sin(t))};
  }
  // Full-size tracks, and short loops of 2 to about 30 beads.
  const std::vector<tt::Loop> sets[] = {{tt::pinched(256), tt::wobbly(256, 1.0, 0.3, 5, 0.2), tt::figure_eight(256),
                                         rose, tt::wobbly(256, 1.2, 0.45, 9, 0.1)},
                                        {tt::circle(256, 0.012), tt::circle(256, 0.03), tt::circle(256, 0.12),
                                         tt::wobbly(256, 0.2, 0.07, 3, 0.1), tt::pinched(256, 0.3, 0.06)}};
  int cut = 0, far_both = 0, wrapped = 0;  // what the cases reached: cut lists, uncut ones with far entries either
                                           // side, near partners around the loop
  for (const auto& loops : sets) {
    tt::StageRig<TestType> rig(cfg);
    rig.load(loops);
    rig.resample();
    rig.relax_all();  // band and L0
    const auto input = rig.cs_center();
    const auto count = rig.count();
    const auto band = tt::to_vector(rig.buffers.band);
    const auto l0 = tt::to_vector(rig.buffers.l0);
    const rx::Distances dist = rx::distances_of(trackgen::pipeline_constants(cfg));
    const int n_max = rig.buffers.n_max(), stride = rig.buffers.relax_bead_stride();
    const int lead = trackgen::PipelineBuffers<TestType>::relax_lane_block;
    std::vector<d::HostSimd> levels;
    for (const auto l : {d::HostSimd::baseline, d::HostSimd::avx2, d::HostSimd::avx512}) {
      if (d::host_simd_available(l)) levels.push_back(l);
    }
    for (const auto level : levels) {
      d::set_host_simd(level);
      for (const int slots : {2, 3, 5, 16, 40}) {
        for (int e = 0; e < cfg.num_envs; ++e) {
          INFO("level " << d::host_simd_name(level) << ", slots " << slots << ", env " << e);
          const rx::Env env{count[e], band[e], l0[e]};
          std::vector<float> coords(2 * static_cast<std::size_t>(stride));
          const rx::Chain x{&coords[lead], &coords[lead + stride]};
          for (int i = 0; i < env.count; ++i) x.set(i, input[static_cast<std::size_t>(e) * n_max + i]);
          std::vector<std::int32_t> host_idx(static_cast<std::size_t>(slots) * n_max), host_count(n_max),
              host_flag(n_max, 1), split(d::host_split_words(n_max, slots));
          std::vector<std::int32_t> scan_idx(host_idx.size()), scan_count(n_max), scan_flag(n_max, 1);
          const rx::Cache host{host_idx.data(), static_cast<std::size_t>(n_max), host_count.data(), host_flag.data(),
                               slots};
          const rx::Cache scan{scan_idx.data(), static_cast<std::size_t>(n_max), scan_count.data(), scan_flag.data(),
                               slots};
          const rx::HostSplit hs{split.data(), stride, static_cast<int>(d::host_pair_capacity(n_max, slots))};
          const rx::HostLists h = rx::HostLists::at(hs);
          for (const bool first : {true, false}) {
            rx::host_refresh(x, env, dist, host, hs, first);
            for (int i = 0; i < env.count; ++i) rx::refresh_candidates(x, env, dist, scan, i, first);
          }
          const int n = env.count, lo = env.band + 1, hi = env.band + rx::near_width(env, dist);
          for (int i = 0; i < n; ++i) {
            INFO("bead " << i);
            auto left = [&](int c) { return ((h.left[i] >> (hi - c)) & 1u) != 0u; };    // partner (i - c) mod n
            auto right = [&](int c) { return ((h.right[i] >> (c - lo)) & 1u) != 0u; };  // partner (i + c) mod n
            auto far = [&](int k) { return host_idx[i + static_cast<std::size_t>(k) * n_max]; };
            std::vector<int> listed;  // ascending: around the loop above, far below, near, far above, around below
            for (int c = lo; c <= hi; ++c) {
              if (right(c) && i + c >= n) listed.push_back(i + c - n);
            }
            for (int k = 0; k < h.below[i]; ++k) listed.push_back(far(k));
            for (int c = hi; c >= lo; --c) {
              if (left(c) && i - c >= 0) listed.push_back(i - c);
            }
            for (int c = lo; c <= hi; ++c) {
              if (right(c) && i + c < n) listed.push_back(i + c);
            }
            for (int k = h.below[i]; k < h.far[i]; ++k) listed.push_back(far(k));
            for (int c = hi; c >= lo; --c) {
              if (left(c) && i - c < 0) listed.push_back(i - c + n);
            }
            std::vector<int> scanned;
            for (int k = 0; k < scan_count[i]; ++k)
              scanned.push_back(scan_idx[i + static_cast<std::size_t>(k) * n_max]);
            CHECK(listed == scanned);
            CHECK(host_count[i] == scan_count[i]);
            CHECK(host_flag[i] == scan_flag[i]);
            cut += host_flag[i];
            far_both += host_flag[i] == 0 && h.below[i] > 0 && h.far[i] > h.below[i] ? 1 : 0;
            for (int c = lo; c <= hi; ++c) wrapped += (right(c) && i + c >= n) || (left(c) && i - c < 0) ? 1 : 0;
          }
        }
      }
    }
  }
  d::set_host_simd(std::nullopt);
  CHECK(cut > 0);
  CHECK(far_both > 0);
  CHECK(wrapped > 0);
}
#endif

// The host loop shapes (the tile refresh, the near pushes of the tiles with a
// hit, far lists, the update's gentle-bend and mean shortcuts) against the
// per-bead shape the GPU runs, both run here on the host: the same relaxed
// bits and overflow counts, env by env.
TEMPLATE_TEST_CASE("relaxation: the host solve gives the bits of the per-bead solve", "[pipeline][relax]",
                   TRACKGEN_TEST_HOST_SPACES) {
  namespace rx = trackgen::detail::relaxation;
  struct Mode {
    const char* name;
    int slots, sep_every;
  };
  const Mode modes[] = {{"cached", 16, 20}, {"overflowing", 3, 20}, {"long lists", 40, 20}, {"short period", 16, 2}};
  // Full-size tracks, and short loops of 2 to about 30 beads, where the near
  // offsets stop below half the loop and most near partners lie around it.
  const std::vector<tt::Loop> sets[] = {{tt::pinched(256), tt::wobbly(256, 1.0, 0.3, 5, 0.2), tt::figure_eight(256),
                                         tt::circle(256, 0.7), tt::wobbly(256, 1.2, 0.45, 9, 0.1)},
                                        {tt::circle(256, 0.012), tt::circle(256, 0.03), tt::circle(256, 0.12),
                                         tt::wobbly(256, 0.2, 0.07, 3, 0.1), tt::pinched(256, 0.3, 0.06)}};
  for (const Mode& m : modes) {
    int listed_far = 0;  // beads whose lists reach past the near offsets: the far passes ran
    for (const auto& loops : sets) {
      INFO("mode " << m.name << ", " << (&loops == &sets[0] ? "full-size tracks" : "short loops"));
      auto cfg = tt::stage_config(5);
      cfg.relax_sep_cache_slots = m.slots;
      cfg.relax_sep_every = m.sep_every;
      tt::StageRig<TestType> rig(cfg);
      rig.load(loops);
      rig.resample();
      rig.relax_all();
      const auto relaxed = rig.relaxed();
      const auto input = rig.cs_center();
      const auto count = rig.count();
      const auto band = tt::to_vector(rig.buffers.band);
      const auto l0 = tt::to_vector(rig.buffers.l0);
      const auto overflow = tt::to_vector(rig.track.sep_overflow);
      const auto c = trackgen::pipeline_constants(cfg);
      const int n_max = rig.buffers.n_max(), slots = rig.buffers.cache_slots();
      const rx::Schedule schedule = rx::schedule_of(cfg, c, slots, !rig.buffers.cheby_omega_host.empty());
      REQUIRE(schedule.use_cache);
      for (int e = 0; e < cfg.num_envs; ++e) {
        INFO("env " << e);
        std::vector<float> chains(6 * n_max), sums(3 * n_max);
        std::vector<std::int32_t> idx(static_cast<std::size_t>(slots) * n_max), cache_count(n_max), flags(n_max);
        std::vector<Vec2f> out(n_max);
        const rx::EnvSolve a{
            .env = {count[e], band[e], l0[e]},
            .n_max = n_max,
            .chains = {{&chains[0], &chains[n_max]},
                       {&chains[2 * n_max], &chains[3 * n_max]},
                       {&chains[4 * n_max], &chains[5 * n_max]}},
            .input = input.data() + static_cast<std::size_t>(e) * n_max,
            .output = out.data(),
            .sums = {&sums[0], &sums[n_max], &sums[2 * n_max]},
            .cache = {idx.data(), static_cast<std::size_t>(n_max), cache_count.data(), flags.data(), slots},
            .split = {},
            .omega = rig.buffers.cheby_omega_host.data(),
            .schedule = schedule,
            .dist = rx::distances_of(c),
            .weights = c.weights,
            .cheby_gamma = c.cheby_gamma};
        int per_bead_overflow = -1;
        Kokkos::parallel_for(Kokkos::TeamPolicy<TestType>(1, 1), [&](const auto& team) {
          per_bead_overflow = rx::solve_env(rx::TeamLoops<std::decay_t<decltype(team)>>{team}, a);
        });
        Kokkos::fence();
        CHECK(std::memcmp(out.data(), relaxed.data() + static_cast<std::size_t>(e) * n_max,
                          out.size() * sizeof(Vec2f)) == 0);
        CHECK(per_bead_overflow == overflow[e]);
        const rx::Env env{count[e], band[e], l0[e]};
        const int hi = band[e] + rx::near_width(env, a.dist);
        for (int i = 0; i < count[e]; ++i) {
          for (int k = 0; k < cache_count[i]; ++k) {
            const int o = std::abs(idx[i + static_cast<std::size_t>(k) * n_max] - i);
            if (std::min(o, count[e] - o) > hi) {  // beyond the near offsets around the loop
              ++listed_far;
              break;
            }
          }
        }
      }
      if (m.slots == 3 && &loops == &sets[0]) CHECK(overflow[0] > 0);
    }
    CHECK(listed_far > 0);
  }
}
