// The capacity rule of the samplers and the memory check of the grids (see
// detail/common.hpp).
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/runtime/detail/common.hpp>

#include <cstdio>

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

std::size_t runtime_memory_limit() { return memory_limit_bytes(); }

namespace {

std::string mib(std::size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

void refuse_memory(const std::string& api, const std::string& what, int num_envs, std::size_t need, std::size_t limit,
                   int fit) {
  throw ConfigError(api + ": the " + what + " of num_envs = " + std::to_string(num_envs) + " envs needs an estimated " +
                    mib(need) + ", above the memory limit of " + mib(limit) +
                    " (TRACKGEN_MEMORY_LIMIT_MB, or 3/4 of the physical memory); at most " + std::to_string(fit) +
                    " envs fit");
}

}  // namespace trackgen::detail
