// CourseConfig and SpeedLimits: validation, the JSON format and the schema.
//
// One table of fields per struct (ConfigFields<CourseConfig>,
// ConfigFields<SpeedLimits>) with each field's bounds and documentation drives
// both JSON directions, validate()'s finiteness and single-field checks, and
// course_config_schema(), as for TrackGenConfig (core/src/config.cpp). The
// rules between fields, most of them about which options apply in which mode,
// are the code of validate() below; the table states them in words.
#include <trackgen/core/detail/config_fields.hpp>
#include <trackgen/runtime/course_config.hpp>

namespace trackgen {
namespace detail::config_fields {

#define TRACKGEN_COURSE_FIELD(name, spec) v(#name, c.name, spec)

constexpr const char* track_mode_only = "set only in track mode";
constexpr const char* gates_mode_only = "at its default unless in gates mode";

/// Calls `v(name, member, spec)` for every field of a CourseConfig, in
/// declaration order, with its FieldSpec.
template <>
struct ConfigFields<CourseConfig> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
    TRACKGEN_COURSE_FIELD(mode, doc("what the course races on: a TrackGenerator (track) or a GateGenerator (gates)"));
    TRACKGEN_COURSE_FIELD(
        gen, doc("the track generator; gen.num_envs is the batch E in track mode").rule("validated in track mode"));
    TRACKGEN_COURSE_FIELD(gate_gen, doc("the gate generator; gate_gen.num_envs is the batch E in gates mode")
                                        .rule("validated in gates mode")
                                        .rule("gate_gen.gate_width > 0 in gates mode"));
    TRACKGEN_COURSE_FIELD(seed, doc("base seed k: env e uses expand_seed(k, e, seed_expansion)"));
    TRACKGEN_COURSE_FIELD(seed_expansion, doc("how the base seed expands to per-env seeds"));
    TRACKGEN_COURSE_FIELD(checkpoint_spacing, doc("checkpoint spacing along the centerline")
                                                  .gt(0)
                                                  .rule("required in track mode")
                                                  .rule("null in gates mode (the gates are the checkpoints)"));
    TRACKGEN_COURSE_FIELD(max_checkpoints,
                          doc("checkpoint capacity per env; null: room for the longest track the generator can "
                              "produce")
                              .ge(3)
                              .rule(track_mode_only));
    TRACKGEN_COURSE_FIELD(collision,
                          doc("collision backend of step(); null: no collision checking").rule(track_mode_only));
    TRACKGEN_COURSE_FIELD(max_boxes, doc("boxes per env")
                                         .ge(1)
                                         .rule("1 unless a collision backend is set (track mode) or gate posts "
                                               "are (gates mode)"));
    TRACKGEN_COURSE_FIELD(
        sdf_resolution,
        doc("texels per side of the signed distance field; null: 128").ge(8).rule("null unless collision is \"sdf\""));
    TRACKGEN_COURSE_FIELD(
        sdf_padding,
        doc("padding of the signed distance field's box; null: 10%").gt(0).rule("null unless collision is \"sdf\""));
    TRACKGEN_COURSE_FIELD(heightfield_resolution,
                          doc("texels per side of a baked height field; null: none").ge(8).rule(track_mode_only));
    TRACKGEN_COURSE_FIELD(
        heightfield_padding,
        doc("padding of the height field's box; null: 10%").gt(0).rule("null unless heightfield_resolution is set"));
    TRACKGEN_COURSE_FIELD(localize, doc("whether step() localizes every agent on its track (gates mode always "
                                        "localizes, on the course line)"));
    TRACKGEN_COURSE_FIELD(localize_window, doc("warm localization window; null: cold, the whole ring every step")
                                               .ge(1)
                                               .rule("null unless localize is true (track mode)"));
    TRACKGEN_COURSE_FIELD(speed_limits, doc("limits of a per-env speed profile refreshed with every generation; "
                                            "null: none")
                                            .rule(track_mode_only));
    TRACKGEN_COURSE_FIELD(curvature_window,
                          doc("curvature smoothing window; null: 2").ge(0).rule("null unless speed_limits is set"));
    TRACKGEN_COURSE_FIELD(samples_per_gate, doc("course line points per gate").ge(2).rule("8 unless in gates mode"));
    TRACKGEN_COURSE_FIELD(
        post_radius,
        doc("radius of the gate posts the boxes are checked against; 0: no posts").ge(0).rule(gates_mode_only));
    TRACKGEN_COURSE_FIELD(frame_collision, doc("check a sphere of agent_radius against the gate frames")
                                               .rule(gates_mode_only)
                                               .rule("false when post_radius > 0"));
    TRACKGEN_COURSE_FIELD(frame_thickness,
                          doc("frame bar thickness").ge(0).rule("> 0 with frame_collision, 0 otherwise"));
    TRACKGEN_COURSE_FIELD(
        frame_depth,
        doc("frame depth along the gate's forward axis").ge(0).rule("> 0 with frame_collision, 0 otherwise"));
    TRACKGEN_COURSE_FIELD(agent_radius,
                          doc("radius of the agent sphere").ge(0).rule("> 0 with frame_collision, 0 otherwise"));
    TRACKGEN_COURSE_FIELD(
        frame_window,
        doc("gates examined per env around the progress target").ge(1).rule("4 unless frame_collision is true"));
  }
};

