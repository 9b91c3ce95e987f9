// The capacity rule of the samplers (see detail/common.hpp).
#include <trackgen/runtime/detail/common.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trackgen::detail {

int sampler_capacity(const std::string& api, int n_max, double point_spacing, double spacing) {
  const double slots = std::ceil(1.25 * n_max * point_spacing / spacing);
  if (!(slots < static_cast<double>(std::numeric_limits<int>::max()))) {
    throw ConfigError(api + ": the automatic capacity (1.25 * N_max * point spacing / spacing = " +
                      std::to_string(slots) + ") is out of range; pass the capacity explicitly");
  }
  return slots < 3.0 ? 3 : static_cast<int>(slots);
}

double largest_point_spacing(const std::string& api, const float* perimeter, const int* count, const int* valid,
                             int num_envs) {
  double best = -1.0;
  for (int e = 0; e < num_envs; ++e) {
    if (valid[e] == 0 || count[e] < 3 || !std::isfinite(perimeter[e])) continue;
    best = std::max(best, static_cast<double>(perimeter[e]) / count[e]);
  }
  if (best <= 0.0) {
    throw ConfigError(api + ": no valid env in the track to derive the automatic capacity from; pass it explicitly");
  }
  return best;
}

}  // namespace trackgen::detail
