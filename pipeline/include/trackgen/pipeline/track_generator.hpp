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
// each round skipped on the device unless needed (8 rounds at most; more masked
// envs than that regenerate the whole batch). A batch no larger than one round
// is regenerated whole. pre_relax_centerline() and generator_centerline() are
// refreshed for the regenerated envs too.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/graph_runner.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/pipeline/stages.hpp>

#include <memory>
#include <vector>

namespace trackgen {

namespace detail {
template <class Space>
class MaskedLane;
}  // namespace detail

template <class Space = Kokkos::DefaultExecutionSpace>
class TrackGenerator {
 public:
  using execution_space = Space;
  using IntView = DView<std::int32_t, Space>;
  using track_type = Track<typename Space::memory_space>;

  /// Builds a producer for `config` (validated here; ConfigError on bad fields)
  /// on the execution-space instance `space` (every allocation and launch),
  /// reading seeds from `seeds` (its num_envs must equal config.num_envs).
  TrackGenerator(const Space& space, const TrackGenConfig& config, SeedState<Space> seeds);

  /// Same, binding an [E] int32 View of base seeds (read at every generate()).
  TrackGenerator(const Space& space, const TrackGenConfig& config, const IntView& seeds);

  /// The two above on the default instance of `Space`.
  TrackGenerator(const TrackGenConfig& config, SeedState<Space> seeds);
  TrackGenerator(const TrackGenConfig& config, const IntView& seeds);

  TrackGenerator(const TrackGenerator&) = delete;
  TrackGenerator& operator=(const TrackGenerator&) = delete;
  ~TrackGenerator();

  /// Generates the whole batch and returns the (same) Track. Repeated calls with
  /// unchanged seeds return the identical batch.
  const track_type& generate();

  /// Generates on `ctx`: records into it when it is a caller's capture
  /// (NotCapturableError before any work if the generator has HOST stages),
  /// otherwise runs under the producer's policy on ctx's instance.
  const track_type& generate(const LaunchContext<Space>& ctx);

  /// Regenerates only the envs with mask[e] != 0 ([E] int32 View), advancing
  /// their epochs first when `advance`; all other envs stay bit-identical. The
  /// body is skipped on the device when the mask is all zero. One self-graph is
  /// cached per (mask pointer, advance).
  const track_type& generate(const IntView& mask, bool advance = false);

  /// Masked regeneration on `ctx`: records into it when it is a caller's
  /// capture, otherwise runs under the producer's policy on ctx's instance.
  const track_type& generate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance = false);

  /// As generate(); throws ConfigError unless `num_envs == config().num_envs`.
  const track_type& generate(int num_envs);

  /// Binds another [E] int32 View of base seeds to a producer built on a bound
  /// View (SeedState::rebind; epochs kept). The producer's own graphs are
  /// re-recorded on the next call. A caller's graph that recorded generate(ctx)
  /// keeps reading the old View: when one did, this logs a warning (record it
  /// again). Rebinding through seeds().rebind() is detected at the next call.
  void rebind_seeds(const IntView& seeds);

  /// The Track written by generate() (allocated at construction).
  const track_type& track() const { return track_; }
  const TrackGenConfig& config() const { return config_; }
  SeedState<Space>& seeds() { return seeds_; }
  const Space& space() const { return ctx_.space(); }
  /// Whether the whole program may be recorded into a caller's capture (the
  /// generator has no HOST stage).
  bool capturable() const { return program_.capturable(); }
  /// Execution policy of generate() (default Policy::automatic: self-graph replay).
  Policy policy() const { return policy_; }
  void set_policy(Policy p) { policy_ = p; }
  /// The producer's runner (its self-graphs, keys, ...).
  const GraphRunner<Space>& runner() const { return runner_; }
  /// The producer's program: its stages in order.
  const Program<Space>& program() const { return program_; }
  /// The constant-spacing chain of the last generate(), before the relaxation
  /// ([E*N_max], track().count real points per env, NaN padding): what the
  /// metrics layer compares the relaxed centerline with.
  const DView<Vec2f, Space>& pre_relax_centerline() const { return buffers_.cs_center; }
  /// The generator's raw output of the last generate() ([E*N] closed loops,
  /// N = config().num_points), before any resample.
  const DView<Vec2f, Space>& generator_centerline() const { return buffers_.gen_centerline; }
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
  std::size_t pipeline_bytes() const { return buffers_.device_bytes(); }

 private:
  /// Emits the work after the seed stage: generator and pipeline stages.
  void enqueue_body(const LaunchContext<Space>& ctx);
  /// Runs the generator and the stages on the window of envs
  /// [at, at + window_) with `generator` and the scratch of `buffers`.
  void run_window(const LaunchContext<Space>& ctx, Generator<Space>& generator, const PipelineBuffers<Space>& buffers,
                  int at);
  /// Builds the program of a full generation.
  Program<Space> make_program();
  /// Builds the program of a masked generation.
  Program<Space> make_masked_program(const IntView& mask, bool advance);
  /// After the seeds View was replaced: drops the self-graphs, rebuilds the
  /// program, and warns when a caller's capture recorded the old one.
  void refresh_seed_binding();
  /// Runs `program` on ctx under the policy, then the host-side truncation check.
  const track_type& run(const Program<Space>& program, const LaunchContext<Space>& ctx,
                        std::optional<GraphKey> key);

  TrackGenConfig config_;
  LaunchContext<Space> ctx_;
  SeedState<Space> seeds_;
  IntView seed_buf_;
  IntView any_flag_;
  const GeneratorSpec<Space>* spec_;
  int parts_;   // threads that run windows at once (window_threads())
  int window_;  // envs per window of the batch (each generator's batch)
  std::vector<std::unique_ptr<Generator<Space>>> generators_;  // one per window thread
  compat::ThreadPartitions<Space> partitions_;                 // the window threads (parts_ > 1)
  PipelineBuffers<Space> buffers_;
  track_type track_;
  IntView padded_;  // [E] the row from which each env's Track rows hold padding (inflate's `padded`)
  std::unique_ptr<detail::MaskedLane<Space>> lane_;  // null: masked generation recomputes the whole batch
  Program<Space> program_;
  GraphRunner<Space> runner_;
  Policy policy_ = Policy::automatic;
  const std::int32_t* recorded_seeds_ = nullptr;  // the seeds View the program and graphs read
  bool caller_recorded_ = false;                   // generate(ctx) recorded into a caller's capture
};

}  // namespace trackgen
