// `npusim schema [KIND] [--out DIR]`: the JSON Schemas of scenarios and profiles, generated
// from the parsers' key tables (sim/input/schema.h). docs/schema/ holds the shipped copies.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "sim/cli/commands.h"
#include "sim/output/output_paths.h"
#include "sim/input/platform_config.h"
#include "sim/input/schema.h"
#include "sim/input/snitch_profile.h"

namespace npusim::sim {

namespace {

// A Neuron-family profile may name its own platform, extend a built-in one and carry a topology.
nlohmann::ordered_json neuron_extra() {
  ValueSpec topo;
  topo.kind = ValueKind::kMap;
  topo.map = &topology_spec();
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const auto& n : builtin_profile_names()) names.push_back(n);
  return {{"platform", {{"type", "string"}, {"description", "neuron-gpsimd, or the name of a platform this file describes"}}},
          {"extends", {{"enum", names}, {"description", "take every value (and the topology) of this built-in profile first"}}},
          {"topology", value_schema(topo)}};
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::ordered_json>> all_schemas() {
  const auto neuron = neuron_profile_keys();
  const auto snitch = snitch_profile_keys();
  return {{"scenario.schema.json", scenario_schema(neuron_dialect(), neuron)},
          {"snitch-scenario.schema.json", scenario_schema(snitch_dialect(), snitch)},
          {"neuron-gpsimd-profile.schema.json", profile_schema("neuron-gpsimd", neuron, neuron_extra())},
          {"snitch-cluster-profile.schema.json", profile_schema("snitch-cluster", snitch)}};
}

void register_schema_command(CLI::App& app, Commands& cmds) {
  auto* cmd = app.add_subcommand(
      "schema", "Print or write the JSON Schemas of scenarios and platform profiles");
  struct Args {
    std::string kind, out;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("KIND", a->kind,
                  "scenario, snitch-scenario, neuron-gpsimd-profile or snitch-cluster-profile "
                  "(print it on stdout)");
  cmd->add_option("--out", a->out, "Write every schema into this directory (docs/schema/)");
  cmd->callback([a, &cmds] {
    if (a->kind.empty() == a->out.empty()) {
      std::cerr << "npusim: error: schema takes a KIND or --out DIR\n";
      cmds.exit_code = 2;
      return;
    }
    for (const auto& [file, schema] : all_schemas()) {
      const std::string kind = file.substr(0, file.size() - std::string(".schema.json").size());
      if (!a->kind.empty()) {
        if (kind != a->kind) continue;
        std::cout << schema.dump(2) << '\n';
        return;
      }
      const std::string path = a->out + "/" + file;
      try {
        write_output({"--out", path, {}}, schema.dump(2) + "\n");
      } catch (const InputError& e) {
        std::cerr << "npusim: error: " << e.what() << '\n';
        cmds.exit_code = 2;
        return;
      }
      std::cout << path << '\n';
    }
    if (!a->kind.empty()) {
      std::cerr << "npusim: error: unknown schema '" << a->kind
                << "' (scenario, snitch-scenario, neuron-gpsimd-profile, snitch-cluster-profile)\n";
      cmds.exit_code = 2;
    }
  });
}

}  // namespace npusim::sim
