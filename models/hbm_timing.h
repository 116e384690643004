// The HBM timing engine: plain C++, no SystemC. Each request (one burst) is scheduled from the
// state of its bank and its channel, so the cost is per request, not per cycle:
//
//   bank:    open row, earliest ACT (tRP after a PRE, end of a refresh), earliest PRE (tRAS
//            after ACT, tRTP after a read, tWR after write data), earliest column (tRCD)
//   channel: tRRD_S/_L and tFAW between ACTs, tCCD_S/_L between column commands, the data bus,
//            a FCFS request queue of queue_depth entries, all-bank refresh every tREFI
//
// A "unit" is a channel, or a pseudo-channel when pseudo_channels = 2: each has its own
// command and data bus and its own banks. Requests to a unit are served first come, first
// served (assumption: no reordering); docs/timing-model.md derives what this predicts.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/memory_config.h"

namespace npusim::models {

struct HbmAddress {
  uint32_t unit = 0;        // channel * pseudo_channels + pseudo_channel
  uint32_t bank_group = 0;
  uint32_t bank = 0;        // bank index inside its group
  uint32_t column = 0;      // in bursts
  uint32_t row = 0;
  uint32_t offset = 0;      // byte inside the burst
  bool operator==(const HbmAddress& o) const {
    return unit == o.unit && bank_group == o.bank_group && bank == o.bank &&
           column == o.column && row == o.row && offset == o.offset;
  }
};

// Address mapping: the fields of the configured bit order, most significant first, above the
// burst offset. Every field count is a power of two, so decode is shifts and masks.
class HbmAddressMap {
 public:
  explicit HbmAddressMap(const HbmConfig& c);
  HbmAddress decode(uint64_t offset) const;
  uint64_t encode(const HbmAddress& a) const;

 private:
  struct Field {
    AddrField field;
    unsigned shift;
    uint64_t mask;
  };
  std::vector<Field> fields_;  // least significant first
  uint32_t pseudo_channels_;
  uint64_t burst_mask_;
};

enum class RowOutcome { kHit, kMiss, kConflict };

struct BurstTiming {
  uint64_t admit_cycles;  // when the request entered the channel queue
  uint64_t data_cycles;   // first data beat
  uint64_t done_cycles;   // last data beat: the request is complete
  RowOutcome outcome;
};

class HbmTiming {
 public:
  explicit HbmTiming(const HbmConfig& c);

  // Schedules one burst at device offset `offset` arriving at `arrival_cycles`.
  BurstTiming access(uint64_t offset, bool write, uint64_t arrival_cycles);
  const HbmAddressMap& address_map() const { return map_; }
  uint64_t refreshes() const { return refreshes_; }
  // The refresh window [start, start + tRFC) of refresh k >= 1 of unit u.
  uint64_t refresh_start(uint32_t unit, uint64_t k) const {
    return refresh_offset(unit) + k * cfg_.tREFI;
  }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Bank {
    uint32_t open_row = kNoRow;
    uint64_t act_ok = 0;  // earliest ACT
    uint64_t pre_ok = 0;  // earliest PRE
    uint64_t col_ok = 0;  // earliest column command
  };
  struct Unit {
    std::vector<Bank> banks;
    std::vector<uint64_t> act_ok_group, col_ok_group;
    uint64_t act_ok_any = 0, col_ok_any = 0, bus_free = 0, last_admit = 0;
    std::array<uint64_t, 4> faw{};  // earliest ACT allowed by each of the last four ACTs
    unsigned faw_next = 0;          // the oldest entry
    std::vector<uint64_t> queue;    // completion times of the last queue_depth requests
    unsigned queue_next = 0;
    uint64_t refreshes_seen = 0;    // index of the last refresh applied to the banks
  };

  uint64_t refresh_offset(uint32_t unit) const;  // where unit's refresh schedule starts
  // Applies every refresh that started at or before `t`; returns t moved past a refresh that
  // is in progress.
  uint64_t apply_refresh(Unit& u, uint32_t unit, uint64_t t);

  HbmConfig cfg_;
  HbmAddressMap map_;
  std::vector<Unit> units_;
  uint64_t refreshes_ = 0;
};

}  // namespace npusim::models
