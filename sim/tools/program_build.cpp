#include "sim/tools/program_build.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "sim/input/snitch_profile.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"
#include "sim/tools/executable_dir.h"

// The runtime's folder in the source tree this npusim was built from (sim/CMakeLists.txt).
#ifndef NPUSIM_SNRT_SOURCE_DIR
#define NPUSIM_SNRT_SOURCE_DIR ""
#endif
#ifndef NPUSIM_NEURON_SOURCE_DIR
#define NPUSIM_NEURON_SOURCE_DIR ""
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

// The profile a program is built for: a snitch-cluster one, or a neuron-gpsimd one (whose
// management core runs firmware programs).
struct Target {
  bool neuron = false;
  platforms::SnitchPlatformConfig snitch;
  fw::NeuronPlatformConfig gpsimd;
};

// The platform's profile, or why npusim cc cannot build for it.
Target load_platform_for_programs(const ProgramBuildOptions& opt) {
  Target t;
  if (!is_snitch_platform(opt.platform)) {
    const bool known = !builtin_profile(opt.platform).empty() || input_file_problem(opt.platform).empty();
    if (known) {
      t.neuron = true;
      t.gpsimd = load_platform(opt.platform, opt.sets);  // bad value: InputError
      const auto& l = t.gpsimd.firmware.layout;
      const auto& f = t.gpsimd.firmware;
      const uint64_t bss = uint64_t{l.data_scratch} + l.bss_offset;
      if (bss % 4 != 0)
        throw BuildError(2, fmt::format("--platform {}: the allocators' state at heaps.data_scratch + heaps.bss_offset "
                                        "= {} is not 4-byte aligned",
                                        opt.platform, hex(bss)));
      if (uint64_t{l.bss_offset} + kAllocatorBssBytes > l.dataram_size)
        throw BuildError(2, fmt::format("--platform {}: the allocators' state [{}, {}) ends beyond the dataram "
                                        "(heaps.dataram_size {})",
                                        opt.platform, hex(bss), hex(bss + kAllocatorBssBytes), hex(l.dataram_size)));
      const uint64_t img_lo = f.image_base, img_hi = img_lo + f.image_size;
      const auto overlaps = [&](uint64_t lo, uint64_t hi) { return img_lo < hi && lo < img_hi; };
      if (overlaps(l.data_scratch, uint64_t{l.data_scratch} + l.dataram_size))
        throw BuildError(2, fmt::format("--platform {}: the firmware image [{}, {}) overlaps the dataram: move "
                                        "firmware.image_base",
                                        opt.platform, hex(img_lo), hex(img_hi)));
      if (overlaps(l.hbm_window, uint64_t{l.hbm_window} + l.hbm_scratch_size))
        throw BuildError(2, fmt::format("--platform {}: the firmware image [{}, {}) overlaps the HBM window: move "
                                        "firmware.image_base",
                                        opt.platform, hex(img_lo), hex(img_hi)));
      if (overlaps(kNpusimHostBase, uint64_t{kNpusimDmaBase} + 0x100))
        throw BuildError(2, fmt::format("--platform {}: the firmware image [{}, {}) overlaps npusim's host interface "
                                        "and DMA registers at {}: move firmware.image_base",
                                        opt.platform, hex(img_lo), hex(img_hi), hex(kNpusimHostBase)));
      return t;
    }
  }
  auto& cfg = t.snitch;
  cfg = load_snitch_platform(opt.platform, opt.sets);  // unknown name, bad value: InputError
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
  return t;
}

// --- npusim's runtime objects, kept between builds ---
// A runtime source compiled by the same compiler with the same command line, while no file of
// the runtime's folders changed, gives the same object: it is compiled once and then taken
// from the cache folder ($NPUSIM_CC_CACHE; "off": no cache; else $XDG_CACHE_HOME/npusim/cc or
// $HOME/.cache/npusim/cc). Objects enter the folder whole (written aside, then renamed), so
// builds running at once share it; a folder that cannot be written means no cache.

uint64_t fnv(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
uint64_t fnv(uint64_t h, const std::string& s) { return fnv(fnv(h, s.data(), s.size()), "\0", 1); }

std::string cache_dir() {
  const char* env = std::getenv("NPUSIM_CC_CACHE");
  std::string dir;
  if (env && *env) {
    if (std::string(env) == "off") return {};
    dir = env;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/npusim/cc";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::string(home) + "/.cache/npusim/cc";
  } else {
    return {};
  }
  // mkdir -p
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    ::mkdir(dir.substr(0, pos).c_str(), 0755);
    if (pos == std::string::npos) break;
  }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir.c_str(), W_OK) == 0 ? dir : "";
}

