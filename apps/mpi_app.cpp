// The tool's processes in a build with MPI (app.hpp: ProcessGroup): MPI is
// initialized only when an MPI launcher started this process, so a plain
// `trackgen ...` runs exactly as in a build without MPI.
#include "app.hpp"

#include <trackgen/mpi/mpi.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace trackgen::app {
namespace {

bool mpi_on = false;
int world_rank = 0;
int world_size = 1;

/// Whether an MPI launcher started this process: TRACKGEN_MPI=1/0 decides when
/// set; otherwise the variables that Open MPI, MPICH/Hydra, MVAPICH, Intel MPI
/// and Slurm's PMI/PMIx plugins set for the processes they start.
bool launched_by_mpi() {
  if (const char* force = std::getenv("TRACKGEN_MPI")) return std::strcmp(force, "0") != 0;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

}  // namespace

ProcessGroup::ProcessGroup(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  MPI_Init(&argc, &argv);
  mpi_on = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  // Processes this one starts (the bench's workers) inherit the launcher's
  // variables but are not ranks of the job: they stay single processes.
  setenv("TRACKGEN_MPI", "0", 1);
}

ProcessGroup::~ProcessGroup() {
  if (mpi_on) MPI_Finalize();
}

void ProcessGroup::initialize_kokkos(int threads) const {
  if (mpi_on) {
    mpi::initialize_kokkos(MPI_COMM_WORLD, threads);
  } else {
    compat::initialize(threads);
  }
}

bool ProcessGroup::on_error(const std::exception& e) const {
  if (!mpi_on || world_size == 1) return true;
  if (dynamic_cast<const mpi::CollectiveError*>(&e) != nullptr) return world_rank == 0;
  std::cerr << "trackgen: " << e.what() << "\ntrackgen: rank " << world_rank << " of " << world_size
            << " failed alone; aborting the job\n";
  MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
  return false;
}

void ProcessGroup::barrier() const {
  if (mpi_on) MPI_Barrier(MPI_COMM_WORLD);
}

int process_rank() { return world_rank; }
int process_count() { return world_size; }

}  // namespace trackgen::app
