// The data of a host tensor (TensorImpl::host): a byte vector whose large buffers are
// anonymous mappings advised to use transparent huge pages. A 4 MiB tensor (the inputs, the
// result read back, a shape function's torch::empty) then costs two page faults instead of
// 1024, which on Linux is most of what filling it costs. Under AddressSanitizer every buffer
// comes from malloc, so that ASan sees it. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace torch::detail {

// `bytes` of memory (huge-page aligned anonymous memory from kHostMapBytes on), and its
// release with the same byte count. host_alloc throws std::bad_alloc when it gets none.
inline constexpr size_t kHostMapBytes = size_t{2} << 20;
void* host_alloc(size_t bytes);
void host_free(void* p, size_t bytes) noexcept;

template <class T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(host_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { host_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const HostAllocator<U>&) const noexcept { return false; }
};

using HostBytes = std::vector<uint8_t, HostAllocator<uint8_t>>;

}  // namespace torch::detail
