// `--format hdf5` in a build without HDF5: the same functions as
// hdf5_output.cpp, each explaining how to enable the format.
#include "hdf5_output.hpp"

namespace trackgen::app {

void require_hdf5() {
  throw ConfigError(
      "trackgen generate: --format hdf5 is not available: this trackgen was built without the HDF5 C library. "
      "Install it (Debian: apt-get install libhdf5-dev), then configure and build again (CMake finds it and "
      "builds the io/ layer; TRACKGEN_ENABLE_HDF5=ON, the default)");
}

void prepare_hdf5() {}

int default_chunk_envs(const TrackGenConfig&, const std::string&) {
  require_hdf5();
  return 0;
}

Hdf5Summary write_tracks_hdf5(const TrackGenConfig&, const std::string&, std::int32_t, int, bool, const std::string&) {
  require_hdf5();
  return {};
}

void write_gates_hdf5(const GateBatch&, const std::string&) { require_hdf5(); }

}  // namespace trackgen::app
