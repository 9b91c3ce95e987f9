#include "runtime.hpp"
#include "arrays.hpp"

#include <Kokkos_Core.hpp>

#include <set>
#include <stdexcept>
#include <string>
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

void initialize(std::optional<int> threads) {
  if (finalized) throw std::runtime_error("trackgen.initialize: Kokkos was finalized (interpreter exit)");
  if (threads && *threads < 1) {
    throw std::invalid_argument("trackgen.initialize: num_threads must be >= 1, got " + std::to_string(*threads));
  }
  if (Kokkos::is_initialized()) {
    if (threads && *threads != Kokkos::DefaultHostExecutionSpace().concurrency()) {
      throw std::runtime_error("trackgen.initialize: Kokkos is already initialized with " +
                               std::to_string(Kokkos::DefaultHostExecutionSpace().concurrency()) +
                               " threads, asked for " + std::to_string(*threads));
    }
    return;
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
  std::lock_guard lock(device_mutex());
  for (Holder* h : holders()) {
    h->release();
    h->released_ = true;
  }
  Kokkos::finalize();
  finalized = true;
}

}  // namespace trackgen::python
