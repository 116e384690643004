#include "models/hbm/bank_history.h"

#include <algorithm>
#include <cstdint>

#include "models/bits.h"

namespace npusim::models::hbm {

namespace {

constexpr size_t kMaxWindows = size_t{1} << 16;  // as BandwidthSeries

// The number of set bits, by shifts and masks: the baseline x86-64 target has no POPCNT
// instruction, and __builtin_popcountll becomes a library call there.
inline uint64_t popcount(uint64_t v) {
  v -= (v >> 1) & 0x5555555555555555ULL;
  v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return (v * 0x0101010101010101ULL) >> 56;
}

// The window of a cycle as ActivitySeries::index() computes it, without coarsening.
size_t window_of(double tck_ns, double window_ns, uint64_t cycle) {
  return static_cast<size_t>(static_cast<double>(cycle) * tck_ns / window_ns);
}

}  // namespace

size_t ActivitySeries::index(double tck_ns, uint64_t cycle) {
  while (static_cast<double>(cycle) * tck_ns / window_ns >= static_cast<double>(kMaxWindows)) {
    for (size_t j = 0; j < acts.size(); ++j) {  // coarsen: the windows double, pairs merge
      acts[j / 2] = (j % 2 ? acts[j / 2] : 0) + acts[j];
      open_cycles[j / 2] = (j % 2 ? open_cycles[j / 2] : 0) + open_cycles[j];
    }
    acts.resize((acts.size() + 1) / 2);
    open_cycles.resize(acts.size());
    window_ns *= 2;
    ++gen_;
  }
  const auto i = static_cast<size_t>(static_cast<double>(cycle) * tck_ns / window_ns);
  if (i >= acts.size()) {
    acts.resize(i + 1, 0);
    open_cycles.resize(i + 1, 0);
  }
  return i;
}

uint64_t ActivitySeries::first_cycle(double tck_ns, size_t k) const {
  // From an estimate, by the same arithmetic as index() (monotonic in the cycle), so that
  // spans agree with it exactly.
  auto c = static_cast<uint64_t>(static_cast<double>(k) * window_ns / tck_ns);
  while (c > 0 && window_of(tck_ns, window_ns, c - 1) >= k) --c;
  while (window_of(tck_ns, window_ns, c) < k) ++c;
  return c;
}

void ActivitySeries::add_block(double tck_ns, uint64_t blk, uint64_t open, Span& span) {
  if (open == 0) return;
  const uint64_t c0 = blk << 6;
  if (c0 >= span.lo && c0 < span.hi && span.gen == gen_) {
    // The block starts in the span's window: its cycles there add up at once. When the rest
    // lies in the next window (not past the last one a series keeps), the span moves on to it.
    const uint64_t n = span.hi - c0;
    const uint64_t m = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    open_cycles[span.i] += popcount(open & m);
    open &= ~m;
    if (open == 0) return;
    const size_t next = span.i + 1;
    if (next + 1 < kMaxWindows) {
      const uint64_t hi = first_cycle(tck_ns, next + 1);
      if (c0 + 63 - static_cast<uint64_t>(__builtin_clzll(open)) < hi) {
        if (next >= acts.size()) {
          acts.resize(next + 1, 0);
          open_cycles.resize(next + 1, 0);
        }
        span = Span{span.hi, hi, next, gen_};
        open_cycles[next] += popcount(open);
        return;
      }
    }
  }
  // The last open cycle's window first (it coarsens the series as far as needed, so the
  // indices below agree with it).
  const size_t last = index(tck_ns, c0 + 63 - static_cast<uint64_t>(__builtin_clzll(open)));
  while (open != 0) {
    // The window of the first open cycle left, and the block's cycles in it: up to the first
    // cycle of the next window.
    const size_t i = index(tck_ns, c0 + static_cast<uint64_t>(__builtin_ctzll(open)));
    uint64_t m = ~uint64_t{0};
    if (i != last) {
      span = span_of(tck_ns, i);
      m = (uint64_t{1} << (span.hi - c0)) - 1;  // span.hi lies within the block
    }
    open_cycles[i] += popcount(open & m);
    open &= ~m;
  }
  // The next blocks most likely lie in the window of this one's last open cycle.
  span = span_of(tck_ns, last);
}

BankHistory::BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns,
                         double window_ns)
    : banks_(size_t{units} * banks_per_unit), events_(units), bank_bits_(log2_ceil(banks_per_unit)),
      banks_per_unit_(banks_per_unit), tck_ns_(tck_ns) {
  Unit unit;
  units_.assign(units, unit);
  series_.window_ns = window_ns;
}

