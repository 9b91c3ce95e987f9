// Catch2 main of the MPI tests (run by ctest under mpiexec): MPI first, then
// Kokkos with TRACKGEN_TEST_THREADS host threads (trackgen::mpi::initialize_kokkos),
// OMP_PROC_BIND=false and, unless the environment chooses one, the log level
// `error`. The exit status is the worst of all ranks, so a case failing on one
// rank fails the test.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <trackgen/mpi/device.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  setenv("OMP_PROC_BIND", "false", 1);
  setenv("TRACKGEN_LOG_LEVEL", "error", 0);
  const char* threads = std::getenv("TRACKGEN_TEST_THREADS");
  trackgen::mpi::initialize_kokkos(MPI_COMM_WORLD, threads ? std::atoi(threads) : 0);
  int rc = Catch::Session().run(argc, argv);
  Kokkos::finalize();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
