// `npusim op build`: builds a library of Neuron custom C++ operators the way the device flow's
// custom_op.load(name=, compute_srcs=, shape_srcs=, multicore=, extra_cflags=) does, as a
// plugin for `npusim run --plugin` (docs/custom-ops.md). The sources compile unchanged with the
// device toolchain's include layout: <torch/torch.h>, <neuron/neuron-utils.hpp>,
// "torchneuron/register.h".
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <set>

#include <torch/torch.h>

#include "sim/cli/commands.h"

#ifndef NPUSIM_TORCH_INCLUDE_DIR
#define NPUSIM_TORCH_INCLUDE_DIR ""
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

int run_compiler(const std::vector<std::string>& argv) {
  std::vector<char*> cargs;
  for (const auto& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) throw BuildError(1, fmt::format("cannot start the compiler: {}", std::strerror(errno)));
  if (pid == 0) {
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

// Loads the library built and finds the kernel of each op it registers: a missing or ambiguous
// kernel is reported now, not at the first run.
std::vector<std::string> check_library(const std::string& lib) {
  std::set<std::string> before;
  for (const auto* d : torch::npusim_op::ops()) before.insert(d->name + "\n" + d->library);
  if (dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    throw BuildError(1, fmt::format("{}: built, but it does not load: {}", lib, why ? why : "?"));
  }
  std::vector<std::string> lines;
  for (const auto* d : torch::npusim_op::ops()) {
    if (before.count(d->name + "\n" + d->library)) continue;
    auto& def = const_cast<torch::npusim_op::OpDef&>(*d);
    try {
      torch::npusim_op::resolve_kernel(def);
    } catch (const std::invalid_argument& e) {
      throw BuildError(1, fmt::format("{}: {}", lib, e.what()));
    }
    lines.push_back(fmt::format("  op {}.{}: kernel {}{}", d->library, d->name,
                                torch::npusim_op::form_signature(*d, d->kernel_pass),
                                d->multicore == 1 ? " (multicore)" : ""));
  }
  if (lines.empty())
    throw BuildError(1, fmt::format("{}: no op registered (the shape sources need NEURON_LIBRARY(lib, m) "
                                    "{{ m.def(...); }})", lib));
  return lines;
}

int op_build(const OpBuildArgs& a) {
  check_name(a.name);
  for (const auto* list : {&a.compute, &a.shape})
    for (const auto& f : *list)
      if (!is_file(f))
        throw BuildError(2, fmt::format("{} {}: no such file", list == &a.compute ? "--compute" : "--shape", f));
  const std::string inc = include_dir();
  const std::string out = a.output.empty() ? "lib" + a.name + ".so" : a.output;
  const auto slash = out.rfind('/');
  if (slash != std::string::npos && slash > 0 && !is_dir(out.substr(0, slash)))
    throw BuildError(2, fmt::format("-o {}: the directory {} does not exist", out, out.substr(0, slash)));
  const char* env_cxx = std::getenv("CXX");
  std::vector<std::string> argv = {!a.cxx.empty() ? a.cxx : env_cxx && *env_cxx ? env_cxx : "c++",
                                   "-std=c++17", "-O2", "-fPIC", "-shared", "-I" + inc};
  if (a.multicore) argv.push_back("-DNPUSIM_MULTICORE=1");
  for (const auto& f : a.extra_cflags) argv.push_back(f);
  for (const auto& f : a.compute) argv.push_back(f);
  for (const auto& f : a.shape) argv.push_back(f);
  argv.push_back("-o");
  argv.push_back(out);
  if (a.verbose) {
    std::string cmd;
    for (const auto& s : argv) cmd += (cmd.empty() ? "" : " ") + s;
    std::cerr << "npusim: op build: " << cmd << '\n';
  }
  const int rc = run_compiler(argv);
  if (rc != 0) throw BuildError(1, fmt::format("library {}: the compiler {} failed (exit status {})", a.name, argv[0], rc));
  const std::string path = out.find('/') == std::string::npos ? "./" + out : out;
  const auto lines = check_library(path);
  std::cout << "built " << out << (a.multicore ? " (multicore)" : "") << '\n';
  for (const auto& l : lines) std::cout << l << '\n';
  return 0;
}

}  // namespace

void register_op_command(CLI::App& app, Commands& cmds) {
  auto* op = app.add_subcommand("op", "Custom C++ operators (docs/custom-ops.md)");
  op->require_subcommand(1);
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
  b->add_option("--cxx", a->cxx, "C++ compiler (default: $CXX, else c++)");
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
