#include "models/hbm/frfcfs.h"

#include <algorithm>
#include <stdexcept>

#include "models/bits.h"
#include "models/hbm/fcfs.h"

namespace npusim::models::hbm {

std::vector<UnitActivity> FcfsController::activity(uint64_t end, ActivitySeries* series) const {
  const HbmConfig& c = timing_.config();
  const uint32_t bits = [&] {
    unsigned s = 0;
    while ((1u << s) < c.banks()) ++s;
    return s;
  }();
  const auto counts = timing_.bank_history().counts(
      end, [&](uint32_t bank) { return timing_.next_refresh(bank >> bits); }, series);
  std::vector<UnitActivity> out(c.units());
  for (uint32_t i = 0; i < c.units(); ++i) {
    UnitActivity& a = out[i];
    a.acts = counts[i].acts;
    a.open_cycles = counts[i].open_cycles;
    a.reads = timing_.column_commands(i, false);
    a.writes = timing_.column_commands(i, true);
    a.cycles = end;
    if (c.tREFI != 0 && end > 0) a.refreshes = (end - 1) / c.tREFI;
  }
  return out;
}

std::unique_ptr<Controller> make_controller(const HbmConfig& c) {
  if (c.scheduler == HbmScheduler::kFcfs) return std::make_unique<FcfsController>(c);
  return std::make_unique<FrFcfsController>(c);
}

FrFcfsController::FrFcfsController(const HbmConfig& c) : cfg_(c), map_(c) {
  // HbmTiming checks the same geometry; its constructor throws for a count that is not a
  // power of two, and so does this one (through the probe below).
  HbmTiming probe_geometry(c);
  (void)probe_geometry;
  if (c.bank_queue_depth < 1)
    throw std::invalid_argument("hbm controller: bank_queue_depth must be >= 1");
  burst_shift_ = log2_ceil(c.burst_bytes());
  bpg_bits_ = log2_ceil(c.banks_per_group);
  pc_bits_ = log2_ceil(c.pseudo_channels);
  banks_bits_ = log2_ceil(c.bank_groups) + bpg_bits_;
  unsigned shift = burst_shift_;
  for (auto it = c.mapping.rbegin(); it != c.mapping.rend(); ++it) {
    uint64_t count = 1;
    unsigned* s = nullptr;
    uint64_t* m = nullptr;
    switch (*it) {
      case AddrField::kChannel: count = c.channels, s = &ch_shift_, m = &ch_mask_; break;
      case AddrField::kPseudoChannel: count = c.pseudo_channels, s = &pc_shift_, m = &pc_mask_; break;
      case AddrField::kBankGroup: count = c.bank_groups, s = &bg_shift_, m = &bg_mask_; break;
      case AddrField::kBank: count = c.banks_per_group, s = &bk_shift_, m = &bk_mask_; break;
      case AddrField::kColumn: count = c.columns(); break;
      case AddrField::kRow: count = c.rows, s = &row_shift_, m = &row_mask_; break;
    }
    if (s != nullptr) *s = shift, *m = count - 1;
    shift += log2_ceil(count);
  }
  {
    const unsigned shifts[4] = {ch_shift_, pc_shift_, bg_shift_, bk_shift_};
    const uint64_t masks[4] = {ch_mask_, pc_mask_, bg_mask_, bk_mask_};
    const unsigned at[4] = {pc_bits_ + banks_bits_, banks_bits_, bpg_bits_, 0};
    field_at_ok_ = true;
    for (int i = 0; i < 4; ++i) {
      if (masks[i] == 0) continue;  // a field of one value (a single pseudo-channel): 0
      field_at_ok_ = field_at_ok_ && shifts[i] >= at[i];
      field_at_[i] = shifts[i] >= at[i] ? shifts[i] - at[i] : 0;
      field_mask_[i] = masks[i] << at[i];
    }
  }
  const uint64_t bl = c.burst_cycles();
  to_data_[0] = c.tCL, to_data_[1] = c.tWL;
  recovery_[0] = c.tRTP, recovery_[1] = c.tWL + bl + c.tWR;
  wtr_ = c.tWL + bl + c.tWTR;  // write column to the next read column
  // Read column to the next write column; never less than keeps the write's data off the
  // read's on the bus, so the bus needs no timeline of its own: tCCD_S >= BL/2 keeps bursts
  // of one direction apart, tRTW and tWTR those of the two.
  rtw_ = std::max<uint64_t>({c.tRTW, c.tCCD_S, c.tCL + bl > c.tWL ? c.tCL + bl - c.tWL : 0});
  to_end_[0] = c.tCL + bl, to_end_[1] = c.tWL + bl;
  turn_before_[0] = wtr_, turn_before_[1] = rtw_;
  // How far back a check looks from a request's admission, and how far ahead of it a
  // reservation can lie: every request the queues hold served one after another on one bank,
  // with the refreshes that fall in between.
  margin_ = std::max({c.tFAW, c.tRRD_L, c.tCCD_L, wtr_, rtw_, bl}) + 64;
  col_clear_ = std::max({c.tCCD_S, c.tCCD_L, wtr_, rtw_});
  act_clear_ = std::max({c.tRRD_S, c.tRRD_L, c.tFAW});
  const uint64_t per_request = c.tRAS + c.tRP + c.tRCD + c.tCL + c.tWL + 2 * bl + c.tWR +
                               c.tRTP + c.tFAW + c.tCCD_L + wtr_ + rtw_;
  uint64_t reach =
      (uint64_t{c.queue_depth} + c.bank_queue_depth + c.write_queue_depth + 1) * per_request;
  if (c.tREFI != 0) reach += (reach / c.tREFI + 2) * (c.tRFC + per_request);
  // (+ kFloorStep: how far below admit - margin_ the floor may lie, advance_floor())
  const uint64_t bits = reach + 2 * margin_ + kFloorStep;
  units_.resize(c.units());
  run_.resize(c.units());
  for (auto& u : units_) {
    u.act = u.rd = u.wr = Timeline(bits);
    u.floor_next = kFloorStep + margin_;
    u.act_full = CycleSet(bits);
    if (c.tREFI == 0) u.ref_hi = UINT64_MAX, u.ref_ok = 0;  // one window: no refresh
    u.waiting.reserve(size_t{c.queue_depth} + 64);
    u.writes.reserve(c.write_queue_depth);
    u.leave.reserve(c.write_queue_depth != 0 ? size_t{c.write_queue_depth} + 64 : 0);
  }
  groups_.resize(size_t{c.units()} * c.bank_groups);
  for (auto& g : groups_) {
    g.act = g.col = Timeline(bits);
    g.act_full = CycleSet(bits);
  }
  banks_.resize(size_t{c.units()} * c.banks());
  bank_queue_.assign(banks_.size() * c.bank_queue_depth, 0);
  write_high_ = c.write_high_watermark != 0 ? c.write_high_watermark : c.write_queue_depth;
  if (c.write_queue_depth != 0) drain_of_.assign(banks_.size(), UINT32_MAX);
  if (c.row_hit_cap != 0) history_.resize(banks_.size());
  per_bank_ = c.refresh == HbmRefresh::kPerBank && c.tREFI != 0;
  if (per_bank_) {
    phase_.resize(banks_.size());
    for (size_t i = 0; i < banks_.size(); ++i) phase_[i] = (i % c.banks()) * c.tREFI / c.banks();
  }
  // The row-hit fast path (frfcfs_hit.cpp) knows neither per-bank refresh phases nor
  // adaptive or closed pages; the write buffer and the row-hit cap it follows as burst() does.
  fast_ = fast_allowed();
  hist_ = BankHistory(c.units(), c.banks(), c.tck_ns, c.stats_window_ns, c.tRP);
}

uint64_t FrFcfsController::refreshes() const {
  if (cfg_.tREFI == 0) return 0;
  uint64_t n = 0;
  if (per_bank_) {  // one bank's refresh counts 1 / banks: the all-bank equivalent
    for (size_t i = 0; i < banks_.size(); ++i)
      n += bank_refresh_window(static_cast<uint32_t>(i), units_[i / cfg_.banks()].latest);
    return n / cfg_.banks();
  }
  for (const auto& u : units_) n += u.latest / cfg_.tREFI;
  return n;
}


void FrFcfsController::settle(uint32_t unit, uint64_t s) {
  if (!BankHistory::kRecords) return;
  // (Adaptive pages close at the settle points when idle long enough: every one counts.)
  if (cfg_.page_policy != PagePolicy::kAdaptive) {
    if (s < units_[unit].settle_next) return;
    units_[unit].settle_next = s + kSettleStep;
  }
  const uint32_t nb = cfg_.banks(), first = unit * nb;
  const bool refresh = cfg_.tREFI != 0, adaptive = cfg_.page_policy == PagePolicy::kAdaptive;
  if (refresh && !adaptive && !per_bank_) {
    // All-bank refresh alone: a row closes by a refresh at or before s when its bank's last
    // use is at or before the last refresh k tREFI <= s (refresh_after). Rows used since the
    // previous settle were used after its refresh, so with no new refresh nothing closes.
    const uint64_t k = s / cfg_.tREFI;
    Unit& u = units_[unit];
    if (k != 0 && k != u.settle_refresh) {
      u.settle_refresh = k;
      const uint64_t last = k * cfg_.tREFI;
      for (uint32_t bank = first; bank < first + nb; ++bank) {
        const Bank& b = banks_[bank];
        if (b.last_use <= last && hist_.is_open(bank))
          hist_.close(bank, refresh_after(bank, b.last_use));
      }
    }
  } else if (refresh || adaptive) {
    for (uint32_t bank = first; bank < first + nb; ++bank) {
      if (!hist_.is_open(bank)) continue;
      const uint64_t c = unused_close(banks_[bank], bank);
      if (c <= s) hist_.close(bank, c);
    }
  }
  hist_.settle(unit, s);
}

std::vector<UnitActivity> FrFcfsController::activity(uint64_t end, ActivitySeries* series) const {
  const auto counts =
      hist_.counts(end, [&](uint32_t bank) { return unused_close(banks_[bank], bank); }, series);
  std::vector<UnitActivity> out(units_.size());
  for (size_t i = 0; i < units_.size(); ++i) {
    UnitActivity& a = out[i];
    a.acts = counts[i].acts;
    a.open_cycles = counts[i].open_cycles;
    a.reads = units_[i].cols[0];
    a.writes = units_[i].cols[1];
    a.cycles = end;
    if (cfg_.tREFI != 0 && end > 0) {
      if (per_bank_) {  // bank j's refreshes k >= 1 at k * tREFI + phase before the end
        for (uint32_t j = 0; j < cfg_.banks(); ++j) {
          const uint64_t p = phase_[i * cfg_.banks() + j];
          if (end > cfg_.tREFI + p) a.bank_refreshes += (end - 1 - p) / cfg_.tREFI;
        }
      } else {
        a.refreshes = (end - 1) / cfg_.tREFI;
      }
    }
  }
  return out;
}

uint64_t FrFcfsController::burst(uint32_t bank, uint32_t row, bool write, uint64_t arrival,
                                 RowOutcome& out, bool drained) {
  const uint32_t unit = bank >> banks_bits_;
  Unit& u = units_[unit];
  Group& g = groups_[bank >> bpg_bits_];
  Bank& b = banks_[bank];
  // A miss or conflict with nothing in its way: the miss path (frfcfs_hit.cpp). Not tried
  // where the bank is still busy at the arrival (a saturated stream): there it almost never
  // applies.
  if (fast_ && !drained && b.last_use <= arrival) {
    if (const uint64_t done = miss_fast(bank, row, write, arrival, out)) return done;
  }
  const uint64_t refi = cfg_.tREFI, rfc = per_bank_ ? cfg_.tRFCpb : cfg_.tRFC;
  // Per-bank refresh: the bank's own refreshes, phase ph into each tREFI.
  const uint64_t ph = per_bank_ ? phase_[bank] : 0;
  auto window = [&](uint64_t x) {
    return per_bank_ ? bank_refresh_window(bank, x) : refresh_window(u, x);
  };

  // The transaction queue: wait at the door while it is full.
  uint64_t t = std::max(arrival, u.last_admit);
  // (A write drained from the write buffer was admitted when it entered the buffer.)
  if (!drained) u.wait_head = door(u, t);
  const uint64_t admit = t;
  if (admit >= u.floor_next) advance_floor(u, unit, admit);
  if (!drained) {  // (a drained write enters its bank queue at `arrival`: no admission)
    u.last_admit = admit;
    last_admit_ = admit;
  }
  // The bank queue: enter when the request bank_queue_depth places ahead has issued.
  uint64_t& slot = bank_queue_[size_t{bank} * cfg_.bank_queue_depth + b.queue_next];
  t = std::max(admit, slot);
  // A read that came while a drain moved its writes enters once they are moved, one a cycle
  // (release is 0 without a write buffer).
  if (!drained && admit < u.release && t <= u.release) t = u.release++;
  // It leaves the transaction queue at t; at once (the common case) it holds no place there.
  if (t > admit && !drained) wait_insert(u, t);

  for (;;) {
    if (refi != 0) {
      const uint64_t k = window(t);  // the latest refresh started at or before t
      if (k >= 1) {
        const uint64_t end = k * refi + ph + rfc;
        if (t < end) t = end;
        // Refreshed since the bank was last used (at the refresh's start at the latest: an
        // access whose data ends there leaves its row to the refresh's precharge).
        if (b.last_use <= k * refi + ph) {
          hist_.close(bank, unused_close(b, bank));
          b.open_row = kNoRow;
          b.act_ok = std::max(b.act_ok, end);
        }
      }
    }
    if (cfg_.row_hit_cap != 0 && history_[bank].prev_row == row && b.open_row != row &&
        history_[bank].prev_hits < cfg_.row_hit_cap) {
      const uint64_t done = pass_hit(u, g, b, history_[bank], write, t);
      if (done != 0) {
        out = RowOutcome::kHit;
        slot = done - to_data_[write] - cfg_.burst_cycles();  // its column command
        if (++b.queue_next == cfg_.bank_queue_depth) b.queue_next = 0;
        return done;
      }
    }
    if (cfg_.page_policy == PagePolicy::kAdaptive) close_idle(b, bank, t);
    uint64_t act = 0, start, col;
    if (b.open_row == row) {
      out = RowOutcome::kHit;
      col = std::max(t, b.col_ok);
      start = col;
    } else {
      uint64_t a = std::max(t, b.act_ok);
      if (b.open_row == kNoRow) {
        out = RowOutcome::kMiss;
      } else {
        out = RowOutcome::kConflict;
        a = std::max(a, std::max(t, b.pre_ok) + cfg_.tRP);
      }
      act = find_act(u, g, a);
      start = out == RowOutcome::kConflict ? act - cfg_.tRP : act;
      col = std::max(act + cfg_.tRCD, b.col_ok);
    }
    col = find_col(u, g, col, write);
    const uint64_t done = col + to_data_[write] + cfg_.burst_cycles();
    if (refi != 0) {
      // The access runs between two refreshes: from its first command to its last data.
      const uint64_t kt = window(t), ks = window(start);
      if (ks > kt) {
        t = ks * refi + ph + rfc;
        continue;
      }
      const uint64_t next = (ks + 1) * refi + ph;
      if (done > next) {
        t = next + rfc;
        continue;
      }
    }
    // Grant: the reservations, then the bank.
    if (cfg_.row_hit_cap != 0) note_row(b, history_[bank], out, start);
    if (out != RowOutcome::kHit) reserve_act(u, g, b, unit, bank, act, row, out == RowOutcome::kConflict);
    reserve_col(u, g, col, write, shortcuts_);
    b.col_ok = col + cfg_.tCCD_L;
    b.pre_ok = std::max(b.pre_ok, col + recovery_[write]);
    if (cfg_.page_policy == PagePolicy::kClosed) {
      hist_.close(bank, b.pre_ok);
      b.open_row = kNoRow;
      b.act_ok = std::max(b.act_ok, b.pre_ok + cfg_.tRP);
    }
    b.last_use = std::max(b.last_use, done);
    u.latest = std::max(u.latest, done);
    slot = col;
    if (++b.queue_next == cfg_.bank_queue_depth) b.queue_next = 0;
    return done;
  }
}

// The unit's timelines forget what lies more than the margin before an admission at `admit`.
// The callers call it when admit >= floor_next (every timeline's floor + kFloorStep +
// margin_), so the new floor is above the old one. Between two calls the floor lies up to
// kFloorStep below admit - margin_: no search reads that far back (lower than the margin
// below its request's admission), and the timelines are that much longer (the constructor),
// so every reservation lands inside them as with a floor at admit - margin_ itself.
void FrFcfsController::advance_floor(Unit& u, uint32_t unit, uint64_t admit) {
  // No request is admitted before the last admission (a drained write, granted at its move,
  // has its admission earlier still): the bank-state history is final up to it. With no write
  // waiting in the buffer and no drain moving writes, no event of this request or a later one
  // precedes admit - tRP either (a precharge for an ACT at admit at the earliest; a row a
  // refresh closed before, settle() closes first): after a long idle that point lies far past
  // the last admission, and the history's ring reaches from there to this request's events.
  const bool quiet = u.writes.empty() && admit >= u.release;
  settle(unit, quiet && admit > cfg_.tRP ? std::max(u.last_admit, admit - cfg_.tRP) : u.last_admit);
  const uint64_t f = (admit - margin_) & ~uint64_t{63};
  u.act.raise_floor(f), u.rd.raise_floor(f), u.wr.raise_floor(f);
  u.floor_next = f + kFloorStep + margin_;
  Group* g = &groups_[size_t{unit} << (banks_bits_ - bpg_bits_)];
  for (Group* const end = g + cfg_.bank_groups; g != end; ++g)
    g->act.raise_floor(f), g->col.raise_floor(f);
}

// Adds a leave time to the transaction queue, in order. Door times never go back and a leave
// time is after its door time, so the entries before wait_head are gone for good; leave times
// mostly grow, so the insertion is near the end.
void FrFcfsController::wait_insert(Unit& u, uint64_t t) {
  auto& w = u.waiting;
  drop_read(w, u.wait_head);
  u.wait_max = std::max(u.wait_max, t);
  size_t i = w.size();
  w.push_back(t);
  for (; i > u.wait_head && w[i - 1] > t; --i) w[i] = w[i - 1];
  w[i] = t;
}

// A write waits at the door while the buffer is full: the writes of a drain hold their
// places until they leave for their bank queues.
uint64_t FrFcfsController::buffer_room(Unit& u, uint64_t t) {
  const auto& l = u.leave;
  size_t h = u.leave_head;
  while (h < l.size() && l[h] < t) ++h;  // (a write leaving at t still holds its place)
  const size_t held = u.writes.size() + (l.size() - h);
  if (held >= cfg_.write_queue_depth) {  // wait until held - depth + 1 of them have left
    h += held - cfg_.write_queue_depth;  // (fewer than high <= depth are not in a drain)
    t = l[h++] + 1;
  }
  u.leave_head = h;
  return t;
}

// Moves the unit's buffered writes, all but the low watermark's count, to their bank queues
// from cycle t on, one a cycle, as DRAMsim3 does: each cycle the oldest write whose bank
// queue has room (none has: the first cycle one has). Each is scheduled as it enters its
// bank queue; reads that come before the drain has moved the last are held back (release).
void FrFcfsController::drain(Unit& u, uint64_t t, RowCounts& rows) {
  const size_t keep = cfg_.write_low_watermark;
  if (u.writes.size() <= keep) return;
  const auto n = static_cast<uint32_t>(u.writes.size() - keep);
  constexpr uint32_t kEnd = UINT32_MAX;
  drain_banks_.clear();
  drain_next_.resize(n);
  drain_taken_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t& d = drain_of_[u.writes[i].bank];
    drain_next_[i] = kEnd;
    if (d == kEnd) {
      d = static_cast<uint32_t>(drain_banks_.size());
      drain_banks_.push_back(DrainBank{u.writes[i].bank, i, i});
    } else {
      drain_next_[drain_banks_[d].tail] = i;
      drain_banks_[d].tail = i;
    }
  }
  auto& l = u.leave;
  drop_read(l, u.leave_head);
  const uint32_t bqd = cfg_.bank_queue_depth;
  auto room = [&](const DrainBank& d, uint64_t c) {  // when its bank queue has room, from c on
    return std::max(c, bank_queue_[size_t{d.bank} * bqd + banks_[d.bank].queue_next]);
  };
  uint64_t cur = std::max(t, u.release);  // (after a drain still in progress)
  uint32_t first = 0;                     // the oldest write not moved yet
  for (uint32_t k = 0; k < n; ++k) {
    while (drain_taken_[first]) ++first;
    DrainBank* pick = &drain_banks_[drain_of_[u.writes[first].bank]];  // (first is its head)
    uint64_t at = room(*pick, cur);
    if (at > cur) {  // its queue is full: the oldest whose queue has room, else the first to
      for (DrainBank& d : drain_banks_) {  // get room (the oldest of those)
        if (d.head == kEnd) continue;
        const uint64_t r = room(d, cur);
        if (r < at || (r == at && d.head < pick->head)) pick = &d, at = r;
      }
    }
    const PendingWrite p = u.writes[pick->head];
    drain_taken_[pick->head] = 1;
    pick->head = drain_next_[pick->head];
    RowOutcome out = RowOutcome::kHit;
    uint64_t fast_done = 0;
    if (!fast_ || banks_[p.bank].open_row != p.row || !hit_fast(p.bank, true, at, fast_done, true))
      burst(p.bank, p.row, true, at, out, true);
    ++rows.n[static_cast<unsigned>(out)];
    l.push_back(at);
    cur = at + 1;
  }
  for (const DrainBank& d : drain_banks_) drain_of_[d.bank] = kEnd;
  u.release = cur;
  u.writes.erase(u.writes.begin(), u.writes.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace npusim::models::hbm
