// The Kokkos runtime of the Python module: initialized once (on the first use,
// or by trackgen.initialize()), finalized at interpreter exit (atexit). Every
// bound object that holds Views is a Holder: at exit each live Holder drops its
// Views before Kokkos::finalize(), so objects (and numpy arrays of them) that
// outlive the interpreter's atexit phase never deallocate into a finalized
// Kokkos.
#pragma once

#include <trackgen/core/compat.hpp>

#include <mutex>
#include <optional>

namespace trackgen::python {

/// Base of every bound object that owns Kokkos Views: registered while it lives,
/// released (Views dropped) before Kokkos is finalized at exit.
class Holder {
 public:
  Holder();
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;
  virtual ~Holder();

  /// Drops every View the object holds (called once, before Kokkos::finalize()).
  virtual void release() noexcept = 0;
  /// Whether release() ran (the object is then unusable).
  bool released() const { return released_; }
  /// Throws std::runtime_error naming `api` if the object was released.
  void check_alive(const char* api) const;

 private:
  friend void finalize();
  bool released_ = false;
};

/// The most host threads initialize() accepts: 4 per hardware thread, and at
/// most 512 (the thread pool of Kokkos 3.4's OpenMP backend), as the
/// command-line tool's --threads.
int max_threads();
/// Initializes Kokkos with `threads` host threads (unset: Kokkos' default, which
/// honours OMP_NUM_THREADS). ConfigError for a count outside [1, max_threads()]
/// (also when it comes from KOKKOS_NUM_THREADS or OMP_NUM_THREADS), before
/// Kokkos starts; std::runtime_error if Kokkos is already initialized with
/// another thread count or was finalized. Callable from any thread.
void initialize(std::optional<int> threads);
/// Initializes Kokkos with its defaults unless it is initialized (every API that
/// allocates or launches calls it first).
void ensure_initialized();
/// Whether Kokkos is initialized (and not finalized).
bool is_initialized();
/// The lock every call into Kokkos takes while the GIL is released: Kokkos' host
/// backends must not be entered from two threads at once, so device work of
/// all objects is serialized (other Python threads still run).
std::mutex& device_mutex();
/// What every call into Kokkos holds: device_mutex(), and on Kokkos 3.4's OpenMP
/// backend the adoption of its instance by the calling thread (that backend
/// keeps its instance in a thread-local pointer of the thread that initialized
/// Kokkos, so without it another Python thread could not allocate or launch).
struct DeviceLock {
  std::lock_guard<std::mutex> lock{device_mutex()};
  compat::OpenMPThreadScope adopt;
};
/// Releases every live Holder, then finalizes Kokkos (registered with atexit by
/// the module; a no-op when Kokkos was never initialized or is finalized).
void finalize();

}  // namespace trackgen::python
