// `trackgen bench`: the scaling benchmark (issue 8).
//
// Throughput (tracks/s; time per batch min/median/max over repetitions after
// warm-up, every call fenced on the producer's instance) per generator and
// execution policy, over a sweep of batch sizes and, on OpenMP, over thread
// counts (strong scaling at a fixed E, weak scaling with E proportional to the
// threads).
//
// Kokkos 3.4 cannot be re-initialized with another thread count in one process,
// so the command plans the runs and re-executes this binary (/proc/self/exe) once
// per thread count as a worker: `trackgen --threads N bench --worker-plan JSON`.
// A worker prints one JSON object per measurement on stdout (with the full run
// context); the parent aggregates them into the tables, the JSON-lines file and
// the SVG chart. Workers print progress on stderr.
#include "app.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trackgen::app {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------------------
// Execution policy: how generate() is driven, a dimension of every point.
// `eager` runs the stages directly; `graph` replays the producer's own graph
// (recorded on the first call, which is a warm-up call here). A new policy is
// one more enumerator, name and case in to_library().
enum class BenchPolicy { eager, graph };

constexpr std::array all_policies{BenchPolicy::eager, BenchPolicy::graph};

const char* policy_name(BenchPolicy p) {
  switch (p) {
    case BenchPolicy::eager:
      return "eager";
    case BenchPolicy::graph:
      return "graph";
  }
  return "?";
}

BenchPolicy parse_policy(const std::string& name) {
  std::string names;
  for (BenchPolicy p : all_policies) {
    if (name == policy_name(p)) return p;
    names += (names.empty() ? "" : ", ") + std::string(policy_name(p));
  }
  throw ConfigError("trackgen bench: --policy '" + name + "' is not available; available: " + names);
}

/// The TrackGenerator policy behind a bench policy.
Policy to_library(BenchPolicy p) {
  switch (p) {
    case BenchPolicy::eager:
      return Policy::eager;
    case BenchPolicy::graph:
      return Policy::automatic;  // self-graph: recorded on first use, replayed after
  }
  return Policy::automatic;
}

// ---------------------------------------------------------------------------
// Options

/// How many calls a point makes. Negative/zero fields mean "adaptive".
struct Timing {
  int warmup = -1;        ///< untimed calls before timing; < 0: adaptive
  int reps = 0;           ///< timed calls; 0: adaptive
  double min_time = 2.0;  ///< adaptive reps: keep timing until this many seconds are spent
  double warm_time = 0.5; ///< adaptive warm-up: keep warming until this many seconds are spent
  int min_reps = 3;       ///< adaptive reps: at least this many
  int max_reps = 50;      ///< adaptive reps: at most this many
  int max_warmup = 10;    ///< adaptive warm-up: at most this many calls

  /// Estimated seconds of a point whose calls take `call_s` each.
  double estimate(double call_s) const {
    const double warm = warmup >= 0 ? warmup * call_s : std::max(call_s, std::min(warm_time, max_warmup * call_s));
    const double timed = reps > 0 ? reps * call_s : std::max(min_reps * call_s, std::min(min_time, max_reps * call_s));
    // + construction (allocation, fills and the producer's warm-up pass), + margin
    return 1.15 * (warm + timed + 1.2 * call_s);
  }
};

void to_json(json& j, const Timing& t) {
  j = {{"warmup", t.warmup},     {"reps", t.reps},         {"min_time_s", t.min_time}, {"warm_time_s", t.warm_time},
       {"min_reps", t.min_reps}, {"max_reps", t.max_reps}, {"max_warmup", t.max_warmup}};
}
void from_json(const json& j, Timing& t) {
  t.warmup = j.at("warmup");
  t.reps = j.at("reps");
  t.min_time = j.at("min_time_s");
  t.warm_time = j.at("warm_time_s");
  t.min_reps = j.at("min_reps");
  t.max_reps = j.at("max_reps");
  t.max_warmup = j.at("max_warmup");
}

struct BenchOptions {
  BatchOptions batch;  // config, generator, seed, backend (envs unused: see envs_list)
  std::vector<int> envs_list{64, 256, 1024, 4096, 16384, 65536};
  std::vector<int> threads_list;  // empty: powers of two up to the OpenMP concurrency, and it
  std::vector<std::string> policies{"graph"};
  int scaling_envs = 2048;  // strong scaling E
  int weak_envs = 0;        // weak scaling envs per thread; 0: scaling_envs / max threads
  Timing timing;
  double time_budget = 420.0;  // seconds; 0: unlimited
  double max_memory_mb = 0.0;  // 0: half of the physical memory
  std::string json_out = "bench.jsonl";
  std::string svg_out;
  std::string worker_plan;  // hidden: run as a worker
};

// ---------------------------------------------------------------------------
// Context recorded with every line

std::string read_first_matching_line(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return line;
      auto v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "unknown";
}

std::string read_file_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string kokkos_version_string() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%02d", KOKKOS_VERSION / 10000, (KOKKOS_VERSION / 100) % 100,
                KOKKOS_VERSION % 100);
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double physical_memory_mb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) / (1024.0 * 1024.0) : 4096.0;
}

/// Library, Kokkos, execution space, threads, OMP environment, CPU, machine.
template <class Space>
json run_context(const Space& space, int threads_requested) {
  json omp = json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("OMP_", 0) == 0 || kv.rfind("GOMP_", 0) == 0 || kv.rfind("KOKKOS_", 0) == 0) {
      const auto eq = kv.find('=');
      omp[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    }
  }
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return {{"trackgen_version", version()},
          {"git_revision", git_revision()},
          {"kokkos_version", kokkos_version_string()},
          {"kokkos_backends", backend_names()},
          {"execution_space", Space::name()},
          {"concurrency", compat::concurrency(space)},
          {"threads_requested", threads_requested},
          {"omp_env", omp},
          {"cpu_model", read_first_matching_line("/proc/cpuinfo", "model name")},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"physical_memory_mb", std::round(physical_memory_mb())},
          {"hostname", host},
          {"loadavg", read_file_line("/proc/loadavg")},
          {"compiler", __VERSION__},
#if defined(NDEBUG)
          {"ndebug", true},
