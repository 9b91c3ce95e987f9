// The generator registry: one map of specs per execution space, holding the
// built-in generators from first use on.
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/checkpoint.hpp>
#include <trackgen/generators/detail/hull.hpp>
#include <trackgen/generators/detail/polar.hpp>
#include <trackgen/generators/detail/repulsive.hpp>
#include <trackgen/generators/detail/voronoi.hpp>

#include "named_registry.hpp"

namespace trackgen {
namespace {

/// The built-in generators, in the order of builtin_generator_names(): the one
/// list of them (the registry and the names read it).
template <class Space>
std::vector<GeneratorSpec<Space>> builtin_specs() {
  using namespace detail;
  return {builtin_spec<BezierGenerator<Space>, Space>("bezier"),
          builtin_spec<CheckpointGenerator<Space>, Space>("checkpoint"),
          builtin_spec<HullGenerator<Space>, Space>("hull"),
          builtin_spec<PolarGenerator<Space>, Space>("polar"),
          builtin_spec<VoronoiGenerator<Space>, Space>("voronoi"),
          builtin_spec<RepulsiveGenerator<Space>, Space>("repulsive", CaptureClass::BOUNDED)};
}

template <class Space>
detail::NamedRegistry<GeneratorSpec<Space>>& registry() {
  static detail::NamedRegistry<GeneratorSpec<Space>> r("generator", builtin_specs<Space>());
  return r;
}

}  // namespace

template <class Space>
void register_generator(GeneratorSpec<Space> spec) {
  registry<Space>().add(std::move(spec), "trackgen::register_generator");
}

template <class Space>
const GeneratorSpec<Space>& get_generator(const std::string& name) {
  return registry<Space>().get(name, "trackgen::get_generator");
}

template <class Space>
std::vector<std::string> available_generators() {
  return registry<Space>().names();
}

std::vector<std::string> builtin_generator_names() {
  std::vector<std::string> names;
  for (const auto& spec : builtin_specs<Kokkos::DefaultExecutionSpace>()) names.push_back(spec.name);
  return names;
}

#define TRACKGEN_INSTANTIATE_REGISTRY(S)                                          \
  template void register_generator<S>(GeneratorSpec<S>);                          \
  template const GeneratorSpec<S>& get_generator<S>(const std::string&);         \
  template std::vector<std::string> available_generators<S>();
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_REGISTRY)

}  // namespace trackgen
