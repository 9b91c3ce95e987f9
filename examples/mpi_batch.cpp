// TrackGen inside an MPI program: every rank generates its slice of one global
// batch, then the batch metrics are reduced across the ranks. Run it with
//   mpiexec -n 4 ./mpi_batch
// The printed numbers are the same for any number of ranks (docs/mpi.md).
#include <trackgen/mpi/mpi.hpp>
#include <trackgen/trackgen.hpp>

#include <mpi.h>

#include <cstdio>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);  // MPI first, then Kokkos (one device per node-local rank on GPUs)
  trackgen::mpi::initialize_kokkos(MPI_COMM_WORLD, /*num_threads=*/0);
  int rc = 0;
  {
    trackgen::TrackGenConfig config;
    config.num_envs = 256;  // the global batch E
    config.generator = "bezier";

    // Block partition of the 256 envs over the ranks; env e uses seed 100 + e on
    // whichever rank owns it. Collective: a bad config fails on every rank.
    trackgen::mpi::DistributedBatch<> batch(MPI_COMM_WORLD, Kokkos::DefaultExecutionSpace(), config, 100);
    batch.generate();  // local work only: nothing crosses the network

    // A simulator would now race its own envs: batch.track() holds this rank's
    // slice (local env i is global env slice().first + i). Regenerate three
    // envs by their global ids (each rank regenerates the ones it owns).
    batch.regenerate({3, 128, 255}, /*advance=*/true);

    // Collective reductions, in global env order: the same bits on any rank count.
    const trackgen::TrackCounts counts = batch.counts();
    const trackgen::BatchStats stats = batch.stats();
    const trackgen::mpi::Slice s = batch.slice();
    std::printf("rank %d of %d: envs [%d, %d)\n", batch.rank(), batch.size(), s.first, s.end());
    if (batch.rank() == 0) {
      std::printf("yield %.4f (%d / %d valid), mean length %.4f, median compactness %.4f\n", counts.yield(),
                  counts.num_valid, counts.num_envs, stats.mean_length, stats.compactness_p50);
    }
    rc = counts.num_valid > 0 ? 0 : 1;
  }
  Kokkos::finalize();  // before MPI
  MPI_Finalize();
  return rc;
}
