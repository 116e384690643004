// What the HBM controller equality tests compare (test_hbm_search.cpp: search shortcuts on
// against off; test_hbm_fast_path.cpp: the fast paths on against off): every request's
// completion and admission, the row outcomes, refreshes and fast-path bursts (hits, and misses
// and conflicts).
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/hbm_timing.h"
#include "models/memory_config.h"

namespace npusim::models::test {

struct Trace {
  std::vector<uint64_t> done, admit;
  RowCounts rows;
  uint64_t refreshes = 0, fast = 0, fast_misses = 0;
};

// Every completion, admission and row count of `a` equal to `b`'s.
inline void check_same(const Trace& a, const Trace& b) {
  REQUIRE(a.done.size() == b.done.size());
  uint64_t differ = 0;
  for (size_t i = 0; i < a.done.size(); ++i)
    differ += a.done[i] != b.done[i] || a.admit[i] != b.admit[i];
  CHECK(differ == 0);
  for (unsigned r = 0; r < 3; ++r) CHECK(a.rows.n[r] == b.rows.n[r]);
}

// DRAMsim3's rorabgbachco: consecutive bursts share a row, 32 of them, then the channel.
inline void use_ds3_mapping(HbmConfig& cfg) {
  cfg.mapping = {AddrField::kRow, AddrField::kBankGroup, AddrField::kBank, AddrField::kChannel,
                 AddrField::kColumn};
}

}  // namespace npusim::models::test
