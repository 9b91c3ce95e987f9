// GateGenerator: the batched gate-course producer (docs/design.md#gategenerator).
//
// The same contract as TrackGenerator: construction validates the config
// (ConfigError naming the field, before any allocation), allocates the
// GateSequence, all scratch and the [E] seed buffer, and runs one real warm-up
// pass, so the sequence holds the batch of the initial seeds. generate() runs
// the program seeds -> anchors -> order -> [normalize] -> separate -> lift ->
// frames -> validity through the producer's GraphRunner (self-graph replay by
// default, Policy::eager, or recording into a caller's capture) and returns
// the same GateSequence every call (stable data() pointers). Every stage is
// STATIC, so the whole program is always capturable.
//
// Masked regeneration: generate(mask, advance) regenerates only the envs with
// mask[e] != 0 (advancing their epochs first when asked); every other env
// stays bit-identical, and an all-zero mask skips the body on the device. A
// gate batch is cheap (no resample, no relaxation): the masked path reruns
// the whole body on the effective seeds, which rewrites unmasked envs
// identically, instead of TrackGenerator's lane rounds.
#pragma once

#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/exec/graph_runner.hpp>
#include <trackgen/generators/gate_source.hpp>
#include <trackgen/pipeline/gate_stages.hpp>

#include <memory>

namespace trackgen {

template <class Space = Kokkos::DefaultExecutionSpace>
class GateGenerator {
 public:
  using execution_space = Space;
  using IntView = DView<std::int32_t, Space>;
  using sequence_type = GateSequence<typename Space::memory_space>;

  /// Builds a producer for `config` (validated here, with the generator's
  /// orderings and capacity: ConfigError naming the field) on the instance
  /// `space`, reading seeds from `seeds` (its num_envs must equal config.num_envs).
  GateGenerator(const Space& space, const GateGenConfig& config, SeedState<Space> seeds);
  /// Same, binding an [E] int32 View of base seeds (read at every generate()).
  GateGenerator(const Space& space, const GateGenConfig& config, const IntView& seeds);
  /// The two above on the default instance of `Space`.
  GateGenerator(const GateGenConfig& config, SeedState<Space> seeds);
  GateGenerator(const GateGenConfig& config, const IntView& seeds);

  GateGenerator(const GateGenerator&) = delete;
  GateGenerator& operator=(const GateGenerator&) = delete;

  /// Generates the whole batch and returns the (same) GateSequence. Repeated
  /// calls with unchanged seeds return the identical batch.
  const sequence_type& generate();
  /// Generates on `ctx`: records into it when it is a caller's capture,
  /// otherwise runs under the producer's policy on ctx's instance.
  const sequence_type& generate(const LaunchContext<Space>& ctx);
  /// Regenerates only the envs with mask[e] != 0 ([E] int32 View), advancing
  /// their epochs first when `advance`; all other envs stay bit-identical. One
  /// self-graph is cached per (mask pointer, advance).
  const sequence_type& generate(const IntView& mask, bool advance = false);
  /// Masked regeneration on `ctx`.
  const sequence_type& generate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance = false);
  /// As generate(); ConfigError unless `num_envs == config().num_envs`.
  const sequence_type& generate(int num_envs);

  /// The GateSequence written by generate() (allocated at construction).
  const sequence_type& gates() const { return gates_; }
  const GateGenConfig& config() const { return config_; }
  /// The seeds and epochs (set(), advance() and effective() are const; the
  /// bound View cannot be swapped under the recorded graphs).
  const SeedState<Space>& seeds() const { return seeds_; }
  const Space& space() const { return ctx_.space(); }
  /// The resolved stage parameters.
  const GateParams& params() const { return params_; }
  /// The gate generator's spec.
  const GateGeneratorSpec<Space>& spec() const { return *spec_; }
  /// Whether the whole program may be recorded into a caller's capture (always).
  bool capturable() const { return program_.capturable(); }
  /// Execution policy of generate() (default Policy::automatic: self-graph replay).
  Policy policy() const { return policy_; }
  void set_policy(Policy p) { policy_ = p; }
  const GraphRunner<Space>& runner() const { return runner_; }
  const Program<Space>& program() const { return program_; }
  /// [E] gates of the last generate() whose forward fell back (vertical or
  /// zero tangent): a diagnostic.
  const IntView& frame_fallbacks() const { return fallbacks_; }
  /// [E*S] the source's anchors of the last generate(), in its own order.
  const DView<Vec2f, Space>& anchors() const { return anchors_; }
  /// [E*G] the ordered plan-view gate centres after the separation.
  const DView<Vec2f, Space>& plan_positions() const { return staging_; }
  /// Bytes of device memory held by this producer (sequence + scratch + source).
  std::size_t device_bytes() const;

 private:
  void enqueue_body(const LaunchContext<Space>& ctx);
  Program<Space> make_program();
  Program<Space> make_masked_program(const IntView& mask, bool advance);
  const sequence_type& run(const Program<Space>& program, const LaunchContext<Space>& ctx, std::optional<GraphKey> key);

  GateGenConfig config_;
  const GateGeneratorSpec<Space>* spec_;
  GateParams params_;
  LaunchContext<Space> ctx_;
  SeedState<Space> seeds_;
  IntView seed_buf_;
  IntView any_flag_;
  std::unique_ptr<GateSource<Space>> source_;
  DView<Vec2f, Space> anchors_;            // [E*S]
  DView<std::uint64_t, Space> sort_keys_;  // [E*S]
  DView<Vec2f, Space> sorted_;             // [E*S]
  DView<float, Space> pair_keys_;          // [E*S]
  DView<Vec2f, Space> staging_;            // [E*G]
  DView<float, Space> cum_, z_;            // [E*G]
  IntView fallbacks_;                      // [E]
  sequence_type gates_;
  Program<Space> program_;
  GraphRunner<Space> runner_;
  Policy policy_ = Policy::automatic;
};

}  // namespace trackgen
