// Support of the gate tests: batches on a space, host views of a GateSequence.
#pragma once

#include "field_support.hpp"
#include "support.hpp"

#include <trackgen/core/quat.hpp>
#include <trackgen/pipeline/gate_generator.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace trackgen::test {

using HostGates = GateSequence<Kokkos::HostSpace>;

/// The default gate config of the bands: `generator`, E envs, gate_width 0.1.
inline GateGenConfig gate_config(const std::string& generator, int envs, float width = 0.1f) {
  GateGenConfig c;
  c.generator = generator;
  c.num_envs = envs;
  c.gate_width = width;
  return c;
}

/// One batch of `c` on Space with seeds k + arange(E), copied to the host.
template <class Space>
HostGates gate_batch(const GateGenConfig& c, std::int32_t k = 0) {
  GateGenerator<Space> g(c, SeedState<Space>(c.num_envs, k));
  return g.generate().to_host();
}

/// Bitwise equality of two host Views.
template <class V>
bool same_bits(const V& a, const V& b) {
  return a.extent(0) == b.extent(0) &&
         std::memcmp(a.data(), b.data(), a.extent(0) * sizeof(typename V::value_type)) == 0;
}

/// Bitwise equality of every field of two host sequences.
inline bool same_bits(const HostGates& a, const HostGates& b) { return differing_fields(a, b).empty(); }

/// Whether env e of two host sequences is bitwise equal in every field.
inline bool same_env(const HostGates& a, const HostGates& b, int e) { return differing_fields(a, e, b, e, 1).empty(); }

/// One env of a hand-made gate ring: n gates on the circle of radius r at
/// height z, counter-clockwise from (r, 0, z), each facing along the circle
/// (roll-free frame), half size hs.
struct RingEnv {
  int n = 6;
  float r = 10.0f;
  float hs = 0.5f;
  float z = 1.0f;
  int valid = 1;
};

/// A GateSequence of these envs on Space (stride G, NaN padded), every field
/// by its definition.
template <class Space>
GateSequence<typename Space::memory_space> ring_gates(const std::vector<RingEnv>& envs, int G) {
  const int E = static_cast<int>(envs.size());
  HostGates h(Kokkos::DefaultHostExecutionSpace(), E, G);
  for (int e = 0; e < E; ++e) {
    const RingEnv& r = envs[static_cast<std::size_t>(e)];
    REQUIRE(r.n <= G);
    for (int i = 0; i < r.n; ++i) {
      const std::size_t s = static_cast<std::size_t>(e) * G + i;
      const double a = 2.0 * geom::pi_d * i / r.n;
      const Vec3f f{static_cast<float>(-std::sin(a)), static_cast<float>(std::cos(a)), 0.0f};
      const Vec3f left{-f.y, f.x, 0.0f};
      h.position(s) = Vec3f{static_cast<float>(r.r * std::cos(a)), static_cast<float>(r.r * std::sin(a)), r.z};
      h.tangent(s) = h.forward(s) = f;
      h.orientation(s) = geom::frame_quat(f);
      h.half_size(s) = r.hs;
      h.left(s) = h.position(s) + r.hs * left;
      h.right(s) = h.position(s) - r.hs * left;
    }
    h.count(e) = r.n;
    h.valid(e) = r.valid;
  }
  return h.clone<typename Space::memory_space>();
}

/// Smallest plan-view distance between two real gate centres of env e.
inline double min_centre_distance(const HostGates& g, int e) {
  const int G = g.max_gates(), n = g.count(e);
  double best = 1e30;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const Vec3f a = g.position(e * G + i), b = g.position(e * G + j);
      best = std::min(best, std::hypot(double(a.x) - b.x, double(a.y) - b.y));
    }
  }
  return best;
}

}  // namespace trackgen::test
