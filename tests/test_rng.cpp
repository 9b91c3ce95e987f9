// The RNG of the original system (docs/algorithms.md#rng) bit-exactly, on the host
// and inside kernels on every backend, and the salt table (docs/algorithms.md#salts).
#include "support.hpp"

#include <trackgen/core/rng.hpp>

#include <cstdint>
#include <limits>
#include <vector>

using trackgen::pcg_hash;
using trackgen::rand_init;
using trackgen::randf;
using trackgen::randi;
using trackgen::salted;
using trackgen::test::map_on_device;  // out[i] = f(in[i]) in a kernel on a space

namespace {

constexpr std::int32_t int_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t int_min = std::numeric_limits<std::int32_t>::min();

const std::vector<std::uint32_t> pcg_inputs = {0u, 1u, 2u, 42u, 12345u, 4294967295u};
const std::vector<std::uint32_t> pcg_expected = {129708002u,  2831084092u, 2055130248u,
                                                 1223963391u, 4099845390u, 3861530882u};
/// The first four randf() draws from rand_init(42), as the original system prints them.
const std::vector<double> randf_expected = {0.6485052108764648, 0.9323613047599792, 0.6734746098518372,
                                            0.8542989492416382};
const std::vector<std::int32_t> salted_seeds = {0, 1, -1, 300000, int_max, int_min};
/// seed * 9781 in int32 with wrap-around.
const std::vector<std::int32_t> salted_expected = {0, 9781, -9781, -1360667296, 2147473867, int_min};

/// pcg_hash(x).
struct PcgOf {
  KOKKOS_FUNCTION std::uint32_t operator()(std::uint32_t x) const { return pcg_hash(x); }
};

/// The k-th randf() draw (k = 0, 1, ...) of the stream rand_init(seed).
struct NthDraw {
  std::int32_t seed;
  KOKKOS_FUNCTION float operator()(int k) const {
    std::uint32_t state = rand_init(seed);
    float v = randf(state);
    for (int i = 0; i < k; ++i) v = randf(state);
    return v;
  }
};

/// randi(state, lo, hi) for a given raw state.
struct RandiOf {
  std::int32_t lo, hi;
  KOKKOS_FUNCTION std::int32_t operator()(std::uint32_t state) const { return randi(state, lo, hi); }
};

/// seed * 9781 (the bezier corner salt) in int32.
struct SaltedOf {
  KOKKOS_FUNCTION std::int32_t operator()(std::int32_t seed) const { return salted(seed, 9781); }
};

}  // namespace

TEST_CASE("pcg_hash and rand_init match the original system's vectors on the host", "[rng]") {
  static_assert(pcg_hash(0u) == 129708002u, "pcg_hash is constexpr");
  for (std::size_t i = 0; i < pcg_inputs.size(); ++i) {
    INFO("pcg(" << pcg_inputs[i] << ")");
    CHECK(pcg_hash(pcg_inputs[i]) == pcg_expected[i]);
  }
  CHECK(rand_init(42) == 1223963391u);
  CHECK(rand_init(-1) == 3861530882u);  // seeds are reinterpreted as uint32
}

TEST_CASE("randf, randi and salted follow the original system on the host", "[rng]") {
  std::uint32_t state = rand_init(42);
  for (const double expected : randf_expected) {
    const float v = randf(state);
    CHECK(static_cast<double>(v) == expected);
  }

  // randf(lo, hi) = (hi - lo) * randf + lo, from the same draw.
  state = rand_init(42);
  CHECK(randf(state, -1.0f, 3.0f) == 4.0f * static_cast<float>(randf_expected[0]) - 1.0f);
  CHECK(state == pcg_hash(rand_init(42)));

  // randi: state = pcg(state); state mod (hi - lo) + lo, unsigned modulo.
  state = 42u;
  CHECK(randi(state, 0, 10) == 1223963391 % 10);
  CHECK(state == 1223963391u);
  state = 42u;
  CHECK(randi(state, -3, 4) == static_cast<std::int32_t>(1223963391u % 7u) - 3);
  state = 42u;
  CHECK(randi(state, int_min, int_max) == 1223963391 + int_min);  // range 2^32 - 1, no overflow
  state = 4294967295u;
  CHECK(randi(state, 5, 6) == 5);
  CHECK(state == 3861530882u);

  for (std::size_t i = 0; i < salted_seeds.size(); ++i) {
    INFO("seed " << salted_seeds[i]);
    CHECK(salted(salted_seeds[i], 9781) == salted_expected[i]);
  }
  CHECK(salted(int_max, 6151) == 2147477497);  // (2^31 - 1) * 6151 mod 2^32
  CHECK(salted(int_max, 1, 1) == int_min);
  CHECK(salted(7, 4099, 3 * 2741 + 1) == 7 * 4099 + 3 * 2741 + 1);
}

