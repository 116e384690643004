// `npusim op list`: the ops a library of custom C++ operators registers (its NEURON_LIBRARY
// blocks), each with its schema (the shape function's parameters) and the kernel found for it,
// as text or as JSON for programs (the Python package registers torch.ops.<library>.<op> from
// it: docs/python.md).
#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include <torch/torch.h>

#include "firmware/torch/runtime.h"
#include "sim/cli/commands.h"

namespace npusim::sim {

namespace {

using Json = nlohmann::ordered_json;
namespace op = torch::npusim_op;

struct ListError : std::runtime_error {
  int code;
  ListError(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

struct Listed {
  const op::OpDef* def;
  std::string source;  // the plugin that registered it, or "npusim" (linked in)
};

// Loads the plugins in order, as `npusim run --plugin` does (torchrt::load_plugin: the static
// initialisers in a probe process first, the registrations checked), and tells which ops each
// one registered. An op with a built-in op's name is listed with a warning (a run needs
// --allow-shadowing).
std::vector<Listed> load_and_list(const std::vector<std::string>& plugins) {
  std::map<std::string, std::string> source;  // op name -> who registered it
  for (const auto* d : op::ops()) source[d->name] = "npusim";
  for (const auto& p : plugins) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw ListError(2, fmt::format("--plugin {}: no such file", p));
    npusim::torchrt::PluginLoad load;
    try {
      load = npusim::torchrt::load_plugin(p, true);
    } catch (const std::exception& e) {
      throw ListError(2, fmt::format("--plugin {}: {}", p, e.what()));
    }
    for (const auto& w : load.warnings)
      std::cerr << "npusim: warning: op list: --plugin " << p << ": " << w << "; npusim run needs --allow-shadowing\n";
    for (const auto& name : load.ops) source[name] = p;
  }
  std::vector<Listed> out;
  for (const auto* d : op::ops()) {
    const std::string& s = source[d->name];
    if (plugins.empty() || s != "npusim") out.push_back(Listed{d, s});
  }
  return out;
}

int op_list(const std::vector<std::string>& plugins, bool json) {
  const auto listed = load_and_list(plugins);
  Json ops = Json::array();
  for (const auto& l : listed) {
    auto& def = const_cast<op::OpDef&>(*l.def);
    // A kernel that is missing or ambiguous is an error of the library, as at `op build`.
    if (def.kernel_fn == nullptr) {
      try {
        op::resolve_kernel(def);
      } catch (const std::invalid_argument& e) {
        throw ListError(1, fmt::format("{}: {}", l.source, e.what()));
      }
    }
    if (!json) {
      std::cout << fmt::format("op {}.{}: kernel {}{} ({})\n", def.library, def.name,
                               op::form_signature(def, def.kernel_pass), def.multicore == 1 ? " (multicore)" : "",
                               l.source);
      continue;
    }
    Json params = Json::array();
    for (size_t i = 0; i < def.param_cpp.size(); ++i)
      params.push_back(Json{{"type", def.param_cpp[i]}, {"kind", def.kinds[i] == 't' ? "tensor" : "scalar"}});
    ops.push_back(Json{{"library", def.library},
                       {"name", def.name},
                       {"kernel", def.kernel},
                       {"kernel_signature", op::form_signature(def, def.kernel_pass)},
                       {"symbol", def.mangled},
                       {"params", params},
                       {"multicore", def.multicore == 1},
                       {"stack_size", def.stack_size >= 0 ? Json(def.stack_size) : Json()},
                       {"source", l.source},
                       {"defined_at", def.source}});  // the m.def call, FILE:LINE as compiled
  }
  if (json) std::cout << Json{{"ops", ops}}.dump(2) << '\n';
  return 0;
}

}  // namespace

void register_op_list_command(CLI::App& op_cmd, Commands& cmds) {
  auto* l = op_cmd.add_subcommand(
      "list", "List the ops of libraries of custom ops: library, name, schema, kernel (without --plugin: the built-in ones)");
  struct Args {
    std::vector<std::string> plugins;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  l->add_option("--plugin", a->plugins, "A library built by `npusim op build` (repeatable): list its ops")
      ->allow_extra_args(false);
  l->add_flag("--json", a->json, "Print JSON: {\"ops\": [{library, name, kernel, kernel_signature, symbol, params, "
                                 "multicore, stack_size, source}]}");
  l->callback([a, &cmds] {
    try {
      cmds.exit_code = op_list(a->plugins, a->json);
    } catch (const ListError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: op list: " << e.what() << '\n';
      cmds.exit_code = e.code;
    }
  });
}

}  // namespace npusim::sim
