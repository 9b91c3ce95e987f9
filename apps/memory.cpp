// The memory a command holds besides its producer (app.hpp: the run memory
// checks), checked against the library's limit before anything is allocated.
#include "app.hpp"

#include <cstdio>

namespace trackgen::app {
namespace {

/// Host bytes per point of the JSON and SVG writers of `generate`
/// (batch_json, batch_svg) at their peak: tracks.json as a JSON document
/// (three [x, y, z] arrays a point, each number a 16-byte value, each array a
/// heap block), its text and tracks.svg's. Measured with /usr/bin/time on
/// batches whose every track fills N_max (a short spacing): 331 KB more peak
/// memory per env at N_max = 384, of which the producer and the Track's host
/// copy are about 55 KB, so about 720 bytes a point; rounded up. A batch of
/// shorter tracks needs less (the writers hold real points only).
constexpr std::size_t json_bytes_per_point = 768;

/// The process itself: code, libraries, Kokkos' and OpenMP's own buffers
/// (`trackgen config` peaks at 16 MB), with room to spare.
constexpr std::size_t process_bytes = std::size_t(32) << 20;

/// HDF5's chunk cache of each dataset (io/src/hdf5.cpp: 4 MiB) plus a chunk
/// of about 1 MiB being compressed, for each of the 14 datasets of a track file.
constexpr std::size_t hdf5_fixed_bytes = 14 * (std::size_t(5) << 20);

/// "1.23 GiB" or "456.7 MiB".
std::string show(std::size_t b) {
  char buf[32];
  const double mib = static_cast<double>(b) / (1024.0 * 1024.0);
  if (mib >= 1024.0) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", mib / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
  }
  return buf;
}

}  // namespace

std::size_t json_writer_bytes(int envs, int n_max) {
  return Track<Kokkos::HostSpace>::bytes_for(envs, n_max) +
         std::size_t(envs) * std::size_t(n_max) * json_bytes_per_point;
}

std::size_t hdf5_writer_bytes(int chunk_envs, int n_max) {
  return Track<Kokkos::HostSpace>::bytes_for(chunk_envs, n_max) + std::size_t(chunk_envs) * sizeof(std::int32_t) +
         hdf5_fixed_bytes;
}

int largest_envs_within(int envs, std::size_t limit, const std::function<std::size_t(int)>& need) {
  if (need(1) > limit) return 0;
  int lo = 1, hi = envs;  // need(lo) fits
  if (need(hi) <= limit) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (need(mid) <= limit ? lo : hi) = mid;
  }
  return lo;
}

int largest_run_envs(int envs, const std::function<std::size_t(int)>& need) {
  const std::size_t limit = memory_limit_bytes();
  if (limit == 0) return envs;
  return largest_envs_within(envs, limit, [&](int e) { return need(e) + process_bytes; });
}

void check_run_memory(const std::string& what, int envs, const std::string& envs_name,
                      const std::function<std::size_t(int)>& need) {
  const std::size_t limit = memory_limit_bytes();
  if (limit == 0) return;
  const auto with_process = [&](int e) { return need(e) + process_bytes; };
  const std::size_t bytes = with_process(envs);
  if (bytes <= limit) return;
  const int fit = largest_envs_within(envs, limit, with_process);
  throw ConfigError(what + " needs an estimated " + show(bytes) + " with " + envs_name + " = " + std::to_string(envs) +
                    ", above the memory limit of " + show(limit) +
                    " (TRACKGEN_MEMORY_LIMIT_MB, or 3/4 of the physical memory); " +
                    (fit > 0 ? "at most " + std::to_string(fit) + " fit" : "not even 1 fits"));
}

}  // namespace trackgen::app