// Every regular file of the folders (names and contents), in name order, and the compiler's
// identity (path, size, time).
uint64_t runtime_identity(const std::vector<std::string>& dirs, const std::string& compiler) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& d : dirs) {
    std::vector<std::string> names;
    if (DIR* dp = ::opendir(d.c_str())) {
      while (const dirent* e = ::readdir(dp)) names.emplace_back(e->d_name);
      ::closedir(dp);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      const std::string path = d + "/" + n;
      if (!is_file(path)) continue;
      std::ifstream in(path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      h = fnv(fnv(h, path), bytes);
    }
  }
  struct stat st {};
  if (::stat(compiler.c_str(), &st) == 0) {
    h = fnv(h, &st.st_size, sizeof st.st_size);
    h = fnv(h, &st.st_mtime, sizeof st.st_mtime);
  }
  return fnv(h, compiler);
}

// Copies `from` into the cache as `to` (aside, then renamed); a failure leaves no file.
void enter_cache(const std::string& from, const std::string& to) {
  const std::string tmp = fmt::format("{}.{}.tmp", to, ::getpid());
  {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(tmp, std::ios::binary);
    out << in.rdbuf();
    if (!in || !out) {
      out.close();
      ::unlink(tmp.c_str());
      return;
    }
  }
  if (::rename(tmp.c_str(), to.c_str()) != 0) ::unlink(tmp.c_str());
}

const char* const kRuntimeSources[] = {"crt0.S", "alloc_v2.c", "sync.c", "libc.c", "printf.c", "builtins.c"};
// The Neuron device library's own sources; the C library subset comes from the Snitch runtime.
const char* const kNeuronSources[] = {"crt0.S",         "allocator.c",    "xmem_heap.c",
                                      "libc_heap.c",    "fatal.c",        "stack_switch.c",
                                      "stack_switch.S", "data_transfer.c", "cxx_names.S"};
const char* const kNeuronFromSnrt[] = {"libc.c", "printf.c", "builtins.c"};

// A runtime folder: $env, else share/npusim/<share> beside this program, else `source` (the
// tree npusim was built from); each must hold every file of `markers`.
std::string runtime_dir(const char* env_name, const std::string& share, const std::string& source,
                        const std::vector<std::string>& markers, const std::string& what) {
  auto ok = [&](const std::string& d) {
    for (const auto& m : markers)
      if (!is_file(d + "/" + m)) return false;
    return true;
  };
  std::string listed;
  for (const auto& m : markers) listed += (listed.empty() ? "" : ", ") + m;
  const char* env = std::getenv(env_name);
  if (env && *env) {
    if (!ok(env)) throw BuildError(2, fmt::format("{}={}: not npusim's {} folder ({})", env_name, env, what, listed));
    return env;
  }
  if (const std::string dir = executable_dir(); !dir.empty()) {
    const std::string installed = dir + "/../share/npusim/" + share;
    if (ok(installed)) return installed;
  }
  if (!source.empty() && ok(source)) return source;
  throw BuildError(2, fmt::format("npusim's {} is neither in share/npusim/{} beside this program nor where it was "
                                  "built: set {}",
                                  what, share, env_name));
}

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

