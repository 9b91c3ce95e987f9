// `trackgen config`: the configuration file format. `--schema` prints every
// field with its type, default, bounds and documentation (the JSON of
// trackgen::config_schema(), docs/design.md#config-schema); without it, the
// default config, a starting point for a --config file.
#include "app.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace trackgen::app {
namespace {

struct ConfigOptions {
  bool schema = false;
  std::string mode = "track";
};

void run_config(const ConfigOptions& o) {
  using Space = Kokkos::DefaultExecutionSpace;
  nlohmann::json j;
  if (o.schema) {
    j = o.mode == "gates" ? gate_config_schema(available_gate_generators<Space>())
                          : config_schema(available_generators<Space>());
  } else if (o.mode == "gates") {
    j = GateGenConfig{};
  } else {
    j = TrackGenConfig{};
  }
  std::cout << j.dump(2) << "\n";
}

}  // namespace

Command add_config_command(CLI::App& app) {
  auto o = std::make_shared<ConfigOptions>();
  CLI::App* cmd = app.add_subcommand(
      "config", "print the default --config file, or with --schema every field's type, default, bounds and meaning");
  cmd->add_flag("--schema", o->schema,
                "print the schema: every field with its type, default, bounds (as validation checks them), choices "
                "and documentation");
  cmd->add_option("--mode", o->mode,
                  "track: TrackGenConfig (generate --mode track); gates: GateGenConfig (default: track)")
      ->check(CLI::IsMember({"track", "gates"}));
  return {cmd, [o] { run_config(*o); }};
}

}  // namespace trackgen::app
