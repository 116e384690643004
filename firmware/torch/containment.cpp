// Containment of a user's kernel: containment.h explains what and why, docs/architecture.md
// ("A kernel cannot take the simulator down") how it fits the run.
//
// Everything a signal handler touches is plain memory set up before the handler can run: the
// slots (one per core: stack bounds, recovery point, what happened), the ranges of code that
// must not be abandoned, the budget deadline. Handlers only record and siglongjmp; names,
// messages and symbols are made after the landing, on the kernel's coroutine.
#include "firmware/torch/containment.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <map>
#include <memory>

#include "firmware/stop_request.h"

#include "models/asan.h"
#if NPUSIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
extern "C" void npusim_asan_register_main_stack() __attribute__((weak));
#endif

namespace npusim::torchrt {

namespace {

constexpr int kMaxFrames = 64;
constexpr size_t kOwnGuard = 64 * 1024;      // our guard below a coroutine's stack (SystemC's is one page)
// Address space reserved (PROT_NONE, nothing committed) below a coroutine's stack: the largest
// that is free, from 1 GiB (gpsimd.host_stack_bytes's own maximum) down to 16 MiB.
constexpr size_t kBelowReserve[] = {size_t{1} << 30, size_t{256} << 20, size_t{64} << 20, size_t{16} << 20};
constexpr size_t kAltStackBytes = 256 * 1024;
constexpr long kTickNs = 100'000'000;        // the watchdog's period
constexpr uint64_t kGraceNs = 250'000'000;   // a stop or a spent budget the kernel has not answered by then
constexpr uint64_t kForceNs = 500'000'000;   // and, while in a system library, for this much longer
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

struct Slot {
  volatile sig_atomic_t in_kernel = 0;
  bool any_sp = false;        // the host slot: whatever the stack pointer
  uintptr_t lo = 0, hi = 0;   // the coroutine's stack mapping [lo, hi), SystemC's guard page included
  uintptr_t usable = 0;       // the lowest byte frames may use (above the guards)
  uintptr_t own_guard = 0;    // [own_guard, own_guard + kOwnGuard) PROT_NONE; 0: none
  // [below, lo): an inaccessible reservation below the stack, so that a frame larger than the
  // guards (megabytes of locals) faults there instead of writing into another mapping; 0: none.
  uintptr_t below = 0;
  sigjmp_buf env;
  // Written by the handler that takes the call back: plain values only.
  Escape::Cause cause = Escape::kNone;
  int signo = 0, code = 0, exit_status = 0;
  const char* exit_call = "";
  uintptr_t addr = 0, pc = 0, sp = 0;
  bool pc_exact = true;       // pc is the faulting instruction (a signal), not a return address
  uint64_t overdue_ns = 0;
  void* frames[kMaxFrames];
  int nframes = 0;
};

// Process-wide state of the Containment in force (one at a time).
std::atomic<bool> g_active{false};
std::unique_ptr<Slot[]> g_slots;
size_t g_nslots = 0;
Slot g_host;
size_t g_stack_bytes = 0;
uint64_t g_wall_deadline = 0;           // CLOCK_MONOTONIC ns; 0: no budget
std::atomic<uint64_t> g_stop_seen{0}, g_wall_seen{0};
volatile sig_atomic_t g_sanitizer_dying = 0;
Slot* volatile g_capturing = nullptr;   // a handler is taking this slot's backtrace
char g_terminate_type[256];             // std::terminate in a kernel: the exception in flight
volatile sig_atomic_t g_terminated = 0;
std::terminate_handler g_old_terminate = nullptr;
struct sigaction g_old_fault[sizeof(kFaultSignals) / sizeof(int)];
struct sigaction g_old_tick;
int g_tick_signal = 0;
timer_t g_timer{};
bool g_timer_armed = false;
stack_t g_old_altstack{};
void* g_altstack = nullptr;
const void* g_kernel_fn = nullptr;
void (*g_probe_exit)(const char*, int) = nullptr;

// Code that must not be abandoned in the middle (it may hold a lock: the C library's malloc,
// the C++ runtime, the sanitizers, SystemC's scheduler): executable ranges of those libraries.
struct Range {
  uintptr_t lo, hi;
};
Range g_unsafe[64];
int g_nunsafe = 0;

uint64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uintptr_t context_sp(const ucontext_t* uc) {
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.sp);
#else
#error "containment: add this architecture's stack pointer in a ucontext"
#endif
}
uintptr_t context_pc(const ucontext_t* uc) {
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#endif
}

// The slot whose kernel the stack pointer `sp` belongs to. A stack overflow by a frame larger
// than the guards can leave sp below the mapping: the nearest slot above, within 1 MiB.
Slot* slot_for(uintptr_t sp) {
  Slot* below = nullptr;
  for (size_t i = 0; i < g_nslots; ++i) {
    Slot& s = g_slots[i];
    if (!s.in_kernel || s.hi == 0) continue;
    if (sp >= s.lo && sp < s.hi) return &s;
    const uintptr_t reach = (s.below != 0 ? s.lo - s.below : 0) + (1u << 20);
    if (sp < s.lo && s.lo - sp < reach && (below == nullptr || s.lo < below->lo)) below = &s;
  }
  if (below != nullptr) return below;
  if (g_host.in_kernel) return &g_host;
  return nullptr;
}

bool in_unsafe_code(uintptr_t pc) {
  for (int i = 0; i < g_nunsafe; ++i)
    if (pc >= g_unsafe[i].lo && pc < g_unsafe[i].hi) return true;
  return false;
}

// The backtrace at the handler (glibc's unwinder reads through the signal frame). A fault while
// it runs (a stack too corrupt to walk) goes back with what was taken so far.
void capture(Slot& s) {
  s.nframes = 0;
  g_capturing = &s;
  s.nframes = backtrace(s.frames, kMaxFrames);
  g_capturing = nullptr;
}

size_t fault_index(int sig) {
  for (size_t i = 0; i < sizeof(kFaultSignals) / sizeof(int); ++i)
    if (kFaultSignals[i] == sig) return i;
  return 0;
}

// Not a kernel's fault: the handler that was there before ours gets it (the sanitizers' report,
// or the default action), by the fault happening again or, for a sent signal, by raising it.
void chain(int sig, const siginfo_t* si) {
  sigaction(sig, &g_old_fault[fault_index(sig)], nullptr);
  if (si->si_code <= 0 || sig == SIGABRT) raise(sig);
}

void on_fault(int sig, siginfo_t* si, void* ucv) {
  const int saved_errno = errno;
  if (Slot* s = g_capturing) {
    g_capturing = nullptr;
    siglongjmp(s->env, 1);
  }
  const auto* uc = static_cast<const ucontext_t*>(ucv);
  const uintptr_t sp = context_sp(uc);
  Slot* s = g_active.load(std::memory_order_relaxed) && !g_sanitizer_dying ? slot_for(sp) : nullptr;
  if (s == nullptr) {
    chain(sig, si);
    errno = saved_errno;
    return;
  }
  s->cause = Escape::kSignal;
  s->signo = sig;
  s->code = si->si_code;
  s->addr = reinterpret_cast<uintptr_t>(si->si_addr);
  s->pc = context_pc(uc);
  s->pc_exact = true;
  s->sp = sp;
  capture(*s);
  siglongjmp(s->env, 1);
}

void on_tick(int, siginfo_t*, void* ucv) {
  const int saved_errno = errno;
  if (!g_active.load(std::memory_order_relaxed) || g_capturing != nullptr) return;
  const uint64_t now = mono_ns();
  if (g_wall_deadline != 0 && now >= g_wall_deadline && g_wall_seen.load() == 0) {
    g_wall_seen = now;
    g_wall_budget_spent = true;
  }
  if (fw::stop_requested() && g_stop_seen.load() == 0) g_stop_seen = now;
  const uint64_t stop = g_stop_seen.load(), wall = g_wall_seen.load();
  const uint64_t since = stop != 0 ? stop : wall;
  const auto* uc = static_cast<const ucontext_t*>(ucv);
  Slot* s = since != 0 && now - since >= kGraceNs ? slot_for(context_sp(uc)) : nullptr;
  const uintptr_t pc = s ? context_pc(uc) : 0;
  if (s == nullptr || (in_unsafe_code(pc) && now - since < kGraceNs + kForceNs)) {
    errno = saved_errno;
    return;
  }
  s->cause = stop != 0 ? Escape::kStop : Escape::kWallBudget;
  s->pc = pc;
  s->pc_exact = true;
  s->sp = context_sp(uc);
  s->overdue_ns = now - since;
  capture(*s);
  siglongjmp(s->env, 1);
}

[[noreturn]] void on_terminate() {
  const std::string type = current_exception_type();
  std::snprintf(g_terminate_type, sizeof g_terminate_type, "%s", type.c_str());
  g_terminated = 1;
  char here = 0;
  if (!g_active.load() || slot_for(reinterpret_cast<uintptr_t>(&here)) == nullptr) {
    if (g_old_terminate) g_old_terminate();
  }
  std::abort();
}

#if NPUSIM_ASAN
void on_sanitizer_death() { g_sanitizer_dying = 1; }
#endif

int collect_unsafe(dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  static const char* const kSystem[] = {"libc.so", "ld-linux", "libstdc++", "libgcc_s", "libasan", "libubsan",
                                        "liblsan", "libsystemc", "libm.so", "libpthread", "libdl.so"};
  bool system = false;
  for (const char* p : kSystem) system = system || std::strncmp(base, p, std::strlen(p)) == 0;
  if (!system) return 0;
  for (int i = 0; i < info->dlpi_phnum && g_nunsafe < 64; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      g_unsafe[g_nunsafe++] = Range{info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz};
  }
  return 0;
}

// The stack of the coroutine we run on: the mapping that holds this frame, and SystemC's guard
// page right below it (QuickThreads stacks are mmap'd with one PROT_NONE page at the bottom).
// Adds our own guard above SystemC's so that a frame of up to 64 KiB cannot step over it.
void find_bounds(Slot& s) {
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t size = (g_stack_bytes + page - 1) & ~(page - 1);
  uintptr_t lo = 0;
  if (FILE* f = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    uintptr_t prev_end = 0;
    bool prev_none = false;
    while (std::fgets(line, sizeof line, f)) {
      unsigned long a = 0, b = 0;
      char perms[8] = {};
      if (std::sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3) continue;
      if (here >= a && here < b) {
        if (prev_end == a && prev_none) lo = a - page;  // the guard page is the stack's first
        break;
      }
      prev_end = b;
      prev_none = std::strncmp(perms, "---", 3) == 0;
    }
    std::fclose(f);
  }
  if (lo != 0 && lo + size > here) {
    s.lo = lo;
    s.usable = lo + page;
  } else {  // no guard found: the stack is the size below the page above this frame
    s.hi = (here + page - 1) & ~(page - 1);
    s.lo = s.usable = s.hi > size ? s.hi - size : 0;
  }
  s.hi = s.lo + size;
  if (s.hi - s.usable > 16 * kOwnGuard &&
      mprotect(reinterpret_cast<void*>(s.usable), kOwnGuard, PROT_NONE) == 0) {
    s.own_guard = s.usable;
    s.usable += kOwnGuard;
  }
  // Below the stack: a reservation where nothing else is mapped, as large as is free.
#ifdef MAP_FIXED_NOREPLACE
  for (const size_t n : kBelowReserve) {
    if (s.lo < n + page) continue;
    void* want = reinterpret_cast<void*>(s.lo - n);
    void* got = mmap(want, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want) {
      s.below = s.lo - n;
      break;
    }
    if (got != MAP_FAILED) munmap(got, n);  // (a kernel without MAP_FIXED_NOREPLACE: elsewhere)
  }
#endif
}

// After the landing: AddressSanitizer's view of the stack we are on (the handler ran on the
// alternate stack) and of the abandoned frames below this one (their redzones stay poisoned).
__attribute__((noinline)) void after_landing(Slot& s) {
#if NPUSIM_ASAN
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (s.any_sp) {
    if (npusim_asan_register_main_stack) npusim_asan_register_main_stack();
    pthread_attr_t attr;
    void* base = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &base, &size);
      pthread_attr_destroy(&attr);
    }
    const auto lo = reinterpret_cast<uintptr_t>(base);
    if (lo != 0 && here > lo && here - lo <= size) __asan_unpoison_memory_region(base, here - lo);
    return;
  }
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, reinterpret_cast<const void*>(s.lo), s.hi - s.lo);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
  if (here > s.lo) __asan_unpoison_memory_region(reinterpret_cast<void*>(s.lo), here - s.lo);
