// Track container: NaN padding after construction, zeroed per-env fields,
// clone() independence and the host mirror, on every backend.
#include "field_support.hpp"
#include "support.hpp"

#include <trackgen/core/track.hpp>

#include <cmath>
#include <string>
#include <vector>

using trackgen::Vec3f;
using trackgen::test::bitwise_equal;
using trackgen::test::to_vector;

namespace {

constexpr int num_envs = 3;
constexpr int n_max = 7;

/// Whether every component of every point is NaN.
bool all_nan(const std::vector<Vec3f>& v) {
  for (const auto& p : v) {
    if (!std::isnan(p.x) || !std::isnan(p.y) || !std::isnan(p.z)) return false;
  }
  return true;
}

/// Writes a recognisable pattern into every field of `t`, in kernels.
template <class Space, class Track>
void fill_pattern(const Track& t, float base) {
  const auto outer = t.outer, center = t.center, inner = t.inner, tangent = t.tangent, normal = t.normal;
  const auto arclen = t.arclen, length = t.length, winding = t.winding;
  const auto valid = t.valid, count = t.count, truncated = t.truncated, sep_overflow = t.sep_overflow;
  Kokkos::parallel_for("TrackGen::test::fill_points", Kokkos::RangePolicy<Space>(Space(), 0, outer.extent(0)),
                       KOKKOS_LAMBDA(const int i) {
                         const float f = base + static_cast<float>(i);
                         outer(i) = Vec3f{f, f + 0.5f, 1.0f};
                         center(i) = Vec3f{f, f, 0.0f};
                         inner(i) = Vec3f{f, f - 0.5f, -1.0f};
                         tangent(i) = Vec3f{1.0f, 0.0f, 0.0f};
                         normal(i) = Vec3f{0.0f, 1.0f, 0.0f};
                         arclen(i) = f;
                       });
  Kokkos::parallel_for("TrackGen::test::fill_envs", Kokkos::RangePolicy<Space>(Space(), 0, length.extent(0)),
                       KOKKOS_LAMBDA(const int e) {
                         length(e) = base + static_cast<float>(e);
                         valid(e) = 1;
                         count(e) = e + 1;
                         winding(e) = -1.0f;
                         truncated(e) = e % 2;
                         sep_overflow(e) = 10 * e;
                       });
  Space().fence();
}

/// Every field of `a` and `b` holds the same bits.
template <class A, class B>
bool same_contents(const A& a, const B& b) {
  return a.num_envs() == b.num_envs() && a.n_max() == b.n_max() &&
         trackgen::test::differing_fields(a.to_host(), b.to_host()).empty();
}

}  // namespace

TEMPLATE_TEST_CASE("Track construction: NaN points, zero per-env fields, labelled views", "[track]",
                   TRACKGEN_TEST_SPACES) {
  const trackgen::Track<typename TestType::memory_space> t(num_envs, n_max);
  CHECK(t.num_envs() == num_envs);
  CHECK(t.n_max() == n_max);
  for (const auto* v : {&t.outer, &t.center, &t.inner, &t.tangent, &t.normal}) {
    CHECK(v->extent(0) == std::size_t(num_envs * n_max));
    CHECK(all_nan(to_vector(*v)));
    CHECK(v->label().rfind("TrackGen::track::", 0) == 0);
  }
  const auto arclen = to_vector(t.arclen);
  CHECK(arclen.size() == std::size_t(num_envs * n_max));
  for (const float a : arclen) CHECK(std::isnan(a));
  CHECK(to_vector(t.length) == std::vector<float>(num_envs, 0.0f));
  CHECK(to_vector(t.winding) == std::vector<float>(num_envs, 0.0f));
  for (const auto* v : {&t.valid, &t.count, &t.truncated, &t.sep_overflow, &t.invalid_reason}) {
    CHECK(to_vector(*v) == std::vector<int>(num_envs, 0));
    CHECK(v->label().rfind("TrackGen::track::", 0) == 0);
  }
  // The size, computed without allocating.
  CHECK(trackgen::Track<typename TestType::memory_space>::bytes_for(num_envs, n_max) == t.bytes());
}

TEMPLATE_TEST_CASE("Track::clone is a deep, independent copy", "[track]", TRACKGEN_TEST_SPACES) {
  using Track = trackgen::Track<typename TestType::memory_space>;
  const Track t(num_envs, n_max);
  fill_pattern<TestType>(t, 1.0f);
  const Track c = t.clone();
  CHECK(same_contents(c, t));
  CHECK(c.center.data() != t.center.data());
  CHECK(c.count.data() != t.count.data());
  CHECK(c.center.label() == t.center.label());

  // Changing the original leaves the clone as it was.
  const auto before = to_vector(c.center);
  fill_pattern<TestType>(t, 100.0f);
  CHECK_FALSE(same_contents(c, t));
  CHECK(bitwise_equal(to_vector(c.center), before));
  CHECK(to_vector(c.length) == std::vector<float>{1.0f, 2.0f, 3.0f});

  // A clone of a fresh Track keeps the NaN padding.
  CHECK(all_nan(to_vector(Track(2, 3).clone().outer)));
}

TEMPLATE_TEST_CASE("Track::to_host copies every field in one call", "[track]", TRACKGEN_TEST_SPACES) {
  const trackgen::Track<typename TestType::memory_space> t(num_envs, n_max);
  fill_pattern<TestType>(t, 3.0f);
  const trackgen::Track<Kokkos::HostSpace> h = t.to_host();
  CHECK(same_contents(h, t));
  CHECK(h.center(n_max + 2).x == 3.0f + n_max + 2);
  CHECK(h.count(2) == 3);
}
