// Arc-length lookups on closed polylines (internal device helpers).
#pragma once

#include <trackgen/core/geometry.hpp>

namespace trackgen::detail {

/// The largest j in [0, m) with table[j] <= s, for a non-decreasing cumulative
/// table table[0..m) with table[0] = 0 <= s (binary search).
KOKKOS_INLINE_FUNCTION int arc_index(const float* table, int m, float s) {
  int lo = 0, hi = m - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table[mid] <= s) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// Where arc length s falls on segment j of a closed polyline of m points:
/// the segment spans [table[j], end) with end = table[j+1], or `perimeter` for
/// the closing segment j = m-1; returns the clamped parameter in [0, 1].
KOKKOS_INLINE_FUNCTION float arc_param(const float* table, int m, float perimeter, int j, float s) {
  const float end = j + 1 < m ? table[j + 1] : perimeter;
  return kmath::clamp((s - table[j]) / kmath::max(end - table[j], 1e-12f), 0.0f, 1.0f);
}

/// The evenly spaced sample count of the samplers: n = round(perimeter /
/// spacing), at least 3, capped at `capacity` (then `truncated` is set);
/// `step` = perimeter / n. A perimeter that is not finite and positive gives
/// n = 0 and a NaN step.
struct EvenSpacing {
  int n = 0;
  float step = nanf();
  int truncated = 0;
};

KOKKOS_INLINE_FUNCTION EvenSpacing even_spacing(float perimeter, float spacing, int capacity) {
  EvenSpacing r;
  if (!(perimeter > 0.0f) || !kmath::isfinite(perimeter)) return r;
  const double nf = geom::round_half_away(static_cast<double>(perimeter / spacing));
  if (nf > static_cast<double>(capacity)) {
    r.n = capacity;
    r.truncated = 1;
  } else {
    r.n = nf < 3.0 ? 3 : static_cast<int>(nf);
  }
  r.step = perimeter / static_cast<float>(r.n);
  return r;
}

}  // namespace trackgen::detail
