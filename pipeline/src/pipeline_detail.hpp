// Internal helpers shared by the pipeline's translation units (not installed).
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/pipeline/stages.hpp>

#include <string>
#include <type_traits>

namespace trackgen::detail {

/// Team size of the per-env team kernels: 1 on host spaces (a team is one
/// thread, its barriers are free, and the league of envs is spread over the
/// threads); 128 on devices, a thread block per env whose threads take one bead
/// each (a default track has ~60-140 beads: one or two passes; 128 threads
/// never exceed a block's register budget).
template <class Space>
constexpr int env_team_size() {
  return std::is_same_v<typename Space::memory_space, Kokkos::HostSpace> ? 1 : 128;
}

template <class Space>
using TeamMember = typename Kokkos::TeamPolicy<Space>::member_type;

/// Throws ConfigError (naming `api`) unless `config` matches the buffers and the
/// Track has their shape.
template <class Space>
void check_inputs(const PipelineBuffers<Space>& buffers, const TrackGenConfig& config,
                  const Track<typename Space::memory_space>& track, const char* api) {
  buffers.check(config, api);
  if (track.num_envs() != buffers.num_envs() || track.n_max() != buffers.n_max()) {
    throw ConfigError(std::string(api) + ": the Track has " + std::to_string(track.num_envs()) + " envs of stride " +
                      std::to_string(track.n_max()) + ", the PipelineBuffers " + std::to_string(buffers.num_envs()) +
                      " of stride " + std::to_string(buffers.n_max()));
  }
}

}  // namespace trackgen::detail
