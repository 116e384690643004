// Sparse backing store for device memory: pages are allocated on first write, so a 16 GiB HBM
// costs a page table (8 bytes per page) until it is used. Reads of untouched memory return the
// fill pattern (0 by default; a pattern such as 0xDEADBEEF makes reads of uninitialised memory
// visible) and allocate nothing. Plain C++, no SystemC.
//
// Pages are carved, in the order they are first written, from large zero-filled slabs
// (anonymous mappings on Linux, advised to use transparent huge pages): a 1 GiB stream
// costs a few hundred page faults instead of 262144, and with the default fill (0) a new
// page needs no memset, as fresh slab memory is already zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace npusim::models {

class SparseStore {
 public:
  static constexpr uint64_t kDefaultPageBytes = 64 * 1024;

  // `fill` is a 32-bit little-endian pattern repeated over the address space: the byte at
  // offset o of untouched memory is (fill >> 8 * (o % 4)) & 0xff. `page_bytes` is a power of
  // two. Throws std::invalid_argument on size 0 or a bad page size.
  SparseStore(uint64_t size, uint32_t fill = 0, uint64_t page_bytes = kDefaultPageBytes);
  ~SparseStore();
  SparseStore(const SparseStore&) = delete;
  SparseStore& operator=(const SparseStore&) = delete;

  uint64_t size() const { return size_; }
  uint64_t page_bytes() const { return page_bytes_; }
  uint32_t fill() const { return fill_; }
  // Bytes held in allocated pages (not counting the page table).
  uint64_t resident_bytes() const { return pages_allocated_ * page_bytes_; }
  uint64_t pages_allocated() const { return pages_allocated_; }
  uint64_t page_table_bytes() const { return pages_.capacity() * sizeof(pages_[0]); }

  // Copies bytes; the caller has checked that [offset, offset + n) lies inside the store.
  // An access of 4, 8, 16, 32 or 64 bytes inside one page (a core's word or vector, a burst,
  // a traffic request) is inline: fixed-size copies, no call.
  void read(uint64_t offset, void* dst, size_t n) const {
    const uint64_t in_page = offset & (page_bytes_ - 1);
    if (small(n) && in_page + n <= page_bytes_) {
      const uint64_t index = offset >> page_shift_;
      if (allocated(index)) {
        copy_small(dst, pages_[index] + in_page, n);
      } else {
        // The fill pattern from byte offset % 4 on: a rotation (shift 0 when aligned).
        const unsigned r = 8 * static_cast<unsigned>(offset & 3);
        const uint32_t v = r ? (fill_ >> r) | (fill_ << (32 - r)) : fill_;
        fill_small(dst, v, n);
      }
      return;
    }
    read_any(offset, dst, n);
  }
  void write(uint64_t offset, const void* src, size_t n) {
    const uint64_t in_page = offset & (page_bytes_ - 1);
    const uint64_t index = offset >> page_shift_;
    if (small(n) && in_page + n <= page_bytes_ && allocated(index)) {
      copy_small(pages_[index] + in_page, src, n);
      return;
    }
    write_any(offset, src, n);
  }
  // Writes only the bytes whose enable byte is non-zero (TLM byte enables, repeated with
  // period `be_len` over the data).
  void write_masked(uint64_t offset, const uint8_t* src, size_t n, const uint8_t* be,
                    size_t be_len);
  // Reads into dst only the bytes whose enable byte is non-zero.
  void read_masked(uint64_t offset, uint8_t* dst, size_t n, const uint8_t* be,
                   size_t be_len) const;

  // Host pointer to the page holding `offset`, allocating it if needed (for DMI).
  // `page_start` receives the page's first offset.
  uint8_t* page(uint64_t offset, uint64_t* page_start);

 private:
  void read_any(uint64_t offset, void* dst, size_t n) const;
  void write_any(uint64_t offset, const void* src, size_t n);
  uint8_t* touch(uint64_t page_index);
  uint8_t* new_page();  // page_bytes of zeroed memory from the current slab
  void fill_bytes(uint64_t offset, uint8_t* dst, size_t n) const;

  uint64_t size_;
  uint32_t fill_;
  uint64_t page_bytes_;
  unsigned page_shift_;
  bool allocated(uint64_t index) const { return (allocated_[index >> 6] >> (index & 63)) & 1; }
  // 4, 8, 16, 32 or 64 (page_bytes_ is at least 4; the callers check the page bounds).
  static bool small(size_t n) {
    constexpr uint64_t kSizes = (1ull << 3) | (1ull << 7) | (1ull << 15) | (1ull << 31) | (1ull << 63);
    return n - 1 < 64 && ((kSizes >> (n - 1)) & 1);
  }
  static void copy_small(void* dst, const void* src, size_t n) {
    switch (n) {
      case 4: std::memcpy(dst, src, 4); break;
      case 8: std::memcpy(dst, src, 8); break;
      case 16: std::memcpy(dst, src, 16); break;
      case 32: std::memcpy(dst, src, 32); break;
      default: std::memcpy(dst, src, 64); break;
    }
  }
  // n bytes of the 4-byte little-endian word v repeated (n: small()).
  static void fill_small(void* dst, uint32_t v, size_t n) {
    auto* d = static_cast<uint8_t*>(dst);
    if (n == 4) {
      std::memcpy(d, &v, 4);
      return;
    }
    const uint64_t w = (uint64_t{v} << 32) | v;
    switch (n) {
      case 8: fill_words<1>(d, w); break;
      case 16: fill_words<2>(d, w); break;
      case 32: fill_words<4>(d, w); break;
      default: fill_words<8>(d, w); break;
    }
  }
  template <size_t Words>
  static void fill_words(uint8_t* d, uint64_t w) {
    for (size_t i = 0; i < Words; ++i) std::memcpy(d + 8 * i, &w, 8);
  }

  std::vector<uint8_t*> pages_;  // nullptr: not allocated
  struct Slab {
    void* base;
    size_t bytes;
    bool mapped;  // mmap (else calloc)
  };
  std::vector<Slab> slabs_;
  uint64_t slab_bytes_;  // size of the next slab (a multiple of page_bytes)
  uint8_t* slab_next_ = nullptr;
  uint8_t* slab_end_ = nullptr;
  // One bit per page: a read of untouched memory checks 32 KiB for 16 GiB instead of the
  // 2 MiB page table, which keeps random reads in cache.
  std::vector<uint64_t> allocated_;
  uint64_t pages_allocated_ = 0;
};

}  // namespace npusim::models
