// `trackgen config`: the configuration file formats. `--schema` prints every
// field with its type, default, bounds and documentation (the JSON of
// trackgen::config_schema(), gate_config_schema() or course_config_schema(),
// docs/design.md#config-schema); without it, the default config, a starting
// point for a --config file (track, gates) or a CourseConfig (course).
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
  if (o.mode == "course") {
    j = o.schema ? course_config_schema(available_generators<Space>(), available_gate_generators<Space>())
                 : nlohmann::json(CourseConfig{});
  } else if (o.mode == "gates") {
    j = o.schema ? gate_config_schema(available_gate_generators<Space>()) : nlohmann::json(GateGenConfig{});
  } else {
    j = o.schema ? config_schema(available_generators<Space>()) : nlohmann::json(TrackGenConfig{});
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
                  "track: TrackGenConfig (generate --mode track); gates: GateGenConfig; course: CourseConfig "
                  "(a Course's setup, as the C++ and Python APIs read it) (default: track)")
      ->check(CLI::IsMember({"track", "gates", "course"}));
  return {cmd, [o] { run_config(*o); }};
}

}  // namespace trackgen::app
