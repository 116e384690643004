// The open/closed history of an HBM controller's banks, recorded at state changes (an ACT
// opens a row, a precharge or a refresh closes it), never per cycle: what the background
// term of the energy (models/hbm_energy.h) needs, the cycles in which at least one bank of a
// unit (channel or pseudo-channel) had a row open, and the ACTs per window of time.
//
// Per unit, the history is the count of banks with a row open, changed by events: +1 at an
// ACT, -1 at a close. The controllers grant requests out of time order (a younger request to
// an idle bank goes ahead), so events arrive in any order; a cycle's state is final once no
// later event can precede it, and settle() counts the cycles before that point (the last
// admission: no later request's events precede it). Counting goes through the events in time
// order with the count of open banks: a cycle is open where it is above zero.
//
// An ACT costs a bit in the unit's ring of 64-cycle words: one bit for the ACT, and for a
// conflict (the bank's row closes tRP before the ACT, its precharge) one more in the same
// word, from which counting reads the precharge as well (tRP before). Nearly every ACT of a
// saturated random stream is such a conflict. The ring holds kRingWords blocks (cycle / 64)
// from the counting point's on; counting empties their words. Other closes
// (a refresh, an idle page's precharge, a closed page's auto-precharge, the end) and the
// rare events that do not fit a word (an ACT beyond the ring's reach, a second ACT in one
// cycle) go to the unit's list of events, sorted
// when counted. They wait there until they are counted, however far apart they lie (across a
// long idle with writes waiting in a write buffer, the controller cannot settle past the
// last admission before it while events far later come). A close of a bank that is not open
// is ignored, so a controller may close lazily and more than once; no row closes before its
// ACT, a conflict comes only on an open row, and no event lies before the last settle point
// (debug builds check these).
//
// Counting goes through 64-cycle blocks: one without events is open throughout or closed, by
// the count; so is a run of them up to the next event, added up at once (an idle unit costs
// nothing per cycle); one with fewer precharges than banks open at its start (while the unit
// is busy, most) is open throughout; the others go through their events in time order. The
// ACTs of each block add to the series there.

#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npusim::models::hbm {

// Per window of simulated time (all units together): ACTs and bank-open cycles. Window k
// holds the cycles c with floor(c * tck_ns / window_ns) == k; past 65536 windows they double
// (as BandwidthSeries).
struct ActivitySeries {
  double window_ns = 1000.0;
  std::vector<uint64_t> acts;
  std::vector<uint64_t> open_cycles;  // summed over units
  // The cycles [lo, hi) are those of window i while the series has not coarsened since (gen
  // is its count of coarsenings then): a block inside them adds to that window without
  // index(). Each caller that goes through time in order (a unit's counting) keeps its own.
  struct Span {
    uint64_t lo = 0, hi = 0;
    size_t i = 0;
    uint64_t gen = UINT64_MAX;
  };
  // Adds the open cycles (or with `to_acts`, the ACTs) of the 64 from 64 * blk: bit j of
  // `open` is cycle 64 blk + j. `span` becomes the window of the last one.
  void add_block(double tck_ns, uint64_t blk, uint64_t open, Span& span, bool to_acts = false);
  // Whether the 64 cycles from c0 lie in `span`: add_to_span() adds their count there.
  bool in_span(const Span& span, uint64_t c0) const {
    return c0 >= span.lo && c0 + 64 <= span.hi && span.gen == gen_;
  }
  void add_to_span(const Span& span, uint64_t open) { open_cycles[span.i] += open; }
  void add_acts_to_span(const Span& span, uint64_t n) { acts[span.i] += n; }
  void add_act(double tck_ns, uint64_t c) { ++acts[index(tck_ns, c)]; }

 private:
  size_t index(double tck_ns, uint64_t cycle);  // (coarsens as needed)
  // The first cycle of window k, by the same arithmetic as index().
  uint64_t first_cycle(double tck_ns, size_t k) const;
  // The span of window i.
  Span span_of(double tck_ns, size_t i) const {
    return Span{first_cycle(tck_ns, i), first_cycle(tck_ns, i + 1), i, gen_};
  }
  uint64_t gen_ = 0;  // coarsenings so far
};

