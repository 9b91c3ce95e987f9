// The team sort of the compatibility layer (compat::team_sort on composite
// keys) and the angle sort of the point-family generators built on it.
#include "generator_support.hpp"

#include <trackgen/core/compat.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/rng.hpp>
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/hull.hpp>
#include <trackgen/generators/generator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using trackgen::Vec2f;
namespace tt = trackgen::test;
namespace td = trackgen::detail;

using namespace trackgen::test::generators;  // Batch, Harness, seed_range, make_config, ...

/// The original system's prune-then-sort on the host: centroid of p[0..m) (double
/// sums), key atan2(dx, dy), stable insertion sort with the strict `>` shift.
std::vector<Vec2f> host_angle_sort(const Vec2f* p, int m) {
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < m; ++i) sx += p[i].x, sy += p[i].y;
  const Vec2f c{static_cast<float>(sx / m), static_cast<float>(sy / m)};
  std::vector<Vec2f> pts(p, p + m);
  std::vector<float> keys;
  for (const Vec2f& q : pts) keys.push_back(std::atan2(q.x - c.x, q.y - c.y));
  for (int i = 1; i < m; ++i) {
    const float key = keys[i];
    const Vec2f pt = pts[i];
    int j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      pts[j + 1] = pts[j];
      --j;
    }
    keys[j + 1] = key;
    pts[j + 1] = pt;
  }
  return pts;
}

// Team sort kernels (named free functions: nvcc rules).

/// Sorts rows keys[r*stride, +len[r]) with compat::team_sort, one team per row,
/// `team_size` threads (0: Kokkos::AUTO).
template <class Space>
void sort_rows(const trackgen::DView<std::uint64_t, Space>& keys, const trackgen::DView<std::int32_t, Space>& len,
               int stride, int team_size) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  trackgen::LaunchContext<Space> ctx;
  ctx.for_each_team(
      "TrackGen::tests::team_sort", static_cast<int>(len.extent(0)), team_size, KOKKOS_LAMBDA(const member_type& team) {
        const int r = team.league_rank();
        trackgen::compat::team_sort(team, keys.data() + static_cast<std::size_t>(r) * stride, len(r));
      });
  ctx.fence();
}

/// The largest team size (<= 4) a team_sort kernel can run with on Space.
template <class Space>
int small_team_size() {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  Kokkos::TeamPolicy<Space> policy(Space(), 1, 1);
  const auto f = KOKKOS_LAMBDA(const member_type&){};
  return std::min(4, policy.team_size_max(f, Kokkos::ParallelForTag()));
}

}  // namespace

TEST_CASE("team sort: sort_key orders like the float key, ties by index", "[generators][team_sort]") {
  using trackgen::compat::sort_key;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending = {-inf,   -1e30f, -3.5f, -1.0f, -1e-38f,    -1e-45f, 0.0f,
                                        1e-45f, 1e-38f, 0.25f, 1.0f,  3.1415927f, 1e30f,   inf};
  for (std::size_t a = 0; a < ascending.size(); ++a) {
    for (std::size_t b = 0; b < ascending.size(); ++b) {
      INFO(ascending[a] << " vs " << ascending[b]);
      CHECK((sort_key(ascending[a], 7) < sort_key(ascending[b], 3)) == (a < b));
      CHECK((sort_key(ascending[a], 3) < sort_key(ascending[b], 7)) == (a <= b));
    }
  }
  CHECK(sort_key(-0.0f, 1) < sort_key(0.0f, 2));  // -0 == +0: the index decides
  CHECK(sort_key(0.0f, 1) < sort_key(-0.0f, 2));
  CHECK(trackgen::compat::sort_key_index(sort_key(-2.0f, 12345)) == 12345);
}

