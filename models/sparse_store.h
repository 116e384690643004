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
  // A 4-byte access inside one page (a core's load or store) is inline.
  void read(uint64_t offset, void* dst, size_t n) const {
    const uint64_t in_page = offset & (page_bytes_ - 1);
    if (n == 4 && in_page <= page_bytes_ - 4) {
      const uint64_t index = offset >> page_shift_;
      uint32_t v;
      if (allocated(index)) {
        std::memcpy(&v, pages_[index] + in_page, 4);
      } else {
        // The fill pattern from byte offset % 4 on: a rotation (shift 0 when aligned).
        const unsigned r = 8 * static_cast<unsigned>(offset & 3);
        v = r ? (fill_ >> r) | (fill_ << (32 - r)) : fill_;
      }
      std::memcpy(dst, &v, 4);
      return;
    }
    read_any(offset, dst, n);
  }
  void write(uint64_t offset, const void* src, size_t n) {
    const uint64_t in_page = offset & (page_bytes_ - 1);
    const uint64_t index = offset >> page_shift_;
    if (n == 4 && in_page <= page_bytes_ - 4 && allocated(index)) {
      std::memcpy(pages_[index] + in_page, src, 4);
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