#else
          {"ndebug", false},
#endif
          {"timestamp", utc_now()}};
}

// ---------------------------------------------------------------------------
// Worker: measures the points of its plan, one JSON line each

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

/// Builds a producer of `E` envs and times generate() under `policy`.
template <class Space>
json measure_point(const TrackGenConfig& base, const std::string& generator, int E, BenchPolicy policy,
                   const Timing& timing, int seed) {
  TrackGenConfig config = base;
  config.generator = generator;
  config.num_envs = E;
  const auto t_build = Clock::now();
  TrackGenerator<Space> gen(config, SeedState<Space>(E, seed));
  gen.set_policy(to_library(policy));
  gen.space().fence();
  const double construct_ms = 1e3 * seconds_since(t_build);

  auto timed_call = [&] {
    const auto t0 = Clock::now();
    gen.generate();
    gen.space().fence();
    return 1e3 * seconds_since(t0);
  };

  // Warm-up: the first call always; adaptive: more until warm_time is spent.
  const auto t_warm = Clock::now();
  const double first_ms = timed_call();
  int warm = 1;
  if (timing.warmup >= 0) {
    for (; warm < timing.warmup; ++warm) timed_call();
    warm = std::max(timing.warmup, 1);
  } else {
    while (warm < timing.max_warmup && seconds_since(t_warm) < timing.warm_time) {
      timed_call();
      ++warm;
    }
  }

  std::vector<double> ms;
  const auto t_reps = Clock::now();
  if (timing.reps > 0) {
    for (int r = 0; r < timing.reps; ++r) ms.push_back(timed_call());
  } else {
    while (static_cast<int>(ms.size()) < timing.min_reps ||
           (static_cast<int>(ms.size()) < timing.max_reps && seconds_since(t_reps) < timing.min_time)) {
      ms.push_back(timed_call());
    }
  }

  auto valid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gen.track().valid);
  long n_valid = 0;
  for (int e = 0; e < E; ++e) n_valid += valid(e) != 0 ? 1 : 0;

  const double med = median_of(ms);
  double sum = 0.0;
  for (double v : ms) sum += v;
  const std::size_t bytes = gen.device_bytes();
  return {{"generator", generator},
          {"policy", policy_name(policy)},
          {"envs", E},
          {"warmup_calls", warm},
          {"reps", ms.size()},
          {"construct_ms", construct_ms},
          {"first_call_ms", first_ms},
          {"times_ms", ms},
          {"min_ms", *std::min_element(ms.begin(), ms.end())},
          {"median_ms", med},
          {"mean_ms", sum / double(ms.size())},
          {"max_ms", *std::max_element(ms.begin(), ms.end())},
          {"tracks_per_s", E / (med * 1e-3)},
          {"us_per_track", 1e3 * med / E},
          {"yield", double(n_valid) / E},
          {"capturable", gen.capturable()},
          {"device_bytes", bytes},
          {"bytes_per_env", double(bytes) / E}};
}

void emit(const json& record) { std::cout << record.dump() << std::endl; }

/// Runs the plan level by level: every (generator, policy) at the smallest E,
/// then at the next E, ... Under a budget, a level runs the points whose
/// estimated cost (Timing::estimate of the time per track measured at the
/// previous level, or the plan's hint) fits in what is left, cheapest first; a
/// point that does not fit is skipped with every larger E of its generator.
template <class Space>
void run_worker(const json& plan) {
  const auto t_start = Clock::now();
  Space space;
  const int threads = plan.at("threads");
  const std::string phase = plan.at("phase");
  const json context = run_context(space, threads);
  const TrackGenConfig base = plan.at("config").get<TrackGenConfig>();
  const Timing timing = plan.at("timing").get<Timing>();
  const int seed = plan.at("seed");
  const double budget = plan.at("budget_s");
  const double point_cap = plan.value("point_cap_s", 0.0);  // no single point may cost more (fair share)
  std::vector<BenchPolicy> policies;
  for (const auto& p : plan.at("policies")) policies.push_back(parse_policy(p.get<std::string>()));
  const int conc = compat::concurrency(space);

  struct Unit {  // one generator under one policy
    std::string name;
    BenchPolicy policy;
    std::set<int> envs;
    double tpt = 0.0;  // seconds per track (last measurement or hint); 0: unknown
    bool stopped = false;  // skipped for the time budget from some E on
    bool failed = false;   // threw; the error is recorded
  };
  std::vector<Unit> units;
  std::set<int> levels;
  for (const auto& g : plan.at("generators")) {
    const std::vector<int> envs = g.at("envs");
    for (BenchPolicy p : policies) {
      units.push_back({g.at("name"), p, {envs.begin(), envs.end()},
                       g.contains("tpt_hint_s") ? g.at("tpt_hint_s").get<double>() : 0.0, false, false});
    }
    levels.insert(envs.begin(), envs.end());
  }
  std::size_t total = 0, done = 0;
  for (const auto& u : units) total += u.envs.size();

  for (int E : levels) {
    std::vector<std::size_t> here;
    for (std::size_t i = 0; i < units.size(); ++i)
      if (units[i].envs.count(E)) here.push_back(i);
    // choose what fits, cheapest first (unknown cost: always run)
    std::vector<std::size_t> order = here;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return units[a].tpt < units[b].tpt; });
    std::set<std::size_t> run;
    double planned = 0.0;
    std::map<std::size_t, double> est;
    for (std::size_t i : order) {
      Unit& u = units[i];
      if (u.failed) continue;
      est[i] = u.tpt > 0 ? timing.estimate(u.tpt * E) : 0.0;
      const bool over = budget > 0 && u.tpt > 0 &&
                        (seconds_since(t_start) + planned + est[i] > budget || (point_cap > 0 && est[i] > point_cap));
      if (u.stopped || over) {
        u.stopped = true;  // this E and every larger one
        continue;
      }
      planned += est[i];
      run.insert(i);
    }
    for (std::size_t i : here) {
      Unit& u = units[i];
      ++done;
      json rec = {{"record", "measurement"}, {"phase", phase}, {"generator", u.name}, {"policy", policy_name(u.policy)},
                  {"envs", E}, {"threads", conc}};
      if (!run.count(i)) {
        if (u.failed) continue;  // its error is recorded
        rec["record"] = "skipped";
        rec["reason"] = "time budget";
        rec["estimate_s"] = est[i];
        rec["budget_left_s"] = budget - seconds_since(t_start);
        rec["point_cap_s"] = point_cap;
        rec["context"] = context;
        std::fprintf(stderr, "[bench %s t=%d] %zu/%zu %s E=%d %s: skipped (estimated %.0f s; %.0f s left of the budget, %.0f s per point at most)\n",
                     phase.c_str(), conc, done, total, u.name.c_str(), E, policy_name(u.policy),
                     rec["estimate_s"].get<double>(), std::max(0.0, budget - seconds_since(t_start)), point_cap);
        emit(rec);
        continue;
      }
      const std::string est_text = est[i] > 0 ? " (est. " + std::to_string(int(std::ceil(est[i]))) + " s)" : "";
      std::fprintf(stderr, "[bench %s t=%d] %zu/%zu %s E=%d %s%s ...", phase.c_str(), conc, done, total,
                   u.name.c_str(), E, policy_name(u.policy), est_text.c_str());
      std::fflush(stderr);
      try {
        json m = measure_point<Space>(base, u.name, E, u.policy, timing, seed);
        rec.update(m);
        u.tpt = m.at("median_ms").get<double>() * 1e-3 / E;
        std::fprintf(stderr, " median %.2f ms, %.0f tracks/s (%d reps, %.0f s elapsed)\n",
                     m.at("median_ms").get<double>(), m.at("tracks_per_s").get<double>(), m.at("reps").get<int>(),
                     seconds_since(t_start));
      } catch (const std::exception& e) {
        rec["record"] = "error";
        rec["error"] = e.what();
        std::fprintf(stderr, " failed: %s\n", e.what());
        u.failed = true;
      }
      TrackGenConfig c = base;
      c.generator = u.name;
      c.num_envs = E;
      rec["config"] = c;
      rec["timing"] = timing;
      rec["seed"] = seed;
      rec["context"] = context;
      emit(rec);
    }
  }
}