/// SpeedLimits' fields, with their bounds.
template <>
struct ConfigFields<SpeedLimits> {
  template <class Config, class Visitor>
  static void visit(Config& c, Visitor&& v) {
    TRACKGEN_COURSE_FIELD(a_lat_max, doc("lateral acceleration bound").gt(0));
    TRACKGEN_COURSE_FIELD(a_accel, doc("longitudinal acceleration").ge(0));
    TRACKGEN_COURSE_FIELD(a_brake, doc("braking deceleration").ge(0));
    TRACKGEN_COURSE_FIELD(v_cap, doc("top speed").gt(0));
  }
};

#undef TRACKGEN_COURSE_FIELD

/// SpeedLimits as a field of CourseConfig: its own table.
template <>
struct Nested<SpeedLimits> {
  static constexpr bool is_nested = true;
  static constexpr const char* name = "SpeedLimits";
  static void read(const json& j, SpeedLimits& s) { read_fields(j, s, name); }
  static json write(const SpeedLimits& s) {
    json j;
    write_fields(j, s);
    return j;
  }
  static json schema(const GeneratorChoices& g) { return schema_of<SpeedLimits>(name, g); }
};

namespace {

const FieldRules rules{"CourseConfig"};

/// The options of gates mode, rejected in track mode (left at their defaults).
void reject_gate_options(const CourseConfig& c) {
  const char* when = "in gates mode";
  rules.check_applies(c.samples_per_gate == 8, "samples_per_gate", show(c.samples_per_gate),
                      "in gates mode (8 otherwise)");
  rules.check_applies(c.post_radius == 0.0f, "post_radius", show(c.post_radius), when);
  rules.check_applies(!c.frame_collision, "frame_collision", show(c.frame_collision), when);
  rules.check_applies(c.frame_thickness == 0.0f, "frame_thickness", show(c.frame_thickness), when);
  rules.check_applies(c.frame_depth == 0.0f, "frame_depth", show(c.frame_depth), when);
  rules.check_applies(c.agent_radius == 0.0f, "agent_radius", show(c.agent_radius), when);
  rules.check_applies(c.frame_window == 4, "frame_window", show(c.frame_window), "with frame_collision (4 otherwise)");
}

/// The track-mode options, rejected in gates mode (left unset).
void reject_track_options(const CourseConfig& c) {
  const char* when = "in track mode";
  rules.check_applies(!c.checkpoint_spacing, "checkpoint_spacing", show(c.checkpoint_spacing),
                      "in track mode (the gates are the checkpoints)");
  rules.check_applies(!c.max_checkpoints, "max_checkpoints", show(c.max_checkpoints), when);
  rules.check_applies(!c.collision, "collision", show(c.collision), when);
  rules.check_applies(!c.sdf_resolution, "sdf_resolution", show(c.sdf_resolution), when);
  rules.check_applies(!c.sdf_padding, "sdf_padding", show(c.sdf_padding), when);
  rules.check_applies(!c.heightfield_resolution, "heightfield_resolution", show(c.heightfield_resolution), when);
  rules.check_applies(!c.heightfield_padding, "heightfield_padding", show(c.heightfield_padding), when);
  rules.check_applies(!c.speed_limits, "speed_limits", Codec<std::optional<SpeedLimits>>::write(c.speed_limits).dump(),
                      when);
  rules.check_applies(!c.curvature_window, "curvature_window", show(c.curvature_window), when);
}

/// Gates mode: the gate generator, its opening, the posts or frames.
void validate_gates(const CourseConfig& c, const std::vector<std::string>& available_generators) {
  reject_track_options(c);
  c.gate_gen.validate(available_generators);
  rules.require(c.gate_gen.gate_width > 0.0f, "gate_gen.gate_width", c.gate_gen.gate_width, "> 0 in gates mode");
  rules.check_applies(!(c.frame_collision && c.post_radius > 0.0f), "frame_collision", show(c.frame_collision),
                      "without posts (post_radius = 0)");
  const auto size = [&](float v, const char* name) {
    if (c.frame_collision) {
      rules.require(v > 0.0f, name, v, "> 0 with frame_collision");
    } else {
      rules.check_applies(v == 0.0f, name, show(v), "with frame_collision = true");
    }
  };
  size(c.frame_thickness, "frame_thickness");
  size(c.frame_depth, "frame_depth");
  size(c.agent_radius, "agent_radius");
  rules.check_applies(c.frame_window == 4 || c.frame_collision, "frame_window", show(c.frame_window),
                      "with frame_collision = true");
  rules.check_applies(c.max_boxes == 1 || c.post_radius > 0.0f, "max_boxes", show(c.max_boxes),
                      "with gate posts (more than 1)");
}

/// Track mode: the track generator, checkpoints, collision, height field,
/// localization and speed profile.
void validate_track(const CourseConfig& c, const std::vector<std::string>& available_generators) {
  reject_gate_options(c);
  c.gen.validate(available_generators);
  rules.require(c.checkpoint_spacing.has_value(), "checkpoint_spacing", c.checkpoint_spacing,
                "set in track mode (it is required)");
  rules.check_applies(c.max_boxes == 1 || c.collision.has_value(), "max_boxes", show(c.max_boxes),
                      "with a collision backend (more than 1)");
  const bool sdf = c.collision == CollisionMethod::sdf;
  rules.check_applies(!c.sdf_resolution || sdf, "sdf_resolution", show(c.sdf_resolution), "with collision = \"sdf\"");
  rules.check_applies(!c.sdf_padding || sdf, "sdf_padding", show(c.sdf_padding), "with collision = \"sdf\"");
  rules.check_applies(!c.heightfield_padding || c.heightfield_resolution, "heightfield_padding",
                      show(c.heightfield_padding), "with a height field (heightfield_resolution set)");
  rules.check_applies(!c.localize_window || c.localize, "localize_window", show(c.localize_window),
                      "with localize = true");
  if (c.speed_limits) c.speed_limits->validate("CourseConfig.speed_limits");
  rules.check_applies(!c.curvature_window || c.speed_limits, "curvature_window", show(c.curvature_window),
                      "with speed_limits set");
}

}  // namespace
}  // namespace detail::config_fields

