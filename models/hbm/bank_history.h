// The open/closed history of an HBM controller's banks, recorded at state changes (an ACT
// opens a row, a precharge or a refresh closes it), never per cycle: what the background
// term of the energy (models/hbm_energy.h) needs, the cycles in which at least one bank of a
// unit (channel or pseudo-channel) had a row open.
//
// Per unit, a ring of cycle bits (models/hbm/cycle_set.h) marks the cycles in which some
// bank had a row open: a bank's interval [ACT, close) is marked when it closes. The
// controllers grant requests out of time order (a younger request to an idle bank goes
// ahead), so intervals arrive in any order; a cycle's bit is final once no later interval
// can cover it, and settle() counts the words before that point: before the last admission
// (no later event precedes it) and before every row still open (its interval is marked when
// it closes; a row open for long is marked up to the last admission and carried on from
// there). A close of a bank that is not open is ignored, so a controller may close lazily
// and more than once. The ACTs are marked on a second ring, for the series over time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/hbm/cycle_set.h"

namespace npusim::models::hbm {

// Per window of simulated time (all units together): ACTs and bank-open cycles. Window k
// holds the cycles c with floor(c * tck_ns / window_ns) == k; past 65536 windows they double
// (as BandwidthSeries).
struct ActivitySeries {
  double window_ns = 1000.0;
  std::vector<uint64_t> acts;
  std::vector<uint64_t> open_cycles;  // summed over units
  // Adds the marks of the 64 cycles from 64 * blk: `open` and `acts` bit j is cycle 64 blk + j.
  void add_block(double tck_ns, uint64_t blk, uint64_t open, uint64_t act_bits);

 private:
  size_t index(double tck_ns, uint64_t cycle);  // (coarsens as needed)
  // The cycles [span_lo_, span_hi_) are those of window span_i_ at window_ns == span_w_ (and
  // tck_ns == span_tck_): a block inside them adds to that window without index().
  void remember_span(double tck_ns, size_t i);
  uint64_t span_lo_ = 0, span_hi_ = 0;
  size_t span_i_ = 0;
  double span_w_ = 0, span_tck_ = 0;
};

class BankHistory {
 public:
  BankHistory() = default;
  // `horizon`: how far after the last admission an event can lie (the controller's
  // reservations), in cycles.
  BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns, double window_ns,
              uint64_t horizon);

  bool is_open(uint32_t bank) const { return banks_[bank].open; }  // flat bank index
  // A row opens in `bank` at cycle t (its ACT).
  void open(uint32_t bank, uint64_t t) {
    Bank& b = banks_[bank];
    b.open = true;
    b.since = t;
    Unit& u = units_[bank >> bank_bits_];
    u.act_bits.set(t);
    ++u.acts;
  }
  // The bank's row closes at cycle t (its precharge, or a refresh), if it is open.
  void close(uint32_t bank, uint64_t t) {
    Bank& b = banks_[bank];
    if (!b.open) return;
    b.open = false;
    units_[bank >> bank_bits_].open_bits.set_range(b.since, t);
  }
  // Counts the unit's cycles before s, a cycle no later event of the unit precedes (the
  // caller has closed the rows a refresh or an idle page closed before it), up to the oldest
  // row still open.
  void settle(uint32_t unit, uint64_t s);

  struct UnitCounts {
    uint64_t acts = 0;         // ACT commands
    uint64_t open_cycles = 0;  // cycles of [0, end) with a row open in at least one bank
  };
  // The counts of every unit over [0, end), and the series, as if every bank still open
  // closed at close_at(bank) (capped at end). Does not change the history.
  template <class CloseAt>
  std::vector<UnitCounts> counts(uint64_t end, CloseAt close_at, ActivitySeries* series) const {
    std::vector<uint64_t> close(banks_.size(), 0);
    for (uint32_t b = 0; b < banks_.size(); ++b)
      if (banks_[b].open) close[b] = std::max(banks_[b].since, std::min(close_at(b), end));
    return counts_closing(end, close, series);
  }
  // The unit's last settle point, and how far its counting has come (the oldest row still
  // open then, or kCarry before the settle point for a row open longer): tests check that
  // it follows the settle points.
  uint64_t settled(uint32_t unit) const { return units_[unit].settled; }
  uint64_t counted(uint32_t unit) const { return units_[unit].counted; }
  // A row open longer than this before a settle is marked up to the settle point and carried
  // on from there, so the ring never needs to reach further back.
  static constexpr uint64_t kCarry = 4096;

 private:
  struct Bank {
    uint64_t since = 0;  // the ACT of its open row
    bool open = false;
  };
  struct Unit {
    CycleSet open_bits, act_bits;
    uint64_t counted = 0;  // cycles before this are counted (a multiple of 64)
    uint64_t settled = 0;  // the last settle point
    uint64_t open_cycles = 0, acts = 0;
  };
  // Counts [counted, to) (to rounded down to a word unless `all`: then up to `to` exactly).
  void count(Unit& u, uint64_t to, bool all);
  // counts() with the open banks' close cycles (by flat bank index).
  std::vector<UnitCounts> counts_closing(uint64_t end, const std::vector<uint64_t>& close,
                                         ActivitySeries* series) const;

  std::vector<Unit> units_;
  std::vector<Bank> banks_;  // by flat bank index
  unsigned bank_bits_ = 0;
  uint32_t banks_per_unit_ = 1;
  double tck_ns_ = 1.0;
  ActivitySeries series_;
};

}  // namespace npusim::models::hbm
