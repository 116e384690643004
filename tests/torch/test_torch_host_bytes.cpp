// The data of host tensors (firmware/torch/host_bytes.h): large buffers are huge-page aligned
// mappings (outside AddressSanitizer builds), zero when made, and behave as a byte vector.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "firmware/torch/runtime.h"

namespace td = torch::detail;

namespace {
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMapped = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMapped = false;
#else
constexpr bool kMapped = true;
#endif
#else
constexpr bool kMapped = true;
#endif
bool all_zero(const td::HostBytes& b) {
  for (uint8_t c : b)
    if (c != 0) return false;
  return true;
}
bool huge_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % td::kHostMapBytes == 0; }
}  // namespace

TEST_CASE("torch host bytes: a buffer from 2 MiB on is a huge-page aligned mapping, zero when made") {
  td::HostBytes big(3 * td::kHostMapBytes / 2);  // 3 MiB: two huge pages
  CHECK(all_zero(big));
#if defined(__linux__)
  if (kMapped) CHECK(huge_aligned(big.data()));
#endif
  big[big.size() - 1] = 7;
  big[0] = 9;
  // Copies, growth and moves keep the bytes; new bytes are zero.
  td::HostBytes copy = big;
  REQUIRE(copy.size() == big.size());
  CHECK(std::memcmp(copy.data(), big.data(), big.size()) == 0);
  copy.resize(copy.size() + td::kHostMapBytes);
  CHECK(copy[0] == 9);
  CHECK(copy[big.size() - 1] == 7);
  CHECK(copy[big.size()] == 0);
  CHECK(copy.back() == 0);
  td::HostBytes moved = std::move(copy);
  CHECK(moved[0] == 9);
  // Below 2 MiB: an ordinary heap buffer, the same behaviour.
  td::HostBytes small(4096, 0x5a);
  CHECK(small.size() == 4096);
  CHECK(small[4095] == 0x5a);
  td::HostBytes none;
  none.resize(0);
  CHECK(none.empty());
}

TEST_CASE("torch host bytes: a 4 MiB input tensor's data is one mapping of whole huge pages") {
  const auto t = npusim::torchrt::make_input({1 << 20}, torch::kFloat, "range");
  const td::HostBytes& b = t.impl()->host;
  REQUIRE(b.size() == (size_t{4} << 20));
#if defined(__linux__)
  if (kMapped) CHECK(huge_aligned(b.data()));
#endif
  float last = 0;
  std::memcpy(&last, b.data() + b.size() - 4, 4);
  CHECK(last == static_cast<float>((1 << 20) - 1));
}
