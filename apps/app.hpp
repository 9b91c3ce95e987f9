// Shared pieces of the trackgen command-line tool.
#pragma once

#include <trackgen/trackgen.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

// CLI11 is included only by the sources that build options: its header defines
// namespace-scope validator objects whose code every including source would
// compile again (seconds each).
namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace trackgen::app {

/// Options shared by the subcommands that build a batch.
struct BatchOptions {
  std::string config_file;  ///< JSON config (TrackGenConfig fields); empty: defaults
  std::string generator;    ///< overrides config.generator when set
  int envs = 0;             ///< overrides config.num_envs when > 0
  int seed = 0;             ///< base seed k: env e uses k + e
  std::string backend;      ///< execution space name; empty: Kokkos' default
};

/// Adds --config/--generator/--envs/--seed/--backend to `cmd`.
void add_batch_options(CLI::App& cmd, BatchOptions& o, int default_envs);

/// The config described by `o` (file, then overrides), validated. E is
/// --envs, else the file's num_envs, else `default_envs`.
TrackGenConfig make_config(const BatchOptions& o, int default_envs);

/// Whether the JSON file `path` (already loaded once) is an object with `key`.
bool config_file_sets(const std::string& path, const char* key);

/// Names of the execution spaces this build can run on ("serial", "openmp", ...):
/// backend_name() of every space of the library's list (trackgen/core/spaces.hpp).
std::vector<std::string> backend_names();

/// The help text of a --backend option: the names of backend_names() and the default.
std::string backend_help();

/// Calls f.template operator()<Space>() for the space named `backend` (empty:
/// the default execution space). Throws ConfigError for an unknown name.
template <class F>
void with_backend(const std::string& backend, F&& f) {
  if (backend.empty()) {
    f.template operator()<Kokkos::DefaultExecutionSpace>();
    return;
  }
  bool found = false;
  for_each_space([&]<class Space>() {
    if (!found && backend == backend_name<Space>()) {
      found = true;
      f.template operator()<Space>();
    }
  });
  if (found) return;
  std::string names;
  for (const auto& n : backend_names()) names += (names.empty() ? "" : ", ") + n;
  throw ConfigError("--backend '" + backend + "' is not enabled in this build; available: " + names);
}

/// Host copy of a batch plus what the writers need to know about it.
struct Batch {
  TrackGenConfig config;
  std::string backend;
  std::vector<int> seeds;
  Track<Kokkos::HostSpace> track;
};

/// tracks.json: {"config", "backend", "tracks": [{env, seed, valid, count,
/// length, winding, truncated, invalid_reason, center, outer, inner}]} with
/// real points only; invalid_reason lists the names of the track's
/// InvalidReason bits (empty for a valid track).
nlohmann::json batch_json(const Batch& b);

/// tracks.svg: a grid with one cell per track (borders, start point and
/// direction; invalid tracks in red, their reasons along the bottom). `paths`, when given, holds one polyline
/// per env drawn over its track (NaN points break the line).
std::string batch_svg(const Batch& b, const std::vector<std::vector<Vec3f>>* paths = nullptr);

/// The gate config described by `o` (a file of GateGenConfig fields, then the
/// overrides; E as in make_config); without a file, gate_width 0.1 (gates
/// with an opening).
GateGenConfig make_gate_config(const BatchOptions& o, int default_envs);

/// Host copy of a gate batch plus what the writers need to know about it.
struct GateBatch {
  GateGenConfig config;
  std::string backend;
  std::vector<int> seeds;
  GateSequence<Kokkos::HostSpace> gates;
};

/// One gate batch of `config` on `backend` with base seed `seed`, generated
/// `repeat` times (each call's milliseconds appended to `ms` when given).
GateBatch generate_gates(const GateGenConfig& config, const std::string& backend, int seed, bool eager,
                         std::vector<double>* ms, int repeat);

/// gates.json: {"config", "backend", "gates": [{env, seed, valid, count,
/// position, forward, left, right}]}, per-gate [x, y, z] lists of real gates only.
nlohmann::json gates_json(const GateBatch& b);

/// gates.svg: one cell per env: the plan view (the course line through the
/// gate centres, each gate a short bar from left to right with a tick along
/// its forward axis, gate 0 in green) above an elevation strip (z per gate).
std::string gates_svg(const GateBatch& b);

/// The gate summary of a batch: yield, mean real gate count over all envs,
/// smallest plan-view distance between two gate centres of a valid env (NaN
/// without valid envs).
struct GateSummary {
  std::string generator;
  int num_envs = 0;
  int num_valid = 0;
  double yield = 0.0;
  double mean_count = 0.0;
  double min_centre_distance = 0.0;
};
GateSummary summarize_gates(const GateBatch& b);

/// "12 invalid: 9 thickness, 3 crossing" for the Track `track` (any memory
/// space); logs a warning when no track of the batch is valid.
template <class M>
std::string invalid_line(const Track<M>& track) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), track.invalid_reason);
  std::vector<std::int32_t> masks(host.data(), host.data() + host.extent(0));
  const std::string line = invalid_summary(masks);
  if (std::all_of(masks.begin(), masks.end(), [](std::int32_t m) { return m != 0; })) {
    logging::warn("no track of the batch is valid (" + line + "); see the reasons in docs/algorithms.md#invalid-reasons");
  }
  return line;
}

