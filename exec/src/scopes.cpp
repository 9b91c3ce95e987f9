#include <trackgen/core/logging.hpp>
#include <trackgen/exec/stage_info.hpp>

#include <mutex>
#include <set>

namespace trackgen::exec {
namespace {
thread_local int unconditional_depth = 0;  // > 0: enabled; the innermost block decides
thread_local int conditional_depth = 0;
}  // namespace

unconditional::unconditional(bool enabled) : previous_(unconditional_depth) { unconditional_depth = enabled ? 1 : 0; }
unconditional::~unconditional() { unconditional_depth = previous_; }

conditional::conditional(bool enabled) : previous_(conditional_depth) { conditional_depth = enabled ? 1 : 0; }
conditional::~conditional() { conditional_depth = previous_; }

namespace detail {
bool unconditional_active() { return unconditional_depth > 0; }
bool conditional_active() { return conditional_depth > 0; }

void warn_once(const std::string& key, const std::string& msg) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard lock(m);
  if (seen.insert(key).second) logging::warn(msg);
}
}  // namespace detail
}  // namespace trackgen::exec
