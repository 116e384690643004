#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "models/sparse_store.h"

using npusim::models::SparseStore;

TEST_CASE("sparse store: untouched memory reads as zeros and allocates nothing", "[store]") {
  SparseStore s(16ull << 30);  // 16 GiB
  uint8_t buf[64];
  std::memset(buf, 0xAA, sizeof buf);
  s.read((16ull << 30) - 64, buf, 64);
  for (uint8_t b : buf) REQUIRE(b == 0);
  REQUIRE(s.pages_allocated() == 0);
  REQUIRE(s.resident_bytes() == 0);
  REQUIRE(s.page_table_bytes() <= 4u << 20);  // 262144 pages x 8 bytes
}

TEST_CASE("sparse store: a write allocates only its page; data round-trips across pages",
          "[store]") {
  SparseStore s(1 << 20, 0, 4096);
  std::vector<uint8_t> in(6000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
  s.write(4000, in.data(), in.size());  // pages 0, 1, 2
  REQUIRE(s.pages_allocated() == 3);
  std::vector<uint8_t> out(in.size());
  s.read(4000, out.data(), out.size());
  REQUIRE(out == in);
  uint8_t edge[8];
  s.read(3996, edge, 8);  // 4 untouched bytes of page 0, then data
  REQUIRE(edge[0] == 0);
  REQUIRE(edge[3] == 0);
  REQUIRE(edge[4] == in[0]);
  s.read(500000, edge, 8);
  REQUIRE(s.pages_allocated() == 3);
}

TEST_CASE("sparse store: the fill pattern marks uninitialised memory, by address", "[store]") {
  SparseStore s(1 << 16, 0xDEADBEEF, 1024);
  uint8_t b[6];
  s.read(2, b, 6);  // bytes of 0xDEADBEEF little-endian: EF BE AD DE, from offset 2
  const uint8_t want[6] = {0xAD, 0xDE, 0xEF, 0xBE, 0xAD, 0xDE};
  REQUIRE(std::memcmp(b, want, 6) == 0);
  const uint8_t one = 0x11;
  s.write(1025, &one, 1);  // the rest of the page keeps the pattern
  s.read(1024, b, 4);
  const uint8_t want2[4] = {0xEF, 0x11, 0xAD, 0xDE};
  REQUIRE(std::memcmp(b, want2, 4) == 0);
}

TEST_CASE("sparse store: byte-enabled writes touch only enabled bytes", "[store]") {
  SparseStore s(4096);
  const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const uint8_t be[2] = {0xFF, 0x00};  // period 2: even bytes only
  s.write_masked(16, data, 8, be, 2);
  uint8_t out[8];
  s.read(16, out, 8);
  const uint8_t want[8] = {1, 0, 3, 0, 5, 0, 7, 0};
  REQUIRE(std::memcmp(out, want, 8) == 0);
}

TEST_CASE("sparse store: rejects size 0 and bad page sizes", "[store]") {
  REQUIRE_THROWS_AS(SparseStore(0), std::invalid_argument);
  REQUIRE_THROWS_AS(SparseStore(4096, 0, 1000), std::invalid_argument);
}

TEST_CASE("sparse store: page() hands out the page for DMI", "[store]") {
  SparseStore s(10000, 0, 4096);
  uint64_t start = 1;
  uint8_t* p = s.page(8200, &start);
  REQUIRE(start == 8192);
  p[8] = 42;
  uint8_t v = 0;
  s.read(8200, &v, 1);
  REQUIRE(v == 42);
}

TEST_CASE("sparse store: reads agree with a flat model of the memory", "[store]") {
  // Every operation goes to the store and to a model (a flat array holding the fill
  // pattern); reads must agree. Pages come from zeroed slabs, so new pages must show the
  // fill pattern around the first write. Sequential streams, pages started in the middle,
  // gaps, more pages than one slab holds, byte enables and DMI.
  const uint64_t size = 64 * 1024, page = 1024;
  for (uint32_t fill : {0u, 0xDEADBEEFu}) {
    SparseStore s(size, fill, page);
    std::vector<uint8_t> model(size);
    for (uint64_t o = 0; o < size; ++o) model[o] = static_cast<uint8_t>(fill >> (8 * (o & 3)));
    uint64_t x = 0x9E3779B97F4A7C15ull, stamp = 1;
    auto rnd = [&](uint64_t n) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      return x % n;
    };
    auto write = [&](uint64_t o, uint64_t n) {
      std::vector<uint8_t> d(n);
      for (auto& b : d) b = static_cast<uint8_t>(++stamp);
      s.write(o, d.data(), n);
      std::copy(d.begin(), d.end(), model.begin() + static_cast<std::ptrdiff_t>(o));
    };
    auto check_read = [&](uint64_t o, uint64_t n) {
      std::vector<uint8_t> got(n, 0x55);
      s.read(o, got.data(), n);
      REQUIRE(std::equal(got.begin(), got.end(), model.begin() + static_cast<std::ptrdiff_t>(o)));
    };
    // A sequential stream of 64-byte writes over 3 pages, read back as it goes.
    for (uint64_t o = 0; o < 3 * page; o += 64) {
      write(o, 64);
      check_read(o & ~(page - 1), page);
    }
    // A page started in its middle, then a write with a gap, then one below.
    write(5 * page + 100, 50);
    check_read(5 * page, page);
    write(5 * page + 400, 10);
    check_read(5 * page, page);
    write(5 * page + 10, 20);
    check_read(5 * page + 5, 600);
    // Twenty pages started at once.
    for (uint64_t p = 10; p < 30; ++p) write(p * page + 8, 16);
    for (uint64_t p = 10; p < 30; ++p) check_read(p * page, page);
    for (uint64_t p = 10; p < 30; ++p) write(p * page + 24, 8);  // continues each stream
    check_read(10 * page, 20 * page);
    // Random mixes, including byte-enabled writes and DMI pointers.
    for (int i = 0; i < 2000; ++i) {
      const uint64_t o = rnd(size - 300), n = 1 + rnd(300);
      switch (rnd(7)) {
        case 0: {
          const uint8_t be[3] = {0xFF, 0, 0xFF};
          std::vector<uint8_t> d(n, static_cast<uint8_t>(++stamp));
          s.write_masked(o, d.data(), n, be, 3);
          for (uint64_t k = 0; k < n; ++k)
            if (be[k % 3]) model[o + k] = d[k];
          break;
        }
        case 1: {
          uint64_t start = 0;
          uint8_t* p = s.page(o, &start);
          p[o - start] = static_cast<uint8_t>(++stamp);
          model[o] = p[o - start];
          break;
        }
        case 2: check_read(o, n); break;
        case 3: {
          // 4- to 64-byte accesses (the inline path), at any byte offset: unaligned, at a
          // page's last bytes, across two pages, to untouched pages.
          const uint64_t k = uint64_t{4} << rnd(5);  // 4, 8, 16, 32, 64
          const uint64_t w = rnd(4) == 0 ? (1 + rnd(size / page - 1)) * page - rnd(k + 2) : o;
          if (rnd(2)) write(w, k);
          check_read(w, k);
          check_read(w + 1, k);
          check_read(w + 3, k);
          break;
        }
        default: write(o, n); break;
      }
    }
    check_read(0, size);
  }
}

TEST_CASE("sparse store: small accesses on pages smaller than the access", "[store]") {
  // 4- and 8-byte pages: an 8- to 64-byte access spans pages and must not take the in-page
  // path; the fill pattern continues across untouched pages.
  for (uint64_t page : {4u, 8u}) {
    SparseStore s(4096, 0xA1B2C3D4u, page);
    uint8_t in[64], out[64];
    for (int i = 0; i < 64; ++i) in[i] = static_cast<uint8_t>(i + 1);
    for (uint64_t n : {8u, 16u, 32u, 64u}) {
      s.read(8 * n + 1, out, n);
      for (uint64_t i = 0; i < n; ++i)
        REQUIRE(out[i] == static_cast<uint8_t>(0xA1B2C3D4u >> (8 * ((8 * n + 1 + i) & 3))));
      s.write(1024 + 32 * n, in, n);
      std::memset(out, 0, sizeof out);
      s.read(1024 + 32 * n, out, n);
      REQUIRE(std::memcmp(in, out, n) == 0);
    }
  }
}
