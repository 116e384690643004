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
// An interval costs the same however long the row stayed open. Each unit keeps segments,
// spans of cycles that all have a row open: the later one, the earlier one before it, and
// two older ones. An interval that meets the later segment widens it (while the unit is busy,
// nearly all do, at the cost of a few comparisons), and takes in the earlier one if it reaches
// back that far; one that meets the earlier or an older segment widens that. One after both
// becomes the later segment, the later one the earlier one, and the earlier one an older one;
// any other interval becomes an older segment. An older segment that has no free slot (one
// whose cycles are all counted) is recorded as two events in the unit's list, +1 open row at
// its start and -1 at its end (from the counting point on: the cycles before it are counted
// already); few segments come to that (a few in a hundred ACTs on a random stream). Counting
// goes through the cycles in 64-cycle blocks in time order, with the unit's events sorted,
// keeping the count of recorded intervals open: a cycle is open if that count is above zero
// or a segment holds it. A run of blocks without events adds up at once where that count
// is above zero or the later segment holds them (most blocks while the unit is busy) and
// where no segment meets them (closed: an idle unit costs nothing per cycle). The events of
// a unit stay in its list until they are counted, however far apart
// they lie (across a long idle with writes waiting in a write buffer, the controller cannot
// settle past the last admission before it while events far later come).
//
// ACTs are counted per window of the series as they come: each unit holds the count of its
// current window and of the one before (ACTs arrive nearly in time order), adds them to the
// series when its ACTs move on to a later window, and adds an ACT earlier than both at once.
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
  // Adds the open cycles of the 64 from 64 * blk: bit j of `open` is cycle 64 blk + j. `span`
  // becomes the window of the last one.
  void add_block(double tck_ns, uint64_t blk, uint64_t open, Span& span);
  // Whether the 64 cycles from c0 lie in `span`: add_to_span() adds their count there.
  bool in_span(const Span& span, uint64_t c0) const {
    return c0 >= span.lo && c0 + 64 <= span.hi && span.gen == gen_;
  }
  void add_to_span(const Span& span, uint64_t open) { open_cycles[span.i] += open; }
  // The span of the window of cycle c (coarsening the series as far as it needs).
  Span span_at(double tck_ns, uint64_t c) { return span_of(tck_ns, index(tck_ns, c)); }
  // Adds n ACTs to window i of the series as it was at `gen` coarsenings.
  void add_acts(size_t i, uint64_t gen, uint64_t n) { acts[i >> (gen_ - gen)] += n; }
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
  BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns, double window_ns);

  bool is_open(uint32_t bank) const { return banks_[bank].open(); }  // flat bank index
  // A row opens in `bank` (of `unit`) at cycle t (its ACT); with `conflict`, the row open
  // before closes at `pre` (its precharge), if it is open.
  void open(uint32_t unit, uint32_t bank, uint64_t t, bool conflict = false, uint64_t pre = 0) {
    if (!kRecords) return;
    assert(unit == bank >> bank_bits_);
    Bank& b = banks_[bank];
    Unit& u = units_[unit];
    if (conflict && b.open()) add(u, unit, b.since, pre);
    b.since = t;
    if (t - u.act_lo < u.act_len) {
      ++u.act_n;
    } else {
      act_elsewhere(u, t);
    }
  }
  // The bank's row closes at cycle t (its precharge, or a refresh), if it is open.
  void close(uint32_t bank, uint64_t t) {
    if (!kRecords) return;
    Bank& b = banks_[bank];
    if (!b.open()) return;
    const uint64_t since = b.since;
    b.since = kClosed;
    const uint32_t unit = bank >> bank_bits_;
    add(units_[unit], unit, since, t);
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
      if (banks_[b].open()) close[b] = std::max(banks_[b].since, std::min(close_at(b), end));
    return counts_closing(end, close, series);
  }
  // The unit's last settle point, and how far its counting has come (the oldest row still
  // open then, or kCarry before the settle point for a row open longer): tests check that
  // it follows the settle points.
  uint64_t settled(uint32_t unit) const { return units_[unit].settled; }
  uint64_t counted(uint32_t unit) const { return units_[unit].counted; }
  // A row open longer than this before a settle is added up to the settle point and carried
  // on from there, so the counting keeps up with the settle points.
  static constexpr uint64_t kCarry = 4096;

 private:
  // Older segments a unit keeps before it records one as events.
  static constexpr unsigned kOld = 2;
  static constexpr uint64_t kClosed = UINT64_MAX;
  struct Bank {
    // The ACT of its open row, or the point it was carried on to; kClosed: no row open.
    uint64_t since = kClosed;
    bool open() const { return since != kClosed; }
  };
  struct alignas(64) Unit {
    // What an ACT and a closing interval touch first, in one cache line. ACTs in the cycles
    // [act_lo, act_lo + act_len) (act_span's) not yet added to the series: act_n.
    uint64_t act_lo = 0, act_len = 0, act_n = 0;
    // The segments: every cycle of [seg_lo, seg_hi) is open, and of [prev_lo, prev_hi), which
    // ends before the other starts, and of the older ones, [old_lo[k], old_hi[k]) (empty ones
    // have old_lo == old_hi).
    uint64_t seg_lo = 0, seg_hi = 0, prev_lo = 0, prev_hi = 0;
    uint64_t old_lo[kOld] = {}, old_hi[kOld] = {};
    // And in those of the window before act_span's, prev_span: prev_n (ACTs come nearly in
    // time order; one after the span moves both on, one before both adds to the series at
    // once).
    ActivitySeries::Span act_span, prev_span;
    uint64_t prev_n = 0;
    uint64_t counted = 0;  // cycles before this are counted (a multiple of 64)
    uint64_t settled = 0;  // the last settle point
    uint64_t open_cycles = 0, acts = 0;  // (acts: those added to the series so far)
    int64_t rows = 0;  // recorded intervals that cover cycle `counted`
    ActivitySeries::Span span;  // the series window its counting is in
  };
  // A unit's recorded events not counted yet, from `head` on: cycle << 1 | 1 for the start of
  // a recorded interval, cycle << 1 for its end; in time order from `head` on if `sorted`.
  struct Events {
    std::vector<uint64_t> ev;
    size_t head = 0;
    bool sorted = true;
  };
  // Adds the interval [lo, hi) of one of the unit's banks: one that meets the later segment
  // (most, while the unit is busy) joins it, and the earlier one with it if it reaches that
  // far back; one that meets only the earlier segment joins that; place() takes the others.
  void add(Unit& u, uint32_t unit, uint64_t lo, uint64_t hi) {
    if (lo >= hi) return;
    if (lo <= u.seg_hi && hi >= u.seg_lo) {
      if (lo <= u.prev_hi) {  // (the earlier segment ends before the later one starts)
        lo = std::min(lo, u.prev_lo);
        u.prev_lo = u.prev_hi = 0;
      }
      u.seg_lo = std::min(u.seg_lo, lo);
      u.seg_hi = std::max(u.seg_hi, hi);
      return;
    }
    if (lo <= u.prev_hi && hi >= u.prev_lo) {
      u.prev_lo = std::min(u.prev_lo, lo);
      u.prev_hi = std::max(u.prev_hi, hi);
      return;
    }
    place(unit, lo, hi);
  }
  // An interval that meets neither segment: before the later one, it joins an older segment
  // it meets or becomes one (keep()); after both, it is the later segment from then on, the
  // later one the earlier one, and the earlier one an older one.
  void place(uint32_t unit, uint64_t lo, uint64_t hi);
  // Keeps [lo, hi) (from the counting point on) as an older segment, in a free slot or in
  // place of the one that ends first, which is recorded as events.
  void keep(Unit& u, uint32_t unit, uint64_t lo, uint64_t hi);
  // An ACT at t outside the unit's act_span.
  void act_elsewhere(Unit& u, uint64_t t);
  // Adds the unit's pending ACTs to the series.
  void flush_acts(Unit& u) {
    if (u.act_n != 0) series_.add_acts(u.act_span.i, u.act_span.gen, u.act_n);
    if (u.prev_n != 0) series_.add_acts(u.prev_span.i, u.prev_span.gen, u.prev_n);
    u.acts += u.act_n + u.prev_n;
    u.act_n = u.prev_n = 0;
  }
  // Records the interval [lo, hi) as events (nothing if it is empty).
  void record(uint32_t unit, uint64_t lo, uint64_t hi);
  // The cycles of block blk with a recorded interval of the unit open (bit j: cycle 64 blk +
  // j), from its sorted events, which it takes, and u.rows, which it moves on to the block's
  // end.
  static uint64_t take(Unit& u, Events& e, uint64_t blk);
  // The cycles of block blk in the unit's segments.
  static uint64_t covered(const Unit& u, uint64_t blk);
  // The first cycle of the unit's segments that end after cycle c (UINT64_MAX: none).
  static uint64_t next_open(const Unit& u, uint64_t c);
  // Counts [counted, to) (to rounded down to a block unless `all`: then up to `to` exactly).
  // The blocks in the unit's series window add up there; a block elsewhere goes through
  // add_block(), which moves the window on.
  void count(uint32_t unit, uint64_t to, bool all);
  // counts() with the open banks' close cycles (by flat bank index).
  std::vector<UnitCounts> counts_closing(uint64_t end, const std::vector<uint64_t>& close,
                                         ActivitySeries* series) const;

  std::vector<Unit> units_;
  std::vector<Bank> banks_;  // by flat bank index
  std::vector<Events> events_;  // by unit
  unsigned bank_bits_ = 0;
  uint32_t banks_per_unit_ = 1;
  double tck_ns_ = 1.0;
  ActivitySeries series_;
};

}  // namespace npusim::models::hbm
