// CourseConfig validation (see course_config.hpp).
#include <trackgen/runtime/course_config.hpp>
#include <trackgen/runtime/detail/common.hpp>

#include <cmath>

namespace trackgen {
namespace {

const std::string api = "trackgen::CourseConfig";

/// ConfigError for an option that does not apply: "<field> = <value> applies
/// only <when>".
void inapplicable(bool set, const char* field, const std::string& value, const char* when) {
  if (set) throw ConfigError(api + ": " + field + " = " + value + " applies only " + when);
}

std::string show(float v) { return std::to_string(v); }
std::string show(int v) { return std::to_string(v); }

/// The resolution (>= 8) and padding (finite, > 0) of a grid, when set.
void check_grid(std::optional<int> resolution, const char* resolution_name, std::optional<float> padding,
                const char* padding_name) {
  if (resolution) detail::require(*resolution >= 8, api, resolution_name, ">= 8", show(*resolution));
  if (padding) {
    detail::require(std::isfinite(*padding) && *padding > 0.0f, api, padding_name, "finite and > 0", show(*padding));
  }
}


/// The options of gates mode, rejected in track mode (left at their defaults).
void reject_gate_options(const CourseConfig& c) {
  const char* when = "in gates mode";
  inapplicable(c.samples_per_gate != 8, "samples_per_gate", show(c.samples_per_gate), "in gates mode (8 otherwise)");
  inapplicable(c.post_radius != 0.0f, "post_radius", show(c.post_radius), when);
  inapplicable(c.frame_collision, "frame_collision", "true", when);
  inapplicable(c.frame_thickness != 0.0f, "frame_thickness", show(c.frame_thickness), when);
  inapplicable(c.frame_depth != 0.0f, "frame_depth", show(c.frame_depth), when);
  inapplicable(c.agent_radius != 0.0f, "agent_radius", show(c.agent_radius), when);
  inapplicable(c.frame_window != 4, "frame_window", show(c.frame_window), "with frame_collision (4 otherwise)");
}

/// The track-mode options, rejected in gates mode (left unset).
void reject_track_options(const CourseConfig& c) {
  const char* when = "in track mode";
  inapplicable(c.checkpoint_spacing.has_value(), "checkpoint_spacing", show(c.checkpoint_spacing.value_or(0.0f)),
               "in track mode (the gates are the checkpoints)");
  inapplicable(c.max_checkpoints.has_value(), "max_checkpoints", show(c.max_checkpoints.value_or(0)), when);
  inapplicable(c.collision.has_value(), "collision", std::to_string(static_cast<int>(c.collision.value_or(CollisionMethod::segments))), when);
  inapplicable(c.sdf_resolution.has_value(), "sdf_resolution", show(c.sdf_resolution.value_or(0)), when);
  inapplicable(c.sdf_padding.has_value(), "sdf_padding", show(c.sdf_padding.value_or(0.0f)), when);
  inapplicable(c.heightfield_resolution.has_value(), "heightfield_resolution",
               show(c.heightfield_resolution.value_or(0)), when);
  inapplicable(c.heightfield_padding.has_value(), "heightfield_padding", show(c.heightfield_padding.value_or(0.0f)),
               when);
  inapplicable(c.speed_limits.has_value(), "speed_limits", "set", when);
  inapplicable(c.curvature_window.has_value(), "curvature_window", show(c.curvature_window.value_or(0)), when);
}

/// Gates mode: the gate generator, its opening, the posts or frames.
void validate_gates(const CourseConfig& c, const std::vector<std::string>& available_generators) {
  reject_track_options(c);
  c.gate_gen.validate(available_generators);
  detail::require(c.gate_gen.gate_width > 0.0f, api, "gate_gen.gate_width", "> 0 in gates mode",
                  show(c.gate_gen.gate_width));
  detail::require(c.samples_per_gate >= 2, api, "samples_per_gate", ">= 2", show(c.samples_per_gate));
  detail::require(std::isfinite(c.post_radius) && c.post_radius >= 0.0f, api, "post_radius", "finite and >= 0",
                  show(c.post_radius));
  inapplicable(c.frame_collision && c.post_radius > 0.0f, "frame_collision", "true",
               "without posts (post_radius = 0)");
  const auto size = [&](float v, const char* name) {
    if (c.frame_collision) {
      detail::require(std::isfinite(v) && v > 0.0f, api, name, "finite and > 0 with frame_collision", show(v));
    } else {
      inapplicable(v != 0.0f, name, show(v), "with frame_collision = true");
    }
  };
  size(c.frame_thickness, "frame_thickness");
  size(c.frame_depth, "frame_depth");
  size(c.agent_radius, "agent_radius");
  detail::require(c.frame_window >= 1, api, "frame_window", ">= 1", show(c.frame_window));
  inapplicable(c.frame_window != 4 && !c.frame_collision, "frame_window", show(c.frame_window),
               "with frame_collision = true");
  detail::require(c.max_boxes >= 1, api, "max_boxes", ">= 1", show(c.max_boxes));
  inapplicable(c.max_boxes > 1 && c.post_radius == 0.0f, "max_boxes", show(c.max_boxes),
               "with gate posts (more than 1)");
  if (c.localize_window) detail::require(*c.localize_window >= 1, api, "localize_window", ">= 1", show(*c.localize_window));
}

}  // namespace

const char* to_string(CourseMode m) {
  switch (m) {
    case CourseMode::track: return "track";
    case CourseMode::gates: return "gates";
  }
  return "?";
}

void CourseConfig::validate(const std::vector<std::string>& available_generators) const {
  detail::require(mode == CourseMode::track || mode == CourseMode::gates, api, "mode",
                  "CourseMode::track or CourseMode::gates", std::to_string(static_cast<int>(mode)));
  if (mode == CourseMode::gates) {
    validate_gates(*this, available_generators);
    return;
  }
  reject_gate_options(*this);
  gen.validate(available_generators);

  detail::require(checkpoint_spacing.has_value(), api, "checkpoint_spacing", "set (it is required)", "unset");
  detail::require(std::isfinite(*checkpoint_spacing) && *checkpoint_spacing > 0.0f, api, "checkpoint_spacing",
                  "finite and > 0", show(*checkpoint_spacing));
  if (max_checkpoints) detail::require(*max_checkpoints >= 3, api, "max_checkpoints", ">= 3", show(*max_checkpoints));

  if (collision) {
    detail::require(*collision == CollisionMethod::segments || *collision == CollisionMethod::sdf, api, "collision",
                    "CollisionMethod::segments, CollisionMethod::sdf or unset",
                    std::to_string(static_cast<int>(*collision)));
  }
  detail::require(max_boxes >= 1, api, "max_boxes", ">= 1", show(max_boxes));
  inapplicable(max_boxes > 1 && !collision, "max_boxes", show(max_boxes), "with a collision backend (more than 1)");
  const bool sdf = collision == CollisionMethod::sdf;
  inapplicable(sdf_resolution && !sdf, "sdf_resolution", show(sdf_resolution.value_or(0)),
               "with collision = CollisionMethod::sdf");
  inapplicable(sdf_padding && !sdf, "sdf_padding", show(sdf_padding.value_or(0.0f)),
               "with collision = CollisionMethod::sdf");
  check_grid(sdf_resolution, "sdf_resolution", sdf_padding, "sdf_padding");

  inapplicable(heightfield_padding && !heightfield_resolution, "heightfield_padding",
               show(heightfield_padding.value_or(0.0f)), "with a height field (heightfield_resolution set)");
  check_grid(heightfield_resolution, "heightfield_resolution", heightfield_padding, "heightfield_padding");

  inapplicable(localize_window && !localize, "localize_window", show(localize_window.value_or(0)),
               "with localize = true");
  if (localize_window) detail::require(*localize_window >= 1, api, "localize_window", ">= 1", show(*localize_window));

  if (speed_limits) speed_limits->validate(api + " (speed_limits)");
  inapplicable(curvature_window && !speed_limits, "curvature_window", show(curvature_window.value_or(0)),
               "with speed_limits set");
  if (curvature_window) {
    detail::require(*curvature_window >= 0, api, "curvature_window", ">= 0", show(*curvature_window));
  }
}

}  // namespace trackgen
