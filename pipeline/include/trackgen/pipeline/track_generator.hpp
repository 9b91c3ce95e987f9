// TrackGenerator: the batched track producer (reference section 1.6).
//
// Construction validates the config and allocates the Track, every scratch
// buffer and the [E] seed buffer; generate() copies the current effective seeds
// in, runs generator -> constant-spacing resample -> relaxation -> inflation and
// returns a reference to the same Track every call (stable data() pointers).
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/pipeline/stages.hpp>

#include <memory>

namespace trackgen {

template <class Space = Kokkos::DefaultExecutionSpace>
class TrackGenerator {
 public:
  using execution_space = Space;
  using IntView = DView<std::int32_t, Space>;
  using track_type = Track<typename Space::memory_space>;

  /// Builds a producer for `config` (validated here; ConfigError on bad fields)
  /// reading seeds from `seeds` (its num_envs must equal config.num_envs).
  TrackGenerator(const TrackGenConfig& config, SeedState<Space> seeds, Space space = Space());

  /// Same, binding an [E] int32 View of base seeds (read at every generate()).
  TrackGenerator(const TrackGenConfig& config, const IntView& seeds, Space space = Space());

  TrackGenerator(const TrackGenerator&) = delete;
  TrackGenerator& operator=(const TrackGenerator&) = delete;

  /// Generates the whole batch and returns the (same) Track. Repeated calls with
  /// unchanged seeds return the identical batch.
  const track_type& generate();

  /// As generate(); throws ConfigError unless `num_envs == config().num_envs`.
  const track_type& generate(int num_envs);

  /// The Track written by generate() (allocated at construction).
  const track_type& track() const { return track_; }
  const TrackGenConfig& config() const { return config_; }
  SeedState<Space>& seeds() { return seeds_; }
  const Space& space() const { return ctx_.space(); }
  /// Whether the selected generator is capturable (fixed launch sequence).
  bool capturable() const { return capturable_; }
  /// Pipeline scratch (e.g. the pre-relax constant-spacing chain `cs_center`).
  const PipelineBuffers<Space>& buffers() const { return buffers_; }
  /// Bytes of device memory held by this producer (Track + scratch + generator).
  std::size_t device_bytes() const;

 private:
  TrackGenConfig config_;
  LaunchContext<Space> ctx_;
  SeedState<Space> seeds_;
  IntView seed_buf_;
  std::unique_ptr<Generator<Space>> generator_;
  bool capturable_ = true;
  PipelineBuffers<Space> buffers_;
  track_type track_;
};

}  // namespace trackgen
