// The config schema: every field of TrackGenConfig or GateGenConfig with its
// type, default, bounds and documentation, as validate() checks it. The field
// table behind validate() produces it, so the two cannot disagree
// (docs/design.md#config-schema). `trackgen config --schema` prints it.
//
// Format: {"config": "TrackGenConfig", "fields": [ {...}, ... ]}, one object per
// field in declaration order, with the keys
//   name, type       type: "integer", "number", "boolean", "string",
//                    "range" ([lo, hi] of numbers) or "integer_list"
//   default          the default-constructed value (null for an unset optional)
//   optional         true when null is accepted (absent otherwise)
//   minimum, maximum the bounds validate() enforces on the field alone (for a
//                    range or a list, on each number), inclusive unless
//   exclusive_minimum / exclusive_maximum is true
//   choices          the accepted names of enum-like fields and of `generator`
//   doc              what the field is, and why its upper bound is where it is
//   rules            cross-field rules in words (e.g. ">= min_num_points")
// Keys that do not apply are absent.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace trackgen {

/// The fields of TrackGenConfig as validate() checks them. `available_generators`
/// (e.g. available_generators<Space>() of the generators layer, plugins
/// included) become the choices of `generator`; empty: no choices listed.
nlohmann::json config_schema(const std::vector<std::string>& available_generators = {});

/// The same for GateGenConfig (`available_gate_generators`: the choices of
/// its `generator`).
nlohmann::json gate_config_schema(const std::vector<std::string>& available_gate_generators = {});

}  // namespace trackgen