// ---------------------------------------------------------------------------
// Parent: plan, run the workers, aggregate

std::string self_exe() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) throw std::runtime_error("bench: cannot resolve /proc/self/exe: " + std::string(std::strerror(errno)));
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

/// Runs `trackgen [--threads N] bench --worker-plan PLAN` and returns its records.
/// Other stdout lines of the worker (Kokkos' start-up notes) go to stderr, once.
std::vector<json> run_worker_process(int threads, const json& plan, std::set<std::string>& notes) {
  std::vector<std::string> args{self_exe()};
  if (threads > 0) {
    args.push_back("--threads");
    args.push_back(std::to_string(threads));
  }
  args.push_back("bench");
  args.push_back("--worker-plan");
  args.push_back(plan.dump());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("bench: pipe() failed: " + std::string(std::strerror(errno)));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {
    close(fd[0]);
    throw std::runtime_error("bench: cannot start worker " + args[0] + ": " + std::strerror(rc));
  }
  std::vector<json> records;
  FILE* in = fdopen(fd[0], "r");
  char* line = nullptr;
  std::size_t cap = 0;
  ssize_t len = 0;
  while ((len = getline(&line, &cap, in)) > 0) {
    std::string s(line, static_cast<std::size_t>(len));
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty() && s.front() == '{') {
      json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("record")) {
        records.push_back(std::move(j));
        continue;
      }
    }
    if (!s.empty() && notes.insert(s).second) std::cerr << "[worker] " << s << "\n";
  }
  std::free(line);
  std::fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("bench: worker (threads " + std::to_string(threads) + ") failed with status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status)));
  }
  return records;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// fmt, or "n/a" when v is not finite.
