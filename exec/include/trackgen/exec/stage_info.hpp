// Capture classes and the identity of the pipeline stage a LaunchContext runs.
#pragma once

#include <cstdint>
#include <string>

namespace trackgen {

/// How a stage may be executed inside a graph.
enum class CaptureClass {
  STATIC,   ///< a fixed launch sequence: recordable anywhere
  BOUNDED,  ///< uses bounded_loop with an on-device `active` flag: recordable, windows may be skipped on device
  HOST,     ///< needs host reads (HostOps): runs eagerly, never inside a capture
};

/// Name of a capture class ("STATIC", "BOUNDED", "HOST").
inline const char* to_string(CaptureClass c) {
  switch (c) {
    case CaptureClass::STATIC: return "STATIC";
    case CaptureClass::BOUNDED: return "BOUNDED";
    case CaptureClass::HOST: return "HOST";
  }
  return "?";
}

/// The stage a LaunchContext is running (id for error messages, capture class).
struct StageInfo {
  std::string id;
  CaptureClass capture = CaptureClass::STATIC;
  /// A build-time [1] host buffer for HostOps::read_i32 (HOST stages).
  std::int32_t* host_i32 = nullptr;
};

namespace exec {

/// RAII: inside the block no conditional node is recorded (skip_unless bodies and
/// bounded_loop windows are recorded unconditionally, lowering (c)). Thread-local;
/// `unconditional(false)` restores the default inside an enclosing block.
class unconditional {
 public:
  explicit unconditional(bool enabled = true);
  ~unconditional();
  unconditional(const unconditional&) = delete;
  unconditional& operator=(const unconditional&) = delete;

 private:
  int previous_;
};

/// RAII: recordings into a caller's own capture inside the block may use
/// conditional nodes (by default only a producer's own graphs do). unconditional()
/// wins over it. Thread-local.
class conditional {
 public:
  explicit conditional(bool enabled = true);
  ~conditional();
  conditional(const conditional&) = delete;
  conditional& operator=(const conditional&) = delete;

 private:
  int previous_;
};

namespace detail {
/// Whether an unconditional() block is active in this thread.
bool unconditional_active();
/// Whether a conditional() block is active in this thread.
bool conditional_active();
/// Emits `msg` as a warning once per `key` per process.
void warn_once(const std::string& key, const std::string& msg);
}  // namespace detail
}  // namespace exec
}  // namespace trackgen