/// One output file: where it goes and what it holds.
struct OutputFile {
  std::string path;
  std::string text;
};

/// Writes every file atomically as a set: each to a temporary in its target
/// folder (creating missing folders), then all renamed into place. A target
/// that is a symbolic link is resolved and the file it names written (the
/// link stays); an existing character device or FIFO (/dev/null, /dev/stdout,
/// /dev/fd/N, a named pipe) is written to in place, before the renames,
/// never replaced; a block device, a socket or a folder is refused. On a
/// failure the temporaries, the files already renamed and the folders it
/// created are removed, and std::runtime_error names the path and the reason
/// (strerror). The one place the command line writes files.
void write_files(const std::vector<OutputFile>& files);

/// write_files({{path, text}}).
void write_file(const std::string& path, const std::string& text);

/// Checks, before any work, that the folder `dir` (given by `option`, e.g.
/// "--out") can be written: not empty, an existing folder or one that can be
/// created (its nearest existing ancestor a writable folder). ConfigError
/// naming the option, the path and the reason otherwise. Creates nothing.
void check_output_dir(const std::string& dir, const std::string& option);

/// Same for a file `path`: not empty, not a folder, block device or socket;
/// a character device or FIFO writable; otherwise (after its symbolic links)
/// its folder writable or creatable as check_output_dir checks it.
void check_output_file(const std::string& path, const std::string& option);

// ---------------------------------------------------------------------------
// Run memory (memory.cpp): what a command holds besides its producers, which
// check their own estimates (trackgen/pipeline/memory.hpp).

/// Host bytes the JSON and SVG writers of `generate` hold for `envs` envs of
/// stride `n_max`: the host copy of the Track, tracks.json as a document and
/// as text, tracks.svg (a bound per point, measured).
std::size_t json_writer_bytes(int envs, int n_max);

/// Host bytes the HDF5 output of `generate` holds for chunks of `chunk_envs`
/// envs: the host copy of a chunk, its seeds, and HDF5's chunk caches.
std::size_t hdf5_writer_bytes(int chunk_envs, int n_max);

/// The largest e in [1, envs] with need(e) <= limit (need grows with e); 0
/// when need(1) does not fit.
int largest_envs_within(int envs, std::size_t limit, const std::function<std::size_t(int)>& need);

/// The largest e in [1, envs] for which a run holding need(e) bytes passes
/// check_run_memory (envs without a limit); 0 when none does.
int largest_run_envs(int envs, const std::function<std::size_t(int)>& need);

/// Before anything is allocated: ConfigError when `need(envs)`, the bytes a
/// run of `what` (e.g. "trackgen drive") holds with `envs_name` = envs, plus
/// the process itself (32 MiB), exceeds memory_limit_bytes(), naming the
/// estimate, the limit and how many envs fit (largest_envs_within).
void check_run_memory(const std::string& what, int envs, const std::string& envs_name,
                      const std::function<std::size_t(int)>& need);

// ---------------------------------------------------------------------------
// Option checks (cli.cpp)

/// The most host threads --threads, OMP_NUM_THREADS or KOKKOS_NUM_THREADS may
/// ask for: 4 per hardware thread (std::thread::hardware_concurrency(), 1 when
/// unknown), at most 512, the fixed size of the thread pool of Kokkos 3.4's
/// OpenMP backend (more threads overrun it and crash inside Kokkos).
int max_threads();

