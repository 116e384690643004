// Host tensor buffers (host_bytes.h): huge-page mappings for the large ones on Linux.
#include "firmware/torch/host_bytes.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NPUSIM_HOST_BYTES_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPUSIM_HOST_BYTES_MALLOC 1
#endif
#endif
#if !defined(__linux__)
#define NPUSIM_HOST_BYTES_MALLOC 1
#endif

namespace torch::detail {

namespace {
#if !defined(NPUSIM_HOST_BYTES_MALLOC)
// A mapping covers whole huge pages, so that its last part is not left to small pages.
size_t mapped_bytes(size_t bytes) { return (bytes + kHostMapBytes - 1) & ~(kHostMapBytes - 1); }
#endif
}  // namespace

void* host_alloc(size_t bytes) {
#if !defined(NPUSIM_HOST_BYTES_MALLOC)
  if (bytes >= kHostMapBytes) {
    const size_t len = mapped_bytes(bytes);
    if (len < bytes || len + kHostMapBytes < len) throw std::bad_alloc();
    // One huge page more than needed, trimmed to an aligned start.
    void* m = mmap(nullptr, len + kHostMapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(m);
    const uintptr_t aligned = (start + kHostMapBytes - 1) & ~uintptr_t{kHostMapBytes - 1};
    if (aligned > start) munmap(m, aligned - start);
    const uintptr_t tail = start + len + kHostMapBytes - (aligned + len);
    if (tail > 0) munmap(reinterpret_cast<void*>(aligned + len), tail);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, len, MADV_HUGEPAGE);  // advice only: without it the buffer still works
    return p;
  }
#endif
  void* p = std::malloc(bytes ? bytes : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void host_free(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
#if !defined(NPUSIM_HOST_BYTES_MALLOC)
  if (bytes >= kHostMapBytes) {
    munmap(p, mapped_bytes(bytes));
    return;
  }
#else
  (void)bytes;
#endif
  std::free(p);
}

}  // namespace torch::detail
