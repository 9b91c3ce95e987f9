// The extension module trackgen._trackgen: Kokkos lifetime, backend facts, and
// the bindings of each part.
#include "arrays.hpp"
#include "inputs.hpp"
#include "runtime.hpp"

#include <trackgen/version.hpp>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

NB_MODULE(_trackgen, m) {
  namespace nb = nanobind;
  namespace py = trackgen::python;
  m.doc() = "TrackGen's C++ core (use the trackgen package).";
  m.attr("__version__") = trackgen::version();
  m.attr("git_revision") = trackgen::git_revision();
  m.attr("backend") = py::Space::name();
  m.attr("host_memory") = py::host_memory;

  m.def("initialize", &py::initialize, nb::arg("num_threads") = nb::none(),
        "Initializes Kokkos (once) with num_threads host threads (default: OMP_NUM_THREADS, else Kokkos' default).");
  m.def("max_threads", &py::max_threads, "The most host threads initialize() accepts.");
  m.def("is_initialized", &py::is_initialized, "Whether Kokkos is initialized.");
  m.def("_finalize", &py::finalize,
        "Releases every live object's Views and finalizes Kokkos (registered with atexit).");
  m.def(
      "concurrency",
      [] {
        py::ensure_initialized();
        return py::Space().concurrency();
      },
      "Threads (or device concurrency) of the default execution space; initializes Kokkos.");

  py::bind_tracks(m);
  py::bind_gates(m);
  py::bind_course(m);
  py::bind_utilities(m);

  nb::module_::import_("atexit").attr("register")(m.attr("_finalize"));
  // Arrays (e.g. np.from_dlpack views) may outlive the interpreter's
  // finalization, keeping their owners alive; _finalize has already released
  // every Holder's Views by then, so those objects hold no library memory and
  // nanobind's report of them as leaks is noise.
  nb::set_leak_warnings(false);
}
