// `npusim op build`: builds a library of Neuron custom C++ operators the way the device flow's
// custom_op.load(name=, compute_srcs=, shape_srcs=, multicore=, extra_cflags=) does, as a
// plugin for `npusim run --plugin` (docs/custom-ops.md). The sources compile unchanged with the
// device toolchain's include layout: <torch/torch.h>, <neuron/neuron-utils.hpp>,
// "torchneuron/register.h".
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>

#include <torch/torch.h>

#include "firmware/torch/runtime.h"
#include "sim/cli/commands.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"
#include "sim/tools/executable_dir.h"

#ifndef NPUSIM_TORCH_INCLUDE_DIR
#define NPUSIM_TORCH_INCLUDE_DIR ""
#endif
// The kernel compiler (clang++-14) and the kernel-cost pass it loads (firmware/torch/cost_pass).
#ifndef NPUSIM_KERNEL_CXX
#define NPUSIM_KERNEL_CXX "clang++-14"
#endif
#ifndef NPUSIM_KERNEL_COST_PASS
#define NPUSIM_KERNEL_COST_PASS ""
#endif

namespace npusim::sim {

namespace {

struct OpBuildArgs {
  std::string name, output, cxx;
  std::vector<std::string> compute, shape, extra_cflags;
  bool multicore = false, verbose = false;
};

struct BuildError : std::runtime_error {
  int code;
  BuildError(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void check_name(const std::string& n) {
  bool ok = !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_');
  for (char ch : n) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  if (!ok) throw BuildError(2, fmt::format("--name '{}': a library name is a C identifier", n));
  if (n == "builtin") throw BuildError(2, "--name 'builtin': reserved by the device flow (custom_op.load)");
}

std::string include_dir() {
  const char* env = std::getenv("NPUSIM_TORCH_INCLUDE");
  const std::string dir = env && *env ? env : NPUSIM_TORCH_INCLUDE_DIR;
  if (dir.empty() || !is_file(dir + "/torch/torch.h") || !is_file(dir + "/torchneuron/register.h"))
    throw BuildError(2, fmt::format("the torch API headers are not in '{}' (set NPUSIM_TORCH_INCLUDE to "
                                    "npusim's firmware/torch/include)", dir));
  return dir;
}

// The kernel-cost pass: $NPUSIM_KERNEL_COST_PASS, else lib/npusim/ beside the installed program,
// else the build tree's.
std::string cost_pass() {
  const char* env = std::getenv("NPUSIM_KERNEL_COST_PASS");
  if (env && *env) {
    if (!is_file(env))
      throw BuildError(2, fmt::format("NPUSIM_KERNEL_COST_PASS={}: no such file (the npusim kernel-cost pass, "
                                      "libnpusim_kernel_cost.so)", env));
    return env;
  }
  if (const std::string dir = executable_dir(); !dir.empty()) {
    const std::string installed = dir + "/../lib/npusim/libnpusim_kernel_cost.so";
    if (is_file(installed)) return installed;
  }
  if (is_file(NPUSIM_KERNEL_COST_PASS)) return NPUSIM_KERNEL_COST_PASS;
  throw BuildError(2, "the npusim kernel-cost pass (libnpusim_kernel_cost.so) is not where this npusim was built "
                      "nor in lib/npusim beside it: set NPUSIM_KERNEL_COST_PASS, or build unannotated with --cxx");
}

std::string base_name(const std::string& p) {
  const auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

int run_compiler(const std::vector<std::string>& argv) {
  std::vector<char*> cargs;
  for (const auto& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw BuildError(1, fmt::format("cannot start the compiler: {}", std::strerror(errno)));
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);  // npusim ignores it; the compiler gets the default
    execvp(cargs[0], cargs.data());
    std::fprintf(stderr, "npusim: error: op build: cannot run the compiler '%s': %s\n", cargs[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw BuildError(1, fmt::format("waiting for the compiler: {}", std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Loads the library built (its static initialisers in a probe process first, its registrations
// checked: torchrt::load_plugin) and finds the kernel of each op it registers: a missing or
// ambiguous kernel is reported now, not at the first run. An op with a built-in op's name is
// loaded with a warning (a run needs --allow-shadowing). `file` is the library as built (the
// temporary file beside the destination), `lib` its name in messages (the destination).
std::vector<std::string> check_library(const std::string& file, const std::string& lib) {
  torchrt::PluginLoad load;
  try {
    load = torchrt::load_plugin(file, true);
  } catch (const std::exception& e) {
    std::string why = e.what();
    for (size_t at; (at = why.find(file)) != std::string::npos;) why.replace(at, file.size(), lib);
    throw BuildError(1, fmt::format("{}: built, but it does not load: {}", lib, why));
  }
  for (const auto& w : load.warnings)
    std::cerr << "npusim: warning: op build: " << lib << ": " << w << "; npusim run needs --allow-shadowing\n";
  std::vector<std::string> lines;
  for (const auto& name : load.ops) {
    auto& def = const_cast<torch::npusim_op::OpDef&>(*torch::npusim_op::find_op(name));
    try {
      torch::npusim_op::resolve_kernel(def);
    } catch (const std::invalid_argument& e) {
      throw BuildError(1, fmt::format("{}: {}", lib, e.what()));
    }
    lines.push_back(fmt::format("  op {}.{}: kernel {}{}", def.library, def.name,
                                torch::npusim_op::form_signature(def, def.kernel_pass),
                                def.multicore == 1 ? " (multicore)" : ""));
  }
  return lines;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

int op_build(const OpBuildArgs& a) {
  check_name(a.name);
  for (const auto* list : {&a.compute, &a.shape})
    for (const auto& f : *list)
      if (std::string why = input_file_problem(f); !why.empty() || !is_regular_file(f)) {
        // (A FIFO or a device would block the compiler or feed it without end.)
        if (why.empty()) why = "is not a regular file (a FIFO or a device): a source must be a file";
        throw BuildError(2, fmt::format("{}: {} (at '{}')", list == &a.compute ? "--compute" : "--shape", why, f));
      }
  const std::string inc = include_dir();
  const std::string out = a.output.empty() ? "lib" + a.name + ".so" : a.output;
  // The library replacing one of its own sources would destroy it.
  {
    std::vector<OutputPath> inputs;
    for (const auto& f : a.compute) inputs.push_back({"--compute", f, {}});
    for (const auto& f : a.shape) inputs.push_back({"--shape", f, {}});
    try {
      check_outputs_not_inputs({{a.output.empty() ? "op build" : "-o", out, {}}}, inputs);
    } catch (const InputError& e) {
      throw BuildError(2, e.what());
    }
  }
  const auto slash = out.rfind('/');
  if (slash != std::string::npos && slash > 0 && !is_dir(out.substr(0, slash)))
    throw BuildError(2, fmt::format("-o {}: the directory {} does not exist", out, out.substr(0, slash)));
  // The compiler writes a temporary file beside the library, renamed into place once it
  // loads: a failed build leaves the library that was there.
  std::unique_ptr<OutputFile> lib;
  try {
    lib = std::make_unique<OutputFile>(OutputPath{a.output.empty() ? "op build" : "-o", out, {}}, 0755);
    lib->release_stream();
  } catch (const InputError& e) {
    throw BuildError(2, e.what());
  }
  // The kernel compiler with the kernel-cost pass (the kernel's own code is timed), unless --cxx
  // names another compiler (a library whose kernels' own code takes no simulated time).
  const std::string cxx = a.cxx.empty() ? NPUSIM_KERNEL_CXX : a.cxx;
  const bool annotated = base_name(cxx) == base_name(NPUSIM_KERNEL_CXX);
  std::vector<std::string> argv = {cxx, "-std=c++17", "-O2", "-fPIC", "-shared", "-I" + inc};
  if (annotated) argv.push_back("-fpass-plugin=" + cost_pass());
  // A frame larger than a page (megabytes of locals) touches its pages in order as it grows,
  // so that it meets the guard below the core thread's stack instead of stepping over it into
  // another mapping: a `host stack overflow` fault, not a crash or another core's memory.
  if (annotated) argv.push_back("-fstack-clash-protection");
  if (a.multicore) argv.push_back("-DNPUSIM_MULTICORE=1");
  for (const auto& f : a.extra_cflags) argv.push_back(f);
  for (const auto& f : a.compute) argv.push_back(f);
  for (const auto& f : a.shape) argv.push_back(f);
  argv.push_back("-o");
  argv.push_back(lib->writing_path());
  if (a.verbose) {
    std::string cmd;
    for (const auto& s : argv) cmd += (cmd.empty() ? "" : " ") + s;
    std::cerr << "npusim: op build: " << cmd << '\n';
  }
  const int rc = run_compiler(argv);
  if (rc != 0) throw BuildError(1, fmt::format("library {}: the compiler {} failed (exit status {})", a.name, argv[0], rc));
  const std::string built = lib->writing_path();
  const auto lines = check_library(built.find('/') == std::string::npos ? "./" + built : built, out);
  try {
    lib->commit();
  } catch (const InputError& e) {
    throw BuildError(2, e.what());
  }
  std::cout << "built " << out << (a.multicore ? " (multicore)" : "") << '\n';
  for (const auto& l : lines) std::cout << l << '\n';
  if (!annotated)
    std::cout << fmt::format("note: built by {} without the npusim kernel-cost pass: the kernels' own code (their "
                             "arithmetic, loops, TCM and stack accesses) takes no simulated time; build with the "
                             "default compiler ({}) to time it\n",
                             cxx, NPUSIM_KERNEL_CXX);
  return 0;
}

}  // namespace

void register_op_command(CLI::App& app, Commands& cmds) {
  auto* op = app.add_subcommand("op", "Custom C++ operators (docs/custom-ops.md)");
  op->require_subcommand(1);
  register_op_list_command(*op, cmds);
  auto* b = op->add_subcommand(
      "build", "Build a library of custom ops as custom_op.load(name, compute_srcs, shape_srcs, multicore) does");
  auto a = std::make_shared<OpBuildArgs>();
  b->add_option("--name", a->name, "Library name (custom_op.load name=): builds lib<NAME>.so")->required();
  b->add_option("--compute", a->compute, "Kernel sources (compute_srcs)")->required()->expected(1, -1);
  b->add_option("--shape", a->shape, "Shape sources with NEURON_LIBRARY (shape_srcs)")->required()->expected(1, -1);
  b->add_flag("--multicore", a->multicore, "Every op of the library runs on all GPSIMD cores (multicore=True)");
  b->add_option("--extra-cflags", a->extra_cflags, "A compiler flag (extra_cflags=), e.g. --extra-cflags=-DSTACK_SIZE=20000; repeatable")
      ->allow_extra_args(false);
  b->add_option("-o,--output", a->output, "The library file (default: lib<NAME>.so)");
  b->add_option("--cxx", a->cxx,
                "C++ compiler (default: " NPUSIM_KERNEL_CXX " with the kernel-cost pass; another compiler builds a "
                "library whose kernels' own code is not timed)");
  b->add_flag("-v,--verbose", a->verbose, "Print the compiler command");
  b->callback([a, &cmds] {
    try {
      cmds.exit_code = op_build(*a);
    } catch (const BuildError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: op build: " << e.what() << '\n';
      cmds.exit_code = e.code;
    }
  });
}

}  // namespace npusim::sim
