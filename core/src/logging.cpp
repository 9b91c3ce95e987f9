#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace trackgen::log {
namespace {

spdlog::level::level_enum parse_level(const std::string& name) {
  const auto lvl = spdlog::level::from_str(name);
  if (lvl == spdlog::level::off && name != "off") {
    throw ConfigError("trackgen::log::set_level: level '" + name +
                      "' is not one of trace, debug, info, warn, error, critical, off");
  }
  return lvl;
}

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto l = spdlog::get("trackgen");
    if (!l) l = spdlog::stderr_color_mt("trackgen");
    l->set_level(spdlog::level::warn);
    if (const char* env = std::getenv("TRACKGEN_LOG_LEVEL"); env && *env) {
      try {
        l->set_level(parse_level(env));
      } catch (const ConfigError&) {
        l->warn("ignoring TRACKGEN_LOG_LEVEL='{}': not a level name", env);
      }
    }
    return l;
  }();
  return *instance;
}

}  // namespace

void debug(const std::string& msg) { logger().debug(msg); }
void info(const std::string& msg) { logger().info(msg); }
void warn(const std::string& msg) { logger().warn(msg); }
void set_level(const std::string& level) { logger().set_level(parse_level(level)); }

}  // namespace trackgen::log
