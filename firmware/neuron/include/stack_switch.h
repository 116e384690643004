// The Neuron device library's stack switch (stack_switch.o): a stack taken from the HBM heap,
// and the switch of the running code onto it and back.
//
// allocate_hbm_stack(size, align, flags): size 0 means STACK_SIZE (4196 bytes); a size above
// MAX_STACK_SIZE (4 MiB) ends the program, and so does a failed allocation or a second HBM
// stack; align 0 means 64; flags bit 0 switches to the new stack at once. Returns 0.
// switchStack() moves the running stack onto the HBM stack: the live part of the local stack
// is copied to the top of the HBM stack and sp (and s0 when it points into it) moves with it,
// so the caller's frame keeps working and every later frame lives in HBM. switchStackBack()
// moves it back. Both tell the simulator the new stack's bounds first (STACK_LO/STACK_HI).
#ifndef NPUSIM_NEURON_STACK_SWITCH_H
#define NPUSIM_NEURON_STACK_SWITCH_H

#ifdef __cplusplus
extern "C" {
#endif

#define STACK_SIZE 4196
#define MAX_STACK_SIZE 0x400000

int allocate_hbm_stack(unsigned size, unsigned align, unsigned flags);
void switchStack(void);
void switchStackBack(void);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_NEURON_STACK_SWITCH_H
