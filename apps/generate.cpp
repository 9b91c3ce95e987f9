// `trackgen generate`: one batch, written as tracks.json and tracks.svg (or, with
// --mode gates, gates.json and gates.svg; with --format hdf5, tracks.h5 generated
// in chunks of envs, or gates.h5), with a one-screen summary.
#include "app.hpp"
#include "hdf5_output.hpp"
#include "progress.hpp"
#include "rank_batch.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

namespace trackgen::app {
namespace {

struct GenerateOptions {
  BatchOptions batch;
  std::string out = "out";
  int repeat = 3;
  std::string policy = "graph";
  std::string mode = "track";
  std::string format = "json";
  int chunk_envs = 0;  ///< --format hdf5: envs per chunk (0: default_chunk_envs)
};

/// Above this many tracks the JSON summary suggests --format hdf5.
constexpr int json_suggestion_envs = 4096;

constexpr int generate_default_envs = 64;
/// --repeat bound: enough for a stable median of any batch worth timing.
constexpr int max_repeat = 10000;

template <class Space>
void run_generate(const GenerateOptions& o) {
  const TrackGenConfig config = make_config(o.batch, generate_default_envs);
  // The producer and the writers' host copies (tracks.json and tracks.svg are
  // built in memory), before anything is allocated.
  check_run_memory("trackgen generate", config.num_envs, "--envs", [&](int e) {
    TrackGenConfig c = config;
    c.num_envs = e;
    return estimate_memory<Space>(c) + json_writer_bytes(e, c.N_max);
  });
  const Space space;
  RankBatch<Space> gen(space, config, o.batch.seed);  // over the MPI ranks under mpiexec
  gen.set_policy(o.policy == "eager" ? Policy::eager : Policy::automatic);
  std::vector<double> ms;
  Progress progress("generate", std::max(o.repeat, 1), "batches");
  for (int r = 0; r < std::max(o.repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gen.generate();
    gen.space().fence();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    progress.advance();
  }
  progress.finish();
  Batch b{config, Space::name(), {}, gen.host_track()};
  for (int e = 0; e < config.num_envs; ++e) b.seeds.push_back(expand_seed(o.batch.seed, e, SeedExpansion::arange));

  // Summary, from the metrics layer: the batch's counts, and the mean length and
  // median compactness of its measured valid tracks.
  const TrackCounts counts = gen.counts();
  const BatchStats stats = gen.stats();
  if (!gen.root()) return;  // under mpiexec, rank 0 writes and prints

  write_files({{o.out + "/tracks.json", batch_json(b).dump() + "\n"}, {o.out + "/tracks.svg", batch_svg(b)}});

  const int E = counts.num_envs;
  std::printf("trackgen generate: %s, E=%d, seed=%d\n", config.generator.c_str(), E, o.batch.seed);
  std::printf("  backend        %s (concurrency %d), Kokkos %d, policy %s\n", b.backend.c_str(),
              compat::concurrency(gen.space()), KOKKOS_VERSION, o.policy.c_str());
  if (process_count() > 1) std::printf("  ranks          %d (MPI, block partition)\n", process_count());
  std::printf("  yield          %.4f (%d / %d valid, %d truncated)\n", counts.yield(), counts.num_valid, E,
              counts.num_truncated);
  std::printf("  invalid        %s\n", invalid_line(b.track).c_str());
  std::printf("  mean length    %.3f\n", stats.mean_length);
  std::printf("  compactness    %.3f (median of valid)\n", stats.compactness_p50);
  std::printf("  time/batch     %.2f ms (median of %zu; first call %.2f ms)\n", percentile(ms, 50.0), ms.size(),
              ms.front());
  std::printf("  wrote          %s/tracks.json, %s/tracks.svg\n", o.out.c_str(), o.out.c_str());
  if (E > json_suggestion_envs) {
    std::printf("  note           for batches this large, --format hdf5 writes a smaller file faster (docs/hdf5.md)\n");
  }
}

/// --format hdf5: the batch in chunks, streamed into DIR/tracks.h5.
void run_generate_hdf5(const GenerateOptions& o) {
  if (process_rank() != 0) return;  // under mpiexec, the HDF5 file is written by rank 0 alone
  const TrackGenConfig config = make_config(o.batch, generate_default_envs);
  const std::string path = o.out + "/tracks.h5";
  const Hdf5Summary s =
      write_tracks_hdf5(config, o.batch.backend, o.batch.seed, o.chunk_envs, o.policy == "eager", path);
  std::printf("trackgen generate: %s, E=%d, seed=%d\n", config.generator.c_str(), s.counts.num_envs, o.batch.seed);
  const std::string backend = o.batch.backend.empty() ? Kokkos::DefaultExecutionSpace::name() : o.batch.backend;
  std::printf("  backend        %s, Kokkos %d, policy %s\n", backend.c_str(), KOKKOS_VERSION, o.policy.c_str());
  std::printf("  yield          %.4f (%d / %d valid, %d truncated)\n", s.counts.yield(), s.counts.num_valid,
              s.counts.num_envs, s.counts.num_truncated);
  std::printf("  mean length    %.3f\n", s.mean_length);
  std::printf("  chunks         %d of up to %d envs\n", s.chunks, s.chunk_envs);
  std::printf("  time           %.2f s generating and writing (%.0f tracks/s)\n", s.seconds,
              s.counts.num_envs / s.seconds);
  std::printf("  wrote          %s (%.1f MB)\n", path.c_str(), double(s.bytes) / 1e6);
}

/// --mode gates: a gate batch (the config file holds GateGenConfig fields).
void run_generate_gates(const GenerateOptions& o) {
  if (process_rank() != 0) return;  // under mpiexec, gate courses are generated by rank 0 alone
  const GateGenConfig config = make_gate_config(o.batch, generate_default_envs);
  std::vector<double> ms;
  const GateBatch b = generate_gates(config, o.batch.backend, o.batch.seed, o.policy == "eager", &ms, o.repeat);
  if (o.format == "hdf5") {
    write_gates_hdf5(b, o.out + "/gates.h5");
  } else {
    write_files({{o.out + "/gates.json", gates_json(b).dump() + "\n"}, {o.out + "/gates.svg", gates_svg(b)}});
  }
  const GateSummary s = summarize_gates(b);
  std::printf("trackgen generate --mode gates: %s, E=%d, seed=%d\n", config.generator.c_str(), s.num_envs,
              o.batch.seed);
  std::printf("  backend        %s, Kokkos %d, policy %s\n", b.backend.c_str(), KOKKOS_VERSION, o.policy.c_str());
  std::printf("  gate yield     %.4f (%d / %d valid)\n", s.yield, s.num_valid, s.num_envs);
  std::printf("  mean count     %.3f gates\n", s.mean_count);
  std::printf("  min distance   %.5f (closest gate centres of a valid env; target %.5f)\n", s.min_centre_distance,
              2.0 * config.gate_radius);
  std::printf("  time/batch     %.2f ms (median of %zu; first call %.2f ms)\n", percentile(ms, 50.0), ms.size(),
              ms.front());
  if (o.format == "hdf5") {
    std::printf("  wrote          %s/gates.h5\n", o.out.c_str());
  } else {
    std::printf("  wrote          %s/gates.json, %s/gates.svg\n", o.out.c_str(), o.out.c_str());
  }
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate",
      "generate a batch of tracks (DIR/tracks.json, DIR/tracks.svg) or gate courses (DIR/gates.json, "
      "DIR/gates.svg)");
  add_batch_options(*cmd, o->batch, generate_default_envs);
  cmd->add_option("--mode", o->mode,
                  "track: closed-loop tracks; gates: gate courses, --config then holds GateGenConfig fields "
                  "(default: track)")
      ->check(CLI::IsMember({"track", "gates"}));
  cmd->add_option("--out", o->out,
                  "output folder (default: out); both files are written to temporaries there, then renamed, so a "
                  "failure leaves nothing new");
  CLI::Option* repeat =
      cmd->add_option("--repeat", o->repeat, "timed generate() calls; the summary shows the median (default: 3)")
          ->check(int_in(1, max_repeat));
  cmd->add_option("--policy", o->policy,
                  "graph: replay the producer's own graph (recorded on the first call); eager: run the stages "
                  "directly (default: graph)")
      ->check(CLI::IsMember({"graph", "eager"}));
  cmd->add_option("--format", o->format,
                  "json: DIR/tracks.json and DIR/tracks.svg (gates.*); hdf5: DIR/tracks.h5 (gates.h5), generated "
                  "in chunks of envs and streamed, for large batches (docs/hdf5.md) (default: json)")
      ->check(CLI::IsMember({"json", "hdf5"}));
  CLI::Option* chunk_envs =
      cmd->add_option("--chunk-envs", o->chunk_envs,
                      "--format hdf5 (tracks): envs per chunk (default: as many as fit in 512 MiB of producer "
                      "memory, and under the memory limit)")
          ->check(int_in(1, std::numeric_limits<int>::max()));
  add_quiet_option(*cmd);
  return {cmd,
          [o, repeat, chunk_envs] {
            // Options the chosen mode and format would ignore.
            const bool track_hdf5 = o->mode == "track" && o->format == "hdf5";
            refuse_unless(chunk_envs, track_hdf5, "--format hdf5 in --mode track (the chunks of a streamed batch)");
            refuse_unless(repeat, !track_hdf5,
                          "--format json or --mode gates (--format hdf5 generates each chunk once)");
            if (o->format == "hdf5") require_hdf5();
            // The output folder and the files of this mode and format, checked before any work.
            check_output_dir(o->out, "--out");
            const std::string stem = o->mode == "gates" ? "gates" : "tracks";
            const std::vector<std::string> suffixes =
                o->format == "hdf5" ? std::vector<std::string>{".h5"} : std::vector<std::string>{".json", ".svg"};
            for (const auto& suffix : suffixes) check_output_file(o->out + "/" + stem + suffix, "--out");
            if (o->mode == "gates") return run_generate_gates(*o);
            if (o->format == "hdf5") return run_generate_hdf5(*o);
            with_backend(o->batch.backend, [&]<class Space>() { run_generate<Space>(*o); });
          },
          /*every_rank=*/true};
}

}  // namespace trackgen::app
