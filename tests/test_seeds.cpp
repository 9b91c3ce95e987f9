// Seeds: integer seed expansion, effective seeds and SeedState (owned, bound,
// masked operations) on every backend.
#include "support.hpp"

#include <trackgen/core/seeds.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

using trackgen::ConfigError;
using trackgen::effective_seed;
using trackgen::expand_seed;
using trackgen::SeedExpansion;
using trackgen::test::to_device;
using trackgen::test::to_vector;

namespace {

using Ints = std::vector<std::int32_t>;

constexpr std::int32_t int_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t int_min = std::numeric_limits<std::int32_t>::min();

/// (seed, epoch) -> effective seed, the original system's vectors.
const Ints ref_seeds = {7, 7, 7, 7, -5, int_max};
const Ints ref_epochs = {0, 1, 2, 3, 1, 5};
const Ints ref_effective = {7, 1572047580, 421722538, 1818752845, 633724865, 1489170938};

/// The effective seeds of `state` (all envs), read back to the host.
template <class Space>
Ints effective_of(const trackgen::SeedState<Space>& state) {
  trackgen::DView<std::int32_t, Space> out("TrackGen::test::effective", state.num_envs());
  state.effective(out);
  return to_vector(out);
}

}  // namespace

TEST_CASE("effective_seed matches the original system's vectors on the host", "[seeds]") {
  static_assert(effective_seed(7, 1) == 1572047580, "effective_seed is constexpr");
  for (std::size_t i = 0; i < ref_seeds.size(); ++i) {
    INFO("effective_seed(" << ref_seeds[i] << ", " << ref_epochs[i] << ")");
    CHECK(effective_seed(ref_seeds[i], ref_epochs[i]) == ref_effective[i]);
  }
  // Nonzero epochs give non-negative seeds; epoch 0 is the identity, negative seeds included.
  for (std::int32_t epoch = 1; epoch < 100; ++epoch) CHECK(effective_seed(-123, epoch) >= 0);
  CHECK(effective_seed(int_min, 0) == int_min);
}

TEST_CASE("expand_seed: arange wraps in int32, hashed batches k and k+1 do not overlap", "[seeds]") {
  CHECK(expand_seed(5, 3, SeedExpansion::arange) == 8);
  CHECK(expand_seed(int_max, 1, SeedExpansion::arange) == int_min);
  CHECK(expand_seed(-1, 1, SeedExpansion::arange) == 0);
  std::set<std::int32_t> a, b;
  for (int e = 0; e < 4096; ++e) {
    a.insert(expand_seed(1000, e, SeedExpansion::hashed));
    b.insert(expand_seed(1001, e, SeedExpansion::hashed));
  }
  CHECK(a.size() == 4096);
  std::vector<std::int32_t> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  CHECK(common.empty());
  CHECK(*a.begin() >= 0);
}

TEMPLATE_TEST_CASE("SeedState owned expansions", "[seeds]", TRACKGEN_TEST_SPACES) {
  using State = trackgen::SeedState<TestType>;
  SECTION("arange up to INT32_MAX; a base seed whose env seeds would wrap is rejected") {
    const State s(4, int_max - 3);
    CHECK_FALSE(s.bound());
    CHECK(s.num_envs() == 4);
    CHECK(to_vector(s.seeds()) == Ints{int_max - 3, int_max - 2, int_max - 1, int_max});
    CHECK_THROWS_WITH(State(4, int_max - 2), Catch::Contains("base seed 2147483645 with num_envs = 4 would wrap") &&
                                                 Catch::Contains("k <= 2147483644"));
    CHECK_THROWS_AS(State(2, int_max), ConfigError);
    CHECK_NOTHROW(State(1, int_max));
    CHECK_NOTHROW(State(4, int_max, SeedExpansion::hashed));  // hashed seeds do not add e
    CHECK(to_vector(s.epoch()) == Ints{0, 0, 0, 0});
    CHECK(to_vector(State(3).seeds()) == Ints{0, 1, 2});
    CHECK(effective_of(s) == to_vector(s.seeds()));  // epoch 0: the seeds themselves
  }
  SECTION("hashed: batches k and k+1 share no seed") {
    const auto a = to_vector(State(256, 77, SeedExpansion::hashed).seeds());
    const auto b = to_vector(State(256, 78, SeedExpansion::hashed).seeds());
    for (int e = 0; e < 256; ++e) CHECK(a[e] == expand_seed(77, e, SeedExpansion::hashed));
    const std::set<std::int32_t> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    std::vector<std::int32_t> common;
    std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(common));
    CHECK(common.empty());
  }
  SECTION("num_envs < 1 is rejected") { CHECK_THROWS_AS(State(0), ConfigError); }
}

TEMPLATE_TEST_CASE("SeedState effective seeds match the original system's vectors on the device", "[seeds]",
                   TRACKGEN_TEST_SPACES) {
  using State = trackgen::SeedState<TestType>;
  const State s(to_device<TestType>(ref_seeds), /*copy=*/true);
  // Reach the epochs {0, 1, 2, 3, 1, 5} through masked advances.
  s.advance(to_device<TestType>(Ints{0, 1, 1, 1, 1, 1}));
  s.advance(to_device<TestType>(Ints{0, 0, 1, 1, 0, 1}));
  s.advance(to_device<TestType>(Ints{0, 0, 0, 1, 0, 1}));
  const auto last = to_device<TestType>(Ints{0, 0, 0, 0, 0, 7});
  s.advance(last);
  s.advance(last);
  CHECK(to_vector(s.epoch()) == ref_epochs);
  CHECK(to_vector(s.seeds()) == ref_seeds);
  CHECK(effective_of(s) == ref_effective);
}