#else
  (void)s;
#endif
}

std::string module_name(const char* path) {
  if (path == nullptr || *path == 0) return "?";
  const char* base = std::strrchr(path, '/');
  return base ? base + 1 : path;
}

// The function symbols of a file's .symtab, sorted: what the dynamic symbol table lacks (static
// functions, a function's outlined cold part). Read once per file, at the first fault in it.
struct FileSym {
  uint64_t lo, hi;
  std::string name;
};
const std::vector<FileSym>& file_symbols(const std::string& path) {
  static std::map<std::string, std::vector<FileSym>> cache;
  auto [it, fresh] = cache.try_emplace(path);
  std::vector<FileSym>& out = it->second;
  if (!fresh) return out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st {};
  void* map = ::fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  ::close(fd);
  if (map == MAP_FAILED) return out;
  const auto size = static_cast<uint64_t>(st.st_size);
  const auto* base = static_cast<const uint8_t*>(map);
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  const auto in_file = [&](uint64_t off, uint64_t len) { return off <= size && len <= size - off; };
  if (size >= sizeof(ElfW(Ehdr)) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
      eh->e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) && in_file(eh->e_shoff, uint64_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) {
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(base + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum || sh[i].sh_entsize != sizeof(ElfW(Sym)))
        continue;
      const ElfW(Shdr)& strs = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strs.sh_offset, strs.sh_size)) continue;
      const auto* syms = reinterpret_cast<const ElfW(Sym)*>(base + sh[i].sh_offset);
      const char* names = reinterpret_cast<const char*>(base + strs.sh_offset);
      for (uint64_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        const ElfW(Sym)& y = syms[k];
        if (ELF64_ST_TYPE(y.st_info) != STT_FUNC || y.st_value == 0 || y.st_size == 0 || y.st_name >= strs.sh_size)
          continue;
        const char* n = names + y.st_name;
        out.push_back(FileSym{y.st_value, y.st_value + y.st_size, std::string(n, strnlen(n, strs.sh_size - y.st_name))});
      }
    }
  }
  munmap(map, static_cast<size_t>(st.st_size));
  std::sort(out.begin(), out.end(), [](const FileSym& a, const FileSym& b) { return a.lo < b.lo; });
  return out;
}

