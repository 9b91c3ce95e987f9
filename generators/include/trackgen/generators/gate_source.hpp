// The gate generator interface and registry (docs/design.md#adding-a-generator).
//
// A gate generator is an anchor source: per env it writes up to S anchors
// (x, y) in its own order and their count; the gate pipeline (GateGenerator)
// orders them into a course, separates, lifts and frames them. It is
// registered as a GateGeneratorSpec: a name, a factory building a GateSource
// for a config (allocating its scratch once), S for a config, the fewest
// anchors it can write, the orderings it supports and whether the pipeline
// normalizes its courses' size. The registry is per execution space; the
// built-ins (bezier, hull, polar, voronoi, checkpoint: the anchors of the
// centerline generators of the same names) are registered on first use.
#pragma once

#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/views.hpp>
#include <trackgen/exec/launch_context.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace trackgen {

/// One gate anchor source bound to a config and a batch size, owning its scratch.
template <class Space>
class GateSource {
 public:
  using IntView = DView<std::int32_t, Space>;
  using Vec2View = DView<Vec2f, Space>;

  virtual ~GateSource() = default;

  /// From the per-env seeds `seeds` ([E] int32), writes env e's anchors into
  /// anchors[e*S, e*S + count[e]) (S = the spec's max_gates(config); finite,
  /// in the source's own order) and their number into count[e], in [1, S].
  /// Must only issue work through `ctx`, allocate nothing and never read
  /// device data on the host.
  virtual void generate(const LaunchContext<Space>& ctx, const IntView& seeds, const Vec2View& anchors,
                        const IntView& count) = 0;

  /// Bytes of device memory held by the source's scratch (0 if not reported).
  virtual std::size_t device_bytes() const { return 0; }
};

/// A registered gate generator.
template <class Space>
struct GateGeneratorSpec {
  std::string name;
  /// Builds a source for `config` (validated; config.num_envs envs), allocating
  /// its scratch on the instance `space`.
  std::function<std::unique_ptr<GateSource<Space>>(const Space& space, const GateGenConfig& config)> make;
  /// The bytes of device memory `make` allocates for `config` (validated),
  /// computed without allocating (the memory estimate,
  /// trackgen/pipeline/memory.hpp). Optional: empty counts as 0 bytes.
  std::function<std::size_t(const GateGenConfig& config)> scratch_bytes;
  /// S: the most anchors the source writes per env for `config`.
  std::function<int(const GateGenConfig& config)> max_gates;
  /// The fewest anchors the source writes per env for `config` (the pipeline
  /// rejects a config whose min_gates exceeds it: such envs could never be valid).
  std::function<int(const GateGenConfig& config)> min_gates;
  /// The gate_ordering values the source supports.
  std::vector<GateOrdering> orderings;
  /// Whether the pipeline rescales each ordered course to a bounding box whose
  /// longer side is 1.44 * scale (sources on a unit circle); otherwise the
  /// anchors keep the source's own coordinates.
  bool normalize = false;
};

/// Registers `spec`. Throws ConfigError if the name is empty, the factory, the
/// max_gates or the min_gates function is missing, no ordering is given, or
/// the name is already registered.
template <class Space>
void register_gate_generator(GateGeneratorSpec<Space> spec);

/// The spec registered under `name`; ConfigError listing the available names if none.
template <class Space>
const GateGeneratorSpec<Space>& get_gate_generator(const std::string& name);

/// Sorted names of all registered gate generators (built-ins included).
template <class Space>
std::vector<std::string> available_gate_generators();

/// Names of the built-in gate generators (the same for every space).
std::vector<std::string> builtin_gate_generator_names();

}  // namespace trackgen
