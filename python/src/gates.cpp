// Bindings of GateGenConfig, GateGenerator and GateSequence (gate courses for
// drone racing; the Python layer in trackgen/gates.py checks the arguments).
#include "arrays.hpp"
#include "config_json.hpp"
#include "inputs.hpp"
#include "producer.hpp"
#include "runtime.hpp"
#include "tracks.hpp"

#include <trackgen/trackgen.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace trackgen::python {
namespace {

using PyGateGenerator = PyProducer<GateGenerator<Space>, GateGenConfig>;

}  // namespace

void bind_gates(nb::module_& m) {
  bind_config<GateGenConfig>(m, "_GateConfig", "trackgen.GateGenConfig", &load_gate_config,
                             &available_gate_generators<Space>);
  m.def("gate_generators", &available_gate_generators<Space>, "Sorted names of the registered gate generators.");

  nb::class_<PyGates> gates(m, "_Gates");
  bind_fields<GateSequence<MemSpace>>(
      gates, "trackgen.GateSequence", [](PyGates& g) -> const GateSequence<MemSpace>& { return g.gates; },
      [](nb::handle self, const auto& view) { return export_view(view, self); });
  gates.def_prop_ro("num_envs", [](const PyGates& g) { return g.gates.num_envs(); })
      .def_prop_ro("max_gates", [](const PyGates& g) { return g.gates.max_gates(); })
      .def(
          "clone",
          [](const PyGates& g) {
            g.check_alive("trackgen.GateSequence.clone");
            GateSequence<MemSpace> copy;
            {
              nb::gil_scoped_release unlocked;
              const DeviceLock lock;
              copy = g.gates.clone();
            }
            return new PyGates(std::move(copy));
          },
          "An independent deep copy (not refilled by generate()).")
      .def_static(
          "_from_arrays",
          [](const nb::dict& arrays, int num_envs, int max_gates) {
            return new PyGates(
                batch_from_arrays<GateSequence<MemSpace>>("track_gen.GateSequence", arrays, num_envs, max_gates));
          },
          nb::arg("arrays"), nb::arg("num_envs"), nb::arg("max_gates"),
          "A sequence whose fields named in `arrays` alias those arrays (the others empty).");

  nb::class_<PyGateGenerator> gen(m, "_GateGenerator");
  gen.def(
         "__init__",
         [](PyGateGenerator* self, const GateGenConfig& c, std::int32_t k) {
           new (self) PyGateGenerator("trackgen.GateGenerator", c, k);
         },
         nb::arg("config"), nb::arg("seed"))
      .def(
          "__init__",
          [](PyGateGenerator* self, const GateGenConfig& c, const HostInts& seeds) {
            new (self) PyGateGenerator("trackgen.GateGenerator", c, seeds);
          },
          nb::arg("config"), nb::arg("seeds"))
      .def("gates", [](const PyGateGenerator& g) { return new PyGates(g.producer().gates()); })
      .def_prop_ro("frame_fallbacks", [](nb::handle s) {
        return export_view(nb::cast<const PyGateGenerator&>(s).producer().frame_fallbacks(), s);
      });
  bind_producer_methods<PyGateGenerator>(gen);
}

}  // namespace trackgen::python
