// CourseConfig: what a Course builds around its track or gate generator, its
// validation, its JSON form and its schema. Like TrackGenConfig and
// GateGenConfig, one table of fields (runtime/src/course_config.cpp) with each
// field's bounds and documentation drives validate()'s single-field checks,
// both JSON directions and course_config_schema() (`trackgen config --schema
// --mode course`); docs/design.md#config-schema.
//
// JSON: an object of the fields by their names; any subset (missing fields keep
// their defaults). Enum-like settings are their names ("track" / "gates",
// "arange" / "hashed", "segments" / "sdf"); unset optional fields are null;
// `gen` and `gate_gen` are objects of TrackGenConfig and GateGenConfig fields,
// `speed_limits` an object of SpeedLimits fields (a_lat_max, a_accel,
// a_brake, v_cap) or null.
#pragma once

#include <trackgen/core/config.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/localizer.hpp>

#include <nlohmann/json_fwd.hpp>

#include <array>
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

template <>
struct SettingNames<CourseMode> {
  static constexpr std::array<SettingName<CourseMode>, 2> values{
      {{CourseMode::track, "track"}, {CourseMode::gates, "gates"}}};
};

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

  /// Throws ConfigError for the first invalid field: "CourseConfig.<field>:
  /// <value> is invalid; must be <rule>" (every float field checked for
  /// finiteness first, then every field's own bounds in declaration order,
  /// then the rules between fields), "CourseConfig.<field>: <value> applies
  /// only <when>" for an option set for a setup it does not apply to, or the
  /// message of the generator config's validate(available_generators) (gen in
  /// track mode, gate_gen in gates mode; pass the names of that mode's
  /// registry, or none to skip the check of `generator`).
  void validate(const std::vector<std::string>& available_generators = {}) const;
};

/// JSON round trip (format in the file comment) with the rules of
/// TrackGenConfig's: unknown keys and wrong types throw ConfigError naming
/// the key ("CourseConfig.gen: TrackGenConfig.num_envs: ..." for a nested
/// config's own error), missing keys keep their defaults, and the config is
/// left unchanged on an error. Reading does not validate (see validate()).
void to_json(nlohmann::json& j, const CourseConfig& c);
void from_json(const nlohmann::json& j, CourseConfig& c);

/// Reads a CourseConfig from a JSON file (ConfigError naming the path on I/O,
/// parse or field errors); not validated.
CourseConfig load_course_config(const std::string& path);

/// The schema of CourseConfig (format: trackgen/core/config_schema.hpp): every
/// field with its type, default, bounds, choices, doc and rules; `gen` and
/// `gate_gen` (type "object") list their own fields under "fields", with
/// `generators` and `gate_generators` as the choices of their `generator`
/// (empty: none listed).
nlohmann::json course_config_schema(const std::vector<std::string>& generators = {},
                                    const std::vector<std::string>& gate_generators = {});

}  // namespace trackgen
