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
#include <trackgen/exec/producer.hpp>
#include <trackgen/generators/gate_source.hpp>
#include <trackgen/pipeline/gate_stages.hpp>

#include <memory>

namespace trackgen {

template <class Space = Kokkos::DefaultExecutionSpace>
class GateGenerator
    : public Producer<GateGenerator<Space>, Space, GateGenConfig, GateSequence<typename Space::memory_space>> {
  using Base = Producer<GateGenerator<Space>, Space, GateGenConfig, GateSequence<typename Space::memory_space>>;
  friend Base;

 public:
  using IntView = typename Base::IntView;
  using sequence_type = GateSequence<typename Space::memory_space>;
  /// Names the producer in its program, profiling region and messages.
  static constexpr const char* kind = "GateGenerator";

  /// Builds a producer for `config` (validated here, with the generator's
  /// orderings and capacity: ConfigError naming the field) on the instance
  /// `space`, reading seeds from `seeds` (its num_envs must equal config.num_envs).
  GateGenerator(const Space& space, const GateGenConfig& config, SeedState<Space> seeds);
  /// Same, binding an [E] int32 View of base seeds (read at every generate()).
  GateGenerator(const Space& space, const GateGenConfig& config, const IntView& seeds);
  /// The two above on the default instance of `Space`.
  GateGenerator(const GateGenConfig& config, SeedState<Space> seeds);
  GateGenerator(const GateGenConfig& config, const IntView& seeds);

  // generate(), generate(ctx), generate(mask, advance), generate(ctx, mask,
  // advance), generate(num_envs), config(), space(), capturable() (always
  // true: every stage is STATIC), policy(), set_policy(), runner() and
  // program(): see Producer (trackgen/exec/producer.hpp).

  /// The GateSequence written by generate() (allocated at construction).
  const sequence_type& gates() const { return gates_; }
  /// The seeds and epochs (set(), advance() and effective() are const; the
  /// bound View cannot be swapped under the recorded graphs).
  const SeedState<Space>& seeds() const { return this->seeds_; }
  /// The resolved stage parameters.
  const GateParams& params() const { return params_; }
  /// The gate generator's spec.
  const GateGeneratorSpec<Space>& spec() const { return *spec_; }
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
  using Base::config_;
  using Base::seed_buf_;

  // The hooks of Producer.
  Stage<Space> body_stage();
  std::vector<BufferRef> masked_writes() const;
  void enqueue_body(const LaunchContext<Space>& ctx);
  const sequence_type& output() const { return gates_; }

  const GateGeneratorSpec<Space>* spec_;
  GateParams params_;
  std::unique_ptr<GateSource<Space>> source_;
  DView<Vec2f, Space> anchors_;            // [E*S]
  DView<std::uint64_t, Space> sort_keys_;  // [E*S]
  DView<Vec2f, Space> sorted_;             // [E*S]
  DView<float, Space> pair_keys_;          // [E*S]
  DView<Vec2f, Space> staging_;            // [E*G]
  DView<float, Space> cum_, z_;            // [E*G]
  IntView fallbacks_;                      // [E]
  sequence_type gates_;
};

}  // namespace trackgen
