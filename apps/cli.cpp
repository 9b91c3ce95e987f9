// Option checks of the command line: the host thread bound (checked before
// Kokkos is initialized), integer and number ranges whose messages state the
// bounds, and the name lists the help shows.
#include "app.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>

namespace trackgen::app {

int max_threads() {
  constexpr int per_hardware_thread = 4;
  constexpr int kokkos_pool = 512;  // Kokkos 3.4: OpenMPExec::MAX_THREAD_COUNT
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::min(kokkos_pool, per_hardware_thread * hw);
}

namespace {

/// The first value of a thread-count environment variable ("8" or "8,4"), or
/// 0 when it is unset or does not start with a number (OpenMP then ignores it).
long long env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return 0;
  const std::string s(v);
  long long n = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), n);
  return r.ec == std::errc() ? n : (r.ec == std::errc::result_out_of_range ? max_threads() + 1LL : 0);
}

std::string bound_text() {
  return "at most " + std::to_string(max_threads()) + " (4 per hardware thread, " +
         std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
         " here, and at most 512, the thread pool of Kokkos' OpenMP backend)";
}

}  // namespace

void check_threads(int threads) {
  if (threads > max_threads()) {
    throw ConfigError("--threads " + std::to_string(threads) + " is too many; must be " + bound_text());
  }
  if (threads > 0) return;  // --threads wins over the environment
  for (const char* name : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const long long n = env_threads(name);
    if (n > max_threads()) {
      throw ConfigError(std::string(name) + "=" + std::getenv(name) + " asks for too many threads; must be " +
                        bound_text());
    }
  }
}

CLI::Validator threads_in(int lo) {
  return CLI::Validator(
      [lo](std::string& s) -> std::string {
        long long v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo) {
          return "'" + s + "' is not an integer >= " + std::to_string(lo);
        }
        if (v > max_threads()) return "'" + s + "' is too many threads; must be " + bound_text();
        return {};
      },
      "in [" + std::to_string(lo) + ", " + std::to_string(max_threads()) + "]");
}

CLI::Validator int_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        long long v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size() && v >= lo && v <= hi) return {};
        return "'" + s + "' is not an integer in " + range;
      },
      "in " + range);
}

CLI::Validator number_at_least(double lo) {
  char buf[32];
  const auto w = std::to_chars(buf, buf + sizeof buf, lo);
  const std::string bound = ">= " + std::string(buf, w.ptr);
  return CLI::Validator(
      [lo, bound](std::string& s) -> std::string {
        double v = 0.0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v) && v >= lo) return {};
        return "'" + s + "' is not a finite number " + bound;
      },
      bound);
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::string> generator_names() { return available_generators<Kokkos::DefaultExecutionSpace>(); }

}  // namespace trackgen::app
