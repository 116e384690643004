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

void ActivitySeries::add_block(double tck_ns, uint64_t blk, uint64_t open, Span& span,
                               bool to_acts) {
  if (open == 0) return;
  std::vector<uint64_t>& into = to_acts ? acts : open_cycles;
  const uint64_t c0 = blk << 6;
  if (c0 >= span.lo && c0 < span.hi && span.gen == gen_) {
    // The block starts in the span's window: its cycles there add up at once. When the rest
    // lies in the next window (not past the last one a series keeps), the span moves on to it.
    const uint64_t n = span.hi - c0;
    const uint64_t m = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    into[span.i] += popcount(open & m);
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
        into[next] += popcount(open);
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
    into[i] += popcount(open & m);
    open &= ~m;
  }
  // The next blocks most likely lie in the window of this one's last open cycle.
  span = span_of(tck_ns, last);
}

BankHistory::BankHistory(uint32_t units, uint32_t banks_per_unit, double tck_ns,
                         double window_ns, uint64_t trp)
    : units_(units), events_(units), bank_bits_(log2_ceil(banks_per_unit)), trp_(trp),
      tck_ns_(tck_ns) {
#ifndef NDEBUG
  act_at_.assign(size_t{units} << bank_bits_, 0);
#endif
  if (bank_bits_ > 6) throw std::invalid_argument("bank history: more than 64 banks in a unit");
  bank_mask_ = (uint64_t{1} << bank_bits_) - 1;
  ring_.assign(size_t{units} << kRingBits, Word{});
  base_.assign(units, 0);
  series_.window_ns = window_ns;
}

void BankHistory::odd_open(uint32_t unit, uint64_t t, bool conflict) {
  push(unit, t << 1 | 1);
  if (conflict) push(unit, (t - trp_) << 1);
}

uint64_t BankHistory::precharges(uint32_t unit, uint64_t c) const {
  const uint64_t x = c + trp_;  // the ACTs of the precharges in [c, c + 64)
  const uint64_t off = x & 63;
  const uint64_t lo = word_of(unit, x >> 6).conflict >> off;
  return off == 0 ? lo : lo | word_of(unit, (x >> 6) + 1).conflict << (64 - off);
}

uint64_t BankHistory::next_event(uint32_t unit, uint64_t blk, uint64_t last) const {
  uint64_t next = last;
  const Events& l = events_[unit];
  if (l.head < l.ev.size()) next = std::min(next, std::max(blk, l.ev[l.head] >> 7));
  // A word of a later block: its ACTs lie there, its precharges up to tRP before.
  for (uint64_t i = 0; i < kRingWords; ++i) {
    const uint64_t b = block_at(unit, i);
    if (ring_[slot_of(unit, b)].act != 0 && b >= blk)
      next = std::min(next, std::max(blk, ((b << 6) - std::min(b << 6, trp_)) >> 6));
  }
  return next;
}

void BankHistory::settle(uint32_t unit, uint64_t s) {
  if (!kRecords) return;
  Unit& u = units_[unit];
  u.settled = std::max(u.settled, s);
  if (s >= u.counted + 64) count(unit, s, false);
}

