// The bench's small shared pieces: policies, timing settings (and their JSON
// form in a worker plan), and the run context recorded with every line.
#include "bench.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <unistd.h>

extern char** environ;

namespace trackgen::app::bench {
namespace {

constexpr std::array all_policies{BenchPolicy::eager, BenchPolicy::graph};

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

/// The OMP_*, GOMP_* and KOKKOS_* environment variables.
json thread_environment() {
  json env = json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("OMP_", 0) == 0 || kv.rfind("GOMP_", 0) == 0 || kv.rfind("KOKKOS_", 0) == 0) {
      const auto eq = kv.find('=');
      env[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    }
  }
  return env;
}

}  // namespace

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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
  throw ConfigError("bench: --policy '" + name + "' is not available; available: " + names);
}

Policy to_library(BenchPolicy p) {
  switch (p) {
    case BenchPolicy::eager:
      return Policy::eager;
    case BenchPolicy::graph:
      return Policy::automatic;  // self-graph: recorded on first use, replayed after
  }
  return Policy::automatic;
}

double Timing::estimate(double call_s) const {
  const double warm = warmup >= 0 ? warmup * call_s : std::max(call_s, std::min(warm_time, max_warmup * call_s));
  const double timed = reps > 0 ? reps * call_s : std::max(min_reps * call_s, std::min(min_time, max_reps * call_s));
  return estimate_margin * (warm + timed + construction_calls * call_s);
}

void to_json(json& j, const Timing& t) {
  j = {{"warmup", t.warmup},     {"reps", t.reps},         {"min_time_s", t.min_time},  {"warm_time_s", t.warm_time},
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

double physical_memory_mb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) / (1024.0 * 1024.0) : 4096.0;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json run_context(const std::string& space_name, int concurrency, int threads_requested) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return {
    {"trackgen_version", version()}, {"git_revision", git_revision()},
        {"kokkos_version", compat::kokkos_version_string()}, {"kokkos_backends", backend_names()},
        {"execution_space", space_name}, {"concurrency", concurrency}, {"threads_requested", threads_requested},
        {"omp_env", thread_environment()}, {"cpu_model", read_first_matching_line("/proc/cpuinfo", "model name")},
        {"logical_cpus", std::thread::hardware_concurrency()}, {"physical_memory_mb", std::round(physical_memory_mb())},
        {"hostname", host}, {"loadavg", read_file_line("/proc/loadavg")}, {"compiler", __VERSION__},
#if defined(NDEBUG)
        {"ndebug", true},
#else
        {"ndebug", false},
#endif
    {
      "timestamp", utc_now()
    }
  };
}

}  // namespace trackgen::app::bench
