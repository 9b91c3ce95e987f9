// CourseConfig: what a Course builds around its track generator.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/localizer.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trackgen {

/// What a Course races on; the mode selects the producer and the helpers
/// built around it.
enum class CourseMode {
  track,  ///< a TrackGenerator: checkpoints along the centerline, collision against the borders
  gates,  ///< a GateGenerator: the gates are the checkpoints, posts or frames the obstacles
};

/// "track" or "gates".
const char* to_string(CourseMode m);

struct CourseConfig {
  CourseMode mode = CourseMode::track;
  TrackGenConfig gen;  ///< the track generator (track mode; gen.num_envs is the batch E)
  /// The gate generator (gates mode; gate_gen.num_envs is the batch E, and
  /// gate_gen.gate_width must be > 0).
  GateGenConfig gate_gen;
  /// Base seed k of the Course's own seeds: env e uses expand_seed(k, e,
  /// seed_expansion). Ignored when the Course is given a seed View.
  std::int32_t seed = 0;
  SeedExpansion seed_expansion = SeedExpansion::arange;

  /// Checkpoint spacing along the centerline, > 0: required in track mode,
  /// unset in gates mode (the gates are the checkpoints).
  std::optional<float> checkpoint_spacing;
  /// Checkpoint capacity per env, >= 3. Unset: max(3, ceil(1.25 * N_max *
  /// spacing / checkpoint_spacing)) with the generator's point spacing: room
  /// for the longest track the generator can produce, the same for every batch.
  std::optional<int> max_checkpoints;

  /// Collision backend of step(); unset: no collision checking.
  std::optional<CollisionMethod> collision;
  /// Boxes per env, >= 1; more than 1 only with a collision backend or gate posts.
  int max_boxes = 1;
  /// Texels per side of the signed distance field, >= 8 (sdf only; unset: 128).
  std::optional<int> sdf_resolution;
  /// Padding of the signed distance field's box, > 0 (sdf only; unset: 10%).
  std::optional<float> sdf_padding;

  /// Texels per side of a baked height field, >= 8; unset: none.
  std::optional<int> heightfield_resolution;
  /// Padding of the height field's box, > 0 (with a height field only; unset: 10%).
  std::optional<float> heightfield_padding;

  /// Whether step() localizes every agent on its track (StepResult::frame).
  /// Gates mode always localizes, on the course line.
  bool localize = false;
  /// Warm localization window W >= 1 (localize or gates mode only; unset:
  /// cold, the whole ring every step). A warm localizer re-searches the ring when its result
  /// lies on the window's edge or more than 2 half widths from the centerline.
  std::optional<int> localize_window;

  /// Limits of a per-env speed profile (and curvature) refreshed with every
  /// generation; unset: none.
  std::optional<SpeedLimits> speed_limits;
  /// Curvature smoothing window, >= 0 (speed_limits only; unset: 2).
  std::optional<int> curvature_window;

  // --- gates mode only (docs/algorithms.md#course-gates-mode)
  /// Course line points per gate, >= 2 (must stay 8 in track mode).
  int samples_per_gate = 8;
  /// Radius of the gate posts, >= 0; > 0 checks the boxes against the posts
  /// (a DiscChecker on every gate's left and right ends, StepResult::posts).
  float post_radius = 0.0f;
  /// Checks a sphere of agent_radius at the agent position against the gate
  /// frames (a FrameChecker, StepResult::frames); exclusive with post_radius > 0.
  bool frame_collision = false;
  /// Frame bar thickness, depth along the gate's forward axis, and the agent
  /// sphere's radius: all > 0 with frame_collision, 0 otherwise.
  float frame_thickness = 0.0f;
  float frame_depth = 0.0f;
  float agent_radius = 0.0f;
  /// Gates examined per env around the progress target, >= 1 (frame_collision only).
  int frame_window = 4;

  /// Envs E (gen.num_envs or gate_gen.num_envs by mode).
  int num_envs() const { return mode == CourseMode::gates ? gate_gen.num_envs : gen.num_envs; }

  /// Throws ConfigError naming the field, the value and the rule for the first
  /// invalid field, an option set for a setup it does not apply to, or a
  /// generator config its validate(available_generators) rejects (gen in
  /// track mode, gate_gen in gates mode).
  void validate(const std::vector<std::string>& available_generators = {}) const;
};

}  // namespace trackgen
