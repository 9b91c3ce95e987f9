// The command line of `trackgen bench` (see bench.hpp for how it runs).
#include "../progress.hpp"
#include "bench.hpp"

#include <CLI/CLI.hpp>

#include <limits>

namespace trackgen::app {
namespace {

/// Bound of --warmup, --reps and --max-reps: more calls than any point needs
/// for a stable median, yet a bound on the run's length.
constexpr int max_calls = 10000;

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<bench::BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "scaling benchmark: tracks/s per generator over batch sizes and OpenMP thread counts");
  cmd->add_option("--config", o->batch.config_file, "JSON file with TrackGenConfig fields (others keep defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--generator", o->batch.generator,
      "centerline generator: " + comma_list(generator_names()) + ", or 'all' for every registered one (default: all)");
  cmd->add_option("--seed", o->batch.seed, "base seed k; env e uses seed k + e (default: 0)")
      ->check(int_in(std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  cmd->add_option("--backend", o->batch.backend,
                  backend_help());
  CLI::Option* envs =
      cmd->add_option("--envs", o->envs_list, "batch sizes of the sweep (default: 64,256,1024,4096,16384,65536)")
          ->delimiter(',')
          ->check(int_in(1, std::numeric_limits<int>::max()));
  CLI::Option* threads_list =
      cmd->add_option("--threads-list", o->threads_list,
                      "OpenMP thread counts, e.g. 1,2 (default: 1,2,4,... up to the concurrency, and it); the sweep "
                      "runs at the largest")
          ->delimiter(',')
          ->check(threads_in(1));
  cmd->add_option("--scaling-envs", o->scaling_envs, "E of the strong-scaling points (default: 2048)")
      ->check(int_in(1, std::numeric_limits<int>::max()));
  cmd->add_option("--weak-envs", o->weak_envs,
                  "envs per thread of the weak-scaling points (default: --scaling-envs / largest thread count)")
      ->check(int_in(1, std::numeric_limits<int>::max()));
  cmd->add_option("--policy", o->policies,
                  "execution policies: eager (run the stages directly), graph (replay the producer's own graph); "
                  "a comma list (default: graph, what generate() does by default)")
      ->delimiter(',');
  cmd->add_option("--warmup", o->timing.warmup,
                  "untimed calls before timing (default: adaptive, the first call and more until 0.5 s, <= 10)")
      ->check(int_in(0, max_calls));
  cmd->add_option("--reps", o->timing.reps,
                  "timed calls per point (default: adaptive, >= 3 and more until --min-time, <= --max-reps; 0: "
                  "adaptive)")
      ->check(int_in(0, max_calls));
  cmd->add_option("--min-time", o->timing.min_time, "adaptive reps: seconds of timed calls per point (default: 2)")
      ->check(number_at_least(0));
  cmd->add_option("--max-reps", o->timing.max_reps, "adaptive reps: at most this many (default: 50)")
      ->check(int_in(1, max_calls));
  CLI::Option* time_budget =
      cmd->add_option("--time-budget", o->time_budget,
                      "seconds for the whole run; larger E are skipped when their estimated cost does not fit "
                      "(default: 420; 0: no limit)")
          ->check(number_at_least(0));
  CLI::Option* max_memory =
      cmd->add_option("--max-memory-mb", o->max_memory_mb,
                      "skip E whose estimated device memory exceeds this many MiB, > 0 (default: half of the physical "
                      "memory)")
          ->check(positive_number());
  cmd->add_option("--json-out", o->json_out,
                  "JSON-lines output, one line per point with the full context, then "
                  "one summary per generator (default: bench.jsonl; '' to skip)");
  CLI::Option* svg = cmd->add_option("--svg", o->svg_out, "SVG chart: tracks/s vs E, parallel efficiency vs threads");
  cmd->add_flag("--ranks", o->ranks,
                "under mpiexec -n R: strong scaling (--scaling-envs over 1, 2, 4, ... R ranks) and weak scaling "
                "(--weak-envs per rank, default --scaling-envs) over MPI ranks, at --threads threads per rank");
  add_quiet_option(*cmd);
  cmd->add_option("--worker-plan", o->worker_plan, "internal: run as a measurement worker")->group("");
  cmd->footer(
      "Each point builds a TrackGenerator of E envs (seeds k..k+E-1) and times generate() calls, each fenced on the\n"
      "producer's instance. Warm-up: the first call, then more until 0.5 s of warm-up (at most 10 calls). Reps: at\n"
      "least 3, then more until --min-time seconds (default 2 s) of timed calls, at most --max-reps (50).\n"
      "Policies: graph (default; what generate() does: the producer's own graph, recorded on the first call, a\n"
      "warm-up call here, then replayed) and eager (the stages run directly); --policy eager,graph compares them.\n"
      "Sizes: the sweep E list, minus sizes whose memory estimate (fixed + E x per-env bytes, from device_bytes()\n"
      "of TrackGenerators at E=1 and E=2) exceeds --max-memory-mb, minus, under --time-budget, sizes whose\n"
      "estimated cost (the calls above plus construction, times the time per track measured at the previous size,\n"
      "or probed at E=2 for the first) does not fit in the time left or exceeds the fair share of one point\n"
      "(phase budget / (generators x policies)); a skipped size skips the larger ones of that generator.\n"
      "Sizes run level by level (all generators at one E, then the next E), cheapest first within a level.\n"
      "On OpenMP the command re-runs itself once per thread count (Kokkos 3.4 cannot change threads in a process):\n"
      "the sweep at the largest count (75% of the budget when there is more than one count), then strong scaling\n"
      "at --scaling-envs and weak scaling at --weak-envs x threads for the other counts. Reported per generator:\n"
      "tracks/s per E, the max/min ratio of time per track from E=1024 to the largest E (linear scaling: <= 1.25),\n"
      "the speed-up and efficiency per thread count, and device bytes per env.\n"
      "Progress (stderr, after TRACKGEN_PROGRESS_DELAY s, default 2; --quiet: none): points done per worker; when\n"
      "stderr is not a terminal, each line names the last point and its result. Every point's result is a line of\n"
      "--json-out.");
  return {cmd,
          [o, svg, envs, threads_list, time_budget, max_memory] {
            // Options the rank scaling does not use (it times --scaling-envs and --weak-envs).
            for (const CLI::Option* opt : {envs, threads_list, time_budget, max_memory, svg}) {
              refuse_unless(opt, !o->ranks, "the sweep over batch sizes and threads (bench without --ranks)");
            }
            if (o->ranks) {
              bench::run_rank_bench(*o);
            } else if (process_rank() != 0) {
              return;  // under mpiexec without --ranks, rank 0 runs the bench alone
            } else if (o->worker_plan.empty()) {
              // The outputs, checked before the benchmark runs.
              if (!o->json_out.empty()) check_output_file(o->json_out, "--json-out");
              if (svg->count() > 0) check_output_file(o->svg_out, "--svg");
              bench::run_bench(*o);
            } else {
              bench::run_worker(nlohmann::json::parse(o->worker_plan));
            }
          },
          /*every_rank=*/true};
}

}  // namespace trackgen::app
