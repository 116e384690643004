// Example custom op: a deep call chain on the switched HBM stack.
// allocate_hbm_stack takes the stack from the HBM heap (size 0 = STACK_SIZE 4196 bytes,
// align 0 = 64, flags bit 0 = switch now); every level declares its frame, so the stack's
// traffic goes to HBM and costs HBM time, and a chain deeper than the stack overflows.
//
// Arguments: depth (default 8), frame_bytes (default 256), stack_bytes (default 0 = 4196).
#include "firmware/neuron_device.h"

namespace {
uint32_t level(unsigned depth, unsigned frame) {
  npusim_frame f("level", frame);
  npusim_compute(20);
  return depth == 0 ? 1 : 1 + level(depth - 1, frame);
}
}  // namespace

NPUSIM_CUSTOM_OP(deep_calls, "A recursive call chain on the HBM stack (stack switch)") {
  const unsigned depth = static_cast<unsigned>(npusim_arg("depth", 8));
  const unsigned frame = static_cast<unsigned>(npusim_arg("frame_bytes", 256));
  const unsigned stack = static_cast<unsigned>(npusim_arg("stack_bytes", 0));
  if (init_neuron_hbm_allocator() != 0) npusim_fail("HBM allocator init failed");
  if (allocate_hbm_stack(stack, 0, 1) != 0) npusim_fail("no HBM stack");
  const uint32_t levels = level(depth, frame);
  if (levels != depth + 1) npusim_fail("wrong depth");
  switchStackBack();
}
