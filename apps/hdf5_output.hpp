// `trackgen generate --format hdf5`: tracks.h5 / gates.h5 through the io layer
// (docs/hdf5.md). apps/hdf5_output.cpp implements it when the build has HDF5,
// apps/hdf5_missing.cpp (the same functions, explaining how to enable it)
// when it has not.
#pragma once

#include "app.hpp"

#include <cstdint>
#include <string>

namespace trackgen::app {

/// Throws ConfigError explaining how to build with HDF5 when this build has
/// none; returns otherwise. Called before any work.
void require_hdf5();

/// Called by main before anything else: keeps HDF5's exit handler off
/// (io::disable_hdf5_exit_handler), so that a run whose HDF5 output failed
/// (a full disk) exits with its message instead of crashing. Nothing
/// without HDF5.
void prepare_hdf5();

/// What a streamed track file holds, for the summary.
struct Hdf5Summary {
  TrackCounts counts;        ///< over the whole batch
  double mean_length = 0.0;  ///< mean perimeter of the valid tracks (NaN without)
  int chunk_envs = 0;        ///< envs per chunk (balanced: chunk_size())
  int chunks = 0;            ///< chunks generated
  double seconds = 0.0;      ///< generation and writing, end to end
  std::uintmax_t bytes = 0;  ///< size of the file
};

/// Envs per chunk of `config` on `backend` when --chunk-envs is not given: as
/// many as fit in 512 MiB of producer memory, per-env bytes measured as the
/// difference of device_bytes() of producers of 2 and 1 envs; at least 1, at
/// most config.num_envs.
int default_chunk_envs(const TrackGenConfig& config, const std::string& backend);

/// Generates the batch of `config` (env e: seed k + e) on `backend` in chunks
/// of `chunk_envs` envs (0: default_chunk_envs) and streams it into the HDF5
/// file `path` (written to a temporary, renamed when complete), reporting
/// progress per chunk. Meanwhile SIGINT, SIGTERM and SIGHUP remove the
/// temporary and the folders created for it before they end the process.
Hdf5Summary write_tracks_hdf5(const TrackGenConfig& config, const std::string& backend, std::int32_t k, int chunk_envs,
                              bool eager, const std::string& path);

/// Writes a gate batch to the HDF5 file `path` (temporary, then renamed;
/// signals as write_tracks_hdf5).
void write_gates_hdf5(const GateBatch& b, const std::string& path);

}  // namespace trackgen::app
