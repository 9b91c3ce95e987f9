// Internal helpers shared by the pipeline's translation units (not installed).
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/spaces.hpp>
#include <trackgen/pipeline/stages.hpp>

#include <string>
#include <type_traits>

namespace trackgen::detail {

/// [N_max] int arrays per env of the relaxation's separation-cache split on a host
/// space (relaxation::NearSplit in relax_loops.hpp).
inline constexpr int host_split_arrays = 11;

/// Lanes per block of a host vector pass of the relaxation
/// (PipelineBuffers::relax_lane_block).
inline constexpr int host_lane_block = PipelineBuffers<Kokkos::DefaultHostExecutionSpace>::relax_lane_block;

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