std::string fmt_na(const char* f, double v) { return std::isfinite(v) ? fmt(f, v) : "n/a"; }

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
void print_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                 int left_cols = 1) {
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

struct Key {
  std::string generator, policy;
  auto operator<=>(const Key&) const = default;
};

/// Median time of the measurement of (key, E, threads), or NaN.
double median_at(const std::vector<json>& meas, const Key& k, int E, int threads) {
  for (const auto& m : meas) {
    if (m["generator"] == k.generator && m["policy"] == k.policy && m["envs"] == E && m["threads"] == threads) {
      return m["median_ms"].get<double>();
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  bool dashed = false;
  int color = 0;
};

/// One chart panel at (x0, y0) of size w x h. log_x/log_y: base-10 log axes
/// (ticks at powers of `x_base` on x).
std::string svg_panel(double x0, double y0, double w, double h, const std::string& title, const std::string& xlabel,
                      const std::string& ylabel, const std::vector<Series>& series, bool log_x, bool log_y,
                      double x_base, double y_fixed_lo = NAN, double y_fixed_hi = NAN, double y_ref = NAN) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                 "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  std::ostringstream s;
  const double ml = 70, mr = 10, mt = 30, mb = 45;
  const double pw = w - ml - mr, ph = h - mt - mb;
  s << "<g transform=\"translate(" << x0 << "," << y0 << ")\">\n";
  s << "<text x=\"" << ml + pw / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">"
    << xml_escape(title) << "</text>\n";
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& se : series) {
    for (auto [x, y] : se.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (log_x && x <= 0) || (log_y && y <= 0)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  }
  s << "<rect x=\"" << ml << "\" y=\"" << mt << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"white\" stroke=\"#444\"/>\n";
  if (!(xmin <= xmax)) {
    s << "<text x=\"" << ml + pw / 2 << "\" y=\"" << mt + ph / 2
      << "\" text-anchor=\"middle\" font-size=\"12\" fill=\"#666\">no data (one thread count only)</text>\n</g>\n";
    return s.str();
  }
  auto tx = [&](double v) { return log_x ? std::log(v) / std::log(x_base) : v; };
  auto ty = [&](double v) { return log_y ? std::log10(v) : v; };
  double ax0 = tx(xmin), ax1 = tx(xmax), ay0 = ty(ymin), ay1 = ty(ymax);
  if (log_x) {
    ax0 = std::floor(ax0);
    ax1 = std::ceil(ax1);
  } else {
    ax0 = std::min(0.0, ax0);
    ax1 = ax1 + 0.5;
  }
  if (log_y) {
    ay0 = std::floor(ay0);
    ay1 = std::ceil(ay1);
  }
  if (std::isfinite(y_fixed_lo)) ay0 = y_fixed_lo;
  if (std::isfinite(y_fixed_hi)) ay1 = std::max(y_fixed_hi, ay1 * 1.05);
  if (ax1 <= ax0) ax1 = ax0 + 1;
  if (ay1 <= ay0) ay1 = ay0 + 1;
  auto px = [&](double v) { return ml + (tx(v) - ax0) / (ax1 - ax0) * pw; };
  auto py = [&](double v) { return mt + ph - (ty(v) - ay0) / (ay1 - ay0) * ph; };
  auto pyraw = [&](double a) { return mt + ph - (a - ay0) / (ay1 - ay0) * ph; };
  // x ticks
  if (log_x) {
    for (double a = ax0; a <= ax1 + 1e-9; a += 1) {
      const double v = std::pow(x_base, a), X = ml + (a - ax0) / (ax1 - ax0) * pw;
      s << "<line x1=\"" << X << "\" y1=\"" << mt << "\" x2=\"" << X << "\" y2=\"" << mt + ph
        << "\" stroke=\"#ddd\"/><text x=\"" << X << "\" y=\"" << mt + ph + 16
        << "\" text-anchor=\"middle\" font-size=\"11\">" << fmt("%.0f", v) << "</text>\n";
    }
  } else {
    for (double a = std::ceil(ax0); a <= ax1 + 1e-9; a += std::max(1.0, std::round((ax1 - ax0) / 8))) {
      const double X = ml + (a - ax0) / (ax1 - ax0) * pw;
      s << "<line x1=\"" << X << "\" y1=\"" << mt << "\" x2=\"" << X << "\" y2=\"" << mt + ph
        << "\" stroke=\"#ddd\"/><text x=\"" << X << "\" y=\"" << mt + ph + 16
        << "\" text-anchor=\"middle\" font-size=\"11\">" << fmt("%.0f", a) << "</text>\n";
    }
  }
  // y ticks
  if (log_y) {
    for (double a = ay0; a <= ay1 + 1e-9; a += 1) {
      for (int m : {1, 2, 5}) {
        const double la = a + std::log10(double(m));
        if (la > ay1 + 1e-9) break;
        const double Y = pyraw(la);
        s << "<line x1=\"" << ml << "\" y1=\"" << Y << "\" x2=\"" << ml + pw << "\" y2=\"" << Y << "\" stroke=\""
          << (m == 1 ? "#ccc" : "#eee") << "\"/><text x=\"" << ml - 5 << "\" y=\"" << Y + 4
          << "\" text-anchor=\"end\" font-size=\"11\">" << fmt("%g", std::pow(10.0, la)) << "</text>\n";
      }
    }
  } else {
    const double step = (ay1 - ay0) > 1.5 ? 0.5 : 0.2;
    for (double a = std::ceil(ay0 / step) * step; a <= ay1 + 1e-9; a += step) {
      const double Y = pyraw(a);
      s << "<line x1=\"" << ml << "\" y1=\"" << Y << "\" x2=\"" << ml + pw << "\" y2=\"" << Y
        << "\" stroke=\"#eee\"/><text x=\"" << ml - 5 << "\" y=\"" << Y + 4
        << "\" text-anchor=\"end\" font-size=\"11\">" << fmt("%.1f", a) << "</text>\n";
    }
  }
  if (std::isfinite(y_ref)) {
    const double Y = pyraw(y_ref);
    s << "<line x1=\"" << ml << "\" y1=\"" << Y << "\" x2=\"" << ml + pw << "\" y2=\"" << Y
      << "\" stroke=\"#888\" stroke-dasharray=\"2,3\"/>\n";
  }
  s << "<text x=\"" << ml + pw / 2 << "\" y=\"" << h - 8 << "\" text-anchor=\"middle\" font-size=\"12\">"
    << xml_escape(xlabel) << "</text>\n";
  s << "<text transform=\"translate(16," << mt + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">"
    << xml_escape(ylabel) << "</text>\n";
  // series
  int li = 0;
  for (const auto& se : series) {
    bool any = false;
    for (auto [x, y] : se.points) any = any || (std::isfinite(x) && std::isfinite(y));
    if (!any) continue;  // nothing measured (e.g. every size skipped): no line, no legend entry
    const char* col = colors[se.color % 10];
    std::string pts;
    for (auto [x, y] : se.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (log_x && x <= 0) || (log_y && y <= 0)) continue;
      pts += fmt("%.1f", px(x)) + "," + fmt("%.1f", py(y)) + " ";
      s << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"3\" fill=\"" << col << "\"/>\n";
    }
    s << "<polyline points=\"" << pts << "\" fill=\"none\" stroke=\"" << col << "\" stroke-width=\"2\""
      << (se.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n";
    const double ly = mt + 14 + 16 * li++;
    s << "<line x1=\"" << ml + 10 << "\" y1=\"" << ly - 4 << "\" x2=\"" << ml + 34 << "\" y2=\"" << ly - 4
      << "\" stroke=\"" << col << "\" stroke-width=\"2\"" << (se.dashed ? " stroke-dasharray=\"6,4\"" : "")
      << "/><text x=\"" << ml + 40 << "\" y=\"" << ly << "\" font-size=\"11\">" << xml_escape(se.name) << "</text>\n";
  }
  s << "</g>\n";
  return s.str();
}

struct ScalingRow {
  int threads;
  int envs;
  double median_ms;
  double speedup;     // strong: T(t0)/T(t); weak: unused (NaN)
  double efficiency;  // strong: speedup * t0 / t; weak: T(t0, E0) / T(t, E)
};

struct Summary {
  Key key;
  // linear scaling over E >= 1024 at the sweep thread count
  int lin_from = 0, lin_to = 0, lin_points = 0;
  double lin_min_us = NAN, lin_max_us = NAN, lin_ratio = NAN;
  std::vector<ScalingRow> strong, weak;
  double speedup_2v1 = NAN;
  double bytes_per_env_estimate = NAN, bytes_per_env_largest = NAN;
  int largest_envs = 0;
};

template <class Space>
void run_bench(const BenchOptions& o) {
  const auto t_start = Clock::now();
  Space space;

  // --- what to run
  const bool all = o.batch.generator.empty() || o.batch.generator == "all";
  BatchOptions bo = o.batch;
  if (all) bo.generator.clear();
  const TrackGenConfig base = make_config(bo, 64);
  const std::vector<std::string> generators =
      all ? available_generators<Space>() : std::vector<std::string>{base.generator};
  std::vector<BenchPolicy> policies;
  for (const auto& p : o.policies) policies.push_back(parse_policy(p));
  std::vector<std::string> policy_names;
  for (BenchPolicy p : policies) policy_names.push_back(policy_name(p));

  bool openmp = false;
#if defined(KOKKOS_ENABLE_OPENMP)
  openmp = std::is_same_v<Space, Kokkos::OpenMP>;
#endif
  std::vector<int> threads = o.threads_list;
  const int conc = compat::concurrency(space);
  if (!openmp) {
    if (!threads.empty()) std::cerr << "trackgen bench: --threads-list applies to the OpenMP backend only; ignored\n";
    threads = {0};
  } else if (threads.empty()) {
    for (int t = 1; t < conc; t *= 2) threads.push_back(t);
    threads.push_back(conc);
  }
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  const int t_max = threads.back();
  const bool scaling = threads.size() > 1;
  const int strong_E = o.scaling_envs;
  const int weak_E = o.weak_envs > 0 ? o.weak_envs : std::max(1, strong_E / std::max(1, t_max));
  std::vector<int> sweep = o.envs_list;
  std::sort(sweep.begin(), sweep.end());
  sweep.erase(std::unique(sweep.begin(), sweep.end()), sweep.end());
  const double max_mb = o.max_memory_mb > 0 ? o.max_memory_mb : 0.5 * physical_memory_mb();

  const json context = run_context(space, 0);
  std::printf("trackgen bench: TrackGen %s (%s), Kokkos %s [%s], backend %s\n", version(), git_revision(),
              kokkos_version_string().c_str(), [] {
                std::string s;
                for (const auto& n : backend_names()) s += (s.empty() ? "" : ",") + n;
                return s;
              }().c_str(), Space::name());
  std::printf("  CPU %s (%u logical), memory cap %.0f MiB, time budget %s, policies %s\n",
              context["cpu_model"].get<std::string>().c_str(), std::thread::hardware_concurrency(), max_mb,
              o.time_budget > 0 ? fmt("%.0f s", o.time_budget).c_str() : "none", [&] {
                std::string s;
                for (const auto& n : policy_names) s += (s.empty() ? "" : ",") + n;
                return s;
              }().c_str());
  std::fflush(stdout);

  // --- probe every generator at two tiny batches (E=1 and E=2): device bytes per
  // env (the slope, so memory a producer holds once is not counted per env) and
  // the fixed part, for the memory cap; a rough time per track (one generate()
  // at E=2, after construction) for the time budget's first estimates.
  // Generators that fail to build are reported and left out.
  std::map<std::string, double> bpe, fixed_bytes, probe_tpt;
  std::vector<json> records;
  std::vector<std::string> gens_ok;
  for (const auto& g : generators) {
    TrackGenConfig c = base;
    c.generator = g;
    try {
      // returns (device bytes, seconds of one fenced generate() after construction)
      auto build = [&](int E) {
        c.num_envs = E;
        TrackGenerator<Space> probe(c, SeedState<Space>(E, o.batch.seed));
        probe.space().fence();
        const auto t0 = Clock::now();
        probe.generate();
        probe.space().fence();
        return std::pair<double, double>(double(probe.device_bytes()), seconds_since(t0));
      };
      c.num_envs = 1;
      TrackGenConfig c1 = c;
      const double b1 = [&] {
        TrackGenerator<Space> probe(c1, SeedState<Space>(1, o.batch.seed));
        return double(probe.device_bytes());
      }();
      const auto [b2, s2] = build(2);
      bpe[g] = std::max(0.0, b2 - b1);
      fixed_bytes[g] = std::max(0.0, b1 - bpe[g]);
      probe_tpt[g] = s2 / 2.0;
      gens_ok.push_back(g);
    } catch (const std::exception& e) {
      std::cerr << "trackgen bench: generator '" << g << "' skipped: " << e.what() << "\n";
      records.push_back({{"record", "error"}, {"generator", g}, {"error", e.what()}, {"context", context}});
    }
  }
  if (gens_ok.empty()) throw std::runtime_error("bench: no generator could be built");

  auto mem_bytes = [&](const std::string& g, int E) { return fixed_bytes[g] + bpe[g] * E; };
  auto fits = [&](const std::string& g, int E) { return mem_bytes(g, E) <= max_mb * 1024.0 * 1024.0; };
  auto skip_memory = [&](const std::string& g, int E, int t) {
    for (const auto& p : policy_names) {
      records.push_back({{"record", "skipped"}, {"phase", "plan"}, {"generator", g}, {"policy", p}, {"envs", E},
                         {"threads", t}, {"reason", "memory"}, {"estimate_bytes", mem_bytes(g, E)},
                         {"max_memory_mb", max_mb}, {"context", context}});
    }
  };

  json plan_base = {{"config", base},        {"timing", o.timing}, {"seed", o.batch.seed},
                    {"policies", policy_names}, {"backend", o.batch.backend}};
  std::set<std::string> notes;
  std::vector<json> meas;
  auto collect = [&](std::vector<json> recs) {
    for (auto& r : recs) {
      if (r["record"] == "measurement") meas.push_back(r);
      records.push_back(std::move(r));
    }
  };

  // --- phase 1: the sweep (and the scaling points) at the largest thread count
  {
    json plan = plan_base;
    plan["threads"] = t_max;
    plan["phase"] = "sweep";
    const double phase_budget = o.time_budget > 0 ? o.time_budget * (scaling ? 0.75 : 1.0) - seconds_since(t_start) : 0;
    plan["budget_s"] = o.time_budget > 0 ? std::max(1.0, phase_budget) : 0.0;
    plan["point_cap_s"] = plan["budget_s"].get<double>() / double(gens_ok.size() * policies.size());
    plan["generators"] = json::array();
    for (const auto& g : gens_ok) {
      std::set<int> es(sweep.begin(), sweep.end());
      if (scaling) {
        es.insert(strong_E);
        es.insert(weak_E * t_max);
      }
      std::vector<int> keep;
      for (int E : es) {
        if (fits(g, E)) {
          keep.push_back(E);
        } else {
          skip_memory(g, E, t_max > 0 ? t_max : conc);
        }
      }
      plan["generators"].push_back({{"name", g}, {"envs", keep}, {"tpt_hint_s", probe_tpt[g]}});
    }
    std::fprintf(stderr, "[bench] sweep at %d thread(s): %zu generator(s) x E in {", t_max > 0 ? t_max : conc,
                 gens_ok.size());
    for (std::size_t i = 0; i < sweep.size(); ++i) std::fprintf(stderr, "%s%d", i ? "," : "", sweep[i]);
    std::fprintf(stderr, "}\n");
    collect(run_worker_process(openmp ? t_max : 0, plan, notes));
  }

  // --- phase 2: the other thread counts (strong and weak scaling points)
  for (std::size_t ti = 0; scaling && ti + 1 < threads.size(); ++ti) {
    const int t = threads[ti];
    json plan = plan_base;
    plan["threads"] = t;
    plan["phase"] = "scaling";
    // what is left, but at least the quarter of the budget reserved for this phase
    // (so an overrun of the sweep does not cost the speed-up numbers)
    const double reserved = 0.25 * o.time_budget * double(threads.size() - 1 - ti) / double(threads.size() - 1);
    const double left = o.time_budget > 0 ? std::max(o.time_budget - seconds_since(t_start), reserved) : 0.0;
    plan["budget_s"] = o.time_budget > 0 ? std::max(1.0, left / double(threads.size() - 1 - ti)) : 0.0;
    plan["point_cap_s"] = plan["budget_s"].get<double>() / double(gens_ok.size() * policies.size());
    plan["generators"] = json::array();
    for (const auto& g : gens_ok) {
      std::set<int> es{strong_E, weak_E * t};
      std::vector<int> keep;
      for (int E : es) {
        if (fits(g, E)) {
          keep.push_back(E);
        } else {
          skip_memory(g, E, t);
        }
      }
      json entry = {{"name", g}, {"envs", keep}};
      // time per track at t_max near these sizes, scaled to t threads: the budget's estimate
      double best = 0.0;
      int best_dist = std::numeric_limits<int>::max();
      for (const auto& m : meas) {
        if (m["generator"] != g || m["threads"] != t_max) continue;
        const int d = std::abs(m["envs"].get<int>() - strong_E);
        if (d < best_dist) {
          best_dist = d;
          best = m["median_ms"].get<double>() * 1e-3 / m["envs"].get<int>();
        }
      }
      entry["tpt_hint_s"] = best > 0 ? best * double(t_max) / double(t) : probe_tpt[g] * double(conc) / double(t);
      plan["generators"].push_back(entry);
    }
    std::fprintf(stderr, "[bench] scaling at %d thread(s): E in {%d, %d}\n", t, std::min(strong_E, weak_E * t),
                 std::max(strong_E, weak_E * t));
    collect(run_worker_process(t, plan, notes));
  }

  // --- analysis
  const int t_sweep = openmp ? t_max : (meas.empty() ? conc : meas.front()["threads"].get<int>());
  std::vector<Key> keys;
  for (const auto& g : gens_ok)
    for (const auto& p : policy_names) keys.push_back({g, p});

  std::printf("\nThroughput at %d thread(s) (time per generate() call, fenced; median over reps after warm-up)\n",
              t_sweep);
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : keys) {
    for (const auto& r : records) {
      if (r.value("generator", "") != k.generator || r.value("policy", "") != k.policy) continue;
      if (!r.contains("envs") || r.value("threads", -1) != t_sweep) continue;
      if (r["record"] == "measurement") {
        rows.push_back({k.generator, k.policy, std::to_string(r["envs"].get<int>()), std::to_string(r["reps"].get<int>()),
                        fmt("%.2f", r["min_ms"].get<double>()), fmt("%.2f", r["median_ms"].get<double>()),
                        fmt("%.2f", r["max_ms"].get<double>()), fmt("%.0f", r["tracks_per_s"].get<double>()),
                        fmt("%.1f", r["us_per_track"].get<double>()), fmt("%.4f", r["yield"].get<double>()),
                        fmt("%.0f", r["bytes_per_env"].get<double>())});
      } else if (r["record"] == "skipped") {
        const std::string why = r["reason"] == "memory"
                                    ? "skipped: memory " + human_bytes(r["estimate_bytes"].get<double>())
                                    : "skipped: time (est. " + fmt("%.0f s", r["estimate_s"].get<double>()) + ")";
        rows.push_back({k.generator, k.policy, std::to_string(r["envs"].get<int>()), why, "", "", "", "", "", "", ""});
      }
    }
  }
  for (const auto& r : records) {
    if (r["record"] == "error") {
      rows.push_back({r.value("generator", "?"), r.value("policy", ""), r.contains("envs") ? std::to_string(r["envs"].get<int>()) : "",
                      "error: " + r["error"].get<std::string>(), "", "", "", "", "", "", ""});
    }
  }
  print_table({"generator", "policy", "E", "reps", "min ms", "median ms", "max ms", "tracks/s", "us/track", "yield",
               "bytes/env"},
              rows, 2);

  std::vector<Summary> sums;
  for (const auto& k : keys) {
    Summary s;
    s.key = k;
    s.bytes_per_env_estimate = bpe[k.generator];
    // linearity: time per track over E >= 1024 at the sweep thread count
    for (const auto& m : meas) {
      if (m["generator"] != k.generator || m["policy"] != k.policy || m["threads"] != t_sweep) continue;
      const int E = m["envs"];
      if (E > s.largest_envs) {
        s.largest_envs = E;
        s.bytes_per_env_largest = m["bytes_per_env"];
      }
      if (E < 1024 || m["phase"] != "sweep") continue;
      const double us = m["us_per_track"];
      if (s.lin_points == 0 || E < s.lin_from) s.lin_from = E;
      if (s.lin_points == 0 || E > s.lin_to) s.lin_to = E;
      s.lin_min_us = s.lin_points == 0 ? us : std::min(s.lin_min_us, us);
      s.lin_max_us = s.lin_points == 0 ? us : std::max(s.lin_max_us, us);
      ++s.lin_points;
    }
    if (s.lin_points >= 2) s.lin_ratio = s.lin_max_us / s.lin_min_us;
    if (scaling) {
      const int t0 = threads.front();
      const double strong0 = median_at(meas, k, strong_E, t0);
      const double weak0 = median_at(meas, k, weak_E * t0, t0);
      for (int t : threads) {
        const double ms = median_at(meas, k, strong_E, t);
        const double sp = strong0 / ms;
        s.strong.push_back({t, strong_E, ms, sp, sp * t0 / t});
        const double wms = median_at(meas, k, weak_E * t, t);
        s.weak.push_back({t, weak_E * t, wms, NAN, weak0 / wms});
        if (t0 == 1 && t == 2) s.speedup_2v1 = sp;
      }
    }
    sums.push_back(s);
  }

  std::printf("Linear scaling: time per track from E=1024 to the largest E measured at %d thread(s)\n", t_sweep);
  rows.clear();
  for (const auto& s : sums) {
    rows.push_back({s.key.generator, s.key.policy,
                    s.lin_points >= 2 ? std::to_string(s.lin_from) + ".." + std::to_string(s.lin_to) : "n/a",
                    fmt_na("%.1f", s.lin_min_us), fmt_na("%.1f", s.lin_max_us), fmt_na("%.3f", s.lin_ratio),
                    std::isfinite(s.lin_ratio) ? (s.lin_ratio <= 1.25 ? "yes" : "NO") : "n/a"});
  }
  print_table({"generator", "policy", "E range", "min us/track", "max us/track", "max/min", "within 25%"}, rows, 2);

  if (scaling) {
    std::printf("Thread scaling: strong at E=%d, weak at E=%d x threads (efficiency vs %d thread(s))\n", strong_E,
                weak_E, threads.front());
    rows.clear();
    for (const auto& s : sums) {
      for (std::size_t i = 0; i < s.strong.size(); ++i) {
        const auto& a = s.strong[i];
        const auto& b = s.weak[i];
        rows.push_back({s.key.generator, s.key.policy, std::to_string(a.threads), fmt_na("%.1f", a.median_ms),
                        fmt_na("%.0f", strong_E / (a.median_ms * 1e-3)), fmt_na("%.2fx", a.speedup),
                        fmt_na("%.0f%%", 100 * a.efficiency), std::to_string(b.envs), fmt_na("%.1f", b.median_ms),
                        fmt_na("%.0f%%", 100 * b.efficiency)});
      }
    }
    print_table({"generator", "policy", "threads", "strong ms", "tracks/s", "speed-up", "efficiency", "weak E",
                 "weak ms", "weak eff."},
                rows, 2);
    bool any = false;
    for (const auto& s : sums) any = any || std::isfinite(s.speedup_2v1);
    if (any) {
      std::printf("OpenMP 2-thread vs 1-thread speed-up at E=%d:", strong_E);
      for (const auto& s : sums) {
        std::printf("  %s%s %s", s.key.generator.c_str(), policy_names.size() > 1 ? ("/" + s.key.policy).c_str() : "",
                    fmt_na("%.2fx", s.speedup_2v1).c_str());
      }
      std::printf("\n\n");
    }
  }

  std::printf("Device memory held by a TrackGenerator: per env (slope between E=1 and E=2) + fixed; and\n"
              "device_bytes()/E at the largest E measured. probe ms/track: one generate() at E=2, / 2\n");
  rows.clear();
  for (const auto& g : gens_ok) {
    const Summary* s = nullptr;
    for (const auto& x : sums)
      if (x.key.generator == g) s = &x;
    rows.push_back({g, fmt("%.0f", bpe[g]), human_bytes(bpe[g]), human_bytes(fixed_bytes[g]),
                    fmt("%.2f", 1e3 * probe_tpt[g]),
                    s && s->largest_envs > 0 ? std::to_string(s->largest_envs) : "n/a",
                    s && s->largest_envs > 0 ? fmt("%.0f", s->bytes_per_env_largest) : "n/a",
                    s && s->largest_envs > 0 ? human_bytes(s->bytes_per_env_largest * s->largest_envs) : "n/a"});
  }
  print_table({"generator", "bytes/env", "", "fixed", "probe ms/track", "largest E", "bytes/env there", "total there"},
              rows, 1);

  const double wall = seconds_since(t_start);
  std::printf("wall time %.1f s (%zu measurements)\n", wall, meas.size());

  // --- JSON lines: every record, then one summary per generator and policy
  if (!o.json_out.empty()) {
    std::string text;
    for (const auto& r : records) text += r.dump() + "\n";
    for (const auto& s : sums) {
      json strong = json::array(), weak = json::array();
      auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
      for (const auto& a : s.strong)
        strong.push_back({{"threads", a.threads}, {"envs", a.envs}, {"median_ms", num(a.median_ms)},
                          {"speedup", num(a.speedup)}, {"efficiency", num(a.efficiency)}});
      for (const auto& b : s.weak)
        weak.push_back({{"threads", b.threads}, {"envs", b.envs}, {"median_ms", num(b.median_ms)},
                        {"efficiency", num(b.efficiency)}});
      json j = {{"record", "summary"},
                {"generator", s.key.generator},
                {"policy", s.key.policy},
                {"sweep_threads", t_sweep},
                {"linearity",
                 {{"from_envs", s.lin_from},
                  {"to_envs", s.lin_to},
                  {"points", s.lin_points},
                  {"min_us_per_track", num(s.lin_min_us)},
                  {"max_us_per_track", num(s.lin_max_us)},
                  {"max_over_min", num(s.lin_ratio)},
                  {"within_25pct", std::isfinite(s.lin_ratio) ? json(s.lin_ratio <= 1.25) : json(nullptr)}}},
                {"strong_scaling", strong},
                {"weak_scaling", weak},
                {"speedup_2_vs_1_threads", num(s.speedup_2v1)},
                {"bytes_per_env", s.bytes_per_env_estimate},
                {"fixed_bytes", fixed_bytes[s.key.generator]},
                {"probe_s_per_track", probe_tpt[s.key.generator]},
                {"bytes_per_env_largest", num(s.bytes_per_env_largest)},
                {"largest_envs", s.largest_envs},
                {"wall_s", wall},
                {"config", base},
                {"timing", o.timing},
                {"context", context}};
      text += j.dump() + "\n";
    }
    write_file(o.json_out, text);
    std::printf("wrote %s\n", o.json_out.c_str());
  }

  // --- SVG: tracks/s vs E (one line per generator), parallel efficiency vs threads
  if (!o.svg_out.empty()) {
    std::vector<Series> thr, eff;
    int color = 0;
    for (const auto& k : keys) {
      Series s{k.generator + (policy_names.size() > 1 ? " (" + k.policy + ")" : ""), {}, false, color};
      for (const auto& m : meas) {
        if (m["generator"] != k.generator || m["policy"] != k.policy || m["threads"] != t_sweep || m["phase"] != "sweep")
          continue;
        s.points.emplace_back(m["envs"].get<int>(), m["tracks_per_s"].get<double>());
      }
      std::sort(s.points.begin(), s.points.end());
      thr.push_back(s);
      for (const auto& su : sums) {
        if (!(su.key == k) || su.strong.empty()) continue;
        Series a{s.name + " strong E=" + std::to_string(strong_E), {}, false, color};
        Series b{s.name + " weak " + std::to_string(weak_E) + "/thread", {}, true, color};
        for (const auto& r : su.strong) a.points.emplace_back(r.threads, r.efficiency);
        for (const auto& r : su.weak) b.points.emplace_back(r.threads, r.efficiency);
        eff.push_back(a);
        eff.push_back(b);
      }
      ++color;
    }
    const double W = 1100, H = 460;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H + 30 << "\" viewBox=\"0 0 "
        << W << " " << H + 30 << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg << svg_panel(0, 0, W * 0.55, H, "Throughput at " + std::to_string(t_sweep) + " thread(s), " + Space::name(),
                     "batch size E (envs)", "tracks / s", thr, true, true, 4.0);
    svg << svg_panel(W * 0.55, 0, W * 0.45, H, "Parallel efficiency (" + std::string(Space::name()) + ")", "threads",
                     "efficiency (1 = ideal)", eff, false, false, 10.0, 0.0, 1.2, 1.0);
    svg << "<text x=\"10\" y=\"" << H + 20 << "\" font-size=\"11\" fill=\"#555\">"
        << xml_escape("TrackGen " + std::string(version()) + " (" + git_revision() + "), Kokkos " +
                      kokkos_version_string() + ", " + context["cpu_model"].get<std::string>() + ", " + utc_now())
        << "</text>\n</svg>\n";
    write_file(o.svg_out, svg.str());
    std::printf("wrote %s\n", o.svg_out.c_str());
  }
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "scaling benchmark: tracks/s per generator over batch sizes and OpenMP thread counts");
  cmd->add_option("--config", o->batch.config_file, "JSON file with TrackGenConfig fields (others keep defaults)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--generator", o->batch.generator,
                  "centerline generator, or 'all' for every registered one (default: all)");
  cmd->add_option("--seed", o->batch.seed, "base seed k; env e uses seed k + e (default: 0)");
  cmd->add_option("--backend", o->batch.backend,
                  "execution space: one of the enabled backends (default: Kokkos' default)");
  cmd->add_option("--envs", o->envs_list, "batch sizes of the sweep (default: 64,256,1024,4096,16384,65536)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads-list", o->threads_list,
                  "OpenMP thread counts, e.g. 1,2 (default: 1,2,4,... up to the concurrency, and it); the sweep "
                  "runs at the largest")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scaling-envs", o->scaling_envs, "E of the strong-scaling points (default: 2048)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--weak-envs", o->weak_envs,
                  "envs per thread of the weak-scaling points (default: --scaling-envs / largest thread count)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--policy", o->policies, "execution policies: eager (run the stages directly), graph (replay the producer's own graph); "
                  "a comma list (default: graph, what generate() does by default)")
      ->delimiter(',');
  cmd->add_option("--warmup", o->timing.warmup,
                  "untimed calls before timing (default: adaptive, the first call and more until 0.5 s, <= 10)");
  cmd->add_option("--reps", o->timing.reps,
                  "timed calls per point (default: adaptive, >= 3 and more until --min-time, <= --max-reps)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-time", o->timing.min_time, "adaptive reps: seconds of timed calls per point (default: 2)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-reps", o->timing.max_reps, "adaptive reps: at most this many (default: 50)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-budget", o->time_budget,
                  "seconds for the whole run; larger E are skipped when their estimated cost does not fit "
                  "(default: 420; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-memory-mb", o->max_memory_mb,
                  "skip E whose estimated device memory exceeds this (default: half of the physical memory)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--json-out", o->json_out, "JSON-lines output, one line per point with the full context, then "
                                             "one summary per generator (default: bench.jsonl; '' to skip)");
  cmd->add_option("--svg", o->svg_out, "SVG chart: tracks/s vs E, parallel efficiency vs threads");
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
      "the speed-up and efficiency per thread count, and device bytes per env.");
  return {cmd, [o] {
            if (!o->worker_plan.empty()) {
              const json plan = json::parse(o->worker_plan);
              with_backend(plan.at("backend").get<std::string>(),
                           [&]<class Space>() { run_worker<Space>(plan); });
              return;
            }
            with_backend(o->batch.backend, [&]<class Space>() { run_bench<Space>(*o); });
          }};
}

}  // namespace trackgen::app
