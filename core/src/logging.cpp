#include <trackgen/core/errors.hpp>
#include <trackgen/core/logging.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <mutex>
#include <utility>

namespace trackgen::logging {
namespace {

spdlog::level::level_enum parse_level(const std::string& name) {
  const auto lvl = spdlog::level::from_str(name);
  if (lvl == spdlog::level::off && name != "off") {
    throw ConfigError("trackgen::logging::set_level: level '" + name +
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

struct SinkSlot {
  std::mutex mutex;
  Sink sink;
};

SinkSlot& sink_slot() {
  static SinkSlot slot;
  return slot;
}

void emit(spdlog::level::level_enum lvl, const std::string& msg) {
  spdlog::logger& l = logger();
  if (!l.should_log(lvl)) return;
  SinkSlot& slot = sink_slot();
  const std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.sink) {
    const auto name = spdlog::level::to_string_view(lvl);
    slot.sink(std::string(name.data(), name.size()), msg);
  } else {
    l.log(lvl, msg);
  }
}

}  // namespace

void debug(const std::string& msg) { emit(spdlog::level::debug, msg); }
void info(const std::string& msg) { emit(spdlog::level::info, msg); }
void warn(const std::string& msg) { emit(spdlog::level::warn, msg); }
void set_level(const std::string& level) { logger().set_level(parse_level(level)); }

std::string level() {
  const auto name = spdlog::level::to_string_view(logger().level());
  return std::string(name.data(), name.size());
}

Sink set_sink(Sink sink) {
  SinkSlot& slot = sink_slot();
  const std::lock_guard<std::mutex> lock(slot.mutex);
  return std::exchange(slot.sink, std::move(sink));
}

}  // namespace trackgen::logging
