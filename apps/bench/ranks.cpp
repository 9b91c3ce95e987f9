// `trackgen bench --ranks` (built with the MPI layer): scaling over the MPI ranks
// of the run, at the thread count of each rank (--threads). For r in 1, 2, 4,
// ..., R (and R), the first r ranks build a trackgen::mpi::DistributedBatch on a
// communicator of their own and time generate(); the other ranks wait without
// spinning. Strong scaling keeps E = --scaling-envs over r ranks, weak scaling
// gives every rank --weak-envs envs (default --scaling-envs).
//
// Every timed call starts after a barrier of the r ranks and lasts until the
// slowest rank's fence (the maximum over the ranks); the warm-up and rep counts
// follow the summed call times, which every rank agrees on, so all ranks run
// the same number of calls. Per point: median/min/max ms, tracks/s, the
// efficiency, the same from CPU time (the largest process CPU time of a rank
// per call: on a shared, oversubscribed machine it follows the work each rank
// does, where wall time follows the other jobs), and each rank's peak resident
// memory (getrusage) and device bytes.
#include "bench.hpp"

#include <trackgen/mpi/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include <sys/resource.h>
#include <time.h>

namespace trackgen::app::bench {
namespace {

/// Waits for every rank of `comm` without spinning a core (a non-blocking
/// barrier, polled every millisecond), so idle ranks leave the cores to the
/// measuring ones.
void idle_barrier(MPI_Comm comm) {
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// Peak resident memory of this process (MiB).
double max_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

/// CPU time of this process (every thread), in ms.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

/// The rank counts of the run: 1, 2, 4, ... below R, and R.
std::vector<int> rank_counts(int R) {
  std::vector<int> r;
  for (int n = 1; n < R; n *= 2) r.push_back(n);
  r.push_back(R);
  return r;
}

struct Point {
  std::string generator, scaling;
  int ranks = 0, envs = 0;
  int warmup = 0;
  std::vector<double> ms;                 // per timed call: the slowest rank's wall time
  std::vector<double> cpu;                // per timed call: the largest CPU time of a rank
  std::vector<double> rss_mb, device_mb;  // per rank (rank 0 only)
  double median_ms = 0.0, median_cpu_ms = 0.0;
};

/// Collective over `comm` (the r measuring ranks): builds the batch and times it.
template <class Space>
Point measure(MPI_Comm comm, const TrackGenConfig& config, const BenchOptions& o, Policy policy) {
  const Space space;
  mpi::DistributedBatch<Space> batch(comm, space, config, o.batch.seed);
  batch.set_policy(policy);
  space.fence();
  Point p;
  double last_cpu = 0.0;
  const auto call = [&] {
    MPI_Barrier(comm);
    const double c0 = cpu_ms();
    const auto t0 = Clock::now();
    batch.generate();
    space.fence();
    double mine[2] = {1e3 * seconds_since(t0), cpu_ms() - c0}, slowest[2] = {0.0, 0.0};
    MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, comm);
    last_cpu = slowest[1];
    return slowest[0];
  };
  const Timing& t = o.timing;
  double spent = call();  // the first call records the graph: always a warm-up call
  p.warmup = 1;
  if (t.warmup >= 0) {
    for (; p.warmup < t.warmup; ++p.warmup) call();
  } else {
    for (; p.warmup < t.max_warmup && spent < 1e3 * t.warm_time; ++p.warmup) spent += call();
  }
  spent = 0.0;
  while (t.reps > 0 ? static_cast<int>(p.ms.size()) < t.reps
                    : static_cast<int>(p.ms.size()) < t.min_reps ||
                          (static_cast<int>(p.ms.size()) < t.max_reps && spent < 1e3 * t.min_time)) {
    p.ms.push_back(call());
    p.cpu.push_back(last_cpu);
    spent += p.ms.back();
  }
  p.median_ms = percentile(p.ms, 50.0);
  p.median_cpu_ms = percentile(p.cpu, 50.0);
  int r = 0, size = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &size);
  const double mine[2] = {max_rss_mb(), static_cast<double>(batch.device_bytes()) / (1024.0 * 1024.0)};
  std::vector<double> all(r == 0 ? 2 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, comm);
  for (int i = 0; r == 0 && i < size; ++i) {
    p.rss_mb.push_back(all[2 * static_cast<std::size_t>(i)]);
    p.device_mb.push_back(all[2 * static_cast<std::size_t>(i) + 1]);
  }
  return p;
}

/// One point on the first `ranks` ranks of the world; the result is complete on rank 0.
template <class Space>
Point run_point(const TrackGenConfig& base, const std::string& generator, const std::string& scaling, int ranks,
                int envs, const BenchOptions& o, Policy policy) {
  const int rank = process_rank();
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
  Point p;
  if (sub != MPI_COMM_NULL) {
    TrackGenConfig config = base;
    config.generator = generator;
    config.num_envs = envs;
    p = measure<Space>(sub, config, o, policy);
    MPI_Comm_free(&sub);
  }
  idle_barrier(MPI_COMM_WORLD);
  p.generator = generator;
  p.scaling = scaling;
  p.ranks = ranks;
  p.envs = envs;
  return p;
}

std::string join(const std::vector<double>& v, const char* f) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ", ") + fmt(f, x);
  return s;
}

