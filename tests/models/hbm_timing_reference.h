// The HBM timing engine as it was before the speed work (one burst at a time, address decoded
// from scratch, refresh by division): the executable specification that the optimised
// HbmTiming must reproduce cycle for cycle. Test-only; see test_hbm_timing_equivalence.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "models/hbm_timing.h"

namespace npusim::test {

class ReferenceHbmTiming {
 public:
  using HbmConfig = models::HbmConfig;
  using RowOutcome = models::RowOutcome;
  using BurstTiming = models::BurstTiming;

  explicit ReferenceHbmTiming(const HbmConfig& c) : cfg_(c), map_(c), units_(c.units()) {
    for (auto& u : units_) {
      u.banks.resize(c.banks());
      u.act_ok_group.assign(c.bank_groups, 0);
      u.col_ok_group.assign(c.bank_groups, 0);
      u.queue.assign(c.queue_depth, 0);
    }
  }

  uint64_t refreshes() const { return refreshes_; }

  BurstTiming access(uint64_t offset, bool write, uint64_t arrival_cycles) {
    const models::HbmAddress a = map_.decode(offset);
    Unit& u = units_[a.unit];
    const uint32_t g = a.bank_group;
    Bank& b = u.banks[g * cfg_.banks_per_group + a.bank];
    uint64_t t = std::max({arrival_cycles, u.queue[u.queue_next], u.last_admit});
    const uint64_t admit = t;
    for (;;) {
      t = apply_refresh(u, t);
      RowOutcome outcome;
      uint64_t act = 0;
      bool activates = true;
      if (b.open_row == a.row) {
        outcome = RowOutcome::kHit;
        activates = false;
      } else {
        uint64_t earliest = std::max(t, b.act_ok);
        if (b.open_row == kNoRow) {
          outcome = RowOutcome::kMiss;
        } else {
          outcome = RowOutcome::kConflict;
          earliest = std::max(earliest, std::max(t, b.pre_ok) + cfg_.tRP);
        }
        act = std::max({earliest, u.act_ok_any, u.act_ok_group[g]});
        if (cfg_.tFAW) act = std::max(act, u.faw[u.faw_next]);
      }
      uint64_t col = std::max({t, activates ? act + cfg_.tRCD : b.col_ok, u.col_ok_any,
                               u.col_ok_group[g]});
      const uint64_t to_data = write ? cfg_.tWL : cfg_.tCL;
      if (col + to_data < u.bus_free) col = u.bus_free - to_data;
      const uint64_t data = col + to_data;
      const uint64_t done = data + cfg_.burst_cycles();
      if (cfg_.tREFI != 0) {
        const uint64_t next = (u.refreshes_seen + 1) * cfg_.tREFI;
        if (done > next) {
          t = std::max(t, next);
          continue;
        }
      }
      if (activates) {
        b.open_row = a.row;
        b.col_ok = act + cfg_.tRCD;
        b.pre_ok = act + cfg_.tRAS;
        u.act_ok_any = act + cfg_.tRRD_S;
        u.act_ok_group[g] = act + cfg_.tRRD_L;
        u.faw[u.faw_next] = act + cfg_.tFAW;
        u.faw_next = (u.faw_next + 1) % 4;
      }
      u.col_ok_any = col + cfg_.tCCD_S;
      u.col_ok_group[g] = col + cfg_.tCCD_L;
      u.bus_free = done;
      b.pre_ok = std::max(b.pre_ok, write ? done + cfg_.tWR : col + cfg_.tRTP);
      if (cfg_.page_policy == models::PagePolicy::kClosed) {
        b.open_row = kNoRow;
        b.act_ok = std::max(b.act_ok, b.pre_ok + cfg_.tRP);
      }
      u.queue[u.queue_next] = done;
      u.queue_next = (u.queue_next + 1) % static_cast<unsigned>(u.queue.size());
      u.last_admit = admit;
      return BurstTiming{admit, data, done, outcome};
    }
  }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Bank {
    uint32_t open_row = kNoRow;
    uint64_t act_ok = 0, pre_ok = 0, col_ok = 0;
  };
  struct Unit {
    std::vector<Bank> banks;
    std::vector<uint64_t> act_ok_group, col_ok_group;
    uint64_t act_ok_any = 0, col_ok_any = 0, bus_free = 0, last_admit = 0;
    std::array<uint64_t, 4> faw{};
    unsigned faw_next = 0;
    std::vector<uint64_t> queue;
    unsigned queue_next = 0;
    uint64_t refreshes_seen = 0;
  };

  uint64_t apply_refresh(Unit& u, uint64_t t) {
    if (cfg_.tREFI == 0 || t < cfg_.tREFI) return t;
    const uint64_t k = t / cfg_.tREFI;
    const uint64_t end = k * cfg_.tREFI + cfg_.tRFC;
    if (k > u.refreshes_seen) {
      refreshes_ += k - u.refreshes_seen;
      u.refreshes_seen = k;
      for (auto& b : u.banks) {
        b.open_row = kNoRow;
        b.act_ok = std::max(b.act_ok, end);
      }
    }
    return std::max(t, end);
  }

  HbmConfig cfg_;
  models::HbmAddressMap map_;
  std::vector<Unit> units_;
  uint64_t refreshes_ = 0;
};

}  // namespace npusim::test