/// Reads and checks, before Kokkos is initialized, every environment variable
/// that Kokkos, the OpenMP runtime or TrackGen acts on (KOKKOS_NUM_THREADS and
/// Kokkos' other integer and boolean variables, OMP_NUM_THREADS,
/// OMP_PROC_BIND, TRACKGEN_LOG_LEVEL, TRACKGEN_MEMORY_LIMIT_MB,
/// TRACKGEN_HOST_SIMD, TRACKGEN_MPI, TRACKGEN_PROGRESS_DELAY), and `threads`
/// (--threads, 0: Kokkos' choice): ConfigError naming the variable, its value
/// and what it must be, where Kokkos would abort the process or a value would
/// be ignored. Thread counts must be at most max_threads() (the environment's
/// only when `threads` is 0). Then, with `threads` > 0, unsets
/// KOKKOS_NUM_THREADS (--threads wins; Kokkos 3.4 aborts on a mismatch), and
/// sets OMP_PROC_BIND=false when neither OMP_PROC_BIND nor OMP_PLACES is set
/// (the OpenMP runtime's default, unbound threads, which Kokkos otherwise
/// warns about on stdout).
void prepare_environment(int threads);

/// A CLI11 check: a thread count in [lo, max_threads()]; the message states
/// the bound and where it comes from.
CLI::Validator threads_in(int lo);

/// A CLI11 check: an integer in [lo, hi]; the message states both bounds.
CLI::Validator int_in(long long lo, long long hi);

/// A CLI11 check: a finite number >= lo; the message states the bound.
CLI::Validator number_at_least(double lo);

/// A CLI11 check: a finite number > 0.
CLI::Validator positive_number();

/// ConfigError "OPTION applies only to WHEN" when the option `name` was given
/// on the command line (`option`) and does not apply (`applies` false): an
/// option the chosen mode or format would silently ignore.
void refuse_unless(const CLI::Option* option, bool applies, const std::string& when);

/// "a, b, c"
std::string comma_list(const std::vector<std::string>& names);

/// Names of the registered track generators of the default execution space.
std::vector<std::string> generator_names();

/// The processes of one run of the tool (apps/mpi_app.cpp; apps/mpi_none.cpp in a
/// build without MPI). Started by an MPI launcher (mpiexec, srun: docs/mpi.md) in
/// a build with MPI, the ranks of MPI_COMM_WORLD: MPI is initialized here, before
/// Kokkos, and finalized when this object dies, after Kokkos. Otherwise (or with
/// TRACKGEN_MPI=0) one process, and MPI is never initialized.
class ProcessGroup {
 public:
  /// Initializes MPI when an MPI launcher started this process (MPI_Init may
  /// consume its own arguments of argc/argv).
  ProcessGroup(int& argc, char**& argv);
  /// Finalizes MPI if it was initialized (after Kokkos::finalize()).
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  /// Initializes Kokkos with `threads` host threads (<= 0: Kokkos' default)
  /// and, on a GPU backend under MPI, the device of the node-local rank.
  void initialize_kokkos(int threads) const;
  /// A subcommand threw `e` on this rank: under several ranks, an error that
  /// every rank did not raise together aborts the job (MPI_Abort) rather than
  /// leaving the other ranks waiting in a collective. Returns whether this
  /// rank prints the message (an error every rank raised together is printed
  /// by rank 0 alone).
  bool on_error(const std::exception& e) const;
  /// Waits for every rank (MPI_Barrier; nothing without MPI): the ranks that
  /// do not run a rank-0 command wait for rank 0 here.
  void barrier() const;
};

/// This process's rank and the number of ranks of the run (0 and 1 without MPI).
int process_rank();
int process_count();

/// A subcommand: its CLI11 node and what it runs once Kokkos is initialized.
struct Command {
  CLI::App* cli = nullptr;
  std::function<void()> run;
  /// Whether the command runs on every MPI rank of an mpiexec run (it splits
  /// its work over them: generate, bench); otherwise rank 0 runs it alone and
  /// the other ranks wait for it to finish.
  bool every_rank = false;
};

/// `trackgen generate` (--mode track or gates).
Command add_generate_command(CLI::App& app);

/// `trackgen metrics`: the quality table (docs/algorithms.md#batch-statistics) of
/// one or all generators.
Command add_metrics_command(CLI::App& app);

/// `trackgen drive`: cars racing a Course for --steps steps (apps/sim_loop.hpp);
/// env-steps/s, laps, collisions and regenerations (text or one JSON object).
Command add_drive_command(CLI::App& app);

/// `trackgen config`: the default config, or with --schema the config schema
/// (trackgen/core/config_schema.hpp), as JSON on stdout.
Command add_config_command(CLI::App& app);

/// `trackgen bench`: the scaling benchmark (tracks/s over batch sizes, thread
/// counts and execution policies; JSON lines and an SVG chart).
Command add_bench_command(CLI::App& app);

/// `trackgen serve`: the parameter explorer, a page and its JSON API over HTTP
/// (README.md, "The parameter explorer"); runs until the process is stopped.
Command add_serve_command(CLI::App& app);

}  // namespace trackgen::app
