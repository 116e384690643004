#include "models/sparse_store.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace npusim::models {

namespace {
constexpr uint64_t kHugePage = 2u << 20;   // transparent huge page size on x86-64
constexpr uint64_t kMaxSlab = 32u << 20;  // slabs: up to 32 MiB of address space each
}  // namespace

SparseStore::SparseStore(uint64_t size, uint32_t fill, uint64_t page_bytes)
    : size_(size), fill_(fill), page_bytes_(page_bytes), page_shift_(0) {
  if (size == 0) throw std::invalid_argument("sparse store: size must not be 0");
  if (page_bytes < 4 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument("sparse store: page size must be a power of two >= 4");
  while ((uint64_t{1} << page_shift_) < page_bytes) ++page_shift_;
  pages_.resize((size + page_bytes - 1) >> page_shift_);
  allocated_.assign((pages_.size() + 63) / 64, 0);
  // A small store (an SRAM) gets one slab of its own size; a large one 32 MiB at a time.
  const uint64_t span = std::max<uint64_t>(pages_.size() << page_shift_, page_bytes_);
  slab_bytes_ = std::min(span, std::max(kMaxSlab, page_bytes_));
}

SparseStore::~SparseStore() {
  for (const Slab& s : slabs_) {
#if defined(__linux__)
    if (s.mapped) {
      munmap(s.base, s.bytes);
      continue;
    }
#endif
    std::free(s.base);
  }
}

uint8_t* SparseStore::new_page() {
  if (slab_next_ == slab_end_) {
    const auto bytes = static_cast<size_t>(slab_bytes_);
    void* base = nullptr;
    bool mapped = false;
#if defined(__linux__)
    if (bytes >= kHugePage) {
      // Over-allocate by one huge page and trim, so that the slab is huge-page aligned.
      const size_t span = bytes + kHugePage;
      void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED) {
        const auto start = reinterpret_cast<uintptr_t>(m);
        const uintptr_t aligned = (start + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
        if (aligned > start) munmap(m, aligned - start);
        const uintptr_t tail = start + span - (aligned + bytes);
        if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
        base = reinterpret_cast<void*>(aligned);
        mapped = true;
#if defined(MADV_HUGEPAGE)
        madvise(base, bytes, MADV_HUGEPAGE);  // advice only: ignore failure
#endif
      }
    }
#endif
    if (base == nullptr) base = std::calloc(1, bytes);  // zeroed as well
    if (base == nullptr) throw std::bad_alloc();
    slabs_.push_back(Slab{base, bytes, mapped});
    slab_next_ = static_cast<uint8_t*>(base);
    slab_end_ = slab_next_ + bytes;
  }
  uint8_t* p = slab_next_;
  slab_next_ += page_bytes_;
  return p;
}

void SparseStore::fill_bytes(uint64_t offset, uint8_t* dst, size_t n) const {
  if (fill_ == 0) {
    std::memset(dst, 0, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(fill_ >> (8 * ((offset + i) & 3)));
}

uint8_t* SparseStore::touch(uint64_t index) {
  uint8_t*& p = pages_[index];
  if (p == nullptr) {
    p = new_page();
    // Slab memory is zero: only another fill pattern needs writing.
    if (fill_ != 0) fill_bytes(index << page_shift_, p, page_bytes_);
    ++pages_allocated_;
    allocated_[index >> 6] |= uint64_t{1} << (index & 63);
  }
  return p;
}

void SparseStore::read_any(uint64_t offset, void* dst, size_t n) const {
  auto* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const uint64_t index = offset >> page_shift_;
    const uint64_t in_page = offset & (page_bytes_ - 1);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, page_bytes_ - in_page));
    if (allocated(index)) std::memcpy(out, pages_[index] + in_page, chunk);
    else fill_bytes(offset, out, chunk);
    out += chunk;
    offset += chunk;
    n -= chunk;
  }
}

void SparseStore::write_any(uint64_t offset, const void* src, size_t n) {
  const auto* in = static_cast<const uint8_t*>(src);
  while (n > 0) {
    const uint64_t index = offset >> page_shift_;
    const uint64_t in_page = offset & (page_bytes_ - 1);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, page_bytes_ - in_page));
    std::memcpy(touch(index) + in_page, in, chunk);
    in += chunk;
    offset += chunk;
    n -= chunk;
  }
}

void SparseStore::write_masked(uint64_t offset, const uint8_t* src, size_t n, const uint8_t* be,
                               size_t be_len) {
  for (size_t i = 0; i < n; ++i) {
    if (be[i % be_len] == 0) continue;
    const uint64_t o = offset + i;
    touch(o >> page_shift_)[o & (page_bytes_ - 1)] = src[i];
  }
}

void SparseStore::read_masked(uint64_t offset, uint8_t* dst, size_t n, const uint8_t* be,
                              size_t be_len) const {
  for (size_t i = 0; i < n; ++i) {
    if (be[i % be_len] != 0) read(offset + i, dst + i, 1);
  }
}

uint8_t* SparseStore::page(uint64_t offset, uint64_t* page_start) {
  const uint64_t index = offset >> page_shift_;
  *page_start = index << page_shift_;
  return touch(index);
}

}  // namespace npusim::models
