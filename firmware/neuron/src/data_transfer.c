// The data transfers of the Neuron device library (data_transfer.o), with the descriptors and
// the order of fw::Firmware (firmware/firmware.cpp): a core copy reads and writes one chunk at
// a time (4 bytes for C_MEMCPY, NPUSIM_VECTOR_BYTES for VEC_MEMCPY) through the core's HBM
// window; a DMA copy is one descriptor to npusim's DMA registers, polled until the engine is
// idle. tensor_stream_copy moves its bytes through a 4 KiB bounce buffer from the dataram heap,
// or two of them on two channels (NPUSIM_DOUBLE_BUFFER with DMA and more than one channel).
#include "data_transfer.h"

#include <stdint.h>

#include "allocator.h"
#include "neuron_internal.h"

// The dataram window of the transfers' assertion (data_transfer.cpp:160). It checks the start
// address only. -DNPUSIM_DRAM_ASSERT=0 leaves the check to the DMA engine's window rules.
#ifndef NPUSIM_DRAM_ASSERT
#define NPUSIM_DRAM_ASSERT 1
#endif
#define DRAM_WINDOW_LO 0x80000u
#define DRAM_WINDOW_HI 0x90000u

static data_transfer_method method = (data_transfer_method)NPUSIM_TRANSFER_METHOD;

void set_data_transfer_method(data_transfer_method m) { method = m; }

// Where the core sees a device address: HBM scratch through the window, the rest as is.
static uint32_t core_address(unsigned long long a) {
  const unsigned long long scratch = NPUSIM_HBM_SCRATCH;
  if (a >= scratch && a < scratch + (unsigned long long)NPUSIM_HBM_SCRATCH_SIZE)
    return (uint32_t)(a - scratch) + (uint32_t)NPUSIM_HBM_WINDOW;
  if (a > 0xffffffffull)
    __neuron_fatal("%s: the core cannot reach 0x%llx (outside its 32-bit space and the HBM window)",
                   method == C_MEMCPY ? "C_MEMCPY" : "VEC_MEMCPY", a);
  return (uint32_t)a;
}

// One chunk of up to 8 bytes at a time with the FPU's 8-byte loads and stores when both sides
// are 8-byte aligned (the widest access of RV32), else words, else bytes.
static void copy_chunk(uint32_t d, uint32_t s, uint32_t len) {
  if (((d | s) & 7u) == 0) {
    for (; len >= 8; len -= 8, d += 8, s += 8)
      __asm__ volatile("fld ft0, 0(%0)\n\tfsd ft0, 0(%1)" : : "r"(s), "r"(d) : "ft0", "memory");
  }
  if (((d | s) & 3u) == 0) {
    for (; len >= 4; len -= 4, d += 4, s += 4)
      *(volatile uint32_t *)(uintptr_t)d = *(volatile const uint32_t *)(uintptr_t)s;
  }
  for (; len > 0; --len, ++d, ++s)
    *(volatile uint8_t *)(uintptr_t)d = *(volatile const uint8_t *)(uintptr_t)s;
}

static void core_copy(unsigned long long dst, unsigned long long src, unsigned long long n,
                      data_transfer_method m) {
  const uint32_t cs = core_address(src), cd = core_address(dst);
  const uint32_t chunk = m == C_MEMCPY ? 4u : (uint32_t)NPUSIM_VECTOR_BYTES;
  for (unsigned long long off = 0; off < n; off += chunk) {
    const uint32_t len = n - off < chunk ? (uint32_t)(n - off) : chunk;
    copy_chunk(cd + (uint32_t)off, cs + (uint32_t)off, len);
  }
}

static void dma_submit(unsigned long long dst, unsigned long long src, uint32_t len, uint32_t channel) {
  *DMA_SRC_LO = (uint32_t)src;
  *DMA_SRC_HI = (uint32_t)(src >> 32);
  *DMA_DST_LO = (uint32_t)dst;
  *DMA_DST_HI = (uint32_t)(dst >> 32);
  *DMA_LEN = len;
  *DMA_CHANNEL = channel;
  *DMA_START = 1;
}

static void dma_wait(void) {
  while (*DMA_STATUS != 0) {
  }
}