void BankHistory::act_elsewhere(Unit& u, uint64_t t) {
  if (t < u.act_lo) {
    if (t >= u.prev_span.lo && t < u.prev_span.hi) {
      ++u.prev_n;
    } else {
      series_.add_act(tck_ns_, t);
      ++u.acts;
    }
    return;
  }
  const ActivitySeries::Span next = series_.span_at(tck_ns_, t);
  if (next.gen == u.act_span.gen && next.i == u.act_span.i + 1) {  // the next window
    const uint64_t n = u.act_n;
    u.act_n = 0;
    flush_acts(u);  // (the window before)
    u.prev_span = u.act_span, u.prev_n = n;
  } else {
    flush_acts(u);
    u.prev_span = ActivitySeries::Span{};
  }
  u.act_span = next;
  u.act_lo = next.lo, u.act_len = next.hi - next.lo;
  u.act_n = 1;
}

void BankHistory::settle(uint32_t unit, uint64_t s) {
  if (!kRecords) return;
  uint64_t lim = s;
  Bank* b = &banks_[size_t{unit} << bank_bits_];
  Unit& u = units_[unit];
  u.settled = std::max(u.settled, s);
  for (Bank* const e = b + banks_per_unit_; b != e; ++b) {
    if (!b->open()) continue;
    if (s > b->since + kCarry) {  // added up to s, carried on from there
      add(u, unit, b->since, s);
      b->since = s;
    }
    lim = std::min(lim, b->since);
  }
  if (lim >= u.counted + 64) count(unit, lim, false);
}

inline uint64_t BankHistory::take(Unit& u, Events& e, uint64_t blk) {
  int64_t n = u.rows;
  const uint64_t end = (blk + 1) << 7;  // (the events' encoding of the block's end)
  size_t i = e.head;
  const size_t size = e.ev.size();
  if (i == size || e.ev[i] >= end) return n > 0 ? ~uint64_t{0} : 0;  // no events
  // The events in time order: the open cycles flip at each change between none open and some
  // (two events in one cycle that flip and flip back cancel out).
  uint64_t open = n > 0 ? ~uint64_t{0} : 0;
  for (; i < size && e.ev[i] < end; ++i) {
    const uint64_t v = e.ev[i];
    const bool was = n > 0;
    n += (v & 1) != 0 ? 1 : -1;
    if (was != (n > 0)) open ^= ~uint64_t{0} << ((v >> 1) & 63);
  }
  e.head = i;
  u.rows = n;
  return open;
}

void BankHistory::place(uint32_t unit, uint64_t lo, uint64_t hi) {
  Unit& u = units_[unit];
  if (lo < u.seg_hi) {  // before the later segment: it joins an older segment it meets
    for (unsigned k = 0; k < kOld; ++k) {
      if (u.old_lo[k] < u.old_hi[k] && lo <= u.old_hi[k] && hi >= u.old_lo[k]) {
        u.old_lo[k] = std::min(u.old_lo[k], lo);
        u.old_hi[k] = std::max(u.old_hi[k], hi);
        return;
      }
    }
    keep(u, unit, lo, hi);  // or becomes one
    return;
  }
  // After both: the later segment is the earlier one from now on, and the earlier one an
  // older one.
  keep(u, unit, u.prev_lo, u.prev_hi);
  u.prev_lo = u.seg_lo, u.prev_hi = u.seg_hi;
  u.seg_lo = lo, u.seg_hi = hi;
}

void BankHistory::keep(Unit& u, uint32_t unit, uint64_t lo, uint64_t hi) {
  lo = std::max(lo, u.counted);  // (the cycles before the counting point are counted already)
  if (lo >= hi) return;
  // A free slot: an empty one, or one whose cycles are all counted.
  unsigned k = 0;
  while (k < kOld && u.old_lo[k] < u.old_hi[k] && u.old_hi[k] > u.counted) ++k;
  if (k == kOld) {  // none free: the one that ends first is recorded as events
    k = 0;
    for (unsigned j = 1; j < kOld; ++j)
      if (u.old_hi[j] < u.old_hi[k]) k = j;
    record(unit, std::max(u.old_lo[k], u.counted), u.old_hi[k]);
  }
  u.old_lo[k] = lo, u.old_hi[k] = hi;
}

void BankHistory::record(uint32_t unit, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return;
  Events& e = events_[unit];
  const uint64_t start = lo << 1 | 1;
  if (!e.ev.empty() && start < e.ev.back()) e.sorted = false;
  e.ev.push_back(start);
  e.ev.push_back(hi << 1);  // (after the start)
}

inline uint64_t BankHistory::covered(const Unit& u, uint64_t blk) {
  const uint64_t c0 = blk << 6;
  if (u.seg_lo <= c0 && u.seg_hi >= c0 + 64) return ~uint64_t{0};
  auto in = [c0](uint64_t lo, uint64_t hi) {
    if (hi <= c0 || lo >= c0 + 64) return uint64_t{0};
    if (lo <= c0 && hi >= c0 + 64) return ~uint64_t{0};
    lo = std::max(lo, c0) - c0, hi = std::min(hi, c0 + 64) - c0;
    return (hi == 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1);
  };
  uint64_t m = in(u.seg_lo, u.seg_hi) | in(u.prev_lo, u.prev_hi);
  for (unsigned k = 0; k < kOld; ++k) m |= in(u.old_lo[k], u.old_hi[k]);
  return m;
}