template <class Space>
void run_ranks(const BenchOptions& o) {
  const int R = process_count(), rank = process_rank();
  const bool all = o.batch.generator.empty() || o.batch.generator == "all";
  BatchOptions bo = o.batch;
  if (all) bo.generator.clear();
  const TrackGenConfig base = make_config(bo, base_config_envs);
  const std::vector<std::string> generators =
      all ? available_generators<Space>() : std::vector<std::string>{base.generator};
  const Policy policy = to_library(parse_policy(o.policies.empty() ? "graph" : o.policies.front()));
  const int strong = o.scaling_envs, weak = o.weak_envs > 0 ? o.weak_envs : o.scaling_envs;
  const int threads = compat::concurrency(Space());
  if (rank == 0) {
    std::printf("trackgen bench --ranks: %d rank%s x %d thread%s (%s), policy %s, strong E=%d, weak %d envs/rank\n", R,
                R == 1 ? "" : "s", threads, threads == 1 ? "" : "s", Space::name(),
                o.policies.empty() ? "graph" : o.policies.front().c_str(), strong, weak);
    if (R == 1) std::printf("  (one rank: run it under mpiexec -n R for more)\n");
    std::printf("| %-10s | %-7s | %5s | %7s | %7s | %10s | %10s | %10s | %10s | %8s | %13s | %12s |\n", "gen",
                "scaling", "ranks", "E", "E/rank", "median ms", "tracks/s", "efficiency", "cpu ms", "cpu eff.",
                "max RSS MiB/r", "device MiB/r");
    std::printf("|%s|\n", std::string(149, '-').c_str());
  }
  std::ofstream jsonl;
  if (rank == 0 && !o.json_out.empty()) jsonl.open(o.json_out);
  const json context = run_context(Space::name(), threads, threads);
  for (const auto& g : generators) {
    for (const char* scaling : {"strong", "weak"}) {
      double t1 = 0.0, c1 = 0.0;
      for (int r : rank_counts(R)) {
        const int E = std::string(scaling) == "strong" ? strong : weak * r;
        const Point p = run_point<Space>(base, g, scaling, r, E, o, policy);
        if (rank != 0) continue;
        if (r == 1) {
          t1 = p.median_ms;
          c1 = p.median_cpu_ms;
        }
        // strong: T(1) / (r T(r)); weak: T(1, W) / T(r, r W); the same from CPU times
        const double k = std::string(scaling) == "strong" ? r : 1.0;
        const double eff = t1 / (k * p.median_ms), cpu_eff = c1 / (k * p.median_cpu_ms);
        const double rss = *std::max_element(p.rss_mb.begin(), p.rss_mb.end());
        const double dev = *std::max_element(p.device_mb.begin(), p.device_mb.end());
        std::printf(
            "| %-10s | %-7s | %5d | %7d | %7d | %10.2f | %10.0f | %10.3f | %10.2f | %8.3f | %13.1f | %12.1f |\n",
            g.c_str(), scaling, r, E, E / r, p.median_ms, 1e3 * E / p.median_ms, eff, p.median_cpu_ms, cpu_eff, rss,
            dev);
        std::fflush(stdout);
        if (jsonl.is_open()) {
          json j = {{"kind", "ranks"},
                    {"generator", g},
                    {"scaling", scaling},
                    {"ranks", r},
                    {"threads_per_rank", threads},
                    {"envs", E},
                    {"envs_per_rank", E / r},
                    {"warmup_calls", p.warmup},
                    {"reps", p.ms.size()},
                    {"ms", p.ms},
                    {"median_ms", p.median_ms},
                    {"min_ms", *std::min_element(p.ms.begin(), p.ms.end())},
                    {"max_ms", *std::max_element(p.ms.begin(), p.ms.end())},
                    {"tracks_per_s", 1e3 * E / p.median_ms},
                    {"efficiency", eff},
                    {"cpu_ms", p.cpu},
                    {"median_cpu_ms", p.median_cpu_ms},
                    {"cpu_efficiency", cpu_eff},
                    {"max_rss_mb", p.rss_mb},
                    {"device_mb", p.device_mb},
                    {"context", context}};
          jsonl << j.dump() << "\n";
        }
        if (r == R) {
          std::printf("  %s %s scaling at %d ranks: efficiency %.3f (CPU time: %.3f); peak RSS per rank %s MiB\n",
                      g.c_str(), scaling, R, eff, cpu_eff, join(p.rss_mb, "%.1f").c_str());
        }
      }
    }
  }
  if (rank == 0 && jsonl.is_open()) std::printf("  wrote          %s\n", o.json_out.c_str());
}

}  // namespace

void run_rank_bench(const BenchOptions& o) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {  // not started by an MPI launcher (or TRACKGEN_MPI=0): no MPI call may run
    throw ConfigError(
        "bench --ranks: this process was not started by an MPI launcher, so there are no ranks to scale over; run "
        "it as `mpiexec -n R trackgen --threads T bench --ranks ...` (docs/mpi.md), or leave out --ranks to "
        "measure this process");
  }
  with_backend(o.batch.backend, [&]<class Space>() { run_ranks<Space>(o); });
}

}  // namespace trackgen::app::bench
