#include "models/hbm/bank_history.h"

#include <algorithm>

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

void ActivitySeries::remember_span(double tck_ns, size_t i) {
  // The first cycle of window i and of window i + 1, found from an estimate by the same
  // arithmetic as index() (monotonic in the cycle), so the span agrees with it exactly.
  auto first = [&](size_t k) {
    auto c = static_cast<uint64_t>(static_cast<double>(k) * window_ns / tck_ns);
    while (c > 0 && window_of(tck_ns, window_ns, c - 1) >= k) --c;
    while (window_of(tck_ns, window_ns, c) < k) ++c;
    return c;
  };
  span_lo_ = first(i), span_hi_ = first(i + 1);
  span_i_ = i, span_w_ = window_ns, span_tck_ = tck_ns;
}

void ActivitySeries::add_block(double tck_ns, uint64_t blk, uint64_t open, uint64_t act_bits) {
  if (open == 0 && act_bits == 0) return;
  const uint64_t c0 = blk << 6;
  if (c0 >= span_lo_ && c0 + 64 <= span_hi_ && span_w_ == window_ns && span_tck_ == tck_ns) {
    open_cycles[span_i_] += popcount(open);
    acts[span_i_] += popcount(act_bits);
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
      remember_span(tck_ns, i);
      m = (uint64_t{1} << (span_hi_ - c0)) - 1;  // span_hi_ lies within the block
    }
    open_cycles[i] += popcount(open & m);
    acts[i] += popcount(act_bits & m);
    open &= ~m, act_bits &= ~m;
  }
  // The next blocks most likely lie in the window of this one's last mark.
  remember_span(tck_ns, last);
}

BankHistory::BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns,
                         double window_ns, uint64_t horizon)
    : banks_(size_t{units} * banks_per_unit), bank_bits_(log2_ceil(banks_per_unit)),
      banks_per_unit_(banks_per_unit), tck_ns_(tck_ns) {
  // Marks lie from the counting point (at most kCarry before the last settle) to the horizon
  // after the last admission, with a word on either side.
  const uint64_t ring = kCarry + horizon + 256;
  units_.reserve(units);
  for (uint32_t i = 0; i < units; ++i)
    units_.push_back(Unit{CycleSet(ring), CycleSet(ring), 0, 0, 0});
  series_.window_ns = window_ns;
}

void BankHistory::settle(uint32_t unit, uint64_t s) {
  uint64_t lim = s;
  Bank* b = &banks_[size_t{unit} << bank_bits_];
  Unit& u = units_[unit];
  u.settled = std::max(u.settled, s);
  for (Bank* const e = b + banks_per_unit_; b != e; ++b) {
    if (!b->open) continue;
    if (s > b->since + kCarry) {  // marked up to s, carried on from there
      u.open_bits.set_range(b->since, s);
      b->since = s;
    }
    lim = std::min(lim, b->since);
  }
  if (lim >= u.counted + 64) count(u, lim, false);
}

void BankHistory::count(Unit& u, uint64_t to, bool all) {
  const uint64_t last = to >> 6;
  for (uint64_t blk = u.counted >> 6; blk < last; ++blk) {
    const uint64_t o = u.open_bits.block(blk), a = u.act_bits.block(blk);
    u.open_cycles += popcount(o);
    series_.add_block(tck_ns_, blk, o, a);
  }
  if (all && (to & 63) != 0 && to > u.counted) {  // the partial word up to `to`
    const uint64_t m = (uint64_t{1} << (to & 63)) - 1;
    const uint64_t o = u.open_bits.block(last) & m, a = u.act_bits.block(last) & m;
    u.open_cycles += popcount(o);
    series_.add_block(tck_ns_, last, o, a);
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
    // In steps of kCarry, as settle() would go: rows that close by then are marked, the
    // others marked up to the step and carried on, so no mark lies further back than the
    // ring reaches (a row may stay open long after the last admission, up to `end`).
    for (uint64_t s = u.counted;;) {
      s = std::min(s + kCarry, end);
      for (uint32_t b = first; b < first + banks_per_unit_; ++b) {
        Bank& k = h.banks_[b];
        if (!k.open) continue;
        if (close[b] <= s) {
          h.close(b, close[b]);
        } else if (k.since < s) {
          u.open_bits.set_range(k.since, s);
          k.since = s;
        }
      }
      h.count(u, s, s == end);
      if (s == end) break;
    }
    out.push_back(UnitCounts{u.acts, u.open_cycles});
  }
  if (series != nullptr) *series = h.series_;
  return out;
}

}  // namespace npusim::models::hbm
