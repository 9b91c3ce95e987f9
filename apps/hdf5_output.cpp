// `trackgen generate --format hdf5` (see hdf5_output.hpp): chunked generation
// streamed into the io layer's writers, with progress per chunk.
#include "hdf5_output.hpp"

#include "progress.hpp"

#include <trackgen/io/hdf5.hpp>
#include <trackgen/pipeline/chunked.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <vector>

namespace trackgen::app {
namespace {

/// A signal that ends the process while a writer is open: its temporary and
/// the folders it created go first (io::remove_temporaries_on_signal), then
/// the signal's default action ends the process as it would have.
extern "C" void remove_then_end(int sig) {
  io::remove_temporaries_on_signal();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

/// While alive, SIGINT, SIGTERM and SIGHUP run remove_then_end, except the
/// ones the process ignores (as under nohup, or SIGINT for a background job
/// of a shell), which stay ignored; the dispositions are restored after.
class CleanupOnSignals {
 public:
  CleanupOnSignals() {
    for (std::size_t i = 0; i < std::size(signals_); ++i) {
      struct sigaction now {};
      sigaction(signals_[i], nullptr, &now);
      saved_[i] = now;
      if (now.sa_handler == SIG_IGN) continue;
      struct sigaction act {};
      act.sa_handler = remove_then_end;
      sigemptyset(&act.sa_mask);
      sigaction(signals_[i], &act, nullptr);
    }
  }
  ~CleanupOnSignals() {
    for (std::size_t i = 0; i < std::size(signals_); ++i) sigaction(signals_[i], &saved_[i], nullptr);
  }
  CleanupOnSignals(const CleanupOnSignals&) = delete;
  CleanupOnSignals& operator=(const CleanupOnSignals&) = delete;

 private:
  static constexpr int signals_[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction saved_[3]{};
};

}  // namespace

void require_hdf5() {}

void prepare_hdf5() { io::disable_hdf5_exit_handler(); }

int default_chunk_envs(const TrackGenConfig& config, const std::string& backend) {
  constexpr double budget_bytes = 512.0 * 1024 * 1024;
  double per_env = 0.0;
  with_backend(backend, [&]<class Space>() {
    const auto bytes = [&](int E) {
      TrackGenConfig c = config;
      c.num_envs = E;
      const Space space;
      return double(TrackGenerator<Space>(space, c, SeedState<Space>(space, E, 0)).device_bytes());
    };
    per_env = std::max(1.0, bytes(2) - bytes(1));
  });
  return static_cast<int>(std::clamp(std::floor(budget_bytes / per_env), 1.0, double(config.num_envs)));
}

Hdf5Summary write_tracks_hdf5(const TrackGenConfig& config, const std::string& backend, std::int32_t k, int chunk_envs,
                              bool eager, const std::string& path) {
  Hdf5Summary s;
  const auto t0 = std::chrono::steady_clock::now();
  const CleanupOnSignals on_signals;
  with_backend(backend, [&]<class Space>() {
    // A chunk's producer, its host copy and HDF5's caches, before anything is
    // allocated: a --chunk-envs above the memory limit is refused, the
    // default shrinks to fit.
    const auto need = [&](int e) {
      TrackGenConfig c = config;
      c.num_envs = e;
      return estimate_memory<Space>(c) + hdf5_writer_bytes(e, c.N_max);
    };
    int chunk = std::min(chunk_envs, config.num_envs);
    if (chunk_envs > 0) {
      check_run_memory("trackgen generate --format hdf5", chunk, "--chunk-envs", need);
    } else {
      chunk = std::min(default_chunk_envs(config, backend), std::max(largest_run_envs(config.num_envs, need), 1));
      check_run_memory("trackgen generate --format hdf5", chunk, "--chunk-envs", need);
    }
    io::TrackFileWriter file(path, config, Space::name());  // before any work: the folder is writable
    s.chunk_envs = chunk_size(config.num_envs, chunk);
    Progress progress("generate", config.num_envs, "envs");
    double length_sum = 0.0;
    std::vector<std::int32_t> seeds;
    generate_chunked(
        Space(), config, k, s.chunk_envs,
        [&](int first, int n, const TrackGenerator<Space>& gen) {
          const auto host = gen.track().to_host();
          seeds.resize(static_cast<std::size_t>(n));
          for (int i = 0; i < n; ++i) seeds[std::size_t(i)] = expand_seed(k, first + i, SeedExpansion::arange);
          file.append(host, seeds, n);
          for (int e = 0; e < n; ++e) {
            if (host.valid(e) == 0) continue;
            ++s.counts.num_valid;
            length_sum += host.length(e);
          }
          for (int e = 0; e < n; ++e) s.counts.num_truncated += host.truncated(e) != 0 ? 1 : 0;
          s.counts.num_envs += n;
          ++s.chunks;
          progress.advance(n);
        },
        eager ? Policy::eager : Policy::automatic);
    file.close();
    progress.finish();
    s.mean_length = s.counts.num_valid > 0 ? length_sum / s.counts.num_valid : NAN;
  });
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.bytes = std::filesystem::file_size(path);
  return s;
}

void write_gates_hdf5(const GateBatch& b, const std::string& path) {
  const CleanupOnSignals on_signals;
  io::write_gates(path, b.gates, b.seeds, b.config, b.backend);
}

}  // namespace trackgen::app