using namespace detail::config_fields;

const char* to_string(CourseMode m) {
  const char* name = setting_name(m);
  return name ? name : "?";
}

void SpeedLimits::validate(const std::string& api) const {
  const FieldRules r{api + ": SpeedLimits"};
  r.check_all_finite(*this);
  r.check_all_fields(*this);
}

void CourseConfig::validate(const std::vector<std::string>& available_generators) const {
  rules.check_all_finite(*this);
  rules.check_all_fields(*this);  // every field's own bounds, mode and collision names included
  if (mode == CourseMode::gates) {
    validate_gates(*this, available_generators);
  } else {
    validate_track(*this, available_generators);
  }
}

void to_json(json& j, const CourseConfig& c) { write_fields(j, c); }

void from_json(const json& j, CourseConfig& c) { read_fields(j, c, "CourseConfig"); }

CourseConfig load_course_config(const std::string& path) {
  return load_fields<CourseConfig>(path, "trackgen::load_course_config");
}

nlohmann::json course_config_schema(const std::vector<std::string>& generators,
                                    const std::vector<std::string>& gate_generators) {
  return schema_of<CourseConfig>(
      "CourseConfig", {{Nested<TrackGenConfig>::name, generators}, {Nested<GateGenConfig>::name, gate_generators}});
}

}  // namespace trackgen
