// `trackgen metrics`: the quality table (docs/algorithms.md#batch-statistics)
// for one or all registered generators: one batch per generator, its per-env
// metrics on the device, the batch statistics on the host, and the time per
// generate() call (2 warm-up calls, then the mean of 5 fenced calls).
#include "app.hpp"
#include "progress.hpp"

#include <CLI/CLI.hpp>

#include <trackgen/metrics/metrics.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace trackgen::app {
namespace {

struct MetricsOptions {
  BatchOptions batch;
  bool json = false;
  int warm = 2;
  int timed = 5;
  std::string mode = "track";
};

constexpr int metrics_default_envs = 512;

/// One generator's statistics (its batch generated once, then timed) and, in
/// `invalid`, the summary of its invalid tracks' reasons.
template <class Space>
BatchStats measure(const TrackGenConfig& config, const MetricsOptions& o, std::string& invalid) {
  const Space space;
  TrackGenerator<Space> gen(space, config, SeedState<Space>(space, config.num_envs, o.batch.seed));
  gen.generate();
  BatchStats s = batch_stats(gen);
  invalid = invalid_line(gen.track());
  for (int i = 0; i < o.warm; ++i) gen.generate();
  gen.space().fence();
  double total_ms = 0.0;
  for (int i = 0; i < o.timed; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    gen.generate();
    gen.space().fence();
    total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  s.gen_ms_per_call = o.timed > 0 ? total_ms / o.timed : 0.0;
  return s;
}

/// The quality table's column order, with p10 and p90 beside p50.
struct Column {
  const char* title;
  int width;
};
constexpr Column columns[] = {{"gen", 10},     {"yield", 7},          {"pre-X rate", 10}, {"xpbd disp", 9},
                              {"mean len", 8}, {"compact. mean", 13}, {"p10", 6},         {"p50", 6},
                              {"p90", 6},      {"degen", 6},          {"variety", 7},     {"chicanes", 8},
                              {"straight", 8}, {"peak κ", 7},         {"lap time", 8},    {"ms/call", 8}};

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

/// Pads `s` to `width` display columns (counting UTF-8 code points).
std::string pad(const std::string& s, int width) {
  int cols = 0;
  for (unsigned char c : s) cols += (c & 0xC0) != 0x80 ? 1 : 0;
  return s + std::string(cols < width ? width - cols : 0, ' ');
}

void print_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (std::size_t i = 0; i < cells.size(); ++i) line += " " + pad(cells[i], columns[i].width) + " |";
  std::cout << line << std::endl;
}

void print_header() {
  std::vector<std::string> titles, rules;
  for (const auto& c : columns) {
    titles.emplace_back(c.title);
    rules.emplace_back(std::string(c.width, '-'));
  }
  print_row(titles);
  print_row(rules);
}

void print_stats(const BatchStats& s) {
  print_row({s.generator, fmt(s.yield), fmt(s.pre_relax_self_intersection_rate), fmt(s.xpbd_displacement),
             fmt(s.mean_length), fmt(s.mean_compactness), fmt(s.compactness_p10), fmt(s.compactness_p50),
             fmt(s.compactness_p90), fmt(s.compactness_degenerate_rate), s.shape_variety_pass ? "1" : "0",
             fmt(s.mean_chicanes), fmt(s.straight_frac), fmt(s.peak_curvature), fmt(s.lap_time),
             fmt(s.gen_ms_per_call)});
}

template <class Space>
void run_metrics(const MetricsOptions& o) {
  // 'all' when asked, or by default unless a config file names the generator
  const bool all = o.batch.generator == "all" || (o.batch.generator.empty() && o.batch.config_file.empty());
  BatchOptions base = o.batch;
  if (all) base.generator.clear();
  const TrackGenConfig config = make_config(base, metrics_default_envs);
  const std::vector<std::string> names =
      all ? available_generators<Space>() : std::vector<std::string>{config.generator};

  int failed = 0, printed = 0;
  std::vector<std::string> invalid_lines;
  Progress progress("metrics", static_cast<long long>(names.size()), "generators");
  for (const auto& name : names) {
    TrackGenConfig c = config;
    c.generator = name;
    BatchStats s;
    std::string invalid;
    try {
      s = measure<Space>(c, o, invalid);
    } catch (const std::exception& e) {
      if (!all) throw;
      std::cerr << "trackgen metrics: generator '" << name << "' skipped: " << e.what() << "\n";
      ++failed;
      progress.advance();
      continue;
    }
    if (o.json) {
      nlohmann::json j = s;
      j["seed"] = o.batch.seed;
      j["backend"] = Space::name();
      j["concurrency"] = compat::concurrency(Space());
      j["invalid_summary"] = invalid;
      std::cout << j.dump() << std::endl;
    } else {
      if (printed++ == 0) {  // after the first success: a bad --generator prints no empty table
        std::printf("trackgen metrics: E=%d, seed=%d, backend %s (concurrency %d), Kokkos %d\n", config.num_envs,
                    o.batch.seed, Space::name(), compat::concurrency(Space()), KOKKOS_VERSION);
        print_header();
      }
      print_stats(s);
      invalid_lines.push_back(name + ": " + invalid);
    }
    progress.advance();
  }
  progress.finish();
  for (const auto& line : invalid_lines) std::printf("%s\n", line.c_str());
  if (failed > 0 && failed == static_cast<int>(names.size())) {
    throw std::runtime_error("metrics: every generator failed");
  }
}

/// --mode gates: per gate generator, yield, mean gate count, closest gate
/// centres of a valid env and the time per generate() call.
void run_metrics_gates(const MetricsOptions& o) {
  const bool all = o.batch.generator == "all" || (o.batch.generator.empty() && o.batch.config_file.empty());
  BatchOptions base = o.batch;
  if (all) base.generator.clear();
  const GateGenConfig config = make_gate_config(base, metrics_default_envs);
  const std::vector<std::string> names =
      all ? builtin_gate_generator_names() : std::vector<std::string>{config.generator};
  if (!o.json) {
    std::printf("trackgen metrics --mode gates: E=%d, seed=%d, gate_width %g, gate_radius %g\n", config.num_envs,
                o.batch.seed, config.gate_width, config.gate_radius);
    std::printf("| %-10s | %-7s | %-10s | %-12s | %-8s |\n", "gen", "yield", "mean count", "min distance", "ms/call");
    std::printf("|------------|---------|------------|--------------|----------|\n");
  }
  for (const auto& name : names) {
    GateGenConfig c = config;
    c.generator = name;
    std::vector<double> ms;
    const GateBatch b = generate_gates(c, o.batch.backend, o.batch.seed, false, &ms, o.warm + o.timed);
    const GateSummary s = summarize_gates(b);
    double timed_ms = 0.0;
    for (std::size_t i = static_cast<std::size_t>(o.warm); i < ms.size(); ++i) timed_ms += ms[i];
    timed_ms /= std::max(o.timed, 1);
    if (o.json) {
      std::cout << nlohmann::json{{"generator", name},           {"num_envs", s.num_envs},
                                  {"num_valid", s.num_valid},    {"yield", s.yield},
                                  {"mean_count", s.mean_count},  {"min_centre_distance", s.min_centre_distance},
                                  {"gen_ms_per_call", timed_ms}, {"seed", o.batch.seed},
                                  {"backend", b.backend}}
                       .dump()
                << std::endl;
    } else {
      std::printf("| %-10s | %-7.4f | %-10.3f | %-12.5f | %-8.3f |\n", name.c_str(), s.yield, s.mean_count,
                  s.min_centre_distance, timed_ms);
    }
  }
}

}  // namespace

Command add_metrics_command(CLI::App& app) {
  auto o = std::make_shared<MetricsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "metrics", "quality table of one or all generators: yield, compactness, chicanes, ...");
  add_batch_options(*cmd, o->batch, metrics_default_envs);
  cmd->get_option("--generator")
      ->description("centerline generator: " + comma_list(generator_names()) +
                    ", or 'all' for every registered one (default: all; with --config: the config's; --mode gates: " +
                    comma_list(builtin_gate_generator_names()) + ")");
  cmd->add_flag("--json", o->json, "print one JSON object per generator instead of the table");
  add_quiet_option(*cmd);
  cmd->add_option("--mode", o->mode,
                  "track: the track quality table; gates: gate yield, mean gate count and closest gate centres "
                  "per gate generator, --config then holds GateGenConfig fields (default: track)")
      ->check(CLI::IsMember({"track", "gates"}));
  return {cmd, [o] {
            if (o->mode == "gates") return run_metrics_gates(*o);
            with_backend(o->batch.backend, [&]<class Space>() { run_metrics<Space>(*o); });
          }};
}

}  // namespace trackgen::app
