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

}  // namespace

const char* to_string(CourseMode m) {
  switch (m) {
    case CourseMode::track: return "track";
  }
  return "?";
}

void CourseConfig::validate(const std::vector<std::string>& available_generators) const {
  detail::require(mode == CourseMode::track, api, "mode", "CourseMode::track", std::to_string(static_cast<int>(mode)));
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
