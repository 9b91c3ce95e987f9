// The memory estimate of the producers (docs/design.md#memory-estimate): the
// allocations of TrackGenerator and GateGenerator, summed from the config.
#include <trackgen/core/errors.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/spaces.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/generators/gate_source.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/pipeline/detail/stages.hpp>
#include <trackgen/pipeline/gate_stages.hpp>
#include <trackgen/pipeline/memory.hpp>

#include "masked_lane.hpp"
#include "pipeline_detail.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace trackgen {
namespace {

/// The largest num_envs validate() accepts (the schema's bound).
constexpr int max_envs = 1 << 20;

/// "1.23 GiB", "456.7 MiB", "12.0 KiB" or "17 B".
std::string show_bytes(std::size_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

/// The largest TRACKGEN_MEMORY_LIMIT_MB: 2^40 MiB (an exbibyte), whose bytes fit a size_t.
constexpr long long max_limit_mb = 1LL << 40;

/// TRACKGEN_MEMORY_LIMIT_MB in MiB, 0 when unset or empty; ConfigError naming
/// the variable when it is not an integer in [1, max_limit_mb].
long long limit_mb_from_environment() {
  const char* v = std::getenv("TRACKGEN_MEMORY_LIMIT_MB");
  if (v == nullptr || *v == '\0') return 0;
  long long mb = 0;
  const char* end = v + std::strlen(v);
  const auto r = std::from_chars(v, end, mb);
  if (r.ec != std::errc() || r.ptr != end || mb < 1 || mb > max_limit_mb) {
    throw ConfigError(std::string("trackgen::memory_limit_bytes: environment variable TRACKGEN_MEMORY_LIMIT_MB='") + v +
                      "' is not a whole number of MiB in [1, " + std::to_string(max_limit_mb) +
                      "]; unset it for the default (3/4 of the physical memory)");
  }
  return mb;
}

/// Where the limit comes from, for the error message.
std::string limit_source() {
  return limit_mb_from_environment() > 0 ? "TRACKGEN_MEMORY_LIMIT_MB"
                                         : "3/4 of the physical memory; TRACKGEN_MEMORY_LIMIT_MB sets another";
}

/// The largest E in [1, max_envs] with estimate(E) <= limit (estimates grow with E), or 0.
template <class Estimate>
int largest_fitting(std::size_t limit, const Estimate& estimate) {
  if (estimate(1) > limit) return 0;
  int lo = 1, hi = max_envs;  // estimate(lo) fits
  if (estimate(hi) <= limit) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (estimate(mid) <= limit ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

std::size_t memory_limit_bytes() {
  if (const long long mb = limit_mb_from_environment(); mb > 0) return static_cast<std::size_t>(mb) << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) / 4 * 3 * static_cast<std::size_t>(page);
}

template <class Space>
std::size_t estimate_memory(const TrackGenConfig& config) {
  const GeneratorSpec<Space>& spec = get_generator<Space>(config.generator);
  const auto scratch = [&](const TrackGenConfig& c) { return spec.scratch_bytes ? spec.scratch_bytes(c) : 0; };
  const std::size_t E = static_cast<std::size_t>(config.num_envs), i32 = sizeof(std::int32_t);
  // TrackGenerator: seed_buf [E], mask_any [1], padded [E], a generator of
  // one window's envs per window thread, the buffers with the stages' scratch
  // of a window per window thread, the Track.
  TrackGenConfig window = config;
  window.num_envs = detail::pipeline_window_envs<Space>(config.num_envs);
  const int parts = detail::pipeline_parts<Space>(config.num_envs);
  std::size_t b = E * i32 + i32 + E * i32 + static_cast<std::size_t>(parts) * scratch(window) +
                  PipelineBuffers<Space>::bytes_for(config, parts * window.num_envs) +
                  Track<typename Space::memory_space>::bytes_for(config.num_envs, config.N_max);
  // The masked-regeneration lane (pipeline/src/masked_lane.cpp), when it is smaller than the batch.
  const int lanes = detail::masked_lane_envs<Space>(config.num_envs);
  if (lanes < config.num_envs) {
    TrackGenConfig lane = config;
    lane.num_envs = lanes;
    const std::size_t rounds = std::min((config.num_envs + lanes - 1) / lanes, detail::masked_lane_rounds<Space>);
    b += E * i32 + i32 + (rounds + 1) * i32 + std::size_t(lanes) * i32 + PipelineBuffers<Space>::bytes_for(lane) +
         scratch(lane) + Track<typename Space::memory_space>::bytes_for(lanes, config.N_max);
  }
  return b;
}

template <class Space>
std::size_t estimate_gate_memory(const GateGenConfig& config) {
  const GateGeneratorSpec<Space>& spec = get_gate_generator<Space>(config.generator);
  const std::size_t E = static_cast<std::size_t>(config.num_envs), G = static_cast<std::size_t>(config.max_gates);
  const std::size_t S = static_cast<std::size_t>(spec.max_gates(config));
  // GateGenerator: seed_buf, mask_any, the source, anchors / sort_keys / sorted / pair_keys [E*S],
  // staging / cum / z [E*G], frame_fallbacks [E], the GateSequence.
  return E * sizeof(std::int32_t) + sizeof(std::int32_t) + (spec.scratch_bytes ? spec.scratch_bytes(config) : 0) +
         E * S * (2 * sizeof(Vec2f) + sizeof(std::uint64_t) + sizeof(float)) +
         E * G * (sizeof(Vec2f) + 2 * sizeof(float)) + E * sizeof(std::int32_t) +
         GateSequence<typename Space::memory_space>::bytes_for(config.num_envs, config.max_gates);
}

template <class Space>
int max_envs_within(const TrackGenConfig& config, std::size_t limit) {
  return largest_fitting(limit, [&](int e) {
    TrackGenConfig c = config;
    c.num_envs = e;
    return estimate_memory<Space>(c);
  });
}

template <class Space>
int max_gate_envs_within(const GateGenConfig& config, std::size_t limit) {
  return largest_fitting(limit, [&](int e) {
    GateGenConfig c = config;
    c.num_envs = e;
    return estimate_gate_memory<Space>(c);
  });
}

template <class Space>
void check_memory(const TrackGenConfig& config, std::size_t limit, const std::string& api) {
  if (limit == 0) return;
  const std::size_t need = estimate_memory<Space>(config);
  if (need <= limit) return;
  throw ConfigError(api + ": the batch needs an estimated " + show_bytes(need) + " (num_envs = " +
                    std::to_string(config.num_envs) + ", N_max = " + std::to_string(config.N_max) +
                    ", num_points = " + std::to_string(config.num_points) + ", generator \"" + config.generator +
                    "\"), above the memory limit of " + show_bytes(limit) + " (" + limit_source() + "); at most " +
                    std::to_string(max_envs_within<Space>(config, limit)) + " envs of this config fit");
}

template <class Space>
void check_gate_memory(const GateGenConfig& config, std::size_t limit, const std::string& api) {
  if (limit == 0) return;
  const std::size_t need = estimate_gate_memory<Space>(config);
  if (need <= limit) return;
  throw ConfigError(api + ": the batch needs an estimated " + show_bytes(need) + " (num_envs = " +
                    std::to_string(config.num_envs) + ", max_gates = " + std::to_string(config.max_gates) +
                    ", generator \"" + config.generator + "\"), above the memory limit of " + show_bytes(limit) +
                    " (" + limit_source() + "); at most " + std::to_string(max_gate_envs_within<Space>(config, limit)) +
                    " envs of this config fit");
}

#define TRACKGEN_INSTANTIATE_MEMORY(S)                                                    \
  template std::size_t estimate_memory<S>(const TrackGenConfig&);                         \
  template std::size_t estimate_gate_memory<S>(const GateGenConfig&);                     \
  template int max_envs_within<S>(const TrackGenConfig&, std::size_t);                    \
  template int max_gate_envs_within<S>(const GateGenConfig&, std::size_t);                \
  template void check_memory<S>(const TrackGenConfig&, std::size_t, const std::string&); \
  template void check_gate_memory<S>(const GateGenConfig&, std::size_t, const std::string&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_MEMORY)

}  // namespace trackgen
