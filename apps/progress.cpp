// Progress lines on stderr (see progress.hpp).
#include "progress.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace trackgen::app {
namespace {

bool quiet = false;
constexpr double tty_interval_s = 0.2;   // terminal: redraw at most this often
constexpr double log_interval_s = 10.0;  // not a terminal: one line this often

/// TRACKGEN_PROGRESS_DELAY (seconds >= 0) or 2.
double progress_delay() {
  const char* v = std::getenv("TRACKGEN_PROGRESS_DELAY");
  if (v == nullptr || *v == '\0') return 2.0;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  return (end != v && std::isfinite(d) && d >= 0.0) ? d : 2.0;
}

/// "42s", "3m05s", "1h02m".
std::string duration_text(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "?";
  const long long t = std::llround(s);
  if (t < 60) {
    std::snprintf(buf, sizeof buf, "%llds", t);
  } else if (t < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", t / 60, t % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", t / 3600, (t / 60) % 60);
  }
  return buf;
}

}  // namespace

void add_quiet_option(CLI::App& cmd) {
  cmd.add_flag_callback(
      "--quiet", [] { quiet = true; }, "no progress lines on stderr");
}

bool progress_quiet() { return quiet; }

void set_progress_quiet(bool q) { quiet = q; }

Progress::Progress(std::string what, long long total, std::string unit)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_(start_),
      enabled_(!quiet),
      tty_(::isatty(STDERR_FILENO) != 0),
      delay_s_(progress_delay()) {}

Progress::~Progress() { finish(); }

void Progress::advance(long long n, const std::string& detail) {
  done_ += n;
  if (!detail.empty()) detail_ = detail;
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  const double age = std::chrono::duration<double>(now - start_).count();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (age < delay_s_ || done_ >= total_) return;  // the last count is finish()'s
  if (printed_ && since < (tty_ ? tty_interval_s : log_interval_s)) return;
  last_ = now;
  report(false);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  const double age = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (enabled_ && (printed_ || age >= delay_s_)) report(true);
}

void Progress::report(bool final) {
  const double age = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = age > 0 ? done_ / age : 0.0;
  const double pct = total_ > 0 ? 100.0 * double(done_) / double(total_) : 0.0;
  std::string tail;
  if (final) {
    tail = "done in " + duration_text(age);
  } else {
    tail = "ETA " + (rate > 0 ? duration_text(double(total_ - done_) / rate) : std::string("?"));
  }
  if (!tty_ && !detail_.empty()) tail += "; last: " + detail_;
  std::fprintf(stderr, "%strackgen %s: %lld/%lld %s (%.1f%%), %.3g %s/s, %s%s", tty_ ? "\r" : "", what_.c_str(), done_,
               total_, unit_.c_str(), pct, rate, unit_.c_str(), tail.c_str(),
               tty_ ? (final ? "\033[K\n" : "\033[K") : "\n");
  std::fflush(stderr);
  printed_ = true;
}

}  // namespace trackgen::app
