#include <trackgen/core/compat.hpp>
#include <trackgen/mpi/device.hpp>
#include <trackgen/mpi/partition.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace trackgen::mpi {

namespace {
/// GPUs visible to this process (0 on a build without a GPU backend).
int device_count() {
#if defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#else
  return 0;
#endif
}
}  // namespace

std::vector<std::string> kokkos_arguments(MPI_Comm comm, int num_threads) {
  std::vector<std::string> args{"trackgen"};
  if (num_threads > 0) args.push_back(compat::threads_flag(num_threads));
  const int local = node_local_rank(comm);  // collective on every build: same calls on every rank
  const int devices = device_count();
  if (devices > 0) args.push_back("--kokkos-device-id=" + std::to_string(local % devices));
  return args;
}

void initialize_kokkos(MPI_Comm comm, int num_threads) {
  std::vector<std::string> args = kokkos_arguments(comm, num_threads);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  Kokkos::initialize(argc, argv.data());
}

}  // namespace trackgen::mpi
