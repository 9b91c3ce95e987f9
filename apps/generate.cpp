// `trackgen generate`: one batch, written as tracks.json and tracks.svg (or, with
// --mode gates, gates.json and gates.svg), with a one-screen summary.
#include "app.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>

namespace trackgen::app {
namespace {

struct GenerateOptions {
  BatchOptions batch;
  std::string out = "out";
  int repeat = 3;
  std::string policy = "graph";
  std::string mode = "track";
};

constexpr int default_envs = 64;
/// --repeat bound: enough for a stable median of any batch worth timing.
constexpr int max_repeat = 10000;

template <class Space>
void run_generate(const GenerateOptions& o) {
  const TrackGenConfig config = make_config(o.batch, default_envs);
  const Space space;
  TrackGenerator<Space> gen(space, config, SeedState<Space>(space, config.num_envs, o.batch.seed));
  gen.set_policy(o.policy == "eager" ? Policy::eager : Policy::automatic);
  std::vector<double> ms;
  for (int r = 0; r < std::max(o.repeat, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    gen.generate();
    gen.space().fence();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  Batch b{config, Space::name(), {}, gen.track().to_host()};
  for (int e = 0; e < config.num_envs; ++e) b.seeds.push_back(expand_seed(o.batch.seed, e, SeedExpansion::arange));

  write_files({{o.out + "/tracks.json", batch_json(b).dump() + "\n"}, {o.out + "/tracks.svg", batch_svg(b)}});

  // Summary, from the metrics layer: the batch's counts, and the mean length and
  // median compactness of its measured valid tracks.
  const TrackCounts counts = track_counts(gen.track());
  const BatchStats stats = batch_stats(gen);
  const int E = counts.num_envs;
  std::printf("trackgen generate: %s, E=%d, seed=%d\n", config.generator.c_str(), E, o.batch.seed);
  std::printf("  backend        %s (concurrency %d), Kokkos %d, policy %s\n", b.backend.c_str(),
              compat::concurrency(gen.space()), KOKKOS_VERSION, o.policy.c_str());
  std::printf("  yield          %.4f (%d / %d valid, %d truncated)\n", counts.yield(), counts.num_valid, E,
              counts.num_truncated);
  std::printf("  mean length    %.3f\n", stats.mean_length);
  std::printf("  compactness    %.3f (median of valid)\n", stats.compactness_p50);
  std::printf("  time/batch     %.2f ms (median of %zu; first call %.2f ms)\n", percentile(ms, 50.0), ms.size(),
              ms.front());
  std::printf("  wrote          %s/tracks.json, %s/tracks.svg\n", o.out.c_str(), o.out.c_str());
}

/// --mode gates: a gate batch (the config file holds GateGenConfig fields).
void run_generate_gates(const GenerateOptions& o) {
  const GateGenConfig config = make_gate_config(o.batch, default_envs);
  std::vector<double> ms;
  const GateBatch b = generate_gates(config, o.batch.backend, o.batch.seed, o.policy == "eager", &ms, o.repeat);
  write_files({{o.out + "/gates.json", gates_json(b).dump() + "\n"}, {o.out + "/gates.svg", gates_svg(b)}});
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
  std::printf("  wrote          %s/gates.json, %s/gates.svg\n", o.out.c_str(), o.out.c_str());
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "generate",
      "generate a batch of tracks (DIR/tracks.json, DIR/tracks.svg) or gate courses (DIR/gates.json, "
      "DIR/gates.svg)");
  add_batch_options(*cmd, o->batch, default_envs);
  cmd->add_option("--mode", o->mode,
                  "track: closed-loop tracks; gates: gate courses, --config then holds GateGenConfig fields "
                  "(default: track)")
      ->check(CLI::IsMember({"track", "gates"}));
  cmd->add_option("--out", o->out,
                  "output folder (default: out); both files are written to temporaries there, then renamed, so a "
                  "failure leaves nothing new");
  cmd->add_option("--repeat", o->repeat, "timed generate() calls; the summary shows the median (default: 3)")
      ->check(int_in(1, max_repeat));
  cmd->add_option("--policy", o->policy,
                  "graph: replay the producer's own graph (recorded on the first call); eager: run the stages "
                  "directly (default: graph)")
      ->check(CLI::IsMember({"graph", "eager"}));
  return {cmd, [o] {
            // The output folder and both files, checked before any work.
            check_output_dir(o->out, "--out");
            for (const char* name :
                 o->mode == "gates" ? std::array{"gates.json", "gates.svg"} : std::array{"tracks.json", "tracks.svg"}) {
              check_output_file(o->out + "/" + name, "--out");
            }
            if (o->mode == "gates") return run_generate_gates(*o);
            with_backend(o->batch.backend, [&]<class Space>() { run_generate<Space>(*o); });
          }};
}

}  // namespace trackgen::app
