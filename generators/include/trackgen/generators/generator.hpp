// The centerline generator interface and registry (docs/design.md#adding-a-generator).
//
// A generator is registered as a GeneratorSpec: a name, a factory that builds a
// Generator for a config (allocating all of its scratch once), and its capture
// class (how its launches may be recorded into a graph). The registry is per
// execution space; the built-in generators are registered on first use, and a
// user can register their own and select it by name in TrackGenConfig::generator.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace trackgen {

/// One centerline generator bound to a config and a batch size, owning its scratch.
template <class Space>
class Generator {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec2View = DView<Vec2f, Space>;

  virtual ~Generator() = default;

  /// Writes a closed, finite loop of `config.num_points` points per env into
  /// `out_centerline` ([E*N], env e at [e*N, (e+1)*N)) and 1 into `out_valid[e]`,
  /// from the per-env seeds `seeds` ([E] int32). Must only issue work through
  /// `ctx`, allocate nothing, and (unless its capture class is HOST) never read
  /// device data on the host.
  virtual void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& out_centerline,
                        const IntView& out_valid) = 0;

  /// Bytes of device memory held by the generator's scratch (0 if it holds none
  /// or does not report it).
  virtual std::size_t device_bytes() const { return 0; }
};

/// A registered generator.
template <class Space>
struct GeneratorSpec {
  std::string name;
  /// Builds a generator for `config` (validated; config.num_envs envs), allocating
  /// its scratch on the instance `space`.
  std::function<std::unique_ptr<Generator<Space>>(const Space& space, const TrackGenConfig& config)> make;
  /// How the generator stage may run in a graph: STATIC (a fixed launch
  /// sequence, no host reads of device data), BOUNDED (bounded_loop with an
  /// on-device `active` flag) or HOST (host reads: runs eagerly, never recorded).
  CaptureClass capture = CaptureClass::STATIC;
  /// The bytes of device memory `make` allocates for `config` (validated),
  /// computed without allocating: the generator's share of the memory estimate
  /// (trackgen/pipeline/memory.hpp). Optional: empty counts as 0 bytes.
  std::function<std::size_t(const TrackGenConfig& config)> scratch_bytes;

  /// Whether the stage may be recorded into a graph (its capture class is not HOST).
  bool capturable() const { return capture != CaptureClass::HOST; }
};

/// Registers `spec`. Throws ConfigError if the name is empty, the factory is
/// missing, or the name is already registered.
template <class Space>
void register_generator(GeneratorSpec<Space> spec);

/// The spec registered under `name`; ConfigError listing the available names if none.
template <class Space>
const GeneratorSpec<Space>& get_generator(const std::string& name);

/// Sorted names of all registered generators (built-ins included).
template <class Space>
std::vector<std::string> available_generators();

/// Names of the built-in generators (the same for every space), in the order of
/// the registry's list of them (generators/src/registry.cpp).
std::vector<std::string> builtin_generator_names();

}  // namespace trackgen