// One frame: "function+0xoff (module)" or "module+0xoff" when no symbol covers the address.
struct Frame {
  std::string text, symbol, module;
};
Frame describe_pc(uintptr_t pc, bool exact) {
  const uintptr_t look = exact || pc == 0 ? pc : pc - 1;
  Dl_info info{};
  void* extra = nullptr;
  Frame f;
  if (dladdr1(reinterpret_cast<void*>(look), &info, &extra, RTLD_DL_SYMENT) == 0) {
    f.text = fmt::format("0x{:x}", pc);
    return f;
  }
  const auto* sym = static_cast<const ElfW(Sym)*>(extra);
  f.module = module_name(info.dli_fname);
  const auto saddr = reinterpret_cast<uintptr_t>(info.dli_saddr);
  const bool covers = info.dli_sname != nullptr && sym != nullptr && look >= saddr &&
                      (sym->st_size == 0 || look < saddr + sym->st_size);
  if (covers) {
    f.symbol = demangled(info.dli_sname);
    f.text = fmt::format("{}+0x{:x} ({})", f.symbol, pc - saddr, f.module);
    return f;
  }
  // Not in the dynamic symbol table: the file's own symbols, at the address less the load bias.
  void* lm = nullptr;
  if (info.dli_fname != nullptr && dladdr1(reinterpret_cast<void*>(look), &info, &lm, RTLD_DL_LINKMAP) != 0 && lm) {
    const uint64_t off = look - static_cast<const link_map*>(lm)->l_addr;
    const auto& syms = file_symbols(info.dli_fname);
    auto it = std::upper_bound(syms.begin(), syms.end(), off, [](uint64_t v, const FileSym& y) { return v < y.lo; });
    if (it != syms.begin() && off < std::prev(it)->hi) {
      --it;
      f.symbol = demangled(it->name.c_str());
      f.text = fmt::format("{}+0x{:x} ({})", f.symbol, pc - static_cast<const link_map*>(lm)->l_addr - it->lo, f.module);
      return f;
    }
  }
  f.text = fmt::format("{}+0x{:x}", f.module, pc - reinterpret_cast<uintptr_t>(info.dli_fbase));
  return f;
}

