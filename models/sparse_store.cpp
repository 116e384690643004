#include "models/sparse_store.h"

#include <algorithm>
#include <stdexcept>

namespace npusim::models {

SparseStore::SparseStore(uint64_t size, uint32_t fill, uint64_t page_bytes)
    : size_(size), fill_(fill), page_bytes_(page_bytes), page_shift_(0) {
  if (size == 0) throw std::invalid_argument("sparse store: size must not be 0");
  if (page_bytes < 4 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument("sparse store: page size must be a power of two >= 4");
  while ((uint64_t{1} << page_shift_) < page_bytes) ++page_shift_;
  pages_.resize((size + page_bytes - 1) >> page_shift_);
  allocated_.assign((pages_.size() + 63) / 64, 0);
}

void SparseStore::fill_bytes(uint64_t offset, uint8_t* dst, size_t n) const {
  if (fill_ == 0) {
    std::memset(dst, 0, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(fill_ >> (8 * ((offset + i) & 3)));
}

uint8_t* SparseStore::touch(uint64_t index) {
  auto& p = pages_[index];
  if (!p) {
    p.reset(new uint8_t[page_bytes_]);
    fill_bytes(index << page_shift_, p.get(), page_bytes_);
    ++pages_allocated_;
    allocated_[index >> 6] |= uint64_t{1} << (index & 63);
  }
  return p.get();
}

void SparseStore::read(uint64_t offset, void* dst, size_t n) const {
  auto* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const uint64_t index = offset >> page_shift_;
    const uint64_t in_page = offset & (page_bytes_ - 1);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, page_bytes_ - in_page));
    if (allocated(index)) std::memcpy(out, pages_[index].get() + in_page, chunk);
    else fill_bytes(offset, out, chunk);
    out += chunk;
    offset += chunk;
    n -= chunk;
  }
}

void SparseStore::write(uint64_t offset, const void* src, size_t n) {
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
