// TrackGenerator: the batched track producer (docs/design.md#trackgenerator).
//
// Construction validates the config, allocates the Track, every scratch buffer
// and the [E] seed buffer, and runs one real warm-up pass (GraphRunner::prepare),
// so the Track holds the batch of the initial seeds. generate() runs the program
// seeds -> generator -> constant-spacing resample -> relaxation -> inflation
// through the producer's GraphRunner and returns a reference to the same Track
// every call (stable data() pointers). That Track is the producer's to write:
// an application reads it; writing into it, its padding rows above all, is
// not supported (generate() writes only the padding rows a previous batch
// left real, docs/design.md#padding).
//
// Execution (see exec/graph_runner.hpp): by default (Policy::automatic) the
// producer's own graph is recorded on the first generate() and replayed after;
// Policy::eager runs the stages directly; generate(ctx) with a recording context
// records into the caller's capture (NotCapturableError, before any work, for a
// generator with HOST stages). Results are bitwise the same on every path.
//
// Masked regeneration: generate(mask, advance) regenerates only the envs with
// mask[e] != 0 (advancing their epochs first when asked); every other env's
// Track stays bit-identical, and an all-zero mask skips the body on the device.
// Its cost follows the masked envs, not the batch: the masked envs are listed on
// the device and regenerated in rounds of masked_lane_envs() envs on a small
// lane batch of their own (an env's track depends on its effective seed alone),
// each round skipped on the device unless needed (on a device 8 rounds at most,
// and more masked envs than that regenerate the whole batch; on a host space the
// rounds hold the whole batch). A batch no larger than one round
// is regenerated whole. pre_relax_centerline() and generator_centerline() are
// refreshed for the regenerated envs too.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/graph_runner.hpp>
#include <trackgen/exec/producer.hpp>
#include <trackgen/generators/generator.hpp>

#include <memory>
#include <vector>

namespace trackgen {

template <class Space>
class PipelineBuffers;  // internal: trackgen/pipeline/detail/stages.hpp

namespace detail {
template <class Space>
class MaskedLane;
}  // namespace detail

template <class Space = Kokkos::DefaultExecutionSpace>
class TrackGenerator
    : public Producer<TrackGenerator<Space>, Space, TrackGenConfig, Track<typename Space::memory_space>> {
  using Base = Producer<TrackGenerator<Space>, Space, TrackGenConfig, Track<typename Space::memory_space>>;
  friend Base;

 public:
  using IntView = typename Base::IntView;
  using track_type = Track<typename Space::memory_space>;
  /// Names the producer in its program, profiling region and messages.
  static constexpr const char* kind = "TrackGenerator";

  /// Builds a producer for `config` (validated here; ConfigError on bad fields)
  /// on the execution-space instance `space` (every allocation and launch),
  /// reading seeds from `seeds` (its num_envs must equal config.num_envs).
  TrackGenerator(const Space& space, const TrackGenConfig& config, SeedState<Space> seeds);

  /// Same, binding an [E] int32 View of base seeds (read at every generate()).
  TrackGenerator(const Space& space, const TrackGenConfig& config, const IntView& seeds);

  /// The two above on the default instance of `Space`.
  TrackGenerator(const TrackGenConfig& config, SeedState<Space> seeds);
  TrackGenerator(const TrackGenConfig& config, const IntView& seeds);

  ~TrackGenerator();

  // generate(), generate(ctx), generate(mask, advance), generate(ctx, mask,
  // advance), generate(num_envs), config(), space(), capturable(), policy(),
  // set_policy(), runner() and program(): see Producer (trackgen/exec/producer.hpp).

  /// Binds another [E] int32 View of base seeds to a producer built on a bound
  /// View (SeedState::rebind; epochs kept). The producer's own graphs are
  /// re-recorded on the next call. A caller's graph that recorded generate(ctx)
  /// keeps reading the old View: when one did, this logs a warning (record it
  /// again). Rebinding through seeds().rebind() is detected at the next call.
  void rebind_seeds(const IntView& seeds);

  /// The Track written by generate() (allocated at construction).
  const track_type& track() const { return track_; }
  SeedState<Space>& seeds() { return this->seeds_; }
  /// The constant-spacing chain of the last generate(), before the relaxation
  /// ([E*N_max], track().count real points per env, NaN padding): what the
  /// metrics layer compares the relaxed centerline with.
  const DView<Vec2f, Space>& pre_relax_centerline() const;
  /// The generator's raw output of the last generate() ([E*N] closed loops,
  /// N = config().num_points), before any resample.
  const DView<Vec2f, Space>& generator_centerline() const;
  /// Envs per round of a masked generation (num_envs when it regenerates the
  /// whole batch; see the file comment).
  int masked_lane_envs() const;
  /// Envs per window of generate(): on host spaces the generator and the
  /// stages run the batch a window at a time, reusing one window's scratch
  /// (docs/design.md#windows); num_envs where the batch runs at once.
  int window_envs() const { return window_; }
  /// Threads that each run whole windows of generate() at once, each with its
  /// own generator and its own part of the stages' scratch (Kokkos::OpenMP,
  /// docs/design.md#windows); 1 where the windows run one after another.
  int window_threads() const { return parts_; }
  /// Bytes of device memory held by this producer (Track + scratch + generator
  /// + masked-regeneration lane).
  std::size_t device_bytes() const;
  /// Bytes of device memory held by the pipeline's scratch alone.
  std::size_t pipeline_bytes() const;

 private:
  using Base::any_flag_;
  using Base::config_;
  using Base::ctx_;
  using Base::program_;
  using Base::runner_;
  using Base::seed_buf_;
  using Base::seeds_;

  // The hooks of Producer.
  Stage<Space> body_stage();
  std::vector<BufferRef> masked_writes() const;
  void enqueue_body(const LaunchContext<Space>& ctx);
  const track_type& output() const { return track_; }
  Program<Space> make_masked_program(const IntView& mask, bool advance);
  void before_generate() { refresh_seed_binding(); }
  void after_run(const LaunchContext<Space>& ctx);

  /// Runs the generator and the stages on the window of envs
  /// [at, at + window_) with `generator` and the scratch of `buffers`.
  void run_window(const LaunchContext<Space>& ctx, Generator<Space>& generator, const PipelineBuffers<Space>& buffers,
                  int at);
  /// After the seeds View was replaced: drops the self-graphs, rebuilds the
  /// program, and warns when a caller's capture recorded the old one.
  void refresh_seed_binding();

  const GeneratorSpec<Space>* spec_;
  int parts_;   // threads that run windows at once (window_threads())
  int window_;  // envs per window of the batch (each generator's batch)
  std::vector<std::unique_ptr<Generator<Space>>> generators_;  // one per window thread
  compat::ThreadPartitions<Space> partitions_;                 // the window threads (parts_ > 1)
  std::unique_ptr<PipelineBuffers<Space>> buffers_;            // the stages' scratch
  track_type track_;
  IntView padded_;  // [E] the row from which each env's Track rows hold padding (inflate's `padded`)
  std::unique_ptr<detail::MaskedLane<Space>> lane_;  // null: masked generation recomputes the whole batch
  const std::int32_t* recorded_seeds_ = nullptr;     // the seeds View the program and graphs read
  bool caller_recorded_ = false;                     // generate(ctx) recorded into a caller's capture
};

}  // namespace trackgen