// The frames from where the kernel was up to its entry (the op's invoker, excluded), repeats
// folded; `where` is the innermost frame in the kernel's own module.
void symbolise(const Slot& s, Escape& e) {
  int first = -1;
  for (int i = 0; i < s.nframes; ++i)
    if (reinterpret_cast<uintptr_t>(s.frames[i]) == s.pc) {
      first = i;
      break;
    }
  std::vector<std::pair<uintptr_t, bool>> pcs;
  if (first < 0) {
    pcs.emplace_back(s.pc, s.pc_exact);
    first = s.nframes;  // the frames cannot be matched to the pc: only the pc
  }
  for (int i = first; i < s.nframes; ++i)
    pcs.emplace_back(reinterpret_cast<uintptr_t>(s.frames[i]), i == first && s.pc_exact);
  Dl_info kinfo{};
  const std::string kmodule =
      g_kernel_fn && dladdr(g_kernel_fn, &kinfo) ? module_name(kinfo.dli_fname) : std::string();
  std::string last;
  int repeats = 0;
  bool entry = false;
  auto flush = [&] {
    if (repeats > 1) e.backtrace.back() += fmt::format(" (x{})", repeats);
  };
  for (const auto& [pc, exact] : pcs) {
    const Frame f = describe_pc(pc, exact);
    // The op's invoker (a template: its name starts with its return type) is the kernel's entry.
    if (f.symbol.find("torch::npusim_op::invoke<") != std::string::npos) {
      entry = true;
      break;
    }
    // (__clang_call_terminate: clang's helper that calls std::terminate for an exception leaving
    // a noexcept function, in the kernel's own module when `npusim op build` compiled it)
    const bool runtime = f.symbol.find("npusim::") != std::string::npos || f.symbol.rfind("torch::", 0) == 0 ||
                         f.symbol.rfind("c10::", 0) == 0 || f.symbol.rfind("__clang_call_terminate", 0) == 0;
    if (e.where.empty() && !kmodule.empty() && f.module == kmodule && !runtime) e.where = f.text;
    if (f.text == last) {
      ++repeats;
      continue;
    }
    flush();
    repeats = 1;
    last = f.text;
    e.backtrace.push_back(f.text);
    if (e.backtrace.size() >= 24) break;
  }
  flush();
  if (!entry && s.nframes == kMaxFrames) e.backtrace.push_back("... (deeper frames not taken)");
  if (e.where.empty() && !e.backtrace.empty()) e.where = e.backtrace.front();
}

