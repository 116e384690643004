// npusim's host interface (word stores at NPUSIM_HOST_BASE, a -D macro from `npusim cc`):
// output character, exit code. Shared by the Snitch runtime and the Neuron device library.
#ifndef NPUSIM_HOST_H
#define NPUSIM_HOST_H

#include <stdint.h>

#ifndef NPUSIM_HOST_BASE
#error "npusim_host.h: NPUSIM_HOST_BASE is missing: build with `npusim cc`"
#endif

#define NPUSIM_HOST_PUTCHAR ((volatile uint32_t *)(uintptr_t)(NPUSIM_HOST_BASE + 0x00))
#define NPUSIM_HOST_EXIT ((volatile uint32_t *)(uintptr_t)(NPUSIM_HOST_BASE + 0x08))

#endif  // NPUSIM_HOST_H
