#include "sim/tools/program_build.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "sim/input/snitch_profile.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"

// The runtime's folder in the source tree this npusim was built from (sim/CMakeLists.txt).
#ifndef NPUSIM_SNRT_SOURCE_DIR
#define NPUSIM_SNRT_SOURCE_DIR ""
#endif

namespace npusim::sim {

namespace {

constexpr const char* kClang = "clang-14";
constexpr const char* kLld = "ld.lld-14";

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

// The program `name` in PATH, or an empty string.
std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string cand = dir + "/" + name;
    if (is_file(cand) && ::access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return {};
}

std::string tool(const char* name, const char* package) {
  const std::string p = find_in_path(name);
  if (p.empty())
    throw BuildError(2, fmt::format("{} is not installed (not found in PATH): install the Debian package {} "
                                    "(tools/deps.sh)",
                                    name, package));
  return p;
}

// What a source file is, by its extension: the language clang is told (-x).
std::string language_of(const std::string& src) {
  const auto slash = src.rfind('/');
  const auto dot = src.rfind('.');
  const std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : src.substr(dot);
  if (ext == ".c") return "c";
  if (ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".C") return "c++";
  if (ext == ".S") return "assembler-with-cpp";
  if (ext == ".s") return "assembler";
  throw BuildError(2, fmt::format("{}: not a source npusim cc builds (its extension '{}': expected .c, .cc, .cpp, "
                                  ".cxx, .S or .s)",
                                  src, ext));
}

std::string base_name(const std::string& p) {
  const auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& s : argv) cmd += (cmd.empty() ? "" : " ") + s;
  return cmd;
}

// Runs argv (its messages go to our standard error); returns its exit status.
int run_tool(const std::vector<std::string>& argv) {
  std::vector<char*> cargs;
  for (const auto& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) throw BuildError(1, fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    std::signal(SIGPIPE, SIG_DFL);  // npusim ignores it; the tool gets the default
    execv(cargs[0], cargs.data());
    std::fprintf(stderr, "npusim: error: cc: cannot run '%s': %s\n", cargs[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw BuildError(1, fmt::format("waiting for {}: {}", argv[0], std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void check_opt_level(const std::string& o) {
  if (o == "0" || o == "1" || o == "2" || o == "3" || o == "s" || o == "z") return;
  throw BuildError(2, fmt::format("-O{}: expected -O0, -O1, -O2, -O3, -Os or -Oz", o));
}

// The platform's profile, or why npusim cc cannot build for it.
platforms::SnitchPlatformConfig load_platform_for_programs(const ProgramBuildOptions& opt) {
  if (!is_snitch_platform(opt.platform)) {
    const bool known = !builtin_profile(opt.platform).empty() || input_file_problem(opt.platform).empty();
    if (known)
      throw BuildError(2, fmt::format("--platform {}: its cores run no RV32 programs; npusim cc builds for "
                                      "snitch-cluster platforms",
                                      opt.platform));
  }
  auto cfg = load_snitch_platform(opt.platform, opt.sets);  // unknown name, bad value: InputError
  // The host interface must not shadow memory a program uses.
  const uint64_t host_lo = kNpusimHostBase, host_hi = kNpusimHostBase + 0x20;
  for (uint32_t c = 0; c < cfg.clusters; ++c) {
    const uint64_t lo = cfg.tcdm_base(c), hi = lo + cfg.runtime.tcdm_size;
    if (host_lo < hi && lo < host_hi)
      throw BuildError(2, fmt::format("--platform {}: npusim's host interface at {} lies inside cluster {}'s TCDM "
                                      "[{}, {}): move tcdm.base or shrink tcdm.size",
                                      opt.platform, hex(kNpusimHostBase), c, hex(lo), hex(hi)));
  }
  if (host_lo < cfg.runtime.l3_end && cfg.runtime.l3_start < host_hi)
    throw BuildError(2, fmt::format("--platform {}: npusim's host interface at {} lies inside L3 [{}, {})",
                                    opt.platform, hex(kNpusimHostBase), hex(cfg.runtime.l3_start),
                                    hex(cfg.runtime.l3_end)));
  return cfg;
}

const char* const kRuntimeSources[] = {"crt0.S", "alloc_v2.c", "sync.c", "libc.c", "printf.c", "builtins.c"};

}  // namespace

std::vector<std::pair<std::string, std::string>> snitch_program_macros(
    const platforms::SnitchPlatformConfig& cfg) {
  const auto& r = cfg.runtime;
  return {
      {"SNRT_CLUSTER_NUM", std::to_string(cfg.clusters)},
      {"SNRT_CLUSTER_CORE_NUM", std::to_string(r.core_num())},
      {"SNRT_CLUSTER_COMPUTE_CORE_NUM", std::to_string(r.compute_cores)},
      {"SNRT_TCDM_START_ADDR", hex(r.tcdm_start)},
      {"SNRT_TCDM_SIZE", hex(r.tcdm_size)},
      {"SNRT_CLUSTER_OFFSET", hex(r.cluster_offset)},
      {"SNRT_CLS_SIZE", std::to_string(r.cls_size)},
      {"SNRT_LOG2_STACK_SIZE", std::to_string(r.log2_stack_size)},
      {"SNRT_TLS_SIZE", std::to_string(r.tls_size)},
      {"SNRT_L3_START_ADDR", hex(r.l3_start)},
      {"SNRT_L3_END_ADDR", hex(r.l3_end)},
      {"NPUSIM_HOST_BASE", hex(kNpusimHostBase)},
  };
}

std::string snitch_link_script(const platforms::SnitchPlatformConfig& cfg) {
  const auto& r = cfg.runtime;
  return fmt::format(R"(/* npusim cc: link script for a snitch-cluster platform (docs/snitch-programs.md). Everything
   lies in L3 [l3.base, l3.end); the TLS template starts with the runtime's allocator state
   (l1_allocator_v2 at offset 0, l3_allocator_v2 at 24) and must fit runtime.tls_size. */
OUTPUT_ARCH(riscv)
ENTRY(_start)
MEMORY
{{
  L3 (rwxa) : ORIGIN = {l3_base}, LENGTH = {l3_len}
}}
SECTIONS
{{
  .text : {{
    KEEP(*(.text.init))
    *(.text.startup .text.startup.*)
    *(.text .text.*)
  }} > L3
  .rodata : ALIGN(8) {{
    *(.rodata .rodata.*)
  }} > L3
  .init_array : ALIGN(4) {{
    __init_array_start = .;
    KEEP(*(SORT_BY_INIT_PRIORITY(.init_array.*) SORT_BY_INIT_PRIORITY(.ctors.*)))
    KEEP(*(.init_array .ctors))
    __init_array_end = .;
  }} > L3
  .tdata : ALIGN(8) {{
    __tdata_start = .;
    KEEP(*(.tdata.npusim_alloc_v2.0))
    KEEP(*(.tdata.npusim_alloc_v2.1))
    *(.tdata .tdata.*)
    . = ALIGN(8);
    __tdata_end = .;
  }} > L3
  .tbss : ALIGN(8) {{
    __tbss_start = .;
    *(.tbss .tbss.*)
    *(.tcommon)
    . = ALIGN(8);
    __tbss_end = .;
  }} > L3
  .data : ALIGN(8) {{
    *(.data .data.*)
  }} > L3
  .sdata : ALIGN(8) {{
    __global_pointer$ = . + 0x800;
    *(.srodata .srodata.*)
    *(.sdata .sdata.*)
  }} > L3
  .sbss (NOLOAD) : ALIGN(8) {{
    __bss_start = .;
    *(.sbss .sbss.*)
    *(.scommon)
  }} > L3
  .bss (NOLOAD) : ALIGN(8) {{
    *(.bss .bss.*)
    *(COMMON)
    . = ALIGN(8);
    __bss_end = .;
  }} > L3
  .npusim_args (NOLOAD) : ALIGN(8) {{
    __npusim_args_start = .;
    . += {args};
    __npusim_args_end = .;
  }} > L3
  . = ALIGN(8);
  _edram = .;
  ASSERT(__tbss_end - __tdata_start <= {tls},
         "npusim cc: the thread-local data (.tdata + .tbss, with the runtime's 48-byte allocator state) exceeds runtime.tls_size ({tls} bytes): raise it with --set runtime.tls_size=N")
  ASSERT(ALIGNOF(.tdata) <= 8 && ALIGNOF(.tbss) <= 8,
         "npusim cc: a thread-local variable is aligned to more than 8 bytes: the TLS blocks are 8-byte aligned")
}}
)",
                     fmt::arg("l3_base", hex(r.l3_start)), fmt::arg("l3_len", hex(r.l3_end - r.l3_start)),
                     fmt::arg("args", kNpusimArgsBytes), fmt::arg("tls", r.tls_size));
}

std::string snrt_dir() {
  auto ok = [](const std::string& d) { return is_file(d + "/include/snrt.h") && is_file(d + "/src/crt0.S"); };
  const char* env = std::getenv("NPUSIM_SNRT_DIR");
  if (env && *env) {
    if (!ok(env))
      throw BuildError(2, fmt::format("NPUSIM_SNRT_DIR={}: not npusim's runtime folder (include/snrt.h, src/crt0.S)", env));
    return env;
  }
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    const std::string installed = dir + "/../share/npusim/snrt";
    if (ok(installed)) return installed;
  }
  if (ok(NPUSIM_SNRT_SOURCE_DIR)) return NPUSIM_SNRT_SOURCE_DIR;
  throw BuildError(2, "npusim's Snitch runtime (firmware/snrt) is neither in share/npusim/snrt beside this program "
                      "nor where it was built: set NPUSIM_SNRT_DIR");
}

void build_program(const ProgramBuildOptions& opt, std::ostream& log) {
  check_opt_level(opt.opt_level);
  if (opt.sources.empty()) throw BuildError(2, "no source file given");
  if (opt.output.empty()) throw BuildError(2, "-o OUT.elf is required");
  std::vector<std::string> languages;
  for (const auto& src : opt.sources) {
    if (const std::string why = input_file_problem(src); !why.empty())
      throw BuildError(2, fmt::format("{}: the source file {}", src, why));
    languages.push_back(language_of(src));
  }
  std::vector<OutputPath> inputs{{"--platform", opt.platform, {}}};
  for (const auto& src : opt.sources) inputs.push_back({"source", src, {}});
  const std::vector<OutputPath> outputs{{"-o", opt.output, {}}};
  check_outputs_not_inputs(outputs, inputs);  // -o naming a source: InputError
  const auto cfg = load_platform_for_programs(opt);
  const std::string clang = tool(kClang, "clang-14");
  const std::string lld = tool(kLld, "lld-14");
  const std::string rt = snrt_dir();

  check_output_paths(outputs);
  ScratchDir scratch(OutputPath{"-o", opt.output, {}});
  const std::string script = scratch.file("link.ld");
  write_output({"-o: the link script", script, {}}, snitch_link_script(cfg));

  std::vector<std::string> common = {clang,
                                     "--target=riscv32-unknown-elf",
                                     "-march=rv32imafd",
                                     "-mabi=ilp32d",
                                     "-mcmodel=medany",
                                     "-mno-relax",
                                     "-fno-common",
                                     "-ftls-model=local-exec",
                                     "-nostdlib",
                                     "-nostdlibinc",
                                     "-isystem",
                                     rt + "/include",
                                     "-O" + opt.opt_level};
  if (opt.debug) common.push_back("-g");
  for (const auto& [name, value] : snitch_program_macros(cfg)) common.push_back("-D" + name + "=" + value);

  std::vector<std::string> objects;
  auto compile = [&](const std::string& src, const std::string& lang, const std::vector<std::string>& extra,
                     const std::string& shown) {
    const std::string obj = scratch.file(fmt::format("{}_{}.o", objects.size(), base_name(src)));
    std::vector<std::string> argv = common;
    argv.insert(argv.end(), extra.begin(), extra.end());
    // C and assembly freestanding; C++ hosted (in a freestanding C++ program `main` is an
    // ordinary, mangled function) but with no builtins and no exceptions or RTTI.
    if (lang == "c++") {
      for (const char* f : {"-fno-builtin", "-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics"})
        argv.push_back(f);
    } else {
      argv.push_back("-ffreestanding");
      argv.push_back("-fno-builtin-printf");
    }
    argv.insert(argv.end(), {"-x", lang, "-c", src, "-o", obj});
    if (opt.verbose) log << "npusim: cc: " << command_line(argv) << '\n';
    const int rc = run_tool(argv);
    if (rc != 0)
      throw BuildError(2, fmt::format("{}: does not compile ({} exit status {}; its messages are above)", shown,
                                      kClang, rc));
    objects.push_back(obj);
  };
  // The runtime, warning-free by its own standard.
  for (const char* f : kRuntimeSources) {
    const std::string src = rt + "/src/" + f;
    const std::string name(f);
    compile(src, name.size() > 2 && name.substr(name.size() - 2) == ".S" ? "assembler-with-cpp" : "c",
            {"-Wall", "-Wextra", "-Werror"}, "npusim's runtime " + src);
  }
  std::vector<std::string> user;
  for (const auto& d : opt.includes) user.push_back("-I" + d);
  for (const auto& d : opt.defines) user.push_back("-D" + d);
  for (const auto& u : opt.undefines) user.push_back("-U" + u);
  for (const auto& w : opt.warnings) user.push_back("-W" + w);
  for (const auto& f : opt.features) user.push_back("-f" + f);
  for (size_t i = 0; i < opt.sources.size(); ++i) {
    std::vector<std::string> extra = user;
    if (!opt.std.empty() && languages[i].rfind("assembler", 0) != 0) extra.push_back("-std=" + opt.std);
    compile(opt.sources[i], languages[i], extra, opt.sources[i]);
  }

  std::unique_ptr<OutputFile> elf;
  elf = std::make_unique<OutputFile>(OutputPath{"-o", opt.output, {}}, 0755);
  elf->release_stream();
  std::vector<std::string> link = {lld, "-T", script, "-z", "norelro", "--no-dynamic-linker", "-static"};
  link.insert(link.end(), objects.begin(), objects.end());
  link.insert(link.end(), {"-o", elf->writing_path()});
  if (opt.verbose) log << "npusim: cc: " << command_line(link) << '\n';
  const int rc = run_tool(link);
  if (rc != 0)
    throw BuildError(2, fmt::format("{}: does not link ({} exit status {}; its messages are above)", opt.output,
                                    kLld, rc));
  elf->commit();
}

}  // namespace npusim::sim
