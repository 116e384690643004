// The stack switch of the Neuron device library (stack_switch.o), with the semantics of
// fw::Firmware (firmware/firmware.cpp): allocate_hbm_stack takes the stack from the HBM heap;
// switchStack / switchStackBack (stack_switch.S) move the running stack onto it and back.
#include "stack_switch.h"

#include "allocator.h"
#include "neuron_internal.h"

// The HBM stack: its device address and size, and the core's view of it [lo, hi). hi is
// rounded down to 16 bytes (the RISC-V stack alignment), so sp starts there.
unsigned long long __neuron_hbm_stack;
uint32_t __neuron_hbm_stack_size;
uint32_t __neuron_hbm_stack_lo, __neuron_hbm_stack_hi;
// 1 while the program runs on the HBM stack.
uint32_t __neuron_stack_switched;

int allocate_hbm_stack(unsigned size, unsigned align, unsigned flags) {
  if (size == 0) size = STACK_SIZE;
  if (size > MAX_STACK_SIZE)
    __neuron_fatal("allocate_hbm_stack: stack size %u exceeds MAX_STACK_SIZE 0x%x (4 MiB)", size,
                   (unsigned)MAX_STACK_SIZE);
  if (__neuron_hbm_stack != 0)
    __neuron_fatal("allocate_hbm_stack: an HBM stack is already allocated at 0x%llx", __neuron_hbm_stack);
  unsigned long long addr = 0;
  if (neuron_hbm_allocate(size, &addr, align) != 0)
    __neuron_fatal("allocate_hbm_stack: neuron_hbm_allocate(%u) failed (xmem status %d); a failed stack "
                   "allocation is fatal",
                   size, (int)neuron_last_xmem_status());
  __neuron_hbm_stack = addr;
  __neuron_hbm_stack_size = size;
  // The core reaches HBM scratch through its window.
  __neuron_hbm_stack_lo = (uint32_t)(addr - NPUSIM_HBM_SCRATCH) + NPUSIM_HBM_WINDOW;
  __neuron_hbm_stack_hi = (__neuron_hbm_stack_lo + size) & ~15u;
  if (flags & 1u) switchStack();
  return 0;
}

// switchStack's checks: 1 when the stack is to move, 0 when it already runs on HBM.
int __neuron_switch_check(void);
int __neuron_switch_check(void) {
  if (__neuron_hbm_stack == 0)
    __neuron_fatal("switchStack: no HBM stack was allocated (call allocate_hbm_stack first)");
  return !__neuron_stack_switched;
}

// The live stack does not fit the stack it moves to (called by stack_switch.S).
void __neuron_switch_too_big(uint32_t used, uint32_t room, uint32_t to_hbm);
void __neuron_switch_too_big(uint32_t used, uint32_t room, uint32_t to_hbm) {
  __neuron_fatal("%s: the %u bytes of live stack do not fit the %s stack (%u bytes)",
                 to_hbm ? "switchStack" : "switchStackBack", used, to_hbm ? "HBM" : "local", room);
}
