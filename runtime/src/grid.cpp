// GridOptions (see grid.hpp).
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/grid.hpp>

#include <cmath>

namespace trackgen {

void GridOptions::validate(const std::string& api) const {
  detail::require(resolution >= 8, api, "resolution", ">= 8", std::to_string(resolution));
  if (padding) {
    detail::require(std::isfinite(*padding) && *padding > 0.0f, api, "padding", "finite and > 0 (or unset)",
                    std::to_string(*padding));
  }
}

}  // namespace trackgen
