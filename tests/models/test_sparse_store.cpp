#include <catch2/catch.hpp>

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
