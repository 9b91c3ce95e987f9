// The MPI layer of TrackGen (docs/mpi.md): distributed batches, collective
// metrics and gathers, and Kokkos start-up inside an MPI job. Built when CMake
// finds MPI (TRACKGEN_ENABLE_MPI); link TrackGen::trackgen_mpi.
#pragma once

#include <trackgen/mpi/device.hpp>
#include <trackgen/mpi/distributed_batch.hpp>
#include <trackgen/mpi/partition.hpp>
