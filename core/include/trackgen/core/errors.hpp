// Exceptions thrown by TrackGen's host API. Device code never throws.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace trackgen {

/// Invalid user input: a config field, a batch size, an array shape. The message
/// names the API, the field and the offending value.
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An operation that is illegal in the current capture state (for example
/// prepare() while a capture is open, or host operations outside a HOST stage).
class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A program with HOST stages was asked to record into a caller's capture.
class NotCapturableError : public CaptureError {
 public:
  NotCapturableError(std::string name, std::string detail, std::vector<std::string> stage_ids)
      : CaptureError(name + ": " + detail), name_(std::move(name)), stage_ids_(std::move(stage_ids)) {}
  const std::string& name() const noexcept { return name_; }
  const std::vector<std::string>& stage_ids() const noexcept { return stage_ids_; }

 private:
  std::string name_;
  std::vector<std::string> stage_ids_;
};

}  // namespace trackgen