Escape describe(Slot& s) {
  Escape e;
  e.cause = s.cause;
  e.signo = s.signo;
  e.code = s.code;
  e.address = s.addr;
  e.pc = s.pc;
  e.exit_status = s.exit_status;
  e.exit_call = s.exit_call;
  e.seconds = static_cast<double>(s.overdue_ns) * 1e-9;
  if (s.cause == Escape::kSignal) {
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t guard_top = s.own_guard ? s.own_guard + kOwnGuard : s.lo + page;
    const uintptr_t reach = (s.below != 0 ? s.lo - s.below : 0) + (1u << 20);
    const bool addr_in_guard = s.addr + reach >= s.lo && s.addr < guard_top;
    e.stack_overflow = !s.any_sp && (s.signo == SIGSEGV || s.signo == SIGBUS) && s.hi != 0 &&
                       (addr_in_guard || s.sp < guard_top);
    if (s.signo == SIGABRT && g_terminated) {
      e.terminate_note = g_terminate_type[0] ? fmt::format("std::terminate with an exception of type {} in flight", g_terminate_type)
                                             : std::string("std::terminate");
      g_terminated = 0;
    }
  }
  symbolise(s, e);
  return e;
}

}  // namespace

std::string demangled(const char* mangled) {
  if (mangled == nullptr) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : mangled;
  std::free(d);
  return out;
}