static void transfer(unsigned long long dst, unsigned long long src, unsigned long long n) {
  if (method == DMA) {
    dma_submit(dst, src, (uint32_t)n, NPUSIM_DMA_CHANNEL);
    dma_wait();
  } else {
    core_copy(dst, src, n, method);
  }
}

static void check_dram_addr(const char *call, const void *dram_addr) {
#if NPUSIM_DRAM_ASSERT
  const uint32_t a = (uint32_t)(uintptr_t)dram_addr;
  if (!(a >= DRAM_WINDOW_LO && a < DRAM_WINDOW_HI))
    __neuron_fatal("data_transfer.cpp:160: %s: assertion `dram_addr >= 0x80000 && dram_addr < 0x90000' "
                   "failed (dram_addr = 0x%x)",
                   call, (unsigned)a);
#else
  (void)call;
  (void)dram_addr;
#endif
}

int data_transfer_to_dram(void *dram_addr, unsigned long long hbm_addr, unsigned bytes) {
  check_dram_addr("data_transfer_to_dram", dram_addr);
  transfer((uint32_t)(uintptr_t)dram_addr, hbm_addr, bytes);
  return 0;
}

int data_transfer_from_dram(unsigned long long hbm_addr, const void *dram_addr, unsigned bytes) {
  check_dram_addr("data_transfer_from_dram", dram_addr);
  transfer(hbm_addr, (uint32_t)(uintptr_t)dram_addr, bytes);
  return 0;
}

int tensor_stream_copy(unsigned long long dst, unsigned long long src, unsigned long long bytes) {
  const int dbl = NPUSIM_DOUBLE_BUFFER && method == DMA && NPUSIM_DMA_CHANNELS > 1;
  const int buffers = dbl ? 2 : 1;
  void *bounce[2] = {0, 0};
  for (int b = 0; b < buffers; ++b) {
    if (neuron_dataram_allocate(BUFFER_SIZE_BYTES, &bounce[b], 0) != 0) {
      const int st = (int)neuron_last_xmem_status();
      for (int k = 0; k < b; ++k) neuron_dataram_deallocate(bounce[k]);
      __neuron_fatal("tensor_stream_copy: the %u B bounce buffer could not be allocated from the "
                     "dataram heap (xmem status %d); fatal",
                     (unsigned)BUFFER_SIZE_BYTES, st);
    }
  }
  const unsigned long long b0 = (uint32_t)(uintptr_t)bounce[0], b1 = (uint32_t)(uintptr_t)bounce[1];
  if (!dbl) {
    for (unsigned long long off = 0; off < bytes; off += BUFFER_SIZE_BYTES) {
      const unsigned long long len = bytes - off < BUFFER_SIZE_BYTES ? bytes - off : BUFFER_SIZE_BYTES;
      transfer(b0, src + off, len);
      transfer(dst + off, b0, len);
    }
  } else {
    // Chunk i+1 comes in on one buffer and channel while chunk i goes out from the other.
    const uint32_t in_ch = NPUSIM_DMA_CHANNEL, out_ch = (NPUSIM_DMA_CHANNEL + 1) % NPUSIM_DMA_CHANNELS;
    const unsigned long long chunks = (bytes + BUFFER_SIZE_BYTES - 1) / BUFFER_SIZE_BYTES;
#define LEN_OF(i) \
  ((uint32_t)(bytes - (i) * BUFFER_SIZE_BYTES < BUFFER_SIZE_BYTES ? bytes - (i) * BUFFER_SIZE_BYTES : BUFFER_SIZE_BYTES))
    if (chunks > 0) {
      dma_submit(b0, src, LEN_OF(0ull), in_ch);
      dma_wait();
    }
    for (unsigned long long i = 0; i < chunks; ++i) {
      const unsigned long long cur = (i % 2) ? b1 : b0, nxt = (i % 2) ? b0 : b1;
      dma_submit(dst + i * BUFFER_SIZE_BYTES, cur, LEN_OF(i), out_ch);
      if (i + 1 < chunks) dma_submit(nxt, src + (i + 1) * BUFFER_SIZE_BYTES, LEN_OF(i + 1), in_ch);
      dma_wait();
    }
#undef LEN_OF
  }
  for (int b = 0; b < buffers; ++b) neuron_dataram_deallocate(bounce[b]);
  return 0;
}
