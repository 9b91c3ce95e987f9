// Track::invalid_reason (docs/algorithms.md#invalid-reasons): a valid track has
// mask 0 and an invalid one a nonzero mask, on every backend and generator;
// constructed batches give each reason the pipeline can produce; the names and
// the batch summary.
#include "test_pipeline_support.hpp"

#include <trackgen/core/geometry.hpp>
#include <trackgen/core/invalid_reason.hpp>
#include <trackgen/pipeline/track_generator.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using trackgen::InvalidReason;
using trackgen::TrackGenConfig;
using trackgen::Vec2f;
namespace tt = trackgen::test;

/// One batch of `c` with seeds k + arange(E).
template <class Space>
tt::HostTrack batch(const TrackGenConfig& c, std::int32_t k = 0) {
  trackgen::TrackGenerator<Space> gen(c, trackgen::SeedState<Space>(c.num_envs, k));
  return tt::HostTrack::from(gen.generate());
}

/// valid[e] == 1 exactly when invalid_reason[e] == 0, for every env.
void check_consistent(const tt::HostTrack& h) {
  for (std::size_t e = 0; e < h.valid.size(); ++e) {
    INFO("env " << e << ": valid " << h.valid[e] << ", invalid_reason " << h.invalid_reason[e]);
    CHECK((h.valid[e] == 1) == (h.invalid_reason[e] == 0));
  }
}

/// The number of envs whose mask has `bit`.
int with_bit(const tt::HostTrack& h, std::int32_t bit) {
  return static_cast<int>(
      std::count_if(h.invalid_reason.begin(), h.invalid_reason.end(), [bit](int m) { return (m & bit) != 0; }));
}

/// A generator for the reasons the built-ins never produce: env e writes a
/// circle of radius 0.5 and flags it valid, except e % 4 == 1 (flagged
/// invalid by the generator) and e % 4 == 3 (NaN points: no bead at all).
template <class Space>
class ReasonGenerator final : public trackgen::Generator<Space> {
 public:
  explicit ReasonGenerator(int n) : n_(n) {}
  void generate(const trackgen::LaunchContext<Space>& ctx, const trackgen::DView<std::int32_t, Space>&,
                const trackgen::DView<Vec2f, Space>& out, const trackgen::DView<std::int32_t, Space>& valid) override {
    const int n = n_;
    ctx.for_each(
        "TrackGen::test::reason_loops", out.extent(0), KOKKOS_LAMBDA(const std::size_t t) {
          const int e = static_cast<int>(t / n), i = static_cast<int>(t % n);
          const float a = 2.0f * trackgen::geom::pi_f * static_cast<float>(i) / static_cast<float>(n);
          out(t) =
              e % 4 == 3 ? trackgen::nan2() : Vec2f{0.5f * trackgen::kmath::cos(a), 0.5f * trackgen::kmath::sin(a)};
          if (i == 0) valid(e) = e % 4 == 1 ? 0 : 1;
        });
  }

 private:
  int n_;
};

template <class Space>
void register_reason_generator() {
  const std::string name = "test_invalid_reasons";
  const auto names = trackgen::available_generators<Space>();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  trackgen::GeneratorSpec<Space> spec;
  spec.name = name;
  spec.make = [](const Space&, const TrackGenConfig& c) -> std::unique_ptr<trackgen::Generator<Space>> {
    return std::make_unique<ReasonGenerator<Space>>(c.num_points);
  };
  trackgen::register_generator(spec);
}

}  // namespace

TEST_CASE("invalid reasons: names and the batch summary", "[validity][reasons]") {
  CHECK(trackgen::reason_names(0).empty());
  CHECK(trackgen::reason_names(InvalidReason::thickness | InvalidReason::crossing) ==
        std::vector<std::string>{"thickness", "crossing"});
  std::int32_t all = 0;
  for (const auto& [bit, name] : trackgen::invalid_reason_names) {
    CHECK((all & bit) == 0);  // one bit each
    all |= bit;
    CHECK(trackgen::reason_names(bit) == std::vector<std::string>{name});
  }
  CHECK(trackgen::invalid_summary({0, 0}) == "0 invalid");
  const std::int32_t t = InvalidReason::thickness, x = InvalidReason::crossing;
  CHECK(trackgen::invalid_summary({t, 0, x, t, t | x, 0}) == "4 invalid: 3 thickness, 2 crossing");
}

TEMPLATE_TEST_CASE("invalid reasons: 0 exactly for valid tracks, every generator", "[validity][reasons]",
                   TRACKGEN_TEST_SPACES) {
  for (const char* g : {"bezier", "hull", "polar", "voronoi", "checkpoint"}) {
    for (const float hw : {0.1f, 0.02f}) {  // the defaults, and narrow tracks with truncated and thin ones
      TrackGenConfig c;
      c.generator = g;
      c.num_envs = 48;
      c.half_width = hw;
      INFO("generator " << g << ", half_width " << hw);
      check_consistent(batch<TestType>(c));
    }
  }
}