std::string current_exception_type() {
  const std::type_info* t = abi::__cxa_current_exception_type();
  return t ? demangled(t->name()) : std::string();
}

std::atomic<bool> g_wall_budget_spent{false};

void set_probe_exit_hook(void (*hook)(const char* call, int status)) { g_probe_exit = hook; }

Containment::Containment(const ContainmentConfig& cfg) {
  if (g_active.exchange(true)) throw std::logic_error("Containment: one at a time");
  g_nslots = cfg.cores;
  g_slots.reset(new Slot[cfg.cores]);
  g_host = Slot{};
  g_host.any_sp = true;
  g_stack_bytes = cfg.stack_bytes;
  g_kernel_fn = cfg.kernel_fn;
  g_wall_budget_spent = false;
  g_stop_seen = 0;
  g_wall_seen = 0;
  g_terminated = 0;
  g_wall_deadline = cfg.wall_budget_s > 0 ? mono_ns() + static_cast<uint64_t>(cfg.wall_budget_s * 1e9) : 0;
  g_nunsafe = 0;
  dl_iterate_phdr(collect_unsafe, nullptr);
  {
    void* warm[2];
    backtrace(warm, 2);  // loads the unwinder now, not first inside a handler
  }
#if NPUSIM_ASAN
  __sanitizer_set_death_callback(on_sanitizer_death);
#endif
  // An alternate signal stack: a fault from a stack overflow has no stack left to run on.
  stack_t cur{};
  sigaltstack(nullptr, &cur);
  g_old_altstack = cur;
  if ((cur.ss_flags & SS_DISABLE) || cur.ss_size < kAltStackBytes) {
    g_altstack = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g_altstack != MAP_FAILED) {
      stack_t ss{};
      ss.ss_sp = g_altstack;
      ss.ss_size = kAltStackBytes;
      sigaltstack(&ss, nullptr);
    } else {
      g_altstack = nullptr;
    }
  }
  g_tick_signal = SIGRTMIN + 3;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, g_tick_signal);
  for (size_t i = 0; i < sizeof(kFaultSignals) / sizeof(int); ++i) sigaction(kFaultSignals[i], &sa, &g_old_fault[i]);
  struct sigaction tick {};
  tick.sa_sigaction = on_tick;
  tick.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&tick.sa_mask);
  sigaction(g_tick_signal, &tick, &g_old_tick);
  g_old_terminate = std::set_terminate(on_terminate);
  // The watchdog: a timer of this thread's CPU-independent clock, every kTickNs.
  sigevent sev{};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = g_tick_signal;
  sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) == 0) {
    itimerspec its{};
    its.it_interval.tv_nsec = kTickNs;
    its.it_value.tv_nsec = kTickNs;
    g_timer_armed = timer_settime(g_timer, 0, &its, nullptr) == 0;
    if (!g_timer_armed) timer_delete(g_timer);
  }
}

