// Catch2 main owning Kokkos: initializes Kokkos (unless Catch only lists tests,
// so that test discovery never sees Kokkos' start-up output) with
// TRACKGEN_TEST_THREADS host threads, and sets OMP_PROC_BIND=false and, unless
// the environment chooses one, the log level `error`.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <trackgen/core/compat.hpp>

#include <cstdlib>
#include <cstring>

namespace {
bool only_lists(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--list", 6) == 0 || std::strcmp(a, "-l") == 0 || std::strcmp(a, "-t") == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) {
      return true;
    }
  }
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  if (only_lists(argc, argv)) return Catch::Session().run(argc, argv);
  setenv("OMP_PROC_BIND", "false", 1);
  setenv("TRACKGEN_LOG_LEVEL", "error", 0);
  const char* threads = std::getenv("TRACKGEN_TEST_THREADS");
  trackgen::compat::initialize(threads ? std::atoi(threads) : 0);
  int rc = Catch::Session().run(argc, argv);
  Kokkos::finalize();
  return rc;
}
