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

#include <nanobind/stl/string.h>

#include <vector>

namespace trackgen::python {

/// Binds the config struct `Config` (one with a JSON codec and validate(names))
/// as `name`: from_object (a dict), load (a JSON file read by `load`), to_object
/// and to_json_text; every config made is validated against `names()`.
template <class Config>
void bind_config(nanobind::module_& m, const char* name, const char* api, Config (*load)(const std::string&),
                 std::vector<std::string> (*names)()) {
  namespace nb = nanobind;
  nb::class_<Config>(m, name)
      .def_static(
          "from_object",
          [api, names](nb::handle fields) {
            Config c;
            from_json(to_json_value(fields, api, "the config"), c);
            c.validate(names());
            return c;
          },
          nb::arg("fields"), "A validated config from a dict of fields (missing fields keep their defaults).")
      .def_static(
          "load",
          [load, names](const std::string& path) {
            Config c = load(path);
            c.validate(names());
            return c;
          },
          nb::arg("path"), "A validated config from a JSON file (the command-line tool's --config format).")
      .def(
          "to_object",
          [](const Config& c) {
            nlohmann::json j;
            to_json(j, c);
            return from_json_value(j);
          },
          "Every field as a dict (the JSON names and values).")
      .def(
          "to_json_text",
          [](const Config& c, int indent) {
            nlohmann::json j;
            to_json(j, c);
            return j.dump(indent);
          },
          nb::arg("indent") = 2, "The config as JSON text (the --config file format).");
}

}  // namespace trackgen::python
