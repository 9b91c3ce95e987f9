// Internal to the generators layer: a thread-safe map of specs by name, the
// registry of the centerline generators (registry.cpp) and of the gate
// generators (gate_sources.cpp), one instance per execution space.
#pragma once

#include <trackgen/core/errors.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace trackgen::detail {

/// Specs (with `name` and `make` members) by name. `kind` names what a spec
/// builds in error messages ("generator", "gate generator").
template <class Spec>
class NamedRegistry {
 public:
  NamedRegistry(std::string kind, std::vector<Spec> builtins) : kind_(std::move(kind)) {
    for (auto& spec : builtins) specs_.emplace(spec.name, std::move(spec));
  }

  /// Adds `spec`; ConfigError naming `api` for an empty name, a missing
  /// factory or a name already registered.
  void add(Spec spec, const std::string& api) {
    if (spec.name.empty()) throw ConfigError(api + ": spec.name must not be empty");
    if (!spec.make) throw ConfigError(api + ": spec.make of '" + spec.name + "' is empty");
    std::lock_guard lock(mutex_);
    if (specs_.count(spec.name) != 0) {
      throw ConfigError(api + ": a " + kind_ + " named '" + spec.name + "' is already registered");
    }
    const std::string name = spec.name;
    specs_.emplace(name, std::move(spec));
  }

  /// The spec named `name`; ConfigError naming `api` and listing the names otherwise.
  /// std::map nodes are stable: the reference outlives later registrations.
  const Spec& get(const std::string& name, const std::string& api) {
    std::lock_guard lock(mutex_);
    auto it = specs_.find(name);
    if (it == specs_.end()) {
      std::string list;
      for (const auto& [n, s] : specs_) list += (list.empty() ? "" : ", ") + n;
      throw ConfigError(api + ": unknown " + kind_ + " '" + name + "'; available: " + list);
    }
    return it->second;
  }

  /// Sorted names.
  std::vector<std::string> names() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [n, s] : specs_) out.push_back(n);
    return out;
  }

 private:
  std::string kind_;
  std::mutex mutex_;
  std::map<std::string, Spec> specs_;
};

}  // namespace trackgen::detail
