// An exception thrown inside a core's thread unwinds frames on a SystemC coroutine stack, which
// AddressSanitizer cannot clean up (their redzones stay poisoned, and later calls into
// uninstrumented libraries on that stack are reported as overflows): after catching such an
// exception, call this in the catching frame. models::Core's own thread does. A no-op without ASan.
#pragma once

namespace npusim::models {

void forget_unwound_frames();

}  // namespace npusim::models