TEMPLATE_TEST_CASE("invalid reasons: constructed cases of each reason", "[validity][reasons]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  TrackGenConfig base;
  base.num_envs = 32;

  SECTION("thickness: a wide road without relaxation") {
    auto c = base;
    c.half_width = 0.25f;
    c.relax_enable = false;
    const auto h = batch<Space>(c);
    check_consistent(h);
    CHECK(with_bit(h, InvalidReason::thickness) > 0);
  }
  SECTION("truncated: N_max far below the track's beads") {
    auto c = base;
    c.N_max = 40;
    const auto h = batch<Space>(c);
    check_consistent(h);
    CHECK(with_bit(h, InvalidReason::truncated) > 0);
    for (std::size_t e = 0; e < h.valid.size(); ++e) {
      CHECK(((h.invalid_reason[e] & InvalidReason::truncated) != 0) == (h.truncated[e] != 0 && h.valid[e] == 0));
    }
  }
  SECTION("crossing: a narrow bezier track whose inner border crosses itself, thickness passed") {
    auto c = base;
    c.num_envs = 8;
    c.half_width = 0.015f;
    const auto h = batch<Space>(c, 270);  // env 0 (seed 270): the loop check alone fails
    check_consistent(h);
    CHECK((h.invalid_reason[0] & InvalidReason::crossing) != 0);
    CHECK((h.invalid_reason[0] & InvalidReason::thickness) == 0);
  }
  SECTION("grade: a steep random walk against a small grade limit") {
    auto c = base;
    c.z_profile = trackgen::ZProfile::random_walk;
    c.z_min = -1.0f;
    c.z_max = 1.0f;
    c.z_max_step = 0.5f;
    c.z_valid_grade = 0.05f;
    const auto h = batch<Space>(c);
    check_consistent(h);
    CHECK(with_bit(h, InvalidReason::grade) > 0);
  }
  SECTION("width: half_width not above w_floor") {
    auto c = base;
    c.w_floor = c.half_width;
    const auto h = batch<Space>(c);
    check_consistent(h);
    CHECK(with_bit(h, InvalidReason::width) == c.num_envs);
  }
  SECTION("turning: a turning tolerance no loop meets") {
    auto c = base;
    c.turning_tol = 0.0f;
    const auto h = batch<Space>(c);
    check_consistent(h);
    CHECK(with_bit(h, InvalidReason::turning) > 0);
  }
  SECTION("generator and too_few_points: a generator that rejects loops and writes empty ones") {
    register_reason_generator<Space>();
    auto c = base;
    c.generator = "test_invalid_reasons";
    c.num_envs = 8;
    const auto h = batch<Space>(c);
    check_consistent(h);
    for (int e = 0; e < c.num_envs; ++e) {
      INFO("env " << e);
      const std::int32_t m = h.invalid_reason[e];
      CHECK(((m & InvalidReason::generator) != 0) == (e % 4 == 1));
      CHECK(((m & InvalidReason::too_few_points) != 0) == (e % 4 == 3));
      if (e % 2 == 0) CHECK(m == 0);
    }
  }
}

namespace {

/// Per env of `t`, ||T| - 2 pi| in float, T the float sum in point order of the
/// wrapped heading changes of its centre line (the turning test's quantity,
/// docs/algorithms.md#validity), computed with atan2 on Space.
template <class Space>
std::vector<float> turning_offsets(const trackgen::Track<typename Space::memory_space>& t) {
  const int n_max = t.n_max();
  const auto center = t.center;
  const auto count = t.count;
  Kokkos::View<float*, typename Space::memory_space> off("TrackGen::test::turning_offsets", count.extent(0));
  Kokkos::parallel_for(
      "TrackGen::test::turning_offsets", Kokkos::RangePolicy<Space>(0, count.extent(0)), KOKKOS_LAMBDA(const int e) {
        const int n = count(e);
        if (n == 0) {  // no point, no turning test
          off(e) = trackgen::nanf();
          return;
        }
        const trackgen::Vec3f* p = center.data() + static_cast<std::size_t>(e) * n_max;
        auto heading = [&](int i) {
          const trackgen::Vec3f a = p[i], b = p[i + 1 < n ? i + 1 : 0];
          return trackgen::kmath::atan2(b.y - a.y, b.x - a.x);
        };
        float turning = 0.0f, prev = heading(n - 1);
        for (int i = 0; i < n; ++i) {
          const float th = heading(i);
          turning += trackgen::geom::wrap_angle(th - prev);
          prev = th;
        }
        off(e) = trackgen::kmath::fabs(trackgen::kmath::fabs(turning) - trackgen::geom::two_pi_f);
      });
  return trackgen::test::to_vector(off);
}

}  // namespace

TEMPLATE_TEST_CASE("invalid reasons: the turning test decides as the exact float sum, at any tolerance",
                   "[validity][reasons]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  for (const char* g : {"bezier", "polar"}) {
    TrackGenConfig c;
    c.generator = g;
    c.num_envs = 32;
    trackgen::TrackGenerator<Space> gen(c, trackgen::SeedState<Space>(c.num_envs, 0));
    const auto& track = gen.generate();
    const std::vector<float> off = turning_offsets<Space>(track);
    const tt::HostTrack first = tt::HostTrack::from(track);
    // The estimates decide at the default tolerance; a tolerance at an env's own
    // offset, or just below it, leaves them unsure, and the exact sum decides.
    float top = 0.0f;
    for (int e = 0; e < c.num_envs; ++e) {
      if (first.count[e] > 0 && std::isfinite(off[e])) top = std::max(top, off[e]);
    }
    REQUIRE(top > 0.0f);
    for (const float tol : {c.turning_tol, top, std::nextafter(top, 0.0f), 0.0f}) {
      c.turning_tol = tol;
      const tt::HostTrack h = batch<Space>(c);
      for (int e = 0; e < c.num_envs; ++e) {
        if (h.count[e] == 0) continue;  // no point, no turning test
        INFO("generator " << g << ", tolerance " << tol << ", env " << e << ": offset " << off[e]);
        CHECK(((h.invalid_reason[e] & InvalidReason::turning) != 0) == !(off[e] <= tol));
      }
    }
  }
}