Containment::~Containment() {
  if (g_timer_armed) timer_delete(g_timer);
  g_timer_armed = false;
  g_active = false;
  std::set_terminate(g_old_terminate);
  sigaction(g_tick_signal, &g_old_tick, nullptr);
  for (size_t i = 0; i < sizeof(kFaultSignals) / sizeof(int); ++i) sigaction(kFaultSignals[i], &g_old_fault[i], nullptr);
  if (g_altstack != nullptr) {
    stack_t old = g_old_altstack;
    if (old.ss_flags & SS_DISABLE) {
      old = stack_t{};
      old.ss_flags = SS_DISABLE;
    }
    sigaltstack(&old, nullptr);
    munmap(g_altstack, kAltStackBytes);
    g_altstack = nullptr;
  }
  for (size_t i = 0; i < g_nslots; ++i) {
    if (g_slots[i].own_guard != 0)
      mprotect(reinterpret_cast<void*>(g_slots[i].own_guard), kOwnGuard, PROT_READ | PROT_WRITE);
    if (g_slots[i].below != 0) munmap(reinterpret_cast<void*>(g_slots[i].below), g_slots[i].lo - g_slots[i].below);
  }
  g_slots.reset();
  g_nslots = 0;
  g_host = Slot{};
  g_wall_budget_spent = false;
#if NPUSIM_ASAN
  __sanitizer_set_death_callback(nullptr);
#endif
}

__attribute__((noinline)) bool call_contained(size_t slot, void (*fn)(void*), void* arg, Escape& escape) {
  Slot& s = slot == kHostSlot ? g_host : g_slots[slot];
  if (!s.any_sp && s.hi == 0) find_bounds(s);
  if (sigsetjmp(s.env, 1) != 0) {
    s.in_kernel = 0;
    after_landing(s);
    escape = describe(s);
    s.cause = Escape::kNone;
    return false;
  }
  s.cause = Escape::kNone;
  s.in_kernel = 1;
  fn(arg);
  s.in_kernel = 0;
  return true;
}

// exit() and its kind, called by a kernel: taken back to the kernel's entry as a fault. Anywhere
// else they are the C library's.
namespace {
void kernel_exit(const char* call, int status, void* ret) {
  if (g_probe_exit) g_probe_exit(call, status);
  if (!g_active.load()) return;
  char here = 0;
  Slot* s = slot_for(reinterpret_cast<uintptr_t>(&here));
  if (s == nullptr) return;
  s->cause = Escape::kExit;
  s->exit_call = call;
  s->exit_status = status;
  s->pc = reinterpret_cast<uintptr_t>(ret);
  s->pc_exact = false;
  capture(*s);
  siglongjmp(s->env, 1);
}
// The next definition of `name` after the executable's (the C library's, or a sanitizer's).
[[noreturn]] void forward(void (*&real)(int), const char* name, int status) {
  if (real == nullptr) real = reinterpret_cast<void (*)(int)>(dlsym(RTLD_NEXT, name));
  if (real != nullptr) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}
void (*g_real_exit)(int) = nullptr;
void (*g_real_quick_exit)(int) = nullptr;
void (*g_real__Exit)(int) = nullptr;
void (*g_real__exit)(int) = nullptr;
}  // namespace

}  // namespace npusim::torchrt

extern "C" {
void exit(int status) noexcept {
  npusim::torchrt::kernel_exit("exit", status, __builtin_return_address(0));
  npusim::torchrt::forward(npusim::torchrt::g_real_exit, "exit", status);
}
void quick_exit(int status) noexcept {
  npusim::torchrt::kernel_exit("quick_exit", status, __builtin_return_address(0));
  npusim::torchrt::forward(npusim::torchrt::g_real_quick_exit, "quick_exit", status);
}
void _Exit(int status) noexcept {
  npusim::torchrt::kernel_exit("_Exit", status, __builtin_return_address(0));
  npusim::torchrt::forward(npusim::torchrt::g_real__Exit, "_Exit", status);
}
void _exit(int status) {
  npusim::torchrt::kernel_exit("_exit", status, __builtin_return_address(0));
  npusim::torchrt::forward(npusim::torchrt::g_real__exit, "_exit", status);
}
}
