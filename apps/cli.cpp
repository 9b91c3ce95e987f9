// Option checks of the command line: the host thread bound (checked before
// Kokkos is initialized), integer and number ranges whose messages state the
// bounds, and the name lists the help shows.
#include "app.hpp"

#include <CLI/CLI.hpp>

#include <trackgen/pipeline/detail/simd.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace trackgen::app {

int max_threads() {
  constexpr int per_hardware_thread = 4;
  constexpr int kokkos_pool = 512;  // Kokkos 3.4: OpenMPExec::MAX_THREAD_COUNT
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::min(kokkos_pool, per_hardware_thread * hw);
}

namespace {

std::string bound_text() {
  return "at most " + std::to_string(max_threads()) + " (4 per hardware thread, " +
         std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
         " here, and at most 512, the thread pool of Kokkos' OpenMP backend)";
}

}  // namespace

namespace {

/// What a variable must be, for the message: "NAME='value' is not VALID".
[[noreturn]] void refuse(const char* name, const char* value, const std::string& valid) {
  throw ConfigError("environment variable " + std::string(name) + "='" + value + "' is not " + valid);
}

/// The whole string `s` as an integer in [lo, hi]; nullopt otherwise.
std::optional<long long> whole_int(std::string_view s, long long lo, long long hi) {
  long long v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

/// `s` lower-cased (ASCII).
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// `s` split at `sep`, each piece without surrounding blanks.
std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t end = s.find(sep, at);
    std::string piece = s.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const std::size_t a = piece.find_first_not_of(" \t"), b = piece.find_last_not_of(" \t");
    out.push_back(a == std::string::npos ? std::string() : piece.substr(a, b - a + 1));
    if (end == std::string::npos) return out;
    at = end + 1;
  }
}

