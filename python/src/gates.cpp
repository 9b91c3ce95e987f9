// Bindings of GateGenConfig, GateGenerator and GateSequence (gate courses for
// drone racing; the Python layer in trackgen/gates.py checks the arguments).
#include "arrays.hpp"
#include "config_json.hpp"
#include "producer.hpp"
#include "runtime.hpp"

#include <trackgen/trackgen.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace trackgen::python {
namespace {

/// A GateSequence whose fields Python reads as arrays without a copy.
class PyGates : public Holder {
 public:
  explicit PyGates(GateSequence<MemSpace> g) : gates(std::move(g)) {}
  void release() noexcept override { gates = GateSequence<MemSpace>(); }

  GateSequence<MemSpace> gates;
};

using PyGateGenerator = PyProducer<GateGenerator<Space>, GateGenConfig>;

template <class F>
nb::object field(nb::handle self, F&& get) {
  auto& g = nb::cast<PyGates&>(self);
  g.check_alive("trackgen.GateSequence");
  return export_view(get(g.gates), self);
}

}  // namespace

void bind_gates(nb::module_& m) {
  bind_config<GateGenConfig>(m, "_GateConfig", "trackgen.GateGenConfig", &load_gate_config,
                             &available_gate_generators<Space>);
  m.def("gate_generators", &available_gate_generators<Space>, "Sorted names of the registered gate generators.");

  nb::class_<PyGates>(m, "_Gates")
      .def_prop_ro("num_envs", [](const PyGates& g) { return g.gates.num_envs(); })
      .def_prop_ro("max_gates", [](const PyGates& g) { return g.gates.max_gates(); })
      .def_prop_ro("position", [](nb::handle s) { return field(s, [](auto& g) { return g.position; }); })
      .def_prop_ro("tangent", [](nb::handle s) { return field(s, [](auto& g) { return g.tangent; }); })
      .def_prop_ro("forward", [](nb::handle s) { return field(s, [](auto& g) { return g.forward; }); })
      .def_prop_ro("orientation", [](nb::handle s) { return field(s, [](auto& g) { return g.orientation; }); })
      .def_prop_ro("half_size", [](nb::handle s) { return field(s, [](auto& g) { return g.half_size; }); })
      .def_prop_ro("left", [](nb::handle s) { return field(s, [](auto& g) { return g.left; }); })
      .def_prop_ro("right", [](nb::handle s) { return field(s, [](auto& g) { return g.right; }); })
      .def_prop_ro("valid", [](nb::handle s) { return field(s, [](auto& g) { return g.valid; }); })
      .def_prop_ro("count", [](nb::handle s) { return field(s, [](auto& g) { return g.count; }); })
      .def(
          "clone",
          [](const PyGates& g) {
            g.check_alive("trackgen.GateSequence.clone");
            GateSequence<MemSpace> copy;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard lock(device_mutex());
              copy = g.gates.clone();
            }
            return new PyGates(std::move(copy));
          },
          "An independent deep copy (not refilled by generate()).");

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
      .def("gates", [](const PyGateGenerator& g) { return new PyGates(g.producer().gates()); });
  bind_producer_methods<PyGateGenerator>(gen);
}

}  // namespace trackgen::python
