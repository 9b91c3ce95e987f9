// Progress of long commands, on stderr only (stdout stays the command's output,
// e.g. --json streams): on a terminal one line rewritten in place ("\r"), items
// done, rate and ETA; when stderr is not a terminal, plain lines every 10 s
// (with the last item's detail where the command gives one).
// Nothing is printed before the run is TRACKGEN_PROGRESS_DELAY seconds old
// (default 2), so short runs stay silent; --quiet silences it altogether.
#pragma once

#include <chrono>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace trackgen::app {

/// Adds --quiet (no progress output) to `cmd`.
void add_quiet_option(CLI::App& cmd);
/// Whether --quiet was given (or set_progress_quiet(true) called) in this process.
bool progress_quiet();
/// Silences (or re-enables) later Progress objects of this process, e.g. in a
/// worker process whose parent was given --quiet.
void set_progress_quiet(bool q);

/// A count of items done out of a known total, reported while it runs.
class Progress {
 public:
  /// Starts the clock of `what` (e.g. "generate"), `total` items named `unit`.
  Progress(std::string what, long long total, std::string unit);
  /// Ends the line if one was started (as finish()).
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Adds `n` items done and reports when a report is due. `detail` (e.g. the
  /// result of the last item) is kept for the plain lines written when stderr
  /// is not a terminal; the terminal line leaves it out to stay one line.
  void advance(long long n = 1, const std::string& detail = {});
  /// Reports the final count (when the run is past the delay or anything was
  /// reported) and ends the terminal line; later calls do nothing.
  void finish();

 private:
  void report(bool final);

  std::string what_, unit_, detail_;
  long long total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
  bool enabled_ = false, tty_ = false, printed_ = false, finished_ = false;
  double delay_s_ = 2.0;
};

}  // namespace trackgen::app
