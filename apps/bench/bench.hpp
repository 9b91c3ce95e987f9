// `trackgen bench`: the scaling benchmark. Throughput (tracks/s; time per batch
// min/median/max over repetitions after warm-up, every call fenced on the
// producer's instance) per generator and execution policy, over a sweep of batch
// sizes and, on OpenMP, over thread counts (strong scaling at a fixed E, weak
// scaling with E proportional to the threads).
//
// Kokkos 3.4 cannot be re-initialized with another thread count in one process,
// so the command plans the runs and re-executes this binary (/proc/self/exe) once
// per thread count as a worker: `trackgen --threads N bench --worker-plan JSON`.
// A worker prints one JSON object per measurement on stdout (with the full run
// context); the parent aggregates them into the tables, the JSON-lines file and
// the SVG chart. Workers report their progress (points done) on stderr through
// Progress (../progress.hpp); the plan carries the parent's --quiet.
//
// One file per responsibility:
//   command.cpp   the command line
//   plan.cpp      the parent: probes, one worker plan per thread count, the records
//   process.cpp   starting a worker process and reading its records
//   worker.cpp    a worker: measures the points of its plan
//   analysis.cpp  linearity and strong / weak scaling per generator and policy
//   report.cpp    the tables and the JSON-lines file
//   svg.cpp       the chart
//   context.cpp   the run context recorded with every line
#pragma once

#include "../app.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace trackgen::app::bench {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

/// Seconds elapsed since `t0`.
double seconds_since(Clock::time_point t0);

// ---------------------------------------------------------------------------
// Thresholds and budget fractions

/// Linear scaling is judged on the time per track from this E on...
inline constexpr int linearity_min_envs = 1024;
/// ...and holds when its largest / smallest value stays within this ratio.
inline constexpr double linearity_tolerance = 1.25;
/// Share of the time budget of the sweep at the largest thread count when other
/// thread counts follow (the rest is reserved for their scaling points).
inline constexpr double sweep_budget_share = 0.75;
/// Default memory cap: this share of the physical memory.
inline constexpr double default_memory_share = 0.5;
/// Batch size of the config the points start from (each point sets its own E).
inline constexpr int base_config_envs = 64;
/// Cost estimate of a point: (warm-up + timed calls + construction) x margin,
/// construction counted as this many calls.
inline constexpr double estimate_margin = 1.15;
inline constexpr double construction_calls = 1.2;

// ---------------------------------------------------------------------------
// Execution policy: how generate() is driven, a dimension of every point.
// `eager` runs the stages directly; `graph` replays the producer's own graph
// (recorded on the first call, which is a warm-up call here). A new policy is
// one more enumerator, name and case in to_library().

enum class BenchPolicy { eager, graph };

/// Name of a bench policy ("eager", "graph").
const char* policy_name(BenchPolicy p);
/// The policy named `name`; ConfigError listing the names otherwise.
BenchPolicy parse_policy(const std::string& name);
/// The TrackGenerator policy behind a bench policy.
Policy to_library(BenchPolicy p);

// ---------------------------------------------------------------------------
// Options

/// How many calls a point makes. Negative/zero fields mean "adaptive".
struct Timing {
  int warmup = -1;         ///< untimed calls before timing; < 0: adaptive
  int reps = 0;            ///< timed calls; 0: adaptive
  double min_time = 2.0;   ///< adaptive reps: keep timing until this many seconds are spent
  double warm_time = 0.5;  ///< adaptive warm-up: keep warming until this many seconds are spent
  int min_reps = 3;        ///< adaptive reps: at least this many
  int max_reps = 50;       ///< adaptive reps: at most this many
  int max_warmup = 10;     ///< adaptive warm-up: at most this many calls

  /// Estimated seconds of a point whose calls take `call_s` each.
  double estimate(double call_s) const;
};

void to_json(json& j, const Timing& t);
void from_json(const json& j, Timing& t);