TEMPLATE_TEST_CASE("team sort: composite keys reproduce the stable insertion sort exactly", "[generators][team_sort]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  // Rows of random length 0..70 (every small length included) over keys drawn
  // from a small set (many ties, both zeros, infinities) or from [-pi, pi].
  const int stride = 80, rows = 120;
  const std::vector<float> pool = {-3.0f,
                                   -1.0f,
                                   -0.0f,
                                   0.0f,
                                   0.5f,
                                   2.0f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity()};
  std::uint32_t st = 2024u;
  std::vector<float> keys(std::size_t(rows) * stride, 0.0f);
  std::vector<std::int32_t> len(rows);
  std::vector<std::uint64_t> packed(keys.size(), 0);
  for (int r = 0; r < rows; ++r) {
    len[r] = r < 20 ? r : static_cast<int>(trackgen::randf(st) * 71.0f);
    const bool ties = r % 2 == 0;
    for (int i = 0; i < len[r]; ++i) {
      const float u = trackgen::randf(st);
      const float k = ties ? pool[std::min(static_cast<int>(u * pool.size()), int(pool.size()) - 1)]
                           : (2.0f * u - 1.0f) * trackgen::geom::pi_f;
      keys[r * stride + i] = k;
      packed[r * stride + i] = trackgen::compat::sort_key(k, i);
    }
  }
  // On the host: the original system's insertion sort (strict `>` shift) of (key, index).
  std::vector<std::vector<int>> expect(rows);
  for (int r = 0; r < rows; ++r) {
    std::vector<std::pair<float, int>> v;
    for (int i = 0; i < len[r]; ++i) v.emplace_back(keys[r * stride + i], i);
    for (int i = 1; i < len[r]; ++i) {
      const auto x = v[i];
      int j = i - 1;
      while (j >= 0 && v[j].first > x.first) {
        v[j + 1] = v[j];
        --j;
      }
      v[j + 1] = x;
    }
    for (const auto& p : v) expect[r].push_back(p.second);
  }
  for (int team_size : {0, 1, small_team_size<Space>()}) {
    INFO("team size " << team_size);
    auto d_keys = tt::to_device<Space>(packed, "keys");
    const auto d_len = tt::to_device<Space>(len, "len");
    sort_rows<Space>(d_keys, d_len, stride, team_size);
    const auto sorted = tt::to_vector(d_keys);
    int mismatched_rows = 0;
    for (int r = 0; r < rows; ++r) {
      bool same = true;
      for (int i = 0; i < len[r]; ++i) {
        same = same && trackgen::compat::sort_key_index(sorted[r * stride + i]) == expect[r][i];
      }
      for (int i = len[r]; i < stride; ++i) same = same && sorted[r * stride + i] == 0u;  // untouched
      mismatched_rows += same ? 0 : 1;
    }
    CHECK(mismatched_rows == 0);
  }
}

TEMPLATE_TEST_CASE("team sort: bezier and hull corners equal a stable insertion sort", "[generators][team_sort][hull]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* name : {"bezier", "hull"}) {
    for (int variant = 0; variant < 3; ++variant) {
      auto cfg = make_config(name, 256);
      if (variant == 1) cfg.min_num_points = 3, cfg.max_num_points = 20;
      if (variant == 2) cfg.min_point_distance = 0.5f, cfg.min_num_points = 2, cfg.max_num_points = 5;
      INFO("generator " << name << " variant " << variant);
      Harness<Space> h(cfg, seed_range(cfg.num_envs, -50));
      h.run();
      std::vector<Vec2f> raw, sorted;
      std::vector<std::int32_t> count;
      if (std::string(name) == "bezier") {
        auto& g = h.template as<td::BezierGenerator<Space>>();
        raw = tt::to_vector(g.raw_corners()), sorted = tt::to_vector(g.corners());
        count = tt::to_vector(g.corner_count());
      } else {
        auto& g = h.template as<td::HullGenerator<Space>>();
        raw = tt::to_vector(g.raw_corners()), sorted = tt::to_vector(g.corners());
        count = tt::to_vector(g.corner_count());
      }
      const int P = cfg.max_num_points;
      int mismatched = 0;
      for (int e = 0; e < cfg.num_envs; ++e) {
        const auto expect = host_angle_sort(raw.data() + e * P, count[e]);
        std::vector<Vec2f> got(sorted.begin() + e * P, sorted.begin() + e * P + count[e]);
        mismatched += tt::bitwise_equal(expect, got) ? 0 : 1;
        for (int i = count[e]; i < P; ++i) mismatched += std::isnan(sorted[e * P + i].x) ? 0 : 1;
      }
      CHECK(mismatched == 0);
    }
  }
}
