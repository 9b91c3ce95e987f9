// CourseConfig: what a Course builds around its track generator.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/localizer.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trackgen {

/// What a Course races on. Only closed-loop tracks today; the mode selects the
/// producer and the helpers built around it.
enum class CourseMode {
  track,  ///< a TrackGenerator: checkpoints along the centerline, collision against the borders
};

/// "track".
const char* to_string(CourseMode m);

struct CourseConfig {
  CourseMode mode = CourseMode::track;
  TrackGenConfig gen;  ///< the track generator (gen.num_envs is the batch E)
  /// Base seed k of the Course's own seeds: env e uses expand_seed(k, e,
  /// seed_expansion). Ignored when the Course is given a seed View.
  std::int32_t seed = 0;
  SeedExpansion seed_expansion = SeedExpansion::arange;

  /// Checkpoint spacing along the centerline, required, > 0.
  std::optional<float> checkpoint_spacing;
  /// Checkpoint capacity per env, >= 3. Unset: max(3, ceil(1.25 * N_max *
  /// spacing / checkpoint_spacing)) with the generator's point spacing: room
  /// for the longest track the generator can produce, the same for every batch.
  std::optional<int> max_checkpoints;

  /// Collision backend of step(); unset: no collision checking.
  std::optional<CollisionMethod> collision;
  /// Boxes per env, >= 1; more than 1 only with a collision backend.
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
  bool localize = false;
  /// Warm localization window W >= 1 (localize only; unset: cold, the whole
  /// ring every step). A warm localizer re-searches the ring when its result
  /// lies on the window's edge or more than 2 half widths from the centerline.
  std::optional<int> localize_window;

  /// Limits of a per-env speed profile (and curvature) refreshed with every
  /// generation; unset: none.
  std::optional<SpeedLimits> speed_limits;
  /// Curvature smoothing window, >= 0 (speed_limits only; unset: 2).
  std::optional<int> curvature_window;

  /// Throws ConfigError naming the field, the value and the rule for the first
  /// invalid field, an option set for a setup it does not apply to, or a
  /// generator config gen.validate(available_generators) rejects.
  void validate(const std::vector<std::string>& available_generators = {}) const;
};

}  // namespace trackgen
