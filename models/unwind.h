// Exceptions on SystemC coroutine stacks under AddressSanitizer.
//
// ASan cleans up the frames an exception unwinds (their redzones) only on a stack it knows: at
// every throw and every cleanup on the way (`__asan_handle_no_return`) it unpoisons from the
// stack pointer up to the top of the current stack. It learns a coroutine's stack from
// libsystemc's fiber annotations, which in Debian's build name another coroutine's stack; ASan
// then refuses the clean-up ("ignoring requested __asan_handle_no_return"), the unwound frames
// stay poisoned, and the next cleanup on the way reports an overflow inside ASan itself.
//
// CoroutineStack fixes that for a thread that may throw (models::Core's): enter() at the top of
// the thread's function, resume() after every wait() returns, so that ASan's idea of the current
// stack is this coroutine's own whenever its code runs. forget_unwound_frames() is the older,
// coarser repair for a catch on such a stack. All are no-ops without ASan.
#pragma once

#include <cstddef>
#include <cstdint>

namespace npusim::models {

class CoroutineStack {
 public:
  // Called in the thread's own function: its frame is taken as the top of the stack, and `size`
  // bytes below it as the stack (the coroutine's stack size). The stack also becomes a root
  // region of LeakSanitizer, so a thread still waiting at exit does not leak what it holds.
  void enter(std::size_t size);
  // Called when the thread runs again after a wait(): tells ASan the stack it runs on.
  void resume() const;

 private:
  [[maybe_unused]] std::uintptr_t top_ = 0;  // used only under ASan (unwind.cpp)
  [[maybe_unused]] std::size_t size_ = 0;
};

// After sc_start returns, on the main thread: tells ASan it runs on the main stack again
// (libsystemc leaves it registered with the last coroutine's).
void main_stack_resume();

// After catching an exception thrown inside a core's thread, in the catching frame: unpoisons
// the half stack below it.
void forget_unwound_frames();

}  // namespace npusim::models