struct BenchOptions {
  BatchOptions batch;  ///< config, generator, seed, backend (envs unused: see envs_list)
  std::vector<int> envs_list{64, 256, 1024, 4096, 16384, 65536};
  std::vector<int> threads_list;  ///< empty: powers of two up to the OpenMP concurrency, and it
  std::vector<std::string> policies{"graph"};
  int scaling_envs = 2048;  ///< strong scaling E
  int weak_envs = 0;        ///< weak scaling envs per thread; 0: scaling_envs / max threads
  Timing timing;
  double time_budget = 420.0;  ///< seconds; 0: unlimited
  double max_memory_mb = 0.0;  ///< 0: default_memory_share of the physical memory
  std::string json_out = "bench.jsonl";
  std::string svg_out;
  std::string worker_plan;  ///< hidden: run as a worker
  bool ranks = false;       ///< --ranks: scaling over MPI ranks (ranks.cpp)
};

// ---------------------------------------------------------------------------
// Context (context.cpp)

/// Physical memory in MiB (4096 when unknown).
double physical_memory_mb();
/// The current UTC time, ISO 8601.
std::string utc_now();
/// Library, Kokkos, execution space, threads, OMP environment, CPU, machine.
json run_context(const std::string& space_name, int concurrency, int threads_requested);

// ---------------------------------------------------------------------------
// Parent and workers

/// The whole command on the parent side (plan.cpp).
void run_bench(const BenchOptions& o);
/// `bench --ranks` under mpiexec: strong and weak scaling over the MPI ranks
/// (ranks.cpp; a ConfigError in a build without MPI).
void run_rank_bench(const BenchOptions& o);
/// A worker: measures the points of `plan` and prints one JSON line each (worker.cpp).
void run_worker(const json& plan);
/// Runs `trackgen [--threads N] bench --worker-plan PLAN` and returns its records;
/// other stdout lines of the worker go to stderr once each (process.cpp).
std::vector<json> run_worker_process(int threads, const json& plan, std::set<std::string>& notes);

/// Everything the parent gathered: what ran, the probes and every record.
struct BenchRun {
  std::string space_name;
  int concurrency = 0;
  TrackGenConfig base;
  std::vector<std::string> generators;  ///< the generators that could be built
  std::vector<std::string> policies;    ///< policy names
  std::vector<int> threads;             ///< thread counts (0: not OpenMP)
  int sweep_threads = 0;                ///< the thread count of the sweep
  bool scaling = false;                 ///< more than one thread count
  int strong_envs = 0, weak_envs = 0;   ///< E of strong scaling; envs per thread of weak scaling
  std::map<std::string, double> bytes_per_env, fixed_bytes, probe_s_per_track;  ///< per generator
  std::vector<json> records;                                                    ///< every record, in order
  std::vector<json> measurements;                                               ///< the records that are measurements
  json context;
  double wall_s = 0.0;
};

// ---------------------------------------------------------------------------
// Analysis (analysis.cpp)

struct Key {
  std::string generator, policy;
  auto operator<=>(const Key&) const = default;
};

struct ScalingRow {
  int threads;
  int envs;
  double median_ms;
  double speedup;     ///< strong: T(t0)/T(t); weak: unused (NaN)
  double efficiency;  ///< strong: speedup * t0 / t; weak: T(t0, E0) / T(t, E)
};

struct Summary {
  Key key;
  /// linear scaling over E >= linearity_min_envs at the sweep thread count
  int lin_from = 0, lin_to = 0, lin_points = 0;
  double lin_min_us = NAN, lin_max_us = NAN, lin_ratio = NAN;
  std::vector<ScalingRow> strong, weak;
  double speedup_2v1 = NAN;
  double bytes_per_env_estimate = NAN, bytes_per_env_largest = NAN;
  int largest_envs = 0;
};

/// Every (generator, policy) of the run.
std::vector<Key> keys_of(const BenchRun& run);
/// One summary per key.
std::vector<Summary> summarize(const BenchRun& run);

// ---------------------------------------------------------------------------
// Output (report.cpp, svg.cpp)

/// printf-formatted `v`; fmt_na gives "n/a" when v is not finite.
std::string fmt(const char* f, double v);
std::string fmt_na(const char* f, double v);
/// The tables on stdout.
void print_report(const BenchRun& run, const std::vector<Summary>& sums);
/// Every record, then one summary line per key, as JSON lines into `path`.
void write_json_lines(const BenchRun& run, const std::vector<Summary>& sums, const Timing& timing,
                      const std::string& path);
/// The chart: tracks/s vs E, parallel efficiency vs threads.
void write_svg(const BenchRun& run, const std::vector<Summary>& sums, const std::string& path);

}  // namespace trackgen::app::bench
