// Starting Kokkos inside an MPI job (docs/mpi.md#launching): MPI first, then
// Kokkos, one device per node-local rank on GPU backends.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace trackgen::mpi {

/// The Kokkos arguments of a rank of `comm` (collective): `num_threads` host
/// threads (<= 0: Kokkos' default) and, in a build whose default execution space
/// is a GPU (CUDA), the device node_local_rank(comm) % (devices on the node),
/// so the ranks of one node spread over its GPUs.
std::vector<std::string> kokkos_arguments(MPI_Comm comm, int num_threads);

/// Initializes Kokkos with kokkos_arguments(comm, num_threads). MPI must be
/// initialized; finalize Kokkos before MPI.
void initialize_kokkos(MPI_Comm comm, int num_threads);

}  // namespace trackgen::mpi
