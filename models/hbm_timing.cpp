#include "models/hbm_timing.h"

#include "models/bits.h"
#include "models/hbm/bank_history.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace npusim::models {

namespace {
void require_pow2(const char* what, uint64_t v) {
  if (v == 0 || (v & (v - 1)) != 0)
    throw std::invalid_argument(std::string("hbm timing: ") + what + " (" + std::to_string(v) +
                                ") must be a power of two");
}
}  // namespace

HbmAddressMap::HbmAddressMap(const HbmConfig& c)
    : pseudo_channels_(c.pseudo_channels), burst_mask_(c.burst_bytes() - 1) {
  unsigned shift = log2_ceil(c.burst_bytes());
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
    shift += log2_ceil(count);
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

HbmTiming::HbmTiming(const HbmConfig& c) : cfg_(c), map_(c) {
  // The decode below is shifts and masks: every count must be a power of two (validate()
  // guarantees it for configurations that come from YAML or --set).
  require_pow2("channels", c.channels);
  require_pow2("pseudo_channels", c.pseudo_channels);
  require_pow2("bank_groups", c.bank_groups);
  require_pow2("banks_per_group", c.banks_per_group);
  require_pow2("rows", c.rows);
  require_pow2("burst bytes", c.burst_bytes());
  require_pow2("columns (row_bytes / burst bytes)", c.columns());
  if (c.queue_depth < 1) throw std::invalid_argument("hbm timing: queue_depth must be >= 1");
  Params& p = params_;
  p.tRCD = c.tRCD, p.tRP = c.tRP, p.tRAS = c.tRAS, p.tFAW = c.tFAW;
  p.tCCD_S = c.tCCD_S, p.tCCD_L = c.tCCD_L, p.tRRD_S = c.tRRD_S, p.tRRD_L = c.tRRD_L;
  p.tRTP = c.tRTP, p.tWL = c.tWL, p.tCL = c.tCL, p.tWR = c.tWR;
  p.burst_cycles = c.burst_cycles();
  p.queue_depth = c.queue_depth;
  p.closed_page = c.page_policy == PagePolicy::kClosed;
  burst_shift_ = log2_ceil(c.burst_bytes());
  const unsigned pc_bits = log2_ceil(c.pseudo_channels);
  p.bpg_bits = log2_ceil(c.banks_per_group);
  p.banks_bits = log2_ceil(c.bank_groups) + p.bpg_bits;
  p.pc_pos = p.banks_bits;
  p.ch_pos = p.banks_bits + pc_bits;
  p.bg_pos = p.bpg_bits;
  bool run_found = false;
  unsigned shift = burst_shift_;
  for (auto it = c.mapping.rbegin(); it != c.mapping.rend(); ++it) {
    uint64_t count = 1;
    unsigned* field_shift = nullptr;
    uint64_t* field_mask = nullptr;
    uint32_t bank_stride = 0, row_stride = 0;
    switch (*it) {
      case AddrField::kChannel:
        count = c.channels, field_shift = &p.ch_shift, field_mask = &p.ch_mask;
        bank_stride = uint32_t{1} << p.ch_pos;
        break;
      case AddrField::kPseudoChannel:
        count = c.pseudo_channels, field_shift = &p.pc_shift, field_mask = &p.pc_mask;
        bank_stride = uint32_t{1} << p.pc_pos;
        break;
      case AddrField::kBankGroup:
        count = c.bank_groups, field_shift = &p.bg_shift, field_mask = &p.bg_mask;
        bank_stride = uint32_t{1} << p.bg_pos;
        break;
      case AddrField::kBank:
        count = c.banks_per_group, field_shift = &p.bk_shift, field_mask = &p.bk_mask;
        bank_stride = 1;
        break;
      case AddrField::kColumn:
        count = c.columns();  // the timing does not depend on the column
        break;
      case AddrField::kRow:
        count = c.rows, field_shift = &p.row_shift, field_mask = &p.row_mask;
        row_stride = 1;
        break;
    }
    if (field_shift != nullptr) {
      *field_shift = shift;
      *field_mask = count - 1;
    }
    if (!run_found && count > 1) {
      run_found = true;
      p.run_shift = shift;
      p.run_mask = count - 1;
      p.bank_stride = bank_stride;
      p.row_stride = row_stride;
    }
    shift += log2_ceil(count);
  }
  // With no field of more than one value every burst is a run of its own (mask 0).
  units_.resize(c.units());
  banks_.resize(size_t{c.units()} * c.banks());
  groups_.resize(size_t{c.units()} * c.bank_groups);
  queue_.assign(size_t{c.units()} * c.queue_depth, 0);
  for (uint32_t i = 0; i < c.units(); ++i) {
    Unit& u = units_[i];
    u.queue_base = uint64_t{i} * c.queue_depth;
    if (cfg_.tREFI != 0) u.win_hi = refresh_start(i, 1);
  }
  hot_[0] = make_hot(false);
  hot_[1] = make_hot(true);
  hist_ = std::make_unique<hbm::BankHistory>(c.units(), c.banks(), c.tck_ns, c.stats_window_ns,
                                             c.tRP);
}

HbmTiming::~HbmTiming() = default;
HbmTiming::HbmTiming(HbmTiming&&) noexcept = default;
HbmTiming& HbmTiming::operator=(HbmTiming&&) noexcept = default;

uint64_t HbmTiming::refresh_offset(uint32_t) const {
  // Assumption: all units refresh together. Staggered refreshes would stall an in-order
  // stream that needs every channel once per refresh window, eight times per tREFI.
  return 0;
}

uint64_t HbmTiming::apply_refresh_slow(Unit& u, uint32_t unit, uint64_t t) {
  if (cfg_.tREFI == 0) return t;
  const uint64_t first = refresh_offset(unit) + cfg_.tREFI;
  if (t < first) return t;
  const uint64_t k = (t - refresh_offset(unit)) / cfg_.tREFI;  // latest refresh started <= t
  const uint64_t end = refresh_start(unit, k) + cfg_.tRFC;
  if (k > u.refreshes_seen) {
    const uint64_t first_new = u.refreshes_seen + 1;
    // All-bank refresh: the banks are precharged (folded into tRFC: assumption) and idle
    // until the refresh ends.
    refreshes_ += k - u.refreshes_seen;
    u.refreshes_seen = k;
    u.win_lo = refresh_start(unit, k);
    u.win_hi = refresh_start(unit, k + 1);
    u.win_end = end;
    Bank* b = &banks_[size_t{unit} << params_.banks_bits];  // the unit's banks
    // Rows open close at the first of these refreshes (every access ended before it), and no
    // event lies before t from now on: the history is final up to t.
    const uint64_t closing = refresh_start(unit, first_new);
    const auto bank0 = static_cast<uint32_t>(size_t{unit} << params_.banks_bits);
    for (Bank* e = b + (size_t{1} << params_.banks_bits); b != e; ++b) {
      b->open_row = kNoRow;
      b->act_ok = std::max(b->act_ok, end);
    }
    for (uint32_t i = 0; i < (1u << params_.banks_bits); ++i) hist_->close(bank0 + i, closing);
    hist_->settle(unit, t);
    u.next_settle = t + kSettle;
  }
  return std::max(t, end);
}

HbmTiming::Hot HbmTiming::make_hot(bool write) const {
  const Params& p = params_;
  const uint64_t to_data = write ? p.tWL : p.tCL;
  return Hot{p.tRCD, p.tRP, p.tRAS, p.tFAW, p.tCCD_S, p.tCCD_L, p.tRRD_S, p.tRRD_L, to_data,
             to_data + p.burst_cycles,
             // tRTP after a read; tWR after the write data, which ends at col + to_done.
             write ? to_data + p.burst_cycles + p.tWR : p.tRTP, p.queue_depth, p.banks_bits,
             p.bpg_bits, p.closed_page, write ? 1u : 0u};
}

inline __attribute__((always_inline)) uint32_t HbmTiming::bank_index(uint64_t offset) const {
  const Params& p = params_;
  return static_cast<uint32_t>((((offset >> p.ch_shift) & p.ch_mask) << p.ch_pos) |
                               (((offset >> p.pc_shift) & p.pc_mask) << p.pc_pos) |
                               (((offset >> p.bg_shift) & p.bg_mask) << p.bg_pos) |
                               ((offset >> p.bk_shift) & p.bk_mask));
}

// One burst, from the state of its bank and unit: the whole engine. Inlined into access()
// and the loop of access_request(), where `k` lives in registers or on the stack.
inline __attribute__((always_inline)) HbmTiming::Step HbmTiming::step(const Hot& k,
                                                                      uint32_t bank,
                                                                      uint32_t row,
                                                                      uint64_t arrival) {
  const uint32_t unit = bank >> k.banks_bits;
  Unit& u = units_[unit];
  Group& gr = groups_[bank >> k.bpg_bits];
  Bank& b = banks_[bank];
  uint64_t& slot = queue_[u.queue_base + u.queue_next];

  // FCFS queue: a request is admitted when the one queue_depth places ahead has completed,
  // and not before the request ahead of it.
  uint64_t t = std::max({arrival, slot, u.last_admit});
  const uint64_t admit = t;
  for (;;) {
    // Refresh: only a time outside the cached window can start (or predate) a refresh.
    if (__builtin_expect(t >= u.win_lo && t < u.win_hi, 1)) t = std::max(t, u.win_end);
    else t = apply_refresh_slow(u, unit, t);

    RowOutcome outcome;
    uint64_t act = 0, col;
    const bool hit = b.open_row == row;
    if (hit) {
      outcome = RowOutcome::kHit;
      col = std::max(t, b.col_ok);
    } else {
      uint64_t earliest = std::max(t, b.act_ok);
      if (b.open_row == kNoRow) {
        outcome = RowOutcome::kMiss;
      } else {
        outcome = RowOutcome::kConflict;
        earliest = std::max(earliest, std::max(t, b.pre_ok) + k.tRP);
      }
      act = std::max({earliest, u.act_ok_any, gr.act_ok});
      if (k.tFAW) act = std::max(act, u.faw[u.faw_next]);
      col = std::max(t, act + k.tRCD);
    }
    col = std::max({col, u.col_ok_any, gr.col_ok});
    // The data bus: bursts never overlap (data = col + to_data, unless the bus is busy).
    const uint64_t data = std::max(col + k.to_data, u.bus_free);
    col = data - k.to_data;
    const uint64_t done = col + k.to_done;

    // The whole access must finish before the unit's next refresh (win_hi; never without
    // refresh); otherwise it waits for that refresh to end (and finds its bank closed).
    if (__builtin_expect(done > u.win_hi, 0)) {
      t = std::max(t, u.win_hi);
      continue;
    }

    // Commit the commands to the bank and unit state.
    if (!hit) {
      // The bank-state history: a conflict precharges tRP before the ACT.
      hist_->open(unit, bank, act, outcome == RowOutcome::kConflict);
      b.open_row = row;
      b.col_ok = act + k.tRCD;
      b.pre_ok = act + k.tRAS;
      u.act_ok_any = act + k.tRRD_S;
      gr.act_ok = act + k.tRRD_L;
      u.faw[u.faw_next] = act + k.tFAW;
      u.faw_next = (u.faw_next + 1) & 3;
    }
    ++u.cols[k.dir];
    u.col_ok_any = col + k.tCCD_S;
    gr.col_ok = col + k.tCCD_L;
    u.bus_free = done;
    b.pre_ok = std::max(b.pre_ok, col + k.recovery);
    if (k.closed_page) {
      // Auto-precharge: the bank closes as soon as it may.
      hist_->close(bank, b.pre_ok);
      b.open_row = kNoRow;
      b.act_ok = std::max(b.act_ok, b.pre_ok + k.tRP);
    }
    slot = done;
    if (++u.queue_next == k.queue_depth) u.queue_next = 0;
    if (__builtin_expect(admit >= u.next_settle, 0)) {  // no later event precedes admit
      hist_->settle(unit, admit);
      u.next_settle = admit + kSettle;
    }
    u.last_admit = admit;
    return Step{admit, data, done, outcome};
  }
}

BurstTiming HbmTiming::access(uint64_t offset, bool write, uint64_t arrival_cycles) {
  const Hot k = hot_[write];
  const Step s = step(k, bank_index(offset), row_of(offset), arrival_cycles);
  return BurstTiming{s.admit, s.data, s.done, s.outcome};
}

uint64_t HbmTiming::schedule(uint64_t offset, uint64_t len, bool write, uint64_t arrival_cycles,
                             RowCounts& rows) {
  // Per request: the constants (hot) and, per run of bursts through the lowest address
  // field, one decode; per burst: two adds and the schedule. Every burst arrives at the
  // same cycle; they are scheduled in address order, as one access() each would be.
  const uint64_t burst = uint64_t{1} << burst_shift_;
  if ((offset & (burst - 1)) + len <= burst) {
    // One burst (a core's load or store): no run to decode, and the constants are read in
    // place, as the one step stores little before it is done with them.
    // Consecutive words of one burst (a core reading an array) decode once.
    const uint64_t b = offset >> burst_shift_;
    if (b != last_burst_) {
      last_burst_ = b;
      last_bank_ = bank_index(offset);
      last_row_ = row_of(offset);
    }
    const Step s = step(hot_[write], last_bank_, last_row_, arrival_cycles);
    last_admit_ = s.admit;
    ++rows.n[static_cast<unsigned>(s.outcome)];
    return std::max(arrival_cycles, s.done);
  }
  return schedule_bursts(offset, len, write, arrival_cycles, rows);
}

uint64_t HbmTiming::schedule_bursts(uint64_t offset, uint64_t len, bool write,
                                    uint64_t arrival_cycles, RowCounts& rows) {
  const uint64_t burst = uint64_t{1} << burst_shift_;
  const Hot k = hot_[write];
  uint64_t a = offset & ~(burst - 1);
  uint64_t left = (offset + len - a + burst - 1) >> burst_shift_;  // bursts
  const unsigned run_shift = params_.run_shift;
  const uint64_t run_mask = params_.run_mask;
  const uint32_t bank_stride = params_.bank_stride, row_stride = params_.row_stride;
  uint64_t counts[3] = {0, 0, 0};  // indexed by RowOutcome
  uint64_t done = arrival_cycles;
  while (left > 0) {
    uint32_t bank = bank_index(a), row = row_of(a);
    const uint64_t run = std::min(run_mask + 1 - ((a >> run_shift) & run_mask), left);
    left -= run;
    a += run << burst_shift_;
    for (uint64_t i = 0; i < run; ++i) {
      const Step s = step(k, bank, row, arrival_cycles);
      if (counts[0] + counts[1] + counts[2] == 0) last_admit_ = s.admit;
      done = std::max(done, s.done);
      ++counts[static_cast<unsigned>(s.outcome)];
      bank += bank_stride;
      row += row_stride;
    }
  }
  for (unsigned i = 0; i < 3; ++i) rows.n[i] += counts[i];
  return done;
}

}  // namespace npusim::models
