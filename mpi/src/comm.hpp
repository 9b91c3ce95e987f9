// Internal to the MPI layer: the rank and size of a communicator as values.
#pragma once

#include <mpi.h>

namespace trackgen::mpi::detail {

/// This process's rank in `comm`.
inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

/// The number of ranks of `comm`.
inline int comm_size(MPI_Comm comm) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

}  // namespace trackgen::mpi::detail
