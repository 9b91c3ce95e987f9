// TrackGen's logger: one spdlog logger named "trackgen", default level `warn`,
// overridable with the TRACKGEN_LOG_LEVEL environment variable
// (trace|debug|info|warn|error|critical|off). Host code only; spdlog stays out of
// the public headers.
#pragma once

#include <functional>
#include <string>

namespace trackgen::logging {

/// Logs `msg` at debug level.
void debug(const std::string& msg);
/// Logs `msg` at info level.
void info(const std::string& msg);
/// Logs `msg` at warn level (the default level: shown unless raised).
void warn(const std::string& msg);

/// Receives (level name, message) of every message at or above the level.
using Sink = std::function<void(const std::string& level, const std::string& msg)>;

/// Routes TrackGen's messages to `sink` instead of stderr (an empty Sink
/// restores stderr); returns the previous sink. Calls are serialized.
Sink set_sink(Sink sink);

/// Sets the level by name (same names as TRACKGEN_LOG_LEVEL); throws
/// trackgen::ConfigError for an unknown name.
void set_level(const std::string& level);

/// The current level's name (one of the names set_level takes).
std::string level();

}  // namespace trackgen::logging
