// Containment of a user's kernel (docs/architecture.md, "A kernel cannot take the simulator
// down"). A kernel is the user's own C++, run as a SystemC coroutine in npusim's one OS thread.
// While a Containment lives (one op run), a kernel that takes a fault signal (SIGSEGV, SIGBUS,
// SIGFPE, SIGILL, SIGABRT), overflows its host stack, calls exit() or one of its kind, or runs
// its own code past a stop request or the wall-clock budget without reaching the library, is
// taken back to its entry (call_contained) on its own coroutine: the kernel's frames are
// abandoned, the core's thread ends with a KernelFault, and the run completes its outputs as
// for any other device fault. Exceptions of any type are caught at the entry by the caller.
//
// The mechanism: signal handlers on an alternate signal stack that siglongjmp to a recovery
// point set at the kernel's entry on its coroutine; the coroutine's stack bounds (SystemC's
// guard page below it, plus a guard of our own) to tell a host stack overflow from another
// fault; exit(), _exit(), _Exit() and quick_exit() defined in the executable (kernels resolve
// them to these) to turn an exit into a fault; a watchdog timer that takes a kernel spinning in
// its own code back to its entry after a stop request (Ctrl-C) or past the wall-clock budget.
// Internal to firmware/torch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace npusim::torchrt {

// A kernel fault found by the containment or by a budget, thrown on the kernel's core thread
// (run_op reports it). kind() is the report's fault kind ("kernel crash", "abort", "exit",
// "uncaught exception", "host stack overflow", "cycle budget exceeded", "wall-clock budget
// exceeded", "result mismatch").
class KernelFault : public std::runtime_error {
 public:
  KernelFault(std::string kind, const std::string& message, std::vector<std::string> backtrace = {},
              uint64_t address = 0)
      : std::runtime_error(message), kind_(std::move(kind)), backtrace_(std::move(backtrace)), address_(address) {}
  const std::string& kind() const { return kind_; }
  const std::vector<std::string>& backtrace() const { return backtrace_; }
  uint64_t address() const { return address_; }

 private:
  std::string kind_;
  std::vector<std::string> backtrace_;
  uint64_t address_ = 0;
};

// What took a contained call back to its entry.
struct Escape {
  enum Cause { kNone, kSignal, kExit, kStop, kWallBudget } cause = kNone;
  int signo = 0, code = 0;   // kSignal: the signal and its si_code
  uint64_t address = 0;      // kSignal: the faulting address (si_addr)
  uint64_t pc = 0;           // where the kernel was
  bool stack_overflow = false;  // kSignal: the fault hit the guard below the coroutine's stack
  int exit_status = 0;          // kExit
  std::string exit_call;        // kExit: "exit", "_exit", "_Exit", "quick_exit"
  std::string terminate_note;   // kSignal SIGABRT after std::terminate: what was in flight
  std::vector<std::string> backtrace;  // symbolised, innermost first, up to the kernel's entry
  std::string where;            // the innermost frame of the kernel's own module, if any
  double seconds = 0;           // kStop, kWallBudget: wall time since the request or budget end
};

struct ContainmentConfig {
  size_t cores = 0;             // kernel slots (one per core)
  size_t stack_bytes = 0;       // each core thread's stack size (SystemC's set_stack_size)
  double wall_budget_s = 0;     // wall-clock budget of the op run; 0: none
  const void* kernel_fn = nullptr;  // the kernel: its module is "the kernel's own code"
};

// One op run's containment: handlers, alternate stack, watchdog, terminate handler; restores
// what it replaced when it ends. One at a time per process.
class Containment {
 public:
  explicit Containment(const ContainmentConfig& cfg);
  ~Containment();
  Containment(const Containment&) = delete;
  Containment& operator=(const Containment&) = delete;
};

// Calls fn(arg) as the kernel of `slot` (a core id), on that core's coroutine. Returns true when
// fn returned; false when the call was taken back to its entry, with `escape` describing why
// (fn's frames were abandoned, not unwound). kHostSlot: the host's own stack (the shape
// function, before the simulation).
constexpr size_t kHostSlot = static_cast<size_t>(-1);
bool call_contained(size_t slot, void (*fn)(void*), void* arg, Escape& escape);

// True once the wall-clock budget of the op run is spent (set by the watchdog); inline, for the
// safe point at every accessor element.
extern std::atomic<bool> g_wall_budget_spent;
inline bool wall_budget_spent() { return g_wall_budget_spent.load(std::memory_order_relaxed); }

// The demangled name of a type_info's name() (abi::__cxa_demangle), or the name itself.
std::string demangled(const char* mangled);
// The type of the exception being handled (inside a catch), demangled; "" if none.
std::string current_exception_type();

// Plugin loading (plugins.cpp) runs a library's static initialisers in a child process first:
// in that child, exit() and its kind call `hook` (which reports the call and ends the child).
void set_probe_exit_hook(void (*hook)(const char* call, int status));

}  // namespace npusim::torchrt
