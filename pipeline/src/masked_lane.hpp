// The masked-regeneration lane of TrackGenerator (internal).
//
// A masked generation (TrackGenerator::generate(mask, advance)) must leave every
// unmasked env bit-identical. Recomputing the whole batch does that, at the cost
// of a full generation per call however few envs are masked, which a simulation
// loop regenerating a handful of finished envs every step cannot afford. The
// lane makes the cost proportional to the masked envs instead:
//
//  1. compact: one team scans the mask in env order and lists the masked envs
//     (ids[0..count)), then raises the flag of every round r with count > r * B
//     (B = the lane's batch, R rounds at most: R * B envs, the whole batch on a
//     host space), or, when more than R * B envs are masked, the flag of the
//     whole-batch fallback instead;
//  2. round r (skipped on the device unless flagged): gather the effective
//     seeds of envs ids[r*B .. r*B + B) into the lane's seed buffer (slots past
//     count repeat the round's first env, so the lane always runs real seeds),
//     run the generator and the pipeline on the lane's own buffers (a B-env
//     batch), and scatter the lane's rows back into the Track (and the
//     generator output and constant-spacing chain of the pipeline scratch) of
//     the envs the round covers;
//  3. the fallback (skipped unless flagged): the whole batch, as a generation
//     without the lane (the masked envs' effective seeds are already updated).
// At most R + 1 skips per generation (R = 8 on a device), whatever the batch size.
//
// Bitwise: an env's output is a function of its effective seed alone (every
// random stream is keyed by the seed, every kernel works on one env's slice), so
// the row the lane computes equals the row a full-batch generation would write.
// Slots past `count` compute throw-away rows and are never scattered, and the
// fallback rewrites unmasked envs identically, so any of them run
// unconditionally (an unconditional lowering) changes no result either.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/exec/launch_context.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/pipeline/detail/stages.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

namespace trackgen::detail {

/// Rounds of a lane at most on `Space`: more masked envs than the rounds hold
/// take the whole-batch fallback. A round's check is a host read or a
/// conditional node on a host space, so 1024 rounds cost nothing there; on a
/// device each is a conditional node and a few launches, so 8.
template <class Space>
inline constexpr int masked_lane_rounds = host_accessible_v<Space> ? 1024 : 8;

/// Envs per lane round on `Space` for a batch of `num_envs`, or num_envs when
/// masked generation should recompute the whole batch instead. Host spaces
/// run 8 envs per round (a round costs its envs, about 20 launches besides,
/// and a simulation step finishes a few), or E / 1024 (rounded up) above 8192
/// envs, so that the rounds always hold the whole batch: a step that finishes
/// a few hundred of 65536 envs regenerates those, never the batch. Devices
/// run 1/8 of the batch, at least 256 (a round costs its launches).
template <class Space>
int masked_lane_envs(int num_envs) {
  constexpr int rounds = masked_lane_rounds<Space>;
  const int b = host_accessible_v<Space> ? std::max(8, num_envs / rounds + (num_envs % rounds != 0 ? 1 : 0))
                                         : (num_envs / 8 > 256 ? num_envs / 8 : 256);
  return b < num_envs ? b : num_envs;
}

template <class Space>
class MaskedLane {
 public:
  using IntView = DView<std::int32_t, Space>;
  using track_type = Track<typename Space::memory_space>;

  /// The lane of a producer of `config` (num_envs E) whose generator is `spec`;
  /// `lanes` < E envs per round, min(ceil(E / lanes), masked_lane_rounds<Space>)
  /// rounds. Allocates on `space`.
  MaskedLane(const Space& space, const TrackGenConfig& config, const GeneratorSpec<Space>& spec, int lanes);

  /// Lists the envs with mask[e] != 0 and raises the flags of the rounds needed.
  void compact(const LaunchContext<Space>& ctx, const IntView& mask) const;

  /// Regenerates the listed envs: one round per lane batch, each skipped unless
  /// needed, or `whole_batch(ctx)` (the producer's body) when too many are
  /// listed. On a host space each round is nested in the one before (the
  /// rounds needed are a prefix), so a call checks one round more than it runs
  /// however many rounds the lane has. `seed_buf` holds the batch's effective seeds, `track` and
  /// `buffers` are the producer's output and scratch, `padded` the row from
  /// which each env's Track rows hold padding (inflate's `padded`), which the
  /// scatter keeps true for the envs it copies.
  void regenerate(const LaunchContext<Space>& ctx, const IntView& seed_buf, track_type& track, const IntView& padded,
                  PipelineBuffers<Space>& buffers,
                  const std::function<void(const LaunchContext<Space>&)>& whole_batch);

  int lanes() const { return lanes_; }
  int rounds() const { return rounds_; }
  /// Bytes of device memory held by the lane.
  std::size_t device_bytes() const;

 private:
  /// Round r: gathers the seeds of envs ids[r*B, r*B + B), runs the lane batch
  /// and scatters its rows into `track` and `buffers`.
  void run_round(const LaunchContext<Space>& ctx, int r, const IntView& seed_buf, track_type& track,
                 const IntView& padded, PipelineBuffers<Space>& buffers);
  /// Rounds r, r + 1, ...: each inside the skip of the one before.
  void round_chain(const LaunchContext<Space>& ctx, int r, const IntView& seed_buf, track_type& track,
                   const IntView& padded, PipelineBuffers<Space>& buffers);

  TrackGenConfig config_;  // the producer's config with num_envs = lanes
  int num_envs_;
  int lanes_;
  int rounds_;                        // R
  IntView ids_;                       // [E] masked env ids, in env order
  IntView count_;                     // [1] number of masked envs
  IntView flags_;                     // [R + 1] round r is needed; [R]: the whole-batch fallback is
  std::vector<IntView> round_flags_;  // [1] views of flags_ (skip_unless flags)
  IntView seeds_;                     // [B] lane effective seeds
  std::unique_ptr<Generator<Space>> generator_;
  PipelineBuffers<Space> buffers_;
  track_type track_;
};

}  // namespace trackgen::detail
