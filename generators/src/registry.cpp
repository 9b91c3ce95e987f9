// The generator registry: one map of specs per execution space, holding the
// built-in generators from first use on.
#include <trackgen/core/errors.hpp>
#include <trackgen/generators/detail/bezier.hpp>
#include <trackgen/generators/detail/checkpoint.hpp>
#include <trackgen/generators/detail/hull.hpp>
#include <trackgen/generators/detail/polar.hpp>
#include <trackgen/generators/detail/repulsive.hpp>
#include <trackgen/generators/detail/voronoi.hpp>

#include <algorithm>
#include <map>
#include <mutex>

namespace trackgen {
namespace {

template <class Space>
struct Registry {
  std::mutex mutex;
  std::map<std::string, GeneratorSpec<Space>> specs;

  Registry() {
    using namespace detail;
    for (auto spec : {builtin_spec<BezierGenerator<Space>, Space>("bezier"),
                      builtin_spec<PolarGenerator<Space>, Space>("polar"),
                      builtin_spec<HullGenerator<Space>, Space>("hull"),
                      builtin_spec<VoronoiGenerator<Space>, Space>("voronoi"),
                      builtin_spec<CheckpointGenerator<Space>, Space>("checkpoint"),
                      builtin_spec<RepulsiveGenerator<Space>, Space>("repulsive", CaptureClass::BOUNDED)}) {
      specs.emplace(spec.name, std::move(spec));
    }
  }

  static Registry& instance() {
    static Registry r;
    return r;
  }
};

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

template <class Space>
void register_generator(GeneratorSpec<Space> spec) {
  if (spec.name.empty()) throw ConfigError("trackgen::register_generator: spec.name must not be empty");
  if (!spec.make) throw ConfigError("trackgen::register_generator: spec.make of '" + spec.name + "' is empty");
  auto& r = Registry<Space>::instance();
  std::lock_guard lock(r.mutex);
  if (r.specs.count(spec.name) != 0) {
    throw ConfigError("trackgen::register_generator: a generator named '" + spec.name + "' is already registered");
  }
  const std::string name = spec.name;
  r.specs.emplace(name, std::move(spec));
}

template <class Space>
const GeneratorSpec<Space>& get_generator(const std::string& name) {
  auto& r = Registry<Space>::instance();
  std::lock_guard lock(r.mutex);
  auto it = r.specs.find(name);
  if (it == r.specs.end()) {
    std::vector<std::string> names;
    for (const auto& [n, s] : r.specs) names.push_back(n);
    throw ConfigError("trackgen::get_generator: unknown generator '" + name + "'; available: " + join(names));
  }
  return it->second;  // std::map nodes are stable: the returned spec outlives later registrations
}

template <class Space>
std::vector<std::string> available_generators() {
  auto& r = Registry<Space>::instance();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [n, s] : r.specs) names.push_back(n);
  return names;
}

std::vector<std::string> builtin_generator_names() {
  return {"bezier", "checkpoint", "hull", "polar", "voronoi", "repulsive"};
}

#define TRACKGEN_INSTANTIATE_REGISTRY(S)                                          \
  template void register_generator<S>(GeneratorSpec<S>);                          \
  template const GeneratorSpec<S>& get_generator<S>(const std::string&);         \
  template std::vector<std::string> available_generators<S>();
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_REGISTRY)

}  // namespace trackgen
