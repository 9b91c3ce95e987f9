// Internal helpers shared by the pipeline's translation units (not installed).
#pragma once

#include <trackgen/core/compat.hpp>
#include <trackgen/core/detail/host_clones.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/geometry.hpp>
#include <trackgen/core/spaces.hpp>
#include <trackgen/pipeline/chunked.hpp>
#include <trackgen/pipeline/detail/stages.hpp>

#include <algorithm>
#include <string>
#include <type_traits>

namespace trackgen::detail {

// Whether the relaxation's host loop shapes (relax_host_loops.hpp: GCC or Clang
// vector extensions) are compiled; a host space runs the per-bead shapes of
// relax_loops.hpp otherwise (under nvcc), with the same results.
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define TRACKGEN_HOST_LANES 1
#else
#define TRACKGEN_HOST_LANES 0
#endif

/// Arrays of PipelineBuffers::relax_bead_stride() int32 words per scratch unit
/// of the relaxation's list scratch on a host space, before its far pairs
/// (relaxation::HostLists in relax_host_loops.hpp).
inline constexpr int host_split_arrays = 47;

/// Arrays of a host scratch unit's far pairs and entries (relaxation::HostLists),
/// of host_pair_capacity words each.
inline constexpr int host_pair_arrays = 9;

/// Entries of each far pair array of a host scratch unit for `n_max` beads and
/// `slots` cache slots: a pair for every far entry the lists can hold, and a
/// block of padding.
inline std::size_t host_pair_capacity(int n_max, int slots) {
  return static_cast<std::size_t>(n_max) * static_cast<std::size_t>(slots) + 16u;
}

/// The int32 words of a host scratch unit's list scratch for `n_max` beads and
/// `slots` cache slots.
inline std::size_t host_split_words(int n_max, int slots) {
  return static_cast<std::size_t>(host_split_arrays) *
             static_cast<std::size_t>(
                 PipelineBuffers<Kokkos::DefaultHostExecutionSpace>::relax_bead_stride_for(n_max)) +
         static_cast<std::size_t>(host_pair_arrays) * host_pair_capacity(n_max, slots);
}

/// Lanes per block of a host vector pass of the relaxation
/// (PipelineBuffers::relax_lane_block).
inline constexpr int host_lane_block = PipelineBuffers<Kokkos::DefaultHostExecutionSpace>::relax_lane_block;

template <class Space>
using TeamMember = typename Kokkos::TeamPolicy<Space>::member_type;

/// Whether `Space` runs the relaxation's host loop shapes, whose scratch is
/// per thread.
template <class Space>
constexpr bool relax_host_lanes() {
  return is_host_space<Space>() && TRACKGEN_HOST_LANES;
}

/// Units of the relaxation's scratch (PipelineBuffers::relax_units): one per
/// thread where the solve runs the host loop shapes (an env's scratch lives
/// only while a thread solves it), one per env elsewhere.
template <class Space>
int relax_scratch_units(int num_envs) {
  if constexpr (relax_host_lanes<Space>()) {
    return Kokkos::Experimental::UniqueToken<Space>().size();
  } else {
    return num_envs;
  }
}

/// Envs per window of a TrackGenerator batch whose host threads each run their
/// own windows (pipeline_parts).
inline constexpr int part_window_envs = 32;

/// Threads of `Space` that each run whole windows of a TrackGenerator batch of
/// `num_envs` envs at once (docs/design.md#window-threads): every thread of a
/// Kokkos::OpenMP pool where this Kokkos lets each thread launch its own
/// kernels (compat::has_thread_partitions), when the batch gives each at least
/// two windows of part_window_envs; 1 elsewhere (the windows then run one after
/// another, each on all threads).
template <class Space>
int pipeline_parts(int num_envs) {
  if constexpr (compat::has_thread_partitions<Space>() && relax_host_lanes<Space>()) {
    const int threads = relax_scratch_units<Space>(num_envs);
    if (threads > 1 && num_envs / threads >= 2 * part_window_envs) return threads;
  }
  (void)num_envs;
  return 1;
}

/// Envs per window of a TrackGenerator batch on `Space`. Where the solve's
/// scratch is per thread (relax_host_lanes), the generator and the stages run
/// the batch a window at a time, so that what one stage writes for an env is
/// still in its core's cache when the next one reads it (docs/design.md#windows):
/// part_window_envs where each thread runs its own windows (pipeline_parts),
/// else 32 envs per thread, at least 64; balanced as chunk_size balances
/// chunks; the last window ends at the batch's last env, recomputing the few
/// envs it shares with the one before. Elsewhere the whole batch is one window.
template <class Space>
int pipeline_window_envs(int num_envs) {
  if constexpr (relax_host_lanes<Space>()) {
    if (pipeline_parts<Space>(num_envs) > 1) return chunk_size(num_envs, part_window_envs);
    return chunk_size(num_envs, std::max(64, 32 * relax_scratch_units<Space>(num_envs)));
  } else {
    return num_envs;
  }
}

/// Calls `body(p, n, space)` for p in [0, n): on the `n` = partitions.size()
/// one-thread partitions at once (compat::ThreadPartitions, `space` the
/// partition's instance), or, for an empty `partitions`, from inside an OpenMP
/// parallel region, or while a Kokkos profiling tool is loaded (its callbacks
/// then see one sequence of kernels), body(0, 1, whole) on this thread with the
/// whole pool's instance `whole`. `body` must not throw.
template <class Space, class Body>
void run_parts(compat::ThreadPartitions<Space>& partitions, const Space& whole, const Body& body) {
  if constexpr (compat::has_thread_partitions<Space>()) {
    if (partitions.runnable() && !Kokkos::Profiling::profileLibraryLoaded()) {
      partitions.run([&](int p, const Space& space) { body(p, partitions.size(), space); });
      return;
    }
  }
  body(0, 1, whole);
}

/// Throws ConfigError (naming `api`) unless `config` matches the buffers and the
/// Track has their shape.
template <class Space>
void check_inputs(const Space& space, const PipelineBuffers<Space>& buffers, const TrackGenConfig& config,
                  const Track<typename Space::memory_space>& track, const char* api) {
  buffers.check(config, api);
  if constexpr (relax_host_lanes<Space>()) {
    const int threads = Kokkos::Experimental::UniqueToken<Space>(space).size();
    if (buffers.relax_units() < threads) {
      throw ConfigError(std::string(api) + ": the PipelineBuffers hold the relaxation's scratch for " +
                        std::to_string(buffers.relax_units()) + " threads, the execution space runs " +
                        std::to_string(threads) + " (a part() runs only on as many threads as its units)");
    }
  }
  if (track.num_envs() != buffers.num_envs() || track.n_max() != buffers.n_max()) {
    throw ConfigError(std::string(api) + ": the Track has " + std::to_string(track.num_envs()) + " envs of stride " +
                      std::to_string(track.n_max()) + ", the PipelineBuffers " + std::to_string(buffers.num_envs()) +
                      " of stride " + std::to_string(buffers.n_max()));
  }
}

}  // namespace trackgen::detail
