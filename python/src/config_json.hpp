// Python values <-> nlohmann::json, so configs given as keyword arguments or
// dicts go through the library's own JSON reader (same field names, same
// messages as the command-line tool's config files).
#pragma once

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

#include <string>

namespace trackgen::python {

/// The JSON value of a Python object made of dicts (str keys), lists, tuples,
/// str, bool, int, float and None; ConfigError naming `api` and `where` for
/// anything else.
nlohmann::json to_json_value(nanobind::handle h, const std::string& api, const std::string& where);
/// The Python object of a JSON value (dicts, lists, str, bool, int, float, None).
nanobind::object from_json_value(const nlohmann::json& j);

}  // namespace trackgen::python