inline uint64_t BankHistory::next_open(const Unit& u, uint64_t c) {
  uint64_t next = UINT64_MAX;
  auto at = [&](uint64_t lo, uint64_t hi) {
    if (lo < hi && hi > c) next = std::min(next, lo);
  };
  at(u.seg_lo, u.seg_hi);
  at(u.prev_lo, u.prev_hi);
  for (unsigned k = 0; k < kOld; ++k) at(u.old_lo[k], u.old_hi[k]);
  return next;
}

void BankHistory::count(uint32_t unit, uint64_t to, bool all) {
  Unit& u = units_[unit];
  Events& e = events_[unit];
  if (!e.sorted) {
    std::sort(e.ev.begin() + static_cast<std::ptrdiff_t>(e.head), e.ev.end());
    e.sorted = true;
  }
  const uint64_t last = to >> 6;
  uint64_t open = 0;
  for (uint64_t blk = u.counted >> 6; blk < last;) {
    // Up to the block of the next event, a run of blocks in which a recorded interval is open
    // throughout or the later segment holds every cycle adds up at once (while the unit is
    // busy, most blocks), within the series window; a run that no segment meets is closed.
    const uint64_t c0 = blk << 6;
    const uint64_t quiet = std::min(last, e.head < e.ev.size() ? e.ev[e.head] >> 7 : last);
    if (quiet > blk) {
      if (u.rows > 0 || (u.seg_lo <= c0 && u.seg_hi >= c0 + 64)) {
        if (series_.in_span(u.span, c0)) {
          const uint64_t end =
              std::min({quiet, u.rows > 0 ? quiet : u.seg_hi >> 6, u.span.hi >> 6});
          const uint64_t n = (end - blk) << 6;
          u.open_cycles += n;
          open += n;
          blk = end;
          continue;
        }
      } else if (const uint64_t next = next_open(u, c0); next >= c0 + 64) {
        blk = std::min(quiet, next >> 6);
        continue;
      }
    }
    uint64_t m = take(u, e, blk);
    if (m != ~uint64_t{0}) m |= covered(u, blk);
    const uint64_t o = m == ~uint64_t{0} ? 64 : popcount(m);
    u.open_cycles += o;
    if (series_.in_span(u.span, blk << 6)) {
      open += o;
    } else {
      if (open != 0) series_.add_to_span(u.span, open);
      open = 0;
      series_.add_block(tck_ns_, blk, m, u.span);
    }
    ++blk;
  }
  if (open != 0) series_.add_to_span(u.span, open);
  if (all && (to & 63) != 0 && to > u.counted) {  // the partial block up to `to`
    const uint64_t mask = (uint64_t{1} << (to & 63)) - 1;
    const uint64_t o = (take(u, e, last) | covered(u, last)) & mask;
    u.open_cycles += popcount(o);
    series_.add_block(tck_ns_, last, o, u.span);
    u.counted = to;
    return;
  }
  u.counted = std::max(u.counted, last << 6);
  if (e.head == e.ev.size()) {  // (the events counted are dropped)
    e.ev.clear(), e.head = 0;
  } else if (e.head >= 64) {
    e.ev.erase(e.ev.begin(), e.ev.begin() + static_cast<std::ptrdiff_t>(e.head)), e.head = 0;
  }
}

std::vector<BankHistory::UnitCounts> BankHistory::counts_closing(
    uint64_t end, const std::vector<uint64_t>& close, ActivitySeries* series) const {
  BankHistory h = *this;
  std::vector<UnitCounts> out;
  for (uint32_t unit = 0; unit < h.units_.size(); ++unit) {
    Unit& u = h.units_[unit];
    const uint32_t first = unit << bank_bits_;
    // In steps of kCarry, as settle() would go: rows that close by then are recorded, the
    // others recorded up to the step and carried on (a row may stay open long after the last
    // admission, up to `end`).
    for (uint64_t s = u.counted;;) {
      s = std::min(s + kCarry, end);
      for (uint32_t b = first; b < first + banks_per_unit_; ++b) {
        Bank& k = h.banks_[b];
        if (!k.open()) continue;
        if (close[b] <= s) {
          h.close(b, close[b]);
        } else if (k.since < s) {
          h.add(u, unit, k.since, s);
          k.since = s;
        }
      }
      h.count(unit, s, s == end);
      if (s == end) break;
    }
    h.flush_acts(u);
    out.push_back(UnitCounts{u.acts, u.open_cycles});
  }
  if (series != nullptr) *series = h.series_;
  return out;
}

}  // namespace npusim::models::hbm
