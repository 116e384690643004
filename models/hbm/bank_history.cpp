#include "models/hbm/bank_history.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

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
  }
  const auto i = static_cast<size_t>(static_cast<double>(cycle) * tck_ns / window_ns);
  if (i >= acts.size()) {
    acts.resize(i + 1, 0);
    open_cycles.resize(i + 1, 0);
  }
  return i;
}

ActivitySeries::Span ActivitySeries::span_of(double tck_ns, size_t i) const {
  // The first cycle of window i and of window i + 1, found from an estimate by the same
  // arithmetic as index() (monotonic in the cycle), so the span agrees with it exactly.
  auto first = [&](size_t k) {
    auto c = static_cast<uint64_t>(static_cast<double>(k) * window_ns / tck_ns);
    while (c > 0 && window_of(tck_ns, window_ns, c - 1) >= k) --c;
    while (window_of(tck_ns, window_ns, c) < k) ++c;
    return c;
  };
  return Span{first(i), first(i + 1), i, window_ns, tck_ns};
}

void ActivitySeries::add_block(double tck_ns, uint64_t blk, uint64_t open, uint64_t act_bits,
                               Span& span) {
  if (open == 0 && act_bits == 0) return;
  const uint64_t c0 = blk << 6;
  if (in_span(span, tck_ns, c0)) {
    open_cycles[span.i] += popcount(open);
    acts[span.i] += popcount(act_bits);
    return;
  }
  // The last marked cycle's window first (it coarsens the series as far as needed, so the
  // indices below agree with it).
  const uint64_t top = c0 + 63 - static_cast<uint64_t>(__builtin_clzll(open | act_bits));
  const size_t last = index(tck_ns, top);
  while (open != 0 || act_bits != 0) {
    // The window of the first marked cycle left, and the block's cycles in it: up to the
    // first cycle of the next window.
    const uint64_t lo = c0 + static_cast<uint64_t>(__builtin_ctzll(open | act_bits));
    const size_t i = index(tck_ns, lo);
    uint64_t m = ~uint64_t{0};
    if (i != last) {
      span = span_of(tck_ns, i);
      m = (uint64_t{1} << (span.hi - c0)) - 1;  // span.hi lies within the block
    }
    open_cycles[i] += popcount(open & m);
    acts[i] += popcount(act_bits & m);
    open &= ~m, act_bits &= ~m;
  }
  // The next blocks most likely lie in the window of this one's last mark.
  span = span_of(tck_ns, last);
}

BankHistory::BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns,
                         double window_ns, uint64_t horizon)
    : banks_(size_t{units} * banks_per_unit), bank_bits_(log2_ceil(banks_per_unit)),
      banks_per_unit_(banks_per_unit), tck_ns_(tck_ns) {
  // A cycle's delta lies within the unit's banks either way: every recorded span holds, at
  // each of its cycles, a row interval that no other one holds.
  if (banks_per_unit > INT16_MAX) throw std::invalid_argument("bank history: too many banks");
  // Events and marks lie from the counting point (at most kCarry before the last settle) to
  // the horizon after the last admission, with a block on either side.
  const uint64_t ring = kCarry + horizon + 256;
  ring_bits_ = log2_ceil((ring + 63) / 64);
  ring_mask_ = (uint64_t{1} << ring_bits_) - 1;
  ring_.assign(size_t{units} << ring_bits_, Block{});
  Unit unit;
  unit.act_bits = CycleSet(ring);
  units_.assign(units, unit);
  series_.window_ns = window_ns;
}

void BankHistory::settle(uint32_t unit, uint64_t s) {
  uint64_t lim = s;
  Bank* b = &banks_[size_t{unit} << bank_bits_];
  Unit& u = units_[unit];
  u.settled = std::max(u.settled, s);
  for (Bank* const e = b + banks_per_unit_; b != e; ++b) {
    if (!b->open) continue;
    if (s > b->since + kCarry) {  // added up to s, carried on from there
      add(u, unit, b->since, s);
      b->since = s;
    }
    lim = std::min(lim, b->since);
  }
  if (lim >= u.counted + 64) count(unit, lim, false);
}

inline uint64_t BankHistory::take(Unit& u, uint32_t unit, uint64_t blk) const {
  const Block& k = ring_[(size_t{unit} << ring_bits_) | (blk & ring_mask_)];
  int64_t n = u.rows;
  if (k.blk != blk) return n > 0 ? ~uint64_t{0} : 0;  // no events
  if (n > int64_t{k.closes}) {  // fewer ends than rows open at the start: open throughout
    u.rows = n + int64_t{k.opens} - int64_t{k.closes};
    return ~uint64_t{0};
  }
  // The events in time order: the open cycles flip at each change between none open and some.
  uint64_t open = n > 0 ? ~uint64_t{0} : 0;
  for (uint64_t ev = k.cycles; ev != 0; ev &= ev - 1) {
    const auto j = static_cast<unsigned>(__builtin_ctzll(ev));
    const bool was = n > 0;
    n += k.delta[j];
    if (was != (n > 0)) open ^= ~uint64_t{0} << j;
  }
  u.rows = n;
  return open;
}

