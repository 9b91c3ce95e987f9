// The per-env box of a baked grid (internal; see grid.hpp).
#pragma once

#include <trackgen/core/track.hpp>
#include <trackgen/runtime/grid.hpp>

namespace trackgen::detail {

/// One thread per env: lo/hi of the env's grid from the real points of the
/// outer border (padding < 0: automatic), for envs with mask[e] != 0 (all
/// without a mask).
template <class Space>
struct GridBounds {
  Track<typename Space::memory_space> track;
  DView<Vec2f, Space> lo, hi;
  DView<std::int32_t, Space> mask;
  float padding = -1.0f;

  KOKKOS_FUNCTION void operator()(const int e) const {
    if (mask.data() != nullptr && mask(e) == 0) return;
    const int n_max = track.n_max();
    const int m = kmath::clamp(track.count(e), 0, n_max);
    if (m < 3) {
      lo(e) = Vec2f{-1.0f, -1.0f};
      hi(e) = Vec2f{1.0f, 1.0f};
      return;
    }
    const std::size_t base = static_cast<std::size_t>(e) * n_max;
    Vec2f a{track.outer(base).x, track.outer(base).y}, b = a;
    for (int i = 1; i < m; ++i) {
      const Vec3f p = track.outer(base + i);
      a = Vec2f{kmath::min(a.x, p.x), kmath::min(a.y, p.y)};
      b = Vec2f{kmath::max(b.x, p.x), kmath::max(b.y, p.y)};
    }
    const float pad = padding >= 0.0f ? padding : kmath::max(0.1f * kmath::max(b.x - a.x, b.y - a.y), 1e-6f);
    lo(e) = Vec2f{a.x - pad, a.y - pad};
    hi(e) = Vec2f{b.x + pad, b.y + pad};
  }
};

/// The world position of the centre of texel `t` (row-major index) of a grid.
KOKKOS_INLINE_FUNCTION Vec2f texel_center(int t, int res, Vec2f lo, Vec2f hi) {
  const float r = static_cast<float>(res);
  const float fx = (static_cast<float>(t % res) + 0.5f) / r, fy = (static_cast<float>(t / res) + 0.5f) / r;
  return {lo.x + fx * (hi.x - lo.x), lo.y + fy * (hi.y - lo.y)};
}

}  // namespace trackgen::detail
