// The files of the `trackgen serve` page (apps/serve/index.html, app.js,
// style.css), embedded in the binary at build time by cmake/embed-assets.cmake.
#pragma once

#include <span>
#include <string_view>

namespace trackgen::app::serve {

/// One embedded file: its URL path ("/index.html"), its Content-Type and its bytes.
struct Asset {
  std::string_view path;
  std::string_view content_type;
  std::string_view body;
};

/// Every embedded file (generated source in the build folder).
std::span<const Asset> assets();

}  // namespace trackgen::app::serve
