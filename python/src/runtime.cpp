#include "runtime.hpp"
#include "arrays.hpp"

#include <trackgen/core/errors.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace trackgen::python {
namespace {

// Bound objects are created and destroyed with the GIL held: no lock needed.
std::set<Holder*>& holders() {
  static std::set<Holder*> h;
  return h;
}

bool finalized = false;

}  // namespace

Holder::Holder() { holders().insert(this); }
Holder::~Holder() { holders().erase(this); }

void Holder::check_alive(const char* api) const {
  if (released_) {
    throw std::runtime_error(std::string(api) + ": Kokkos was finalized at interpreter exit; the object is released");
  }
}

namespace {

/// Serializes initialize() (objects may be made first in any thread).
std::mutex& init_mutex() {
  static std::mutex m;
  return m;
}

std::string bound_text() {
  return "at most " + std::to_string(max_threads()) + " (4 per hardware thread, " +
         std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
         " here, and at most 512, the thread pool of Kokkos' OpenMP backend)";
}

/// ConfigError when the thread-count variable `name` asks for more than
/// max_threads() (its first number, as OpenMP reads "8" or "8,4").
void check_env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return;
  const std::string s(v);
  long long n = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), n);
  if ((r.ec == std::errc() && n > max_threads()) || r.ec == std::errc::result_out_of_range) {
    throw ConfigError("trackgen.initialize: " + std::string(name) + "=" + s + " asks for too many threads; must be " +
                      bound_text());
  }
}

}  // namespace

int max_threads() {
  constexpr int per_hardware_thread = 4;
  constexpr int kokkos_pool = 512;  // Kokkos 3.4: OpenMPExec::MAX_THREAD_COUNT
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::min(kokkos_pool, per_hardware_thread * hw);
}

void initialize(std::optional<int> threads) {
  std::lock_guard guard(init_mutex());
  if (finalized) throw std::runtime_error("trackgen.initialize: Kokkos was finalized (interpreter exit)");
  if (threads && (*threads < 1 || *threads > max_threads())) {
    throw ConfigError("trackgen.initialize: num_threads " + std::to_string(*threads) +
                      " is out of range; must be >= 1 and " + bound_text());
  }
  if (Kokkos::is_initialized()) {
    if (threads && *threads != Kokkos::DefaultHostExecutionSpace().concurrency()) {
      throw std::runtime_error("trackgen.initialize: Kokkos is already initialized with " +
                               std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()) +
                               " threads, asked for " + std::to_string(*threads));
    }
    return;
  }
  if (!threads) {
    for (const char* name : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) check_env_threads(name);
  }
  std::vector<std::string> args{"trackgen"};
  if (threads) {
#if KOKKOS_VERSION >= 40000
    args.push_back("--kokkos-num-threads=" + std::to_string(*threads));
#else
    args.push_back("--kokkos-threads=" + std::to_string(*threads));
#endif
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  Kokkos::initialize(argc, argv.data());
  // Records this thread's OpenMP instance, which every DeviceLock of another
  // thread adopts (see compat::OpenMPThreadScope).
  const compat::OpenMPThreadScope record;
}

void ensure_initialized() {
  if (!Kokkos::is_initialized()) initialize(std::nullopt);
}

bool is_initialized() { return Kokkos::is_initialized(); }

std::mutex& device_mutex() {
  static std::mutex m;
  return m;
}

Space initialized_space() {
  ensure_initialized();
  return Space();
}

void finalize() {
  if (finalized || !Kokkos::is_initialized()) return;
  const DeviceLock lock;
  for (Holder* h : holders()) {
    h->release();
    h->released_ = true;
  }
  Kokkos::finalize();
  finalized = true;
}

}  // namespace trackgen::python
