#include "config_json.hpp"

#include <trackgen/core/errors.hpp>

#include <nanobind/stl/string.h>

namespace trackgen::python {

namespace nb = nanobind;

namespace {

/// The value of the Python int `h`; ConfigError naming `where` past 64 bits.
long long int_value(nb::handle h, const std::string& api, const std::string& where) {
  long long v = 0;
  if (!nb::try_cast<long long>(h, v)) {
    throw ConfigError(api + ": " + where + " = " + nb::cast<std::string>(nb::str(h)) +
                      " is out of range (a config integer must fit in 64 bits)");
  }
  return v;
}

}  // namespace

nlohmann::json to_json_value(nb::handle h, const std::string& api, const std::string& where) {
  if (h.is_none()) return nullptr;
  if (nb::isinstance<nb::bool_>(h)) return nb::cast<bool>(h);
  if (nb::isinstance<nb::int_>(h)) return int_value(h, api, where);
  if (nb::isinstance<nb::float_>(h)) return nb::cast<double>(h);
  if (nb::isinstance<nb::str>(h)) return nb::cast<std::string>(h);
  if (nb::isinstance<nb::dict>(h)) {
    nlohmann::json j = nlohmann::json::object();
    for (auto [k, v] : nb::borrow<nb::dict>(h)) {
      if (!nb::isinstance<nb::str>(k)) {
        throw ConfigError(api + ": " + where + " keys must be strings, got " + nb::cast<std::string>(nb::repr(k)));
      }
      const std::string key = nb::cast<std::string>(k);
      j[key] = to_json_value(v, api, key);
    }
    return j;
  }
  if (nb::isinstance<nb::list>(h) || nb::isinstance<nb::tuple>(h)) {
    nlohmann::json j = nlohmann::json::array();
    for (nb::handle v : h) j.push_back(to_json_value(v, api, where));
    return j;
  }
  // numpy arrays (and anything else with tolist(), e.g. torch tensors) by
  // their nested lists; a 0-d array's tolist() is its scalar.
  if (nb::hasattr(h, "tolist") && nb::hasattr(h, "ndim")) return to_json_value(h.attr("tolist")(), api, where);
  // numpy scalars and other numbers: their int / float value.
  if (nb::hasattr(h, "__index__")) return int_value(nb::int_(h), api, where);
  if (nb::hasattr(h, "__float__")) return nb::cast<double>(nb::float_(h));
  throw ConfigError(api + ": " + where + " has an unsupported type " +
                    nb::cast<std::string>(nb::str(h.type().attr("__name__"))));
}

nb::object from_json_value(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return nb::none();
    case nlohmann::json::value_t::boolean:
      return nb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return nb::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned:
      return nb::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float:
      return nb::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return nb::str(j.get<std::string>().c_str());
    case nlohmann::json::value_t::array: {
      nb::list l;
      for (const auto& v : j) l.append(from_json_value(v));
      return l;
    }
    case nlohmann::json::value_t::object: {
      nb::dict d;
      for (const auto& [k, v] : j.items()) d[k.c_str()] = from_json_value(v);
      return d;
    }
    default:
      return nb::none();
  }
}

}  // namespace trackgen::python
