// libFuzzer target: the config loader and validation of TrackGenConfig and
// GateGenConfig on arbitrary bytes. Every input goes through the library's own
// file loaders (load_config, load_gate_config), and a config that loads is
// validated. The contract checked, besides what ASan and UBSan catch:
//   - bad input ends in a ConfigError (any other exception is a finding);
//   - a config that loads and validates writes JSON that loads back to the same
//     JSON (the file format round-trips).
#include <trackgen/core/config.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/gate_config.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

/// The file each input is written to: one per process, in TMPDIR.
const std::string& input_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/trackgen-fuzz-" + std::to_string(::getpid()) +
           ".json";
  }();
  return path;
}

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_config: %s\n", what);
  std::abort();
}

/// Loads `path` with `load`, validates, and checks the JSON round trip.
template <class Config, class Load>
void check(const std::string& path, Load load) {
  Config c;
  try {
    c = load(path);
    c.validate();
  } catch (const trackgen::ConfigError&) {
    return;  // the documented way to reject input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_config: %s\n", e.what());
    finding("an exception other than ConfigError escaped the loader or validate()");
  }
  const std::string written = nlohmann::json(c).dump();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << written;
  }
  Config back;
  try {
    back = load(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_config: %s\n", e.what());
    finding("the JSON written for a valid config does not load");
  }
  if (nlohmann::json(back).dump() != written) finding("the JSON of a valid config does not round-trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = input_path();
  for (int which = 0; which < 2; ++which) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    if (which == 0) {
      check<trackgen::TrackGenConfig>(path, [](const std::string& p) { return trackgen::load_config(p); });
    } else {
      check<trackgen::GateGenConfig>(path, [](const std::string& p) { return trackgen::load_gate_config(p); });
    }
  }
  return 0;
}