std::string executable_dir() {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  const std::string path(exe, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::string snrt_dir() {
  return runtime_dir("NPUSIM_SNRT_DIR", "snrt", NPUSIM_SNRT_SOURCE_DIR, {"include/snrt.h", "src/crt0.S"},
                     "Snitch runtime (firmware/snrt)");
}

std::string neuron_dir() {
  return runtime_dir("NPUSIM_NEURON_DIR", "neuron", NPUSIM_NEURON_SOURCE_DIR,
                     {"include/neuron_device.h", "src/crt0.S"}, "Neuron device library (firmware/neuron)");
}

std::vector<std::pair<std::string, std::string>> neuron_program_macros(const fw::NeuronPlatformConfig& cfg) {
  const auto& l = cfg.firmware.layout;
  const auto& f = cfg.firmware;
  return {
      {"NPUSIM_HOST_BASE", hex(kNpusimHostBase)},
      {"NPUSIM_DMA_BASE", hex(kNpusimDmaBase)},
      {"NPUSIM_DATA_SCRATCH", hex(l.data_scratch)},
      {"NPUSIM_DATARAM_SIZE", hex(l.dataram_size)},
      {"NPUSIM_BSS_OFFSET", hex(l.bss_offset)},
      {"NPUSIM_HBM_SCRATCH", hex(l.hbm_scratch) + "ull"},
      {"NPUSIM_HBM_SCRATCH_SIZE", hex(l.hbm_scratch_size)},
      {"NPUSIM_HBM_WINDOW", hex(l.hbm_window)},
      {"NPUSIM_HBM_POOL_OFFSET", hex(l.hbm_pool_offset)},
      {"NPUSIM_HBM_HEADER_OFFSET", hex(l.hbm_header_offset)},
      {"NPUSIM_DATARAM_POOL_OFFSET", hex(l.dataram_pool_offset)},
      {"NPUSIM_DATARAM_POOL_SIZE", hex(l.dataram_pool_size)},
      {"NPUSIM_DATARAM_HEADER_OFFSET", hex(l.dataram_header_offset)},
      {"NPUSIM_LIBC_POOL_OFFSET", hex(l.libc_pool_offset)},
      {"NPUSIM_LIBC_POOL_SIZE", hex(l.libc_pool_size)},
      {"NPUSIM_LIBC_HEADER_OFFSET", hex(l.libc_header_offset)},
      {"NPUSIM_NUM_BLOCKS", std::to_string(l.num_blocks)},
      {"NPUSIM_LOCAL_STACK_TOP", hex(f.local_stack_top)},
      {"NPUSIM_LOCAL_STACK_BYTES", hex(f.local_stack_bytes)},
      {"NPUSIM_DMA_CHANNEL", std::to_string(f.dma_channel)},
      {"NPUSIM_DMA_CHANNELS", std::to_string(cfg.dma.channels)},
      {"NPUSIM_TRANSFER_METHOD", std::to_string(static_cast<int>(f.method))},
      {"NPUSIM_DOUBLE_BUFFER", f.double_buffer ? "1" : "0"},
      {"NPUSIM_VECTOR_BYTES", std::to_string(cfg.core.vector_bytes)},
  };
}

std::string neuron_link_script(const fw::NeuronPlatformConfig& cfg) {
  const auto& l = cfg.firmware.layout;
  const auto& f = cfg.firmware;
  return fmt::format(R"LD(/* npusim cc: link script for a neuron-gpsimd platform's management core
   (docs/neuron-programs.md). The image lies in FWMEM [firmware.image_base, +firmware.image_size);
   the allocators' state (allocator.o's .bss) lies at heaps.data_scratch + heaps.bss_offset in the
   dataram, where the simulator reads the heaps. */
OUTPUT_ARCH(riscv)
ENTRY(_start)
MEMORY
{{
  FWMEM (rwxa) : ORIGIN = {img_base}, LENGTH = {img_len}
  DATARAM (rw) : ORIGIN = {dram_base}, LENGTH = {dram_len}
}}
SECTIONS
{{
  .text : {{
    KEEP(*(.text.init))
    *(.text.startup .text.startup.*)
    *(.text .text.*)
  }} > FWMEM
  .rodata : ALIGN(8) {{
    *(.rodata .rodata.*)
  }} > FWMEM
  .init_array : ALIGN(4) {{
    __init_array_start = .;
    KEEP(*(SORT_BY_INIT_PRIORITY(.init_array.*) SORT_BY_INIT_PRIORITY(.ctors.*)))
    KEEP(*(.init_array .ctors))
    __init_array_end = .;
  }} > FWMEM
  .data : ALIGN(8) {{
    *(.data .data.*)
  }} > FWMEM
  .sdata : ALIGN(8) {{
    __global_pointer$ = . + 0x800;
    *(.srodata .srodata.*)
    *(.sdata .sdata.*)
  }} > FWMEM
  .sbss (NOLOAD) : ALIGN(8) {{
    __bss_start = .;
    *(.sbss .sbss.*)
    *(.scommon)
  }} > FWMEM
  .bss (NOLOAD) : ALIGN(8) {{
    *(.bss .bss.*)
    *(COMMON)
    . = ALIGN(8);
    __bss_end = .;
  }} > FWMEM
  .npusim_args (NOLOAD) : ALIGN(8) {{
    __npusim_args_start = .;
    . += {args};
    __npusim_args_end = .;
  }} > FWMEM
  . = ALIGN(8);
  _end_fwmem = .;
  .allocator_bss {bss} (NOLOAD) : {{
    __allocator_bss_start = .;
    KEEP(*(.allocator_bss))
    __allocator_bss_end = .;
  }} > DATARAM
  ASSERT(__allocator_bss_end - __allocator_bss_start == {bss_bytes},
         "npusim cc: section .allocator_bss must hold exactly the device library's allocator state ({bss_bytes} bytes)")
  ASSERT(SIZEOF(.tdata) + SIZEOF(.tbss) == 0,
         "npusim cc: thread-local variables are not supported on the neuron-gpsimd management core")
}}
)LD",
                     fmt::arg("img_base", hex(f.image_base)), fmt::arg("img_len", hex(f.image_size)),
                     fmt::arg("dram_base", hex(l.data_scratch)), fmt::arg("dram_len", hex(l.dataram_size)),
                     fmt::arg("args", kNpusimArgsBytes), fmt::arg("bss", hex(uint64_t{l.data_scratch} + l.bss_offset)),
                     fmt::arg("bss_bytes", hex(kAllocatorBssBytes)));
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
  const Target target = load_platform_for_programs(opt);
  const std::string clang = tool(kClang, "clang-14");
  const std::string lld = tool(kLld, "lld-14");
  const std::string rt = snrt_dir();
  const std::string neuron = target.neuron ? neuron_dir() : std::string();

  check_output_paths(outputs);
  ScratchDir scratch(OutputPath{"-o", opt.output, {}});
  const std::string script = scratch.file("link.ld");
  write_output({"-o: the link script", script, {}},
               target.neuron ? neuron_link_script(target.gpsimd) : snitch_link_script(target.snitch));

  std::vector<std::string> common = {clang,
                                     "--target=riscv32-unknown-elf",
                                     "-march=rv32imafd",
                                     "-mabi=ilp32d",
                                     "-mcmodel=medany",
                                     "-mno-relax",
                                     "-fno-common",
                                     "-ftls-model=local-exec",
                                     "-nostdlib",
                                     "-nostdlibinc"};
  // The Neuron device library's headers first: its stdlib.h shadows the Snitch runtime's.
  if (target.neuron) common.insert(common.end(), {"-isystem", neuron + "/include"});
  common.insert(common.end(), {"-isystem", rt + "/include", "-O" + opt.opt_level});
  if (opt.debug) common.push_back("-g");
  for (const auto& [name, value] :
       target.neuron ? neuron_program_macros(target.gpsimd) : snitch_program_macros(target.snitch))
    common.push_back("-D" + name + "=" + value);

  std::vector<std::string> objects;
  const std::string cache = cache_dir();
  uint64_t identity = 0;
  if (!cache.empty()) {
    std::vector<std::string> dirs = {rt + "/include", rt + "/src"};
    if (target.neuron) dirs.insert(dirs.end(), {neuron + "/include", neuron + "/src"});
    identity = runtime_identity(dirs, clang);
  }
  auto compile = [&](const std::string& src, const std::string& lang, const std::vector<std::string>& extra,
                     const std::string& shown, bool runtime_source) {
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
    argv.insert(argv.end(), {"-x", lang, "-c", src, "-o"});
    std::string cached;
    if (runtime_source && !cache.empty()) {
      uint64_t key = identity;
      for (const auto& a : argv) key = fnv(key, a);
      cached = fmt::format("{}/{:016x}.o", cache, key);
      if (is_file(cached)) {
        if (opt.verbose) log << "npusim: cc: " << src << ": " << cached << " (compiled before)\n";
        objects.push_back(cached);
        return;
      }
    }
    argv.push_back(obj);
    if (opt.verbose) log << "npusim: cc: " << command_line(argv) << '\n';
    const int rc = run_tool(argv);
    if (rc != 0)
      throw BuildError(2, fmt::format("{}: does not compile ({} exit status {}; its messages are above)", shown,
                                      kClang, rc));
    if (!cached.empty()) enter_cache(obj, cached);
    objects.push_back(obj);
  };
  // The runtime, warning-free by its own standard. A program's own xmem_heap.c replaces the
  // Neuron device library's.
  bool own_xmem = false;
  for (const auto& src : opt.sources) own_xmem = own_xmem || base_name(src) == "xmem_heap.c";
  std::vector<std::string> runtime;
  if (target.neuron) {
    for (const char* f : kNeuronSources)
      if (!(own_xmem && std::string(f) == "xmem_heap.c")) runtime.push_back(neuron + "/src/" + f);
    for (const char* f : kNeuronFromSnrt) runtime.push_back(rt + "/src/" + f);
  } else {
    for (const char* f : kRuntimeSources) runtime.push_back(rt + "/src/" + f);
  }
  for (const auto& src : runtime) {
    compile(src, src.size() > 2 && src.substr(src.size() - 2) == ".S" ? "assembler-with-cpp" : "c",
            {"-Wall", "-Wextra", "-Werror"}, "npusim's runtime " + src, true);
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
    compile(opt.sources[i], languages[i], extra, opt.sources[i], false);
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