void BankHistory::place(uint32_t unit, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return;
  Unit& u = units_[unit];
  if (lo <= u.seg_hi && hi >= u.seg_lo) {  // it meets the later segment, from before it
    if (lo <= u.prev_hi) {  // and the earlier one (which ends before the later one starts)
      u.seg_lo = std::min(u.prev_lo, lo);
      u.prev_lo = u.prev_hi = 0;
    } else {
      u.seg_lo = std::min(u.seg_lo, lo);
    }
    u.seg_hi = std::max(u.seg_hi, hi);
    return;
  }
  if (lo <= u.prev_hi && hi >= u.prev_lo) {
    u.prev_lo = std::min(u.prev_lo, lo);
    u.prev_hi = std::max(u.prev_hi, hi);
    return;
  }
  if (lo < u.seg_hi) {  // before the later segment
    record(unit, lo, hi);
    return;
  }
  // After both: the earlier segment is recorded (its cycles before the counting point are
  // counted already), the later one is the earlier one from now on.
  record(unit, std::max(u.prev_lo, u.counted), u.prev_hi);
  u.prev_lo = u.seg_lo, u.prev_hi = u.seg_hi;
  u.seg_lo = lo, u.seg_hi = hi;
}

void BankHistory::record(uint32_t unit, uint64_t lo, uint64_t hi) {
  if (lo >= hi) return;
  Block& a = block_for(unit, lo >> 6);
  a.cycles |= uint64_t{1} << (lo & 63);
  ++a.delta[lo & 63];
  ++a.opens;
  Block& z = block_for(unit, hi >> 6);
  z.cycles |= uint64_t{1} << (hi & 63);
  --z.delta[hi & 63];
  ++z.closes;
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
  return in(u.seg_lo, u.seg_hi) | in(u.prev_lo, u.prev_hi);
}

void BankHistory::count(uint32_t unit, uint64_t to, bool all) {
  Unit& u = units_[unit];
  const uint64_t last = to >> 6;
  uint64_t open = 0, acts = 0;
  for (uint64_t blk = u.counted >> 6; blk < last; ++blk) {
    uint64_t m = take(u, unit, blk);
    if (m != ~uint64_t{0}) m |= covered(u, blk);
    const uint64_t a = u.act_bits.block(blk);
    const uint64_t o = m == ~uint64_t{0} ? 64 : popcount(m);
    u.open_cycles += o;
    if (series_.in_span(u.span, tck_ns_, blk << 6)) {
      open += o;
      acts += popcount(a);
    } else {
      series_.add_to_span(u.span, open, acts);
      open = acts = 0;
      series_.add_block(tck_ns_, blk, m, a, u.span);
    }
  }
  series_.add_to_span(u.span, open, acts);
  if (all && (to & 63) != 0 && to > u.counted) {  // the partial block up to `to`
    const uint64_t mask = (uint64_t{1} << (to & 63)) - 1;
    const uint64_t o = (take(u, unit, last) | covered(u, last)) & mask;
    const uint64_t a = u.act_bits.block(last) & mask;
    u.open_cycles += popcount(o);
    series_.add_block(tck_ns_, last, o, a, u.span);
    u.counted = to;
    return;
  }
  u.counted = std::max(u.counted, last << 6);
}

std::vector<BankHistory::UnitCounts> BankHistory::counts_closing(
    uint64_t end, const std::vector<uint64_t>& close, ActivitySeries* series) const {
  BankHistory h = *this;
  std::vector<UnitCounts> out;
  for (uint32_t unit = 0; unit < h.units_.size(); ++unit) {
    Unit& u = h.units_[unit];
    const uint32_t first = unit << bank_bits_;
    // In steps of kCarry, as settle() would go: rows that close by then are recorded, the
    // others recorded up to the step and carried on, so no event lies further back than the
    // ring reaches (a row may stay open long after the last admission, up to `end`).
    for (uint64_t s = u.counted;;) {
      s = std::min(s + kCarry, end);
      for (uint32_t b = first; b < first + banks_per_unit_; ++b) {
        Bank& k = h.banks_[b];
        if (!k.open) continue;
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
    out.push_back(UnitCounts{u.acts, u.open_cycles});
  }
  if (series != nullptr) *series = h.series_;
  return out;
}

}  // namespace npusim::models::hbm