TEST_CASE("The salt table matches the original system's", "[rng]") {
  namespace s = trackgen::salt;
  const std::vector<std::pair<s::Salt, s::Salt>> table = {
      {s::bezier_count, {6151, 0}},      {s::bezier_corners, {9781, 0}},     {s::bezier_style, {2741, 0}},
      {s::hull_count, {5119, 1}},        {s::hull_corners, {7919, 1}},       {s::hull_displacement, {3083, 1}},
      {s::polar_controls, {7919, 17}},   {s::voronoi_sites, {8171, 19}},     {s::voronoi_anchors, {3911, 31}},
      {s::checkpoint_ring, {4099, 1}},   {s::repulsive_obstacles, {6247, 23}}, {s::repulsive_growth, {5209, 41}},
      {s::gate_pairs, {3187, 7919}},     {s::z_uniform, {15679, 0}},         {s::z_random_walk, {15683, 0}},
      {s::z_noise, {15731, 0}},
  };
  for (const auto& [salt, expected] : table) {
    CHECK(salt.mul == expected.mul);
    CHECK(salt.add == expected.add);
  }
  CHECK(s::checkpoint_candidate_step == 2741);
  CHECK(s::gate_pair_step == 104729);

  // stream(seed, salt, extra) = rand_init(seed * mul + add + extra), in int32.
  CHECK(trackgen::stream(int_max, s::bezier_count) == rand_init(2147477497));
  CHECK(trackgen::stream(5, s::checkpoint_ring, 3 * s::checkpoint_candidate_step) ==
        rand_init(5 * 4099 + 3 * 2741 + 1));
  CHECK(trackgen::stream(-2, s::gate_pairs, 2 * s::gate_pair_step) == rand_init(-2 * 3187 + 7919 + 2 * 104729));
  CHECK(trackgen::stream(int_max, s::polar_controls) == rand_init(salted(int_max, 7919, 17)));
}

TEMPLATE_TEST_CASE("The RNG vectors hold bit-exactly inside kernels", "[rng]", TRACKGEN_TEST_SPACES) {
  CHECK(map_on_device<TestType>(pcg_inputs, PcgOf{}) == pcg_expected);

  const auto draws = map_on_device<TestType>(std::vector<int>{0, 1, 2, 3}, NthDraw{42});
  REQUIRE(draws.size() == randf_expected.size());
  for (std::size_t k = 0; k < draws.size(); ++k) CHECK(static_cast<double>(draws[k]) == randf_expected[k]);

  CHECK(map_on_device<TestType>(std::vector<std::uint32_t>{42u, 42u}, RandiOf{-3, 4}) ==
        std::vector<std::int32_t>{-3, -3});
  CHECK(map_on_device<TestType>(std::vector<std::uint32_t>{42u, 4294967295u}, RandiOf{0, 10}) ==
        std::vector<std::int32_t>{1223963391 % 10, 3861530882 % 10});
  CHECK(map_on_device<TestType>(std::vector<std::uint32_t>{42u}, RandiOf{int_min, int_max}) ==
        std::vector<std::int32_t>{1223963391 + int_min});
  CHECK(map_on_device<TestType>(salted_seeds, SaltedOf{}) == salted_expected);
}