class BankHistory {
 public:
  // Built with NPUSIM_BENCH_NO_BANK_HISTORY (for benchmarks only, docs/performance.md) the
  // history records nothing and is never settled: the same code without the accounting, to
  // measure what it costs. The background energy of such a build is wrong.
#ifdef NPUSIM_BENCH_NO_BANK_HISTORY
  static constexpr bool kRecords = false;
#else
  static constexpr bool kRecords = true;
#endif
  BankHistory() = default;
  // `trp`: how far before its ACT a conflict's precharge lies, in cycles. At most 64 banks a
  // unit.
  BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns, double window_ns,
              uint64_t trp);

  bool is_open(uint32_t bank) const {  // flat bank index
    return (units_[bank >> bank_bits_].open >> (bank & bank_mask_) & 1) != 0;
  }
  // A row opens in `bank` (of `unit`) at cycle t (its ACT); with `conflict`, the row open in
  // the bank (a conflict needs one) closes tRP before (its precharge).
  void open(uint32_t unit, uint32_t bank, uint64_t t, bool conflict = false) {
    if (!kRecords) return;
    assert(unit == bank >> bank_bits_);
#ifndef NDEBUG
    // (the settle points' promise: no event before the counting point)
    assert(!conflict || is_open(bank));
    assert(t >= units_[unit].counted);
    assert(!conflict || (t - trp_ >= units_[unit].counted && t - trp_ >= act_at_[bank]));
    act_at_[bank] = t;
#endif
    if (!conflict) units_[unit].open |= uint64_t{1} << (bank & bank_mask_);
    const uint64_t blk = t >> 6;
    Word& w = ring_[slot_of(unit, blk)];
    const uint64_t at = uint64_t{1} << (t & 63);
    if (__builtin_expect(blk - base_[unit] < kRingWords && (w.act & at) == 0, 1)) {
      w.act |= at;
      w.conflict |= at & (uint64_t{0} - uint64_t{conflict});
    } else {
      odd_open(unit, t, conflict);
    }
  }
  // The bank's row closes at cycle t (its precharge, or a refresh), if it is open; t is not
  // before the row's ACT.
  void close(uint32_t bank, uint64_t t) {
    if (!kRecords) return;
    const uint32_t unit = bank >> bank_bits_;
    Unit& u = units_[unit];
    const uint64_t bit = uint64_t{1} << (bank & bank_mask_);
    if ((u.open & bit) == 0) return;
    assert(t >= u.counted && t >= act_at_[bank]);
    u.open &= ~bit;
    push(unit, t << 1);
  }
  // Counts the unit's cycles before s, a cycle no later event of the unit precedes (the
  // caller has closed the rows a refresh or an idle page closed before it).
  void settle(uint32_t unit, uint64_t s);

  struct UnitCounts {
    uint64_t acts = 0;         // ACT commands
    uint64_t open_cycles = 0;  // cycles of [0, end) with a row open in at least one bank
  };
  // The counts of every unit over [0, end), and the series, as if every bank still open
  // closed at close_at(bank) (capped at end; not before its row's ACT; one before the
  // counting point counts from there). Does not change the history.
  template <class CloseAt>
  std::vector<UnitCounts> counts(uint64_t end, CloseAt close_at, ActivitySeries* series) const {
    std::vector<uint64_t> close(size_t{units_.size()} << bank_bits_, 0);
    for (uint32_t b = 0; b < close.size(); ++b)
      if (is_open(b))
        close[b] = std::max(std::min(close_at(b), end), units_[b >> bank_bits_].counted);
    return counts_closing(end, close, series);
  }
  // The unit's last settle point, and how far its counting has come (the settle point's
  // block): tests check that it follows the settle points.
  uint64_t settled(uint32_t unit) const { return units_[unit].settled; }
  uint64_t counted(uint32_t unit) const { return units_[unit].counted; }

 private:
  struct Unit {
    uint64_t open = 0;      // bit j: bank j of the unit has a row open
    uint64_t counted = 0;   // cycles before this are counted (a multiple of 64 but at the end)
    uint64_t settled = 0;   // the last settle point
    int64_t rows = 0;       // banks with a row open at cycle `counted`
    uint64_t open_cycles = 0, acts = 0;
    ActivitySeries::Span span, act_span;  // the series windows its counting is in
  };
  // The ACTs of a block (cycles 64 blk + j, j < 64): bit j of act, and of conflict if the ACT
  // closes the bank's row tRP before. A unit's ring holds the blocks from its counting
  // point's on; counting empties their words.
  struct Word {
    uint64_t act = 0, conflict = 0;
  };
  // The ring of a unit covers this many blocks (4096 cycles): small enough that the words in
  // use stay in the cache, long enough that an ACT nearly never lies past it (the controllers
  // settle every 1024 cycles of admissions, and grant within a few hundred cycles of them).
  static constexpr unsigned kRingBits = 6;
  static constexpr uint64_t kRingWords = uint64_t{1} << kRingBits;
  // A unit's events that do not fit its ring, not counted yet, from `head` on: cycle << 1 | 1
  // for an ACT, cycle << 1 for a close; in time order from `head` on if `sorted`.
  struct Events {
    std::vector<uint64_t> ev;
    size_t head = 0;
    bool sorted = true;
  };
  size_t slot_of(uint32_t unit, uint64_t blk) const {
    return (size_t{unit} << kRingBits) | (blk & (kRingWords - 1));
  }
  // The unit's block blk (empty if it has no ACTs in the ring).
  Word word_of(uint32_t unit, uint64_t blk) const {
    return blk - base_[unit] < kRingWords ? ring_[slot_of(unit, blk)] : Word{};
  }
  // The block of the unit's ring slot i (of kRingWords).
  uint64_t block_at(uint32_t unit, uint64_t i) const {
    return base_[unit] + ((i - base_[unit]) & (kRingWords - 1));
  }
  // An ACT that does not fit the ring: into the list, with its precharge if a `conflict`.
  void odd_open(uint32_t unit, uint64_t t, bool conflict);
  void push(uint32_t unit, uint64_t e) {
    Events& l = events_[unit];
    if (!l.ev.empty() && e < l.ev.back()) l.sorted = false;
    l.ev.push_back(e);
  }
  // The precharges of the conflicts in the 64 cycles from c (bit j: cycle c + j).
  uint64_t precharges(uint32_t unit, uint64_t c) const;
  // The first block from blk on, before `last`, with an event of the unit (or `last`).
  uint64_t next_event(uint32_t unit, uint64_t blk, uint64_t last) const;
  // Counts [counted, to) (to rounded down to a block unless `all`: then up to `to` exactly),
  // and the ACTs there into the series.
  void count(uint32_t unit, uint64_t to, bool all);
  // counts() with the open banks' close cycles (by flat bank index).
  std::vector<UnitCounts> counts_closing(uint64_t end, const std::vector<uint64_t>& close,
                                         ActivitySeries* series) const;

  std::vector<Unit> units_;
  // Every unit's ring of words, unit after unit: the unit's block blk is at blk mod kRingWords.
  std::vector<Word> ring_;
  std::vector<uint64_t> base_;  // by unit: the block of its counting point (its ring's first)
  std::vector<Events> events_;  // by unit
#ifndef NDEBUG
  std::vector<uint64_t> act_at_;  // by flat bank index: its last ACT (to check the closes)
#endif
  unsigned bank_bits_ = 0;
  uint64_t bank_mask_ = 0;
  uint64_t trp_ = 0;
  double tck_ns_ = 1.0;
  ActivitySeries series_;
};

}  // namespace npusim::models::hbm