TEMPLATE_TEST_CASE("SeedState bound and copied seeds", "[seeds]", TRACKGEN_TEST_SPACES) {
  using State = trackgen::SeedState<TestType>;
  const auto caller = to_device<TestType>(Ints{10, 20, 30});

  SECTION("bound: no copy, caller writes are seen, set() refuses") {
    const State s(caller);
    CHECK(s.bound());
    CHECK(s.seeds().data() == caller.data());
    Kokkos::deep_copy(caller, 5);
    CHECK(effective_of(s) == Ints{5, 5, 5});
    CHECK_THROWS_AS(s.set(to_device<TestType>(Ints{1, 2, 3})), ConfigError);
    CHECK(to_vector(caller) == Ints{5, 5, 5});
  }
  SECTION("copy=true: owned, independent of the caller, set() allowed") {
    const State s(caller, /*copy=*/true);
    CHECK_FALSE(s.bound());
    CHECK(s.seeds().data() != caller.data());
    Kokkos::deep_copy(caller, 5);
    CHECK(to_vector(s.seeds()) == Ints{10, 20, 30});
    s.advance();
    s.set(to_device<TestType>(Ints{1, 2, 3}));
    CHECK(to_vector(s.seeds()) == Ints{1, 2, 3});
    CHECK(to_vector(s.epoch()) == Ints{0, 0, 0});
    CHECK(to_vector(caller) == Ints{5, 5, 5});
  }
  SECTION("an empty seed View is rejected") {
    CHECK_THROWS_AS(State(trackgen::DView<std::int32_t, TestType>("empty", 0)), ConfigError);
  }
}

TEMPLATE_TEST_CASE("SeedState masked operations touch only masked envs", "[seeds]", TRACKGEN_TEST_SPACES) {
  using State = trackgen::SeedState<TestType>;
  const State s(5, 100);
  const auto mask = to_device<TestType>(Ints{1, 0, -3, 0, 1});  // nonzero selects

  s.advance();
  s.advance(mask);
  CHECK(to_vector(s.epoch()) == Ints{2, 1, 2, 1, 2});

  s.reset_epoch(mask);
  CHECK(to_vector(s.epoch()) == Ints{0, 1, 0, 1, 0});

  // effective(out, mask) writes masked entries only.
  const auto out = to_device<TestType>(Ints{-9, -9, -9, -9, -9});
  s.advance();
  s.effective(out, mask);
  CHECK(to_vector(out) == Ints{effective_seed(100, 1), -9, effective_seed(102, 1), -9, effective_seed(104, 1)});
  s.effective(out);
  CHECK(to_vector(out) == Ints{effective_seed(100, 1), effective_seed(101, 2), effective_seed(102, 1),
                               effective_seed(103, 2), effective_seed(104, 1)});

  s.reset_epoch();
  CHECK(to_vector(s.epoch()) == Ints{0, 0, 0, 0, 0});

  // set(seeds, ids): seeds[i] into env ids[i], those epochs zeroed, the others untouched.
  s.advance();
  s.set(to_device<TestType>(Ints{-1, 77}), to_device<TestType>(Ints{3, 1}));
  CHECK(to_vector(s.seeds()) == Ints{100, 77, 102, -1, 104});
  CHECK(to_vector(s.epoch()) == Ints{1, 0, 1, 0, 1});
}

TEMPLATE_TEST_CASE("SeedState argument checks", "[seeds]", TRACKGEN_TEST_SPACES) {
  using State = trackgen::SeedState<TestType>;
  using IntView = typename State::IntView;
  const State s(4);
  CHECK_NOTHROW(s.check_mask(to_device<TestType>(Ints{0, 1, 0, 1})));
  CHECK_THROWS_AS(s.check_mask(IntView()), ConfigError);
  CHECK_THROWS_WITH(s.check_mask(to_device<TestType>(Ints{1, 1, 1}), "done"),
                    Catch::Contains("done") && Catch::Contains("[4]") && Catch::Contains("extent 3"));
  CHECK_THROWS_AS(s.advance(to_device<TestType>(Ints{1, 1})), ConfigError);
  CHECK_THROWS_AS(s.reset_epoch(to_device<TestType>(Ints{1, 1, 1, 1, 1})), ConfigError);
  CHECK_THROWS_AS(s.effective(IntView("out", 3)), ConfigError);
  CHECK_THROWS_AS(s.effective(IntView("out", 4), to_device<TestType>(Ints{1})), ConfigError);
  CHECK_THROWS_AS(s.set(to_device<TestType>(Ints{1, 2})), ConfigError);
  CHECK_THROWS_AS(s.set(to_device<TestType>(Ints{1, 2}), to_device<TestType>(Ints{0})), ConfigError);
  // Nothing was changed by the rejected calls.
  CHECK(to_vector(s.epoch()) == Ints{0, 0, 0, 0});
  CHECK(to_vector(s.seeds()) == Ints{0, 1, 2, 3});
}
