#include "models/snitch/tcdm_timing.h"

#include <algorithm>
#include <stdexcept>

namespace npusim::models {

TcdmTiming::TcdmTiming(const TcdmGeometry& g) : g_(g) {
  if (g.banks == 0 || g.bank_width == 0)
    throw std::invalid_argument("tcdm: banks and bank_width must be positive");
  slots_.resize((uint64_t{g.banks} + 1) * kWindowWords);
}

bool TcdmTiming::taken(uint32_t bank, uint64_t cycle) const {
  const uint64_t w = cycle / 64;
  const Slot& s = slots_[uint64_t{bank} * kWindowWords + w % kWindowWords];
  return s.word == w && (s.bits >> (cycle % 64) & 1u);
}

TcdmTiming::Take TcdmTiming::try_take(uint32_t first, uint32_t n, bool wide, uint64_t cycle) {
  const uint64_t w = cycle / 64, bit = uint64_t{1} << (cycle % 64), idx = w % kWindowWords;
  auto busy = [&](uint32_t r) {
    const Slot& s = slot(r, idx);
    return s.word == w && (s.bits & bit);
  };
  auto take = [&](uint32_t r) {
    Slot& s = slot(r, idx);
    if (s.word != w) s = Slot{w, 0};  // an older word falls out of the window
    s.bits |= bit;
  };
  if (wide && busy(g_.banks)) return Take::kPortBusy;
  for (uint32_t k = 0; k < n; ++k)
    if (busy((first + k) % g_.banks)) return Take::kBankBusy;
  if (wide) take(g_.banks);
  for (uint32_t k = 0; k < n; ++k) take((first + k) % g_.banks);
  return Take::kGranted;
}

TcdmAccessTiming TcdmTiming::access(uint64_t offset, uint64_t len, uint64_t arrival,
                                    uint32_t port_bytes, bool wide_port) {
  if (len == 0) len = 1;
  const uint64_t port = std::max<uint64_t>(port_bytes, g_.bank_width);
  TcdmAccessTiming r;
  uint64_t t = arrival;
  const bool stale = arrival / 64 + kWindowWords <= newest_word_;
  newest_word_ = std::max(newest_word_, arrival / 64);
  for (uint64_t beat = offset / port * port; beat < offset + len; beat += port) {
    const uint64_t lo = std::max(beat, offset), hi = std::min(beat + port, offset + len);
    const uint64_t w0 = lo / g_.bank_width, w1 = (hi - 1) / g_.bank_width;
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(w1 - w0 + 1, g_.banks));
    const uint32_t first = static_cast<uint32_t>(w0 % g_.banks);
    if (stale) {
      ++stale_;
    } else {
      uint64_t waited = 0;
      for (Take k; (k = try_take(first, n, wide_port, t)) != Take::kGranted; ++t) {
        if (k == Take::kBankBusy) ++waited;
        else ++r.port_wait_cycles;
      }
      if (waited) {
        ++r.conflicts;
        r.stall_cycles += waited;
      }
      newest_word_ = std::max(newest_word_, t / 64);
    }
    if (r.beats == 0) r.first_grant = t;
    ++r.beats;
    ++t;
  }
  r.done = t - 1 + g_.latency_cycles;
  return r;
}

}  // namespace npusim::models
