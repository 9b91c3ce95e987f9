// HDF5 files of track and gate batches (docs/hdf5.md): every field of a Track
// (or GateSequence) as a chunked, deflate-compressed dataset of its natural
// shape ([E, N_max, 3] points, [E, N_max] scalars, [E] per-env values), the
// per-env seeds, and attributes holding the full config as JSON, the backend,
// and the TrackGen version and git revision that wrote the file.
//
// The writers stream: a file of E envs is created once and filled by appending
// chunks of envs in order, so a batch larger than memory is written chunk by
// chunk. They write to a temporary file beside the target and rename it onto
// the target in close(), so the target is either the whole batch or untouched;
// a writer that fails or dies before close() removes its temporary and the
// folders it created.
//
// Optional layer: target TrackGen::trackgen_io, built when CMake finds the HDF5
// C library.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace trackgen::io {

namespace detail {
class BatchFileWriter;
}  // namespace detail

/// The file's attributes besides its layout: as written, read back verbatim.
struct FileAttributes {
  std::string config_json;   ///< the full config, as to_json writes it
  std::string backend;       ///< name of the execution space that generated the batch
  std::string version;       ///< TrackGen version that wrote the file
  std::string git_revision;  ///< git revision of that TrackGen
};

/// A track file read back into host memory.
struct TrackFile {
  TrackGenConfig config;            ///< parsed from attributes.config_json
  Track<Kokkos::HostSpace> track;   ///< every field, NaN padding included
  std::vector<std::int32_t> seeds;  ///< [E] per-env base seeds
  FileAttributes attributes;        ///< the attribute strings as stored
};

/// A gate file read back into host memory.
struct GateFile {
  GateGenConfig config;                   ///< parsed from attributes.config_json
  GateSequence<Kokkos::HostSpace> gates;  ///< every field, NaN padding included
  std::vector<std::int32_t> seeds;        ///< [E] per-env base seeds
  FileAttributes attributes;              ///< the attribute strings as stored
};

/// Streams a track batch of `config.num_envs` envs of stride `config.N_max`
/// into an HDF5 file, chunk by chunk.
class TrackFileWriter {
 public:
  /// Creates the datasets in a temporary file beside `path` (creating the
  /// parent folders) and writes the attributes: `config` as JSON, `backend`,
  /// this library's version and git revision. ConfigError for a config that
  /// fails validation; std::runtime_error when the file cannot be created.
  TrackFileWriter(const std::string& path, const TrackGenConfig& config, const std::string& backend);
  /// Removes the temporary file unless close() succeeded.
  ~TrackFileWriter();
  TrackFileWriter(const TrackFileWriter&) = delete;
  TrackFileWriter& operator=(const TrackFileWriter&) = delete;

  /// Writes the first `envs` envs of `chunk` (host memory; -1: all of them)
  /// with their base `seeds` as envs [envs_written(), envs_written() + envs) of
  /// the file. ConfigError, before writing anything, unless chunk.n_max()
  /// equals the config's N_max, envs is at most chunk.num_envs(), seeds.size()
  /// equals envs and they fit in the envs left; std::runtime_error when HDF5
  /// fails.
  void append(const Track<Kokkos::HostSpace>& chunk, std::span<const std::int32_t> seeds, int envs = -1);

  /// The same for a Track in another memory space (the overload above is
  /// chosen for host memory): mirrored to host first.
  template <class M>
  void append(const Track<M>& chunk, std::span<const std::int32_t> seeds, int envs = -1) {
    append(chunk.to_host(), seeds, envs);
  }

  /// Envs appended so far.
  int envs_written() const;
  /// Envs of the whole file (config.num_envs).
  int num_envs() const;

  /// Flushes and closes the file and renames it onto `path`. std::runtime_error
  /// unless every env was appended (the temporary is then removed) or when
  /// HDF5 or the rename fails.
  void close();

 private:
  std::unique_ptr<detail::BatchFileWriter> impl_;
};

/// Streams a gate batch of `config.num_envs` envs of stride `config.max_gates`
/// into an HDF5 file, chunk by chunk (as TrackFileWriter).
class GateFileWriter {
 public:
  /// Creates the datasets in a temporary file beside `path` and writes the
  /// attributes (as TrackFileWriter).
  GateFileWriter(const std::string& path, const GateGenConfig& config, const std::string& backend);
  /// Removes the temporary file unless close() succeeded.
  ~GateFileWriter();
  GateFileWriter(const GateFileWriter&) = delete;
  GateFileWriter& operator=(const GateFileWriter&) = delete;

  /// Writes the first `envs` envs of `chunk` (-1: all) with their base `seeds`
  /// as the next envs of the file (checks as TrackFileWriter::append, against
  /// max_gates).
  void append(const GateSequence<Kokkos::HostSpace>& chunk, std::span<const std::int32_t> seeds, int envs = -1);

  /// The same for a GateSequence in another memory space: mirrored to host first.
  template <class M>
  void append(const GateSequence<M>& chunk, std::span<const std::int32_t> seeds, int envs = -1) {
    append(chunk.to_host(), seeds, envs);
  }

  /// Envs appended so far.
  int envs_written() const;
  /// Envs of the whole file (config.num_envs).
  int num_envs() const;

  /// Flushes, closes and renames onto `path` (as TrackFileWriter::close).
  void close();

 private:
  std::unique_ptr<detail::BatchFileWriter> impl_;
};

/// Writes a whole track batch to `path` in one call (TrackFileWriter with a
/// single append); `config.num_envs` must equal track.num_envs().
template <class M>
void write_tracks(const std::string& path, const Track<M>& track, std::span<const std::int32_t> seeds,
                  const TrackGenConfig& config, const std::string& backend) {
  TrackFileWriter w(path, config, backend);
  w.append(track, seeds);
  w.close();
}

/// Writes a whole gate batch to `path` in one call; `config.num_envs` must
/// equal gates.num_envs().
template <class M>
void write_gates(const std::string& path, const GateSequence<M>& gates, std::span<const std::int32_t> seeds,
                 const GateGenConfig& config, const std::string& backend) {
  GateFileWriter w(path, config, backend);
  w.append(gates, seeds);
  w.close();
}

/// For a program that owns its process (trackgen's main), called before any
/// other HDF5 call: keeps the HDF5 library from registering its exit handler
/// (H5dont_atexit()). HDF5 1.10's handler crashes on a file that a failed
/// write (a full disk, a file size limit) left unclosable; every file these
/// writers finish is closed by close(). False when HDF5 was already in use.
bool disable_hdf5_exit_handler() noexcept;

/// Removes the temporary file of every writer of this process that is open
/// and not yet renamed, and the folders those writers created (where empty),
/// for a signal handler that then ends the process (SIGINT, SIGTERM, SIGHUP:
/// trackgen's, apps/hdf5_output.cpp). Async-signal-safe: unlink() and rmdir()
/// of absolute names stored when each writer opened (up to 16 open writers;
/// a writer left out still cleans up after itself when it dies).
void remove_temporaries_on_signal() noexcept;

/// Reads a track file written by TrackFileWriter into host memory.
/// std::runtime_error naming the file and the dataset or attribute when it
/// cannot be read, is not a track file, or a dataset has the wrong shape.
TrackFile read_tracks(const std::string& path);

/// Reads a gate file written by GateFileWriter into host memory (errors as
/// read_tracks).
GateFile read_gates(const std::string& path);

}  // namespace trackgen::io
