#include "models/unwind.h"

#include <systemc>

#include "models/asan.h"
#if NPUSIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

#if NPUSIM_ASAN
// cmake/asan_main_stack.cpp, compiled into every target of the sanitizer build.
extern "C" void npusim_asan_register_main_stack() __attribute__((weak));
#endif

namespace npusim::models {

#if NPUSIM_ASAN
void main_stack_resume() {
  if (npusim_asan_register_main_stack) npusim_asan_register_main_stack();
}

__attribute__((noinline)) void CoroutineStack::enter(std::size_t size) {
  top_ = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  size_ = size;
  // A thread still waiting when the simulation ends is never unwound: what its frames hold
  // (a kernel's tensors, say) is reachable from its stack, which LeakSanitizer scans only as a
  // root region (it scans the readable part of it at exit).
  __lsan_register_root_region(reinterpret_cast<const void*>(top_ - size_), size_);
  resume();
}

void CoroutineStack::resume() const {
  if (top_ == 0) return;
  // A "switch" to the stack we are on: ASan takes [top - size, top) as the current stack.
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, reinterpret_cast<const void*>(top_ - size_), size_);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
}

__attribute__((noinline)) void forget_unwound_frames() {
  // The dead frames' redzones stay poisoned and later calls into uninstrumented libraries
  // (fmt, SystemC) on that stack are reported as overflows: forget the frames below.
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const std::uintptr_t span = static_cast<std::uintptr_t>(sc_core::SC_DEFAULT_STACK_SIZE) / 2;
  __asan_unpoison_memory_region(reinterpret_cast<void*>(here - span), span);
}
#else
void main_stack_resume() {}
void CoroutineStack::enter(std::size_t) {}
void CoroutineStack::resume() const {}
void forget_unwound_frames() {}
#endif

}  // namespace npusim::models
