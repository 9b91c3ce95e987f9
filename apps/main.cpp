// trackgen: the command-line tool. Parses the command line, initializes Kokkos
// (owning the runtime, as an application should), then runs the subcommand.
#include "app.hpp"
#include "hdf5_output.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  trackgen::app::prepare_hdf5();  // before any HDF5 call
  CLI::App app{"trackgen: batched race-track generation on Kokkos (TrackGen " +
               std::string(trackgen::version()) + ", " + trackgen::git_revision() + ")"};
  app.require_subcommand(1);
  app.fallthrough();  // before the subcommands, which inherit it: `trackgen generate --threads 2` works too
  app.set_version_flag("--version", "trackgen " + std::string(trackgen::version()) + " (" + trackgen::git_revision() +
                                        "), Kokkos " + trackgen::compat::kokkos_version_string());
  app.footer(
      "Options of trackgen itself (--threads) may also follow the subcommand.\n"
      "The config fields of --config files, with defaults and ranges: trackgen config --schema.\n"
      "Run trackgen SUBCOMMAND --help for a subcommand's options.");
  int threads = 0;
  app.add_option("--threads", threads,
                 "host threads of the OpenMP backend (default: Kokkos' choice, or OMP_NUM_THREADS); at most " +
                     std::to_string(trackgen::app::max_threads()) + " here (4 per hardware thread, <= 512)")
      ->check(trackgen::app::threads_in(0));
  std::vector<trackgen::app::Command> commands{trackgen::app::add_generate_command(app),
                                               trackgen::app::add_metrics_command(app),
                                               trackgen::app::add_bench_command(app),
                                               trackgen::app::add_drive_command(app),
                                               trackgen::app::add_config_command(app),
                                               trackgen::app::add_serve_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    trackgen::app::prepare_environment(threads);  // before Kokkos, which aborts on what it cannot read
  } catch (const std::exception& e) {
    std::cerr << "trackgen: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
  const trackgen::app::ProcessGroup processes(argc, argv);  // MPI under mpiexec, before Kokkos
  processes.initialize_kokkos(threads);
  int rc = EXIT_SUCCESS;
  for (auto& c : commands) {
    if (!c.cli->parsed()) continue;
    if (c.every_rank) {
      try {
        c.run();
      } catch (const std::exception& e) {
        if (processes.on_error(e)) std::cerr << "trackgen: " << e.what() << "\n";
        rc = EXIT_FAILURE;
      }
      continue;
    }
    // Under mpiexec a command that does not split its work runs on rank 0
    // alone while the other ranks wait (docs/mpi.md); its error is rank 0's.
    if (trackgen::app::process_rank() == 0) {
      try {
        c.run();
      } catch (const std::exception& e) {
        std::cerr << "trackgen: " << e.what() << "\n";
        rc = EXIT_FAILURE;
      }
    }
    processes.barrier();
  }
  Kokkos::finalize();
  return rc;
}
