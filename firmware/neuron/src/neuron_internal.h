// What the library's sources share: the platform's numbers (-D macros from `npusim cc`), the
// host interface and the DMA registers, and the fatal-error exit.
#ifndef NPUSIM_NEURON_INTERNAL_H
#define NPUSIM_NEURON_INTERNAL_H

#include <stdint.h>

#if !defined(NPUSIM_HOST_BASE) || !defined(NPUSIM_DMA_BASE) || !defined(NPUSIM_DATA_SCRATCH) || \
    !defined(NPUSIM_BSS_OFFSET) || !defined(NPUSIM_HBM_SCRATCH) ||                               \
    !defined(NPUSIM_HBM_SCRATCH_SIZE) || !defined(NPUSIM_HBM_WINDOW) ||                          \
    !defined(NPUSIM_HBM_POOL_OFFSET) || !defined(NPUSIM_HBM_HEADER_OFFSET) ||                    \
    !defined(NPUSIM_DATARAM_POOL_OFFSET) || !defined(NPUSIM_DATARAM_POOL_SIZE) ||                \
    !defined(NPUSIM_DATARAM_HEADER_OFFSET) || !defined(NPUSIM_LIBC_POOL_OFFSET) ||               \
    !defined(NPUSIM_LIBC_POOL_SIZE) || !defined(NPUSIM_LIBC_HEADER_OFFSET) ||                    \
    !defined(NPUSIM_NUM_BLOCKS) || !defined(NPUSIM_LOCAL_STACK_TOP) ||                           \
    !defined(NPUSIM_LOCAL_STACK_BYTES) || !defined(NPUSIM_DMA_CHANNEL) ||                        \
    !defined(NPUSIM_DMA_CHANNELS) || !defined(NPUSIM_TRANSFER_METHOD) ||                         \
    !defined(NPUSIM_DOUBLE_BUFFER) || !defined(NPUSIM_VECTOR_BYTES)
#error "the Neuron device library needs the platform macros: build with `npusim cc --platform neuron-gpsimd`"
#endif

#define NPUSIM_REG(base, off) ((volatile uint32_t *)(uintptr_t)((base) + (off)))

// npusim's host interface.
#define HOST_PUTCHAR NPUSIM_REG(NPUSIM_HOST_BASE, 0x00)
#define HOST_EXIT NPUSIM_REG(NPUSIM_HOST_BASE, 0x08)
#define HOST_STACK_LO NPUSIM_REG(NPUSIM_HOST_BASE, 0x10)
#define HOST_STACK_HI NPUSIM_REG(NPUSIM_HOST_BASE, 0x14)

// npusim's DMA registers.
#define DMA_SRC_LO NPUSIM_REG(NPUSIM_DMA_BASE, 0x00)
#define DMA_SRC_HI NPUSIM_REG(NPUSIM_DMA_BASE, 0x04)
#define DMA_DST_LO NPUSIM_REG(NPUSIM_DMA_BASE, 0x08)
#define DMA_DST_HI NPUSIM_REG(NPUSIM_DMA_BASE, 0x0c)
#define DMA_LEN NPUSIM_REG(NPUSIM_DMA_BASE, 0x10)
#define DMA_CHANNEL NPUSIM_REG(NPUSIM_DMA_BASE, 0x14)
#define DMA_START NPUSIM_REG(NPUSIM_DMA_BASE, 0x18)
#define DMA_STATUS NPUSIM_REG(NPUSIM_DMA_BASE, 0x1c)
#define DMA_ERRORS NPUSIM_REG(NPUSIM_DMA_BASE, 0x20)

// Prints "<what>" as one line and ends the program with abort() (a device fault).
__attribute__((noreturn, format(printf, 1, 2))) void __neuron_fatal(const char *fmt, ...);

#endif  // NPUSIM_NEURON_INTERNAL_H