/// An integer variable of Kokkos (parsed by Kokkos::initialize, which aborts
/// on anything but an integer) in [lo, hi].
void check_int_variable(const char* name, long long lo, long long hi) {
  const char* v = std::getenv(name);
  if (v != nullptr && !whole_int(v, lo, hi)) {
    refuse(name, v, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

/// A boolean variable of Kokkos: yes, true, 1, no, false or 0 (any case).
void check_bool_variable(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return;
  const std::string l = lower(v);
  if (l != "yes" && l != "true" && l != "1" && l != "no" && l != "false" && l != "0") {
    refuse(name, v, "a boolean: yes, true, 1, no, false or 0");
  }
}

}  // namespace

void prepare_environment(int threads) {
  if (threads > max_threads()) {
    throw ConfigError("--threads " + std::to_string(threads) + " is too many; must be " + bound_text());
  }
  const long long most = max_threads();
  // Kokkos' own variables (Kokkos::initialize aborts the process on a value it cannot read).
  check_int_variable("KOKKOS_NUM_THREADS", 1, std::numeric_limits<int>::max());
  check_int_variable("KOKKOS_DEVICE_ID", 0, std::numeric_limits<int>::max());
  check_int_variable("KOKKOS_NUMA", 0, std::numeric_limits<int>::max());
  check_int_variable("KOKKOS_NUM_DEVICES", 0, std::numeric_limits<int>::max());
  check_int_variable("KOKKOS_RAND_DEVICES", 0, std::numeric_limits<int>::max());
  check_int_variable("KOKKOS_SKIP_DEVICE", 0, std::numeric_limits<int>::max());
  for (const char* name : {"KOKKOS_DISABLE_WARNINGS", "KOKKOS_PRINT_CONFIGURATION", "KOKKOS_TUNE_INTERNALS"}) {
    check_bool_variable(name);
  }
  {
    const char *tools = std::getenv("KOKKOS_TOOLS_LIBS"), *profile = std::getenv("KOKKOS_PROFILE_LIBRARY");
    if (tools != nullptr && profile != nullptr && std::strcmp(tools, profile) != 0) {
      throw ConfigError(std::string("environment variables KOKKOS_TOOLS_LIBS='") + tools +
                        "' and KOKKOS_PROFILE_LIBRARY='" + profile + "' name different tools; set one of them");
    }
  }
  if (const char* v = std::getenv("KOKKOS_MAP_DEVICE_ID_BY")) {
    if (std::string(v) != "mpi_rank" && std::string(v) != "random")
      refuse("KOKKOS_MAP_DEVICE_ID_BY", v, "mpi_rank or random");
  }
  // The OpenMP runtime's: a list of positive thread counts, and the binding policy.
  if (const char* v = std::getenv("OMP_NUM_THREADS")) {
    for (const std::string& n : split_list(v, ',')) {
      if (!whole_int(n, 1, std::numeric_limits<int>::max())) {
        refuse("OMP_NUM_THREADS", v, "a positive thread count, or a comma list of them (e.g. 8 or 8,2)");
      }
    }
  }
  if (const char* v = std::getenv("OMP_PROC_BIND")) {
    const auto policies = split_list(lower(v), ',');
    const bool flag = policies.size() == 1 && (policies[0] == "true" || policies[0] == "false");
    const bool list = std::all_of(policies.begin(), policies.end(), [](const std::string& p) {
      return p == "master" || p == "primary" || p == "close" || p == "spread";
    });
    if (!flag && !list) refuse("OMP_PROC_BIND", v, "true, false, or a comma list of primary, master, close, spread");
  }
  if (threads == 0) {  // --threads wins over the environment
    for (const char* name : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) {
      const char* v = std::getenv(name);
      if (v != nullptr && *whole_int(split_list(v, ',')[0], 1, std::numeric_limits<int>::max()) > most) {
        throw ConfigError(std::string(name) + "=" + v + " asks for too many threads; must be " + bound_text());
      }
    }
  }
  // TrackGen's own.
  if (const char* v = std::getenv("TRACKGEN_LOG_LEVEL"); v != nullptr && *v != '\0') {
    try {
      logging::set_level(v);  // the level the logger takes from the variable anyway
    } catch (const ConfigError&) {
      refuse("TRACKGEN_LOG_LEVEL", v, "a level: trace, debug, info, warn, error, critical or off");
    }
  }
  if (std::getenv("TRACKGEN_MEMORY_LIMIT_MB") != nullptr) memory_limit_bytes();  // ConfigError when unusable
  if (const char* v = std::getenv("TRACKGEN_HOST_SIMD"); v != nullptr && *v != '\0') {
    std::string names;
    bool ok = false;
    for (const auto l : {detail::HostSimd::baseline, detail::HostSimd::avx2, detail::HostSimd::avx512}) {
      if (!detail::host_simd_available(l)) continue;
      names += (names.empty() ? "" : ", ") + std::string(detail::host_simd_name(l));
      ok = ok || std::string(v) == detail::host_simd_name(l);
    }
    if (!ok) refuse("TRACKGEN_HOST_SIMD", v, "an instruction-set level of this build on this CPU: " + names);
  }
  if (const char* v = std::getenv("TRACKGEN_MPI"); v != nullptr && std::string(v) != "0" && std::string(v) != "1") {
    refuse("TRACKGEN_MPI", v, "0 (never start MPI) or 1 (always)");
  }
  if (const char* v = std::getenv("TRACKGEN_PROGRESS_DELAY")) {
    double d = 0.0;
    const auto r = std::from_chars(v, v + std::strlen(v), d);
    if (r.ec != std::errc() || r.ptr != v + std::strlen(v) || !std::isfinite(d) || d < 0.0) {
      refuse("TRACKGEN_PROGRESS_DELAY", v, "a number of seconds >= 0");
    }
  }

  // Every value is usable: --threads wins over KOKKOS_NUM_THREADS (Kokkos 3.4
  // aborts when both are given and differ), and with neither OMP_PROC_BIND nor
  // OMP_PLACES set, OMP_PROC_BIND=false states the OpenMP runtime's default
  // (threads not bound), for which Kokkos would print a warning on stdout.
  if (threads > 0) unsetenv("KOKKOS_NUM_THREADS");
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr) {
    setenv("OMP_PROC_BIND", "false", 1);
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

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0.0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v) && v > 0.0) return {};
        return "'" + s + "' is not a finite number > 0";
      },
      "> 0");
}

void refuse_unless(const CLI::Option* option, bool applies, const std::string& when) {
  if (option->count() > 0 && !applies) {
    throw ConfigError(option->get_name() + " applies only to " + when + "; leave it out");
  }
}

std::string comma_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::string> generator_names() { return available_generators<Kokkos::DefaultExecutionSpace>(); }

}  // namespace trackgen::app