void BankHistory::count(uint32_t unit, uint64_t to, bool all) {
  Unit& u = units_[unit];
  Events& l = events_[unit];
  if (!l.sorted) {
    std::sort(l.ev.begin() + static_cast<std::ptrdiff_t>(l.head), l.ev.end());
    l.sorted = true;
  }
  const uint64_t last = to >> 6, stop = all && (to & 63) != 0 ? last + 1 : last;
  // The open cycles and ACTs of the blocks in the unit's series windows (u.span, u.act_span)
  // add up here and go to the series when a block lies elsewhere (add_block() may coarsen
  // the series: both sums go first).
  uint64_t open = 0, acts = 0;
  auto flush = [&] {
    if (open != 0) series_.add_to_span(u.span, open);
    if (acts != 0) series_.add_acts_to_span(u.act_span, acts);
    open = acts = 0;
  };
  // (k: the ACTs in a, popcount(a))
  auto add = [&](uint64_t blk, uint64_t m, uint64_t a, uint64_t k) {
    const uint64_t o = m == ~uint64_t{0} ? 64 : popcount(m);
    u.open_cycles += o;
    u.acts += k;
    const uint64_t c0 = blk << 6;
    if (series_.in_span(u.span, c0) && (a == 0 || series_.in_span(u.act_span, c0))) {
      open += o, acts += k;
      return;
    }
    flush();
    series_.add_block(tck_ns_, blk, m, u.span);
    series_.add_block(tck_ns_, blk, a, u.act_span, true);
  };
  int64_t n = u.rows;
  unsigned quiet = 0;  // blocks in a row without events
  for (uint64_t blk = u.counted >> 6; blk < stop;) {
    const uint64_t c0 = blk << 6;
    const uint64_t end = blk == last ? to : c0 + 64;  // (the partial block of `all`)
    const uint64_t mask = end - c0 == 64 ? ~uint64_t{0} : (uint64_t{1} << (end - c0)) - 1;
    const Word w = word_of(unit, blk);
    const uint64_t pre = precharges(unit, c0);
    if (w.act != 0) ring_[slot_of(unit, blk)] = Word{};  // (counted now)
    const uint64_t lend = (blk + 1) << 7;  // (the list's encoding of the block's end)
    const bool quiet_list = l.head == l.ev.size() || l.ev[l.head] >= lend;
    if ((w.act | pre) == 0 && quiet_list) {
      // No event: open throughout or closed. After a few such blocks, a run of them up to
      // the next event adds up at once.
      if (++quiet < 8 || blk + 1 >= last) {
        add(blk, n > 0 ? mask : 0, 0, 0);
        ++blk;
        continue;
      }
      const uint64_t e = next_event(unit, blk + 1, last);  // the run is [blk, e)
      if (n > 0) {
        for (uint64_t b = blk; b < e;) {  // window by window
          if (series_.in_span(u.span, b << 6)) {
            const uint64_t k = std::min(e, u.span.hi >> 6);
            if (k > b) {
              u.open_cycles += (k - b) << 6;
              open += (k - b) << 6;
              b = k;
              continue;
            }
          }
          add(b, ~uint64_t{0}, 0, 0);
          ++b;
        }
      }
      blk = e;
      quiet = 0;
      continue;
    }
    quiet = 0;
    const auto acts_in = static_cast<int64_t>(popcount(w.act));
    if (quiet_list && n > static_cast<int64_t>(popcount(pre))) {
      // More banks open at its start than precharges in it: open throughout.
      n += acts_in - static_cast<int64_t>(popcount(pre));
      add(blk, mask, w.act & mask, mask == ~uint64_t{0} ? acts_in : popcount(w.act & mask));
      ++blk;
      continue;
    }
    // The events in time order: the open cycles flip at each change between none open and
    // some (two changes in one cycle that flip and flip back cancel out).
    uint64_t m = n > 0 ? ~uint64_t{0} : 0;
    uint64_t ev = w.act | pre;
    size_t i = l.head;
    for (;;) {
      uint64_t lj = 64;
      if (i < l.ev.size() && l.ev[i] < lend) {
        const uint64_t c = l.ev[i] >> 1;
        lj = c < c0 ? 0 : c - c0;
      }
      const uint64_t bj = ev != 0 ? static_cast<uint64_t>(__builtin_ctzll(ev)) : 64;
      if (lj == 64 && bj == 64) break;
      const bool was = n > 0;
      if (bj <= lj) {
        const uint64_t b = uint64_t{1} << bj;
        n += int64_t{(w.act & b) != 0} - int64_t{(pre & b) != 0};
        ev &= ev - 1;
      } else {
        if ((l.ev[i] & 1) != 0) {  // an ACT of the list: to the series at once
          ++n;
          if ((l.ev[i] >> 1) < to) {
            flush();
            ++u.acts;
            series_.add_act(tck_ns_, l.ev[i] >> 1);
          }
        } else {
          --n;
        }
        ++i;
      }
      const uint64_t j = std::min(bj, lj);
      if (was != (n > 0)) m ^= ~uint64_t{0} << j;
    }
    l.head = i;
    add(blk, m & mask, w.act & mask, popcount(w.act & mask));
    ++blk;
  }
  flush();
  u.rows = n;
  u.counted = std::max(u.counted, stop == last ? last << 6 : to);
  base_[unit] = u.counted >> 6;
  if (l.head == l.ev.size()) {  // (the events counted are dropped)
    l.ev.clear(), l.head = 0;
  } else if (l.head >= 64) {
    l.ev.erase(l.ev.begin(), l.ev.begin() + static_cast<std::ptrdiff_t>(l.head)), l.head = 0;
  }
}

std::vector<BankHistory::UnitCounts> BankHistory::counts_closing(
    uint64_t end, const std::vector<uint64_t>& close, ActivitySeries* series) const {
  BankHistory h = *this;
  std::vector<UnitCounts> out;
  for (uint32_t unit = 0; unit < h.units_.size(); ++unit) {
    Unit& u = h.units_[unit];
    // ACTs at or after the end (none where the end is past every reservation) count first.
    for (uint64_t i = 0; i < kRingWords; ++i) {
      const uint64_t b = h.block_at(unit, i);
      if (b < end >> 6) continue;
      uint64_t a = h.ring_[h.slot_of(unit, b)].act;
      if (b == end >> 6) a &= ~uint64_t{0} << (end & 63);
      u.acts += popcount(a);
      h.series_.add_block(tck_ns_, b, a, u.act_span, true);
    }
    const Events& l = h.events_[unit];
    for (size_t k = l.head; k < l.ev.size(); ++k)
      if ((l.ev[k] & 1) != 0 && (l.ev[k] >> 1) >= end) {
        ++u.acts;
        h.series_.add_act(tck_ns_, l.ev[k] >> 1);
      }
    const uint32_t first = unit << bank_bits_;
    for (uint32_t b = first; b <= (first | bank_mask_); ++b)
      if (h.is_open(b)) h.close(b, close[b]);
    h.count(unit, end, true);
    out.push_back(UnitCounts{u.acts, u.open_cycles});
  }
  if (series != nullptr) *series = h.series_;
  return out;
}

}  // namespace npusim::models::hbm
