// The open/closed history of an HBM controller's banks, recorded at state changes (an ACT
// opens a row, a precharge or a refresh closes it), never per cycle: what the background
// term of the energy (models/hbm_energy.h) needs, the cycles in which at least one bank of a
// unit (channel or pseudo-channel) had a row open.
//
// Per unit, the cycles in which some bank had a row open are the union of the banks' row
// intervals [ACT, close), each added when it closes. The controllers grant requests out of
// time order (a younger request to an idle bank goes ahead), so intervals arrive in any
// order; a cycle's state is final once no later interval can cover it, and settle() counts
// the cycles before that point: before the last admission (no later event precedes it) and
// before every row still open (its interval is added when it closes; a row open for long is
// added up to the last admission and carried on from there). A close of a bank that is not
// open is ignored, so a controller may close lazily and more than once.
//
// An interval costs the same however long the row stayed open. Each unit keeps two segments,
// spans of cycles that all have a row open, the later one after the earlier one: an interval
// that meets a segment widens it (while the unit is busy, nearly all do, at the cost of a few
// comparisons). Any other interval is recorded as events on the unit's ring of 64-cycle
// blocks, +1 open row at its start and -1 at its end; or, if it lies after both segments, it
// becomes the later segment and the earlier one is recorded (from the counting point: the
// cycles before it are counted already). Counting goes through the blocks in time order,
// keeping the count of recorded intervals open: a cycle is open if that count is above zero
// or a segment holds it. A block in which fewer intervals end than were open at its start is
// open in every cycle, without going through its events. The ACTs are marked on a ring of
// cycle bits (models/hbm/cycle_set.h), for the series over time.
//
// Events lie where marks of the intervals themselves would: from the counting point to the
// last close, within the horizon after the last admission. A slot of the ring holds the block
// it was last written for, and reads as empty for any other.
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
  // The cycles [lo, hi) are those of window i at window_ns == w (and tck_ns == tck): a block
  // inside them adds to that window without index(). Each caller that goes through time in
  // order (a unit's counting) keeps its own.
  struct Span {
    uint64_t lo = 0, hi = 0;
    size_t i = 0;
    double w = 0, tck = 0;
  };
  // Adds the marks of the 64 cycles from 64 * blk: `open` and `acts` bit j is cycle 64 blk + j.
  // `span` becomes the window of the last mark.
  void add_block(double tck_ns, uint64_t blk, uint64_t open, uint64_t act_bits, Span& span);
  // Whether the 64 cycles from c0 lie in `span` (at this tck_ns and the current window_ns):
  // add_to_span() adds their counts there.
  bool in_span(const Span& span, double tck_ns, uint64_t c0) const {
    return c0 >= span.lo && c0 + 64 <= span.hi && span.w == window_ns && span.tck == tck_ns;
  }
  void add_to_span(const Span& span, uint64_t open, uint64_t act_count) {
    if ((open | act_count) == 0) return;
    open_cycles[span.i] += open;
    acts[span.i] += act_count;
  }

 private:
  size_t index(double tck_ns, uint64_t cycle);  // (coarsens as needed)
  // The span of window i.
  Span span_of(double tck_ns, size_t i) const;
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
    const uint32_t unit = bank >> bank_bits_;
    add(units_[unit], unit, b.since, t);
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
  // A row open longer than this before a settle is added up to the settle point and carried
  // on from there, so the ring never needs to reach further back.
  static constexpr uint64_t kCarry = 4096;

 private:
  struct Bank {
    uint64_t since = 0;  // the ACT of its open row, or the point it was carried on to
    bool open = false;
  };
  struct Unit {
    CycleSet act_bits;
    // The segments: every cycle of [seg_lo, seg_hi) is open, and of [prev_lo, prev_hi), which
    // ends before the other starts.
    uint64_t seg_lo = 0, seg_hi = 0, prev_lo = 0, prev_hi = 0;
    uint64_t counted = 0;  // cycles before this are counted (a multiple of 64)
    uint64_t settled = 0;  // the last settle point
    uint64_t open_cycles = 0, acts = 0;
    int64_t rows = 0;  // recorded intervals that cover cycle `counted`
    ActivitySeries::Span span;  // the series window its counting is in
  };
  // The events of block `blk` (cycles 64 blk + j, j < 64).
  struct Block {
    uint64_t blk = UINT64_MAX;
    uint64_t cycles = 0;             // bit j: an event in cycle j
    uint32_t opens = 0, closes = 0;  // intervals that start and end in the block
    int16_t delta[64] = {};          // starts less ends in cycle j (at most a bank each)
  };
  // The slot of the unit's block blk, taken over for it if it holds another block.
  Block& block_for(uint32_t unit, uint64_t blk) {
    Block& k = ring_[(size_t{unit} << ring_bits_) | (blk & ring_mask_)];
    if (k.blk != blk) {
      k = Block{};
      k.blk = blk;
    }
    return k;
  }
  // Adds the interval [lo, hi) of one of the unit's banks: one that meets just one of the
  // unit's segments (most, while the unit is busy) joins it; place() takes the others.
  void add(Unit& u, uint32_t unit, uint64_t lo, uint64_t hi) {
    if (lo < hi) {
      if (lo <= u.seg_hi && hi >= u.seg_lo && lo > u.prev_hi) {
        u.seg_lo = std::min(u.seg_lo, lo);
        u.seg_hi = std::max(u.seg_hi, hi);
        return;
      }
      if (lo <= u.prev_hi && hi >= u.prev_lo && hi < u.seg_lo) {
        u.prev_lo = std::min(u.prev_lo, lo);
        u.prev_hi = std::max(u.prev_hi, hi);
        return;
      }
      place(unit, lo, hi);
    }
  }
  // Any other interval: it joins the segments it meets; else it is recorded as events, or,
  // if it lies after both, it is the later segment from then on and the earlier one is
  // recorded.
  void place(uint32_t unit, uint64_t lo, uint64_t hi);
  // Records the interval [lo, hi) as events (nothing if it is empty).
  void record(uint32_t unit, uint64_t lo, uint64_t hi);
  // The cycles of the unit's block blk with a recorded interval open (bit j: cycle 64 blk +
  // j), from its events and u.rows, which it moves on to the block's end.
  uint64_t take(Unit& u, uint32_t unit, uint64_t blk) const;
  // The cycles of block blk in the unit's segments.
  static uint64_t covered(const Unit& u, uint64_t blk);
  // Counts [counted, to) (to rounded down to a block unless `all`: then up to `to` exactly).
  // The blocks in the unit's series window add up there; a block elsewhere goes through
  // add_block(), which moves the window on.
  void count(uint32_t unit, uint64_t to, bool all);
  // counts() with the open banks' close cycles (by flat bank index).
  std::vector<UnitCounts> counts_closing(uint64_t end, const std::vector<uint64_t>& close,
                                         ActivitySeries* series) const;

  std::vector<Unit> units_;
  std::vector<Bank> banks_;  // by flat bank index
  // Every unit's ring of blocks, unit after unit: the unit's block blk is at blk & ring_mask_.
  std::vector<Block> ring_;
  unsigned ring_bits_ = 0;
  uint64_t ring_mask_ = 0;
  unsigned bank_bits_ = 0;
  uint32_t banks_per_unit_ = 1;
  double tck_ns_ = 1.0;
  ActivitySeries series_;
};

}  // namespace npusim::models::hbm
