#include "models/hbm_timing.h"

#include <algorithm>

namespace npusim::models {

namespace {
unsigned log2u(uint64_t v) {
  unsigned s = 0;
  while ((uint64_t{1} << s) < v) ++s;
  return s;
}
}  // namespace

HbmAddressMap::HbmAddressMap(const HbmConfig& c)
    : pseudo_channels_(c.pseudo_channels), burst_mask_(c.burst_bytes() - 1) {
  unsigned shift = log2u(c.burst_bytes());
  for (auto it = c.mapping.rbegin(); it != c.mapping.rend(); ++it) {
    uint64_t count = 1;
    switch (*it) {
      case AddrField::kChannel: count = c.channels; break;
      case AddrField::kPseudoChannel: count = c.pseudo_channels; break;
      case AddrField::kBankGroup: count = c.bank_groups; break;
      case AddrField::kBank: count = c.banks_per_group; break;
      case AddrField::kColumn: count = c.columns(); break;
      case AddrField::kRow: count = c.rows; break;
    }
    fields_.push_back(Field{*it, shift, count - 1});
    shift += log2u(count);
  }
}

HbmAddress HbmAddressMap::decode(uint64_t offset) const {
  HbmAddress a;
  a.offset = static_cast<uint32_t>(offset & burst_mask_);
  uint32_t channel = 0, pc = 0;
  for (const auto& f : fields_) {
    const auto v = static_cast<uint32_t>((offset >> f.shift) & f.mask);
    switch (f.field) {
      case AddrField::kChannel: channel = v; break;
      case AddrField::kPseudoChannel: pc = v; break;
      case AddrField::kBankGroup: a.bank_group = v; break;
      case AddrField::kBank: a.bank = v; break;
      case AddrField::kColumn: a.column = v; break;
      case AddrField::kRow: a.row = v; break;
    }
  }
  a.unit = channel * pseudo_channels_ + pc;
  return a;
}

uint64_t HbmAddressMap::encode(const HbmAddress& a) const {
  uint64_t offset = a.offset & burst_mask_;
  for (const auto& f : fields_) {
    uint64_t v = 0;
    switch (f.field) {
      case AddrField::kChannel: v = a.unit / pseudo_channels_; break;
      case AddrField::kPseudoChannel: v = a.unit % pseudo_channels_; break;
      case AddrField::kBankGroup: v = a.bank_group; break;
      case AddrField::kBank: v = a.bank; break;
      case AddrField::kColumn: v = a.column; break;
      case AddrField::kRow: v = a.row; break;
    }
    offset |= (v & f.mask) << f.shift;
  }
  return offset;
}

HbmTiming::HbmTiming(const HbmConfig& c) : cfg_(c), map_(c), units_(c.units()) {
  for (auto& u : units_) {
    u.banks.resize(c.banks());
    u.act_ok_group.assign(c.bank_groups, 0);
    u.col_ok_group.assign(c.bank_groups, 0);
    u.queue.assign(c.queue_depth, 0);
  }
}

uint64_t HbmTiming::refresh_offset(uint32_t) const {
  // Assumption: all units refresh together. Staggered refreshes would stall an in-order
  // stream that needs every channel once per refresh window, eight times per tREFI.
  return 0;
}

uint64_t HbmTiming::apply_refresh(Unit& u, uint32_t unit, uint64_t t) {
  if (cfg_.tREFI == 0) return t;
  const uint64_t first = refresh_offset(unit) + cfg_.tREFI;
  if (t < first) return t;
  const uint64_t k = (t - refresh_offset(unit)) / cfg_.tREFI;  // latest refresh started <= t
  const uint64_t end = refresh_start(unit, k) + cfg_.tRFC;
  if (k > u.refreshes_seen) {
    // All-bank refresh: the banks are precharged (folded into tRFC: assumption) and idle
    // until the refresh ends.
    refreshes_ += k - u.refreshes_seen;
    u.refreshes_seen = k;
    for (auto& b : u.banks) {
      b.open_row = kNoRow;
      b.act_ok = std::max(b.act_ok, end);
    }
  }
  return std::max(t, end);
}

BurstTiming HbmTiming::access(uint64_t offset, bool write, uint64_t arrival_cycles) {
  const HbmAddress a = map_.decode(offset);
  Unit& u = units_[a.unit];
  const uint32_t g = a.bank_group;
  Bank& b = u.banks[g * cfg_.banks_per_group + a.bank];

  // FCFS queue: a request is admitted when the one queue_depth places ahead has completed,
  // and not before the request ahead of it.
  uint64_t t = std::max({arrival_cycles, u.queue[u.queue_next], u.last_admit});
  const uint64_t admit = t;
  for (;;) {
    t = apply_refresh(u, a.unit, t);
    RowOutcome outcome;
    uint64_t act = 0;
    bool activates = true;
    if (b.open_row == a.row) {
      outcome = RowOutcome::kHit;
      activates = false;
    } else {
      uint64_t earliest = std::max(t, b.act_ok);
      if (b.open_row == kNoRow) {
        outcome = RowOutcome::kMiss;
      } else {
        outcome = RowOutcome::kConflict;
        earliest = std::max(earliest, std::max(t, b.pre_ok) + cfg_.tRP);
      }
      act = std::max({earliest, u.act_ok_any, u.act_ok_group[g]});
      if (cfg_.tFAW) act = std::max(act, u.faw[u.faw_next]);
    }
    uint64_t col = std::max({t, activates ? act + cfg_.tRCD : b.col_ok, u.col_ok_any,
                             u.col_ok_group[g]});
    const uint64_t to_data = write ? cfg_.tWL : cfg_.tCL;
    if (col + to_data < u.bus_free) col = u.bus_free - to_data;
    const uint64_t data = col + to_data;
    const uint64_t done = data + cfg_.burst_cycles();

    if (cfg_.tREFI != 0) {
      // The whole access must finish before the unit's next refresh; otherwise it waits for
      // that refresh to end (and finds its bank closed).
      const uint64_t next = refresh_start(a.unit, u.refreshes_seen + 1);
      if (done > next) {
        t = std::max(t, next);
        continue;
      }
    }

    // Commit the commands to the bank and unit state.
    if (activates) {
      b.open_row = a.row;
      b.col_ok = act + cfg_.tRCD;
      b.pre_ok = act + cfg_.tRAS;
      u.act_ok_any = act + cfg_.tRRD_S;
      u.act_ok_group[g] = act + cfg_.tRRD_L;
      u.faw[u.faw_next] = act + cfg_.tFAW;
      u.faw_next = (u.faw_next + 1) % 4;
    }
    u.col_ok_any = col + cfg_.tCCD_S;
    u.col_ok_group[g] = col + cfg_.tCCD_L;
    u.bus_free = done;
    b.pre_ok = std::max(b.pre_ok, write ? done + cfg_.tWR : col + cfg_.tRTP);
    if (cfg_.page_policy == PagePolicy::kClosed) {
      // Auto-precharge: the bank closes as soon as it may.
      b.open_row = kNoRow;
      b.act_ok = std::max(b.act_ok, b.pre_ok + cfg_.tRP);
    }
    u.queue[u.queue_next] = done;
    u.queue_next = (u.queue_next + 1) % static_cast<unsigned>(u.queue.size());
    u.last_admit = admit;
    return BurstTiming{admit, data, done, outcome};
  }
}

}  // namespace npusim::models
