// `npusim cc`: builds an RV32 program for a platform's cores with npusim's start-up code and
// runtime (sim/tools/program_build.h, docs/snitch-programs.md, docs/neuron-programs.md).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "sim/cli/commands.h"
#include "sim/input/input_error.h"
#include "sim/output/output_paths.h"
#include "sim/tools/program_build.h"

namespace npusim::sim {

namespace {

struct CcArgs {
  ProgramBuildOptions opt;
  std::vector<std::string> sets;
};

}  // namespace

void register_cc_command(CLI::App& app, Commands& cmds) {
  auto* cc = app.add_subcommand(
      "cc", "Build a C/C++/assembly program for a platform's cores (clang-14, ld.lld-14): the snitch-cluster "
            "cores with npusim's snrt.h runtime (docs/snitch-programs.md), or the neuron-gpsimd management core "
            "with the Neuron device library (docs/neuron-programs.md)");
  auto a = std::make_shared<CcArgs>();
  auto& o = a->opt;
  cc->add_option("SOURCES", o.sources, "Sources: .c, .cc/.cpp/.cxx, .S, .s")->required()->expected(1, -1);
  cc->add_option("-o", o.output, "The program (an RV32 ELF file)")->required();
  cc->add_option("--platform", o.platform, "Platform profile: a built-in name or a YAML file")
      ->capture_default_str();
  cc->add_option("--set", a->sets, "Override a platform value: section.key=value (repeatable)")
      ->allow_extra_args(false);
  cc->add_option("-O", o.opt_level, "Optimisation: -O0, -O1, -O2, -O3, -Os, -Oz")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cc->add_flag("-g", o.debug, "Debug information");
  cc->add_option("-I", o.includes, "Include folder (repeatable)")->allow_extra_args(false);
  cc->add_option("-D", o.defines, "Macro NAME or NAME=VALUE (repeatable)")->allow_extra_args(false);
  cc->add_option("-U", o.undefines, "Undefine a macro (repeatable)")->allow_extra_args(false);
  cc->add_option("-W", o.warnings, "A warning flag for the program's sources: -Wall, -Werror, ... (repeatable)")
      ->allow_extra_args(false);
  cc->add_option("-f", o.features, "A code-generation flag for the program's sources: -fno-inline, ... (repeatable)")
      ->allow_extra_args(false);
  cc->add_option("--std", o.std, "Language standard of the C/C++ sources (c11, c++17, ...)");
  cc->add_flag("-v,--verbose", o.verbose, "Print every compiler and linker command");
  cc->callback([a, &cmds] {
    try {
      a->opt.sets.clear();
      for (const auto& s : a->sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0) throw InputError("--set", 0, s, "expected section.key=value");
        a->opt.sets.push_back(Setting{s.substr(0, eq), s.substr(eq + 1), Where{"--set", 0, 0}});
      }
      build_program(a->opt, std::cerr);
      std::cout << "built " << a->opt.output << '\n';
      cmds.exit_code = 0;
    } catch (const BuildError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: cc: " << e.what() << '\n';
      cmds.exit_code = e.code;
    } catch (const InputError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: cc: " << e.what() << '\n';
      cmds.exit_code = 2;
    }
  });
}

}  // namespace npusim::sim
