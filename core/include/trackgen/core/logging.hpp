// TrackGen's logger: one spdlog logger named "trackgen", default level `warn`,
// overridable with the TRACKGEN_LOG_LEVEL environment variable
// (trace|debug|info|warn|error|critical|off). Host code only; spdlog stays out of
// the public headers.
#pragma once

#include <string>

namespace trackgen::log {

void debug(const std::string& msg);
void info(const std::string& msg);
void warn(const std::string& msg);

/// Sets the level by name (same names as TRACKGEN_LOG_LEVEL); throws
/// trackgen::ConfigError for an unknown name.
void set_level(const std::string& level);

}  // namespace trackgen::log
