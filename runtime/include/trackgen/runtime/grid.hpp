// Per-env square grids baked from a Track: the signed distance field of the
// collision checker and the height field. Both cover the axis-aligned box of the
// env's outer border (its real points), padded by `padding` (or, when unset, by
// 10% of the box's larger side), with R x R texels stored row-major ([y][x]);
// texel (x, y) is centred at lo + ((x, y) + 0.5) / R * (hi - lo). An env with
// fewer than 3 points gets the box [-1, 1]^2.
#pragma once

#include <trackgen/core/vec.hpp>

#include <optional>
#include <string>

namespace trackgen {

/// Resolution and padding of a baked grid.
struct GridOptions {
  int resolution = 128;           ///< R texels per side, >= 8
  std::optional<float> padding;   ///< > 0; unset: 10% of the larger side of the box

  /// Throws ConfigError naming `api` and the field for a resolution below 8 or
  /// a padding that is not finite and positive.
  void validate(const std::string& api) const;
};

/// Continuous grid coordinate of world point `p` in a grid spanning [lo, hi]
/// with `res` texels per side, clamped to the texel centres [0, res - 1]
/// (outside the grid the edge texels continue; a NaN coordinate gives 0, so
/// that grid_sample never reads outside the grid).
KOKKOS_INLINE_FUNCTION Vec2f grid_coord(Vec2f p, Vec2f lo, Vec2f hi, int res) {
  const float r = static_cast<float>(res);
  const float gx = (p.x - lo.x) / (hi.x - lo.x) * r - 0.5f;
  const float gy = (p.y - lo.y) / (hi.y - lo.y) * r - 0.5f;
  const auto clamp = [r](float g) { return !(g >= 0.0f) ? 0.0f : (r - 1.0f < g ? r - 1.0f : g); };
  return {clamp(gx), clamp(gy)};
}

/// Bilinear sample of the grid `v` (res x res, row-major, res >= 2) at grid
/// coordinate g (as grid_coord returns).
KOKKOS_INLINE_FUNCTION float grid_sample(const float* v, int res, Vec2f g) {
  const int x0 = kmath::min(static_cast<int>(g.x), res - 2);
  const int y0 = kmath::min(static_cast<int>(g.y), res - 2);
  const float fx = g.x - static_cast<float>(x0), fy = g.y - static_cast<float>(y0);
  const float a = v[y0 * res + x0], b = v[y0 * res + x0 + 1];
  const float c = v[(y0 + 1) * res + x0], d = v[(y0 + 1) * res + x0 + 1];
  return (1.0f - fy) * ((1.0f - fx) * a + fx * b) + fy * ((1.0f - fx) * c + fx * d);
}

}  // namespace trackgen
