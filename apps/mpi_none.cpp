// The tool's processes in a build without MPI (app.hpp: ProcessGroup): always
// one process; `bench --ranks` says how to get MPI.
#include "app.hpp"
#include "bench/bench.hpp"

namespace trackgen::app {

ProcessGroup::ProcessGroup(int&, char**&) {}
ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::initialize_kokkos(int threads) const { compat::initialize(threads); }
bool ProcessGroup::on_error(const std::exception&) const { return true; }
void ProcessGroup::barrier() const {}
int process_rank() { return 0; }
int process_count() { return 1; }

namespace bench {
void run_rank_bench(const BenchOptions&) {
  throw ConfigError(
      "trackgen bench --ranks: this build has no MPI; install an MPI library (e.g. Open MPI) and configure with "
      "-DTRACKGEN_ENABLE_MPI=ON");
}
}  // namespace bench

}  // namespace trackgen::app
