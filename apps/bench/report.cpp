// The bench's reports: the tables on stdout and the JSON-lines file.
#include "bench.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace trackgen::app::bench {
namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  return fmt(u == 0 ? "%.0f" : "%.1f", b) + " " + unit[u];
}

/// Prints a table with left-aligned first column(s) and right-aligned numbers.
void print_table(const std::vector<std::string>& head, const Rows& rows, int left_cols = 1) {
  std::vector<std::size_t> w(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    w[c] = head[c].size();
    for (const auto& r : rows) w[c] = std::max(w[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string padding(w[c] - cells[c].size(), ' ');
      s += " " + (int(c) < left_cols ? cells[c] + padding : padding + cells[c]) + " |";
    }
    std::cout << s << "\n";
  };
  line(head);
  std::string rule = "|";
  for (std::size_t c = 0; c < head.size(); ++c) rule += std::string(w[c] + 2, '-') + "|";
  std::cout << rule << "\n";
  for (const auto& r : rows) line(r);
  std::cout << std::endl;
}

/// Every record of the sweep thread count, per key: measurements and skips;
/// then every error.
void print_throughput(const BenchRun& run) {
  std::printf("\nThroughput at %d thread(s) (time per generate() call, fenced; median over reps after warm-up)\n",
              run.sweep_threads);
  Rows rows;
  for (const auto& k : keys_of(run)) {
    for (const auto& r : run.records) {
      if (r.value("generator", "") != k.generator || r.value("policy", "") != k.policy) continue;
      if (!r.contains("envs") || r.value("threads", -1) != run.sweep_threads) continue;
      const std::string E = std::to_string(r["envs"].get<int>());
      if (r["record"] == "measurement") {
        rows.push_back({k.generator, k.policy, E, std::to_string(r["reps"].get<int>()),
                        fmt("%.2f", r["min_ms"].get<double>()), fmt("%.2f", r["median_ms"].get<double>()),
                        fmt("%.2f", r["max_ms"].get<double>()), fmt("%.0f", r["tracks_per_s"].get<double>()),
                        fmt("%.1f", r["us_per_track"].get<double>()), fmt("%.4f", r["yield"].get<double>()),
                        fmt("%.0f", r["bytes_per_env"].get<double>())});
      } else if (r["record"] == "skipped") {
        const std::string why = r["reason"] == "memory"
                                    ? "skipped: memory " + human_bytes(r["estimate_bytes"].get<double>())
                                    : "skipped: time (est. " + fmt("%.0f s", r["estimate_s"].get<double>()) + ")";
        rows.push_back({k.generator, k.policy, E, why, "", "", "", "", "", "", ""});
      }
    }
  }
  for (const auto& r : run.records) {
    if (r["record"] != "error") continue;
    rows.push_back({r.value("generator", "?"), r.value("policy", ""),
                    r.contains("envs") ? std::to_string(r["envs"].get<int>()) : "",
                    "error: " + r["error"].get<std::string>(), "", "", "", "", "", "", ""});
  }
  print_table({"generator", "policy", "E", "reps", "min ms", "median ms", "max ms", "tracks/s", "us/track", "yield",
               "bytes/env"},
              rows, 2);
}

void print_linearity(const BenchRun& run, const std::vector<Summary>& sums) {
  std::printf("Linear scaling: time per track from E=%d to the largest E measured at %d thread(s)\n",
              linearity_min_envs, run.sweep_threads);
  Rows rows;
  for (const auto& s : sums) {
    rows.push_back({s.key.generator, s.key.policy,
                    s.lin_points >= 2 ? std::to_string(s.lin_from) + ".." + std::to_string(s.lin_to) : "n/a",
                    fmt_na("%.1f", s.lin_min_us), fmt_na("%.1f", s.lin_max_us), fmt_na("%.3f", s.lin_ratio),
                    std::isfinite(s.lin_ratio) ? (s.lin_ratio <= linearity_tolerance ? "yes" : "NO") : "n/a"});
  }
  print_table({"generator", "policy", "E range", "min us/track", "max us/track", "max/min",
               "within " + fmt("%.0f%%", 100 * (linearity_tolerance - 1))},
              rows, 2);
}

void print_scaling(const BenchRun& run, const std::vector<Summary>& sums) {
  std::printf("Thread scaling: strong at E=%d, weak at E=%d x threads (efficiency vs %d thread(s))\n", run.strong_envs,
              run.weak_envs, run.threads.front());
  Rows rows;
  for (const auto& s : sums) {
    for (std::size_t i = 0; i < s.strong.size(); ++i) {
      const auto& a = s.strong[i];
      const auto& b = s.weak[i];
      rows.push_back({s.key.generator, s.key.policy, std::to_string(a.threads), fmt_na("%.1f", a.median_ms),
                      fmt_na("%.0f", run.strong_envs / (a.median_ms * 1e-3)), fmt_na("%.2fx", a.speedup),
                      fmt_na("%.0f%%", 100 * a.efficiency), std::to_string(b.envs), fmt_na("%.1f", b.median_ms),
                      fmt_na("%.0f%%", 100 * b.efficiency)});
    }
  }
  print_table({"generator", "policy", "threads", "strong ms", "tracks/s", "speed-up", "efficiency", "weak E", "weak ms",
               "weak eff."},
              rows, 2);
  bool any = false;
  for (const auto& s : sums) any = any || std::isfinite(s.speedup_2v1);
  if (!any) return;
  std::printf("OpenMP 2-thread vs 1-thread speed-up at E=%d:", run.strong_envs);
  for (const auto& s : sums) {
    std::printf("  %s%s %s", s.key.generator.c_str(), run.policies.size() > 1 ? ("/" + s.key.policy).c_str() : "",
                fmt_na("%.2fx", s.speedup_2v1).c_str());
  }
  std::printf("\n\n");
}

void print_memory(const BenchRun& run, const std::vector<Summary>& sums) {
  std::printf(
      "Device memory held by a TrackGenerator: per env (slope between E=1 and E=2) + fixed; and\n"
      "device_bytes()/E at the largest E measured. probe ms/track: one generate() at E=2, / 2\n");
  Rows rows;
  for (const auto& g : run.generators) {
    const Summary* s = nullptr;
    for (const auto& x : sums) {
      if (x.key.generator == g) s = &x;
    }
    const bool measured = s != nullptr && s->largest_envs > 0;
    const double bpe = run.bytes_per_env.at(g);
    rows.push_back({g, fmt("%.0f", bpe), human_bytes(bpe), human_bytes(run.fixed_bytes.at(g)),
                    fmt("%.2f", 1e3 * run.probe_s_per_track.at(g)), measured ? std::to_string(s->largest_envs) : "n/a",
                    measured ? fmt("%.0f", s->bytes_per_env_largest) : "n/a",
                    measured ? human_bytes(s->bytes_per_env_largest * s->largest_envs) : "n/a"});
  }
  print_table({"generator", "bytes/env", "", "fixed", "probe ms/track", "largest E", "bytes/env there", "total there"},
              rows, 1);
}

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

/// The summary line of one key.
json summary_json(const BenchRun& run, const Summary& s, const Timing& timing) {
  json strong = json::array(), weak = json::array();
  for (const auto& a : s.strong) {
    strong.push_back({{"threads", a.threads},
                      {"envs", a.envs},
                      {"median_ms", num(a.median_ms)},
                      {"speedup", num(a.speedup)},
                      {"efficiency", num(a.efficiency)}});
  }
  for (const auto& b : s.weak) {
    weak.push_back(
        {{"threads", b.threads}, {"envs", b.envs}, {"median_ms", num(b.median_ms)}, {"efficiency", num(b.efficiency)}});
  }
  const json within = std::isfinite(s.lin_ratio) ? json(s.lin_ratio <= linearity_tolerance) : json(nullptr);
  return {{"record", "summary"},
          {"generator", s.key.generator},
          {"policy", s.key.policy},
          {"sweep_threads", run.sweep_threads},
          {"linearity",
           {{"from_envs", s.lin_from},
            {"to_envs", s.lin_to},
            {"points", s.lin_points},
            {"min_us_per_track", num(s.lin_min_us)},
            {"max_us_per_track", num(s.lin_max_us)},
            {"max_over_min", num(s.lin_ratio)},
            {"within_25pct", within}}},
          {"strong_scaling", strong},
          {"weak_scaling", weak},
          {"speedup_2_vs_1_threads", num(s.speedup_2v1)},
          {"bytes_per_env", s.bytes_per_env_estimate},
          {"fixed_bytes", run.fixed_bytes.at(s.key.generator)},
          {"probe_s_per_track", run.probe_s_per_track.at(s.key.generator)},
          {"bytes_per_env_largest", num(s.bytes_per_env_largest)},
          {"largest_envs", s.largest_envs},
          {"wall_s", run.wall_s},
          {"config", run.base},
          {"timing", timing},
          {"context", run.context}};
}

}  // namespace

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_na(const char* f, double v) { return std::isfinite(v) ? fmt(f, v) : "n/a"; }

void print_report(const BenchRun& run, const std::vector<Summary>& sums) {
  print_throughput(run);
  print_linearity(run, sums);
  if (run.scaling) print_scaling(run, sums);
  print_memory(run, sums);
  std::printf("wall time %.1f s (%zu measurements)\n", run.wall_s, run.measurements.size());
}

void write_json_lines(const BenchRun& run, const std::vector<Summary>& sums, const Timing& timing,
                      const std::string& path) {
  std::string text;
  for (const auto& r : run.records) text += r.dump() + "\n";
  for (const auto& s : sums) text += summary_json(run, s, timing).dump() + "\n";
  write_file(path, text);
  std::printf("wrote %s\n", path.c_str());
}

}  // namespace trackgen::app::bench
