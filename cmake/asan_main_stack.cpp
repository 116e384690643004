// Compiled into every target of the sanitizer build (NPUSIM_SANITIZE; see CMakeLists.txt).
//
// Debian's libsystemc announces each coroutine switch to AddressSanitizer
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber), but after sc_start returns
// the main thread is still registered with the stack range of the last coroutine that ran. At
// exit LeakSanitizer then scans that range (a coroutine stack that may already be unmapped in
// part, with its guard page) instead of the real stack, and its tracer dies with SIGSEGV.
// An exit handler, which runs before LeakSanitizer's own (registered earlier, at ASan's start-up),
// registers the thread's real stack again. It does nothing unless it runs on that stack.
// models::main_stack_resume() (models/unwind.h) calls it too, after each sc_start, so that a
// throw on the main stack after a simulation is cleaned up by ASan.
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>

#include <cstdint>
#include <cstdlib>

// Weak: object libraries bring one copy each into a program; any one of them serves.
extern "C" __attribute__((weak)) void npusim_asan_register_main_stack();
extern "C" __attribute__((weak)) void npusim_asan_register_main_stack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* base = nullptr;
  size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &base, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return;
  char here = 0;
  const auto sp = reinterpret_cast<uintptr_t>(&here);
  const auto lo = reinterpret_cast<uintptr_t>(base);
  if (sp < lo || sp >= lo + size) return;
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, base, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
}

namespace {
struct Install {
  Install() { std::atexit(npusim_asan_register_main_stack); }
} install;

}  // namespace
