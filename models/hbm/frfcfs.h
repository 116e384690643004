// `hbm.scheduler: frfcfs` (the default): a reordering controller per unit (channel or
// pseudo-channel), computed per request from reservations, with no cycle loop.
//
//   transaction queue  queue_depth requests; a request waits at the door while it is full,
//                      and leaves it for its bank's command queue
//   bank queues        bank_queue_depth requests per bank, served in order; a request leaves
//                      when its column command issues
//   write buffer       write_queue_depth > 0: writes are posted (done a cycle after they
//                      get in) and drained when the buffer reaches write_high_watermark (0:
//                      the depth), or when a read finds the unit idle with more than 8
//                      waiting (DRAMsim3's rules), until write_low_watermark are left (0:
//                      all). A drain moves one write a cycle to its bank queue (the oldest
//                      whose queue has room) and no read meanwhile; the reads it held back
//                      then move one a cycle. A write waits at the door while the buffer,
//                      with the writes a drain has not moved yet, is full.
//   reservations       every ACT and column command already granted, on timelines
//                      (models/hbm/timeline.h) per unit and per bank group
//
// A request takes the earliest cycles that its bank (open row, tRCD, tRAS, tRP, tRTP, tWR)
// and the reservations allow: tRRD_S/_L and tFAW against every ACT granted before or after
// it, tCCD_S/_L and the read/write turnarounds (tWTR after write data, tRTW) against every
// column command (which keep the data bus free). So a younger request to an idle bank, or a
// row hit, goes ahead of an older request that waits for its bank; the older request's cycles, granted
// when it arrived, never move (a loosely-timed caller has its completion already), so
// nothing starves. Refresh: all banks of every unit every tREFI for tRFC, as in fcfs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hbm/bank_history.h"
#include "models/hbm/controller.h"
#include "models/hbm/cycle_set.h"
#include "models/hbm/timeline.h"

namespace npusim::models::hbm {

class FrFcfsController final : public Controller {
 public:
  explicit FrFcfsController(const HbmConfig& c);
  // In frfcfs_hit.cpp, with the row-hit fast path inlined into it.
  uint64_t schedule(uint64_t offset, uint64_t len, bool write, uint64_t arrival_cycles,
                    RowCounts& rows) override;
  uint64_t last_admit() const override { return last_admit_; }
  uint64_t refreshes() const override;
  const HbmAddressMap& address_map() const override { return map_; }
  std::vector<UnitActivity> activity(uint64_t end_cycles,
                                     ActivitySeries* series = nullptr) const override;
  const BankHistory& bank_history() const { return hist_; }
  // Reservations that fell beyond a timeline's horizon (and so constrain nothing). Zero for
  // every configuration validate() accepts; tests check it.
  uint64_t horizon_overflows() const { return overflows_; }
  // The ACT search scans the maps of forbidden cycles (Unit::act_full, Group::act_full); the
  // column search skips cycles an earlier search found full (the busy intervals of Unit) and
  // the other direction's timeline when all its commands lie before the window. Off, every
  // search walks from its start and checks every timeline: the same results, slower (tests
  // compare the two).
  // Set before the first request.
  void set_search_shortcuts(bool on) { shortcuts_ = on; }
  // A burst that hits the open row of a unit with nothing waiting takes a short path with no
  // search (models/hbm/frfcfs_hit.cpp): a read, or a write that is not buffered or leaves the
  // write buffer in a drain. On by default with open pages and all-bank refresh.
  // Off, every request takes the full path: the same results, slower (tests compare the two).
  void set_fast_path(bool on) { fast_ = on && fast_allowed(); }
  // The bursts of a multi-burst request take the same path with the facts they share on a
  // unit worked out once (models/hbm/frfcfs_run.cpp); set_fast_path() turns both on or off.
  uint64_t fast_hits() const { return fast_hits_; }  // bursts that took either
  // Row misses and conflicts with no ACT, column command or refresh in their way take a short
  // path too (miss_fast() in frfcfs_hit.cpp; off with the fast path and with row_hit_cap).
  uint64_t fast_misses() const { return fast_misses_; }

 private:
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct Bank {
    uint64_t act_ok = 0, pre_ok = 0, col_ok = 0;
    uint64_t last_use = 0;      // last cycle the bank was busy: a refresh from it on closes the row
    uint32_t open_row = kNoRow;
    uint32_t queue_next = 0;    // the oldest entry of its bank-queue ring
  };
  // row_hit_cap, per bank (apart from Bank, which the hot path reads): the row the last
  // conflict closed (its hits may still pass), the column commands on it and on the open
  // row, its next column and its precharge.
  struct RowHistory {
    uint32_t prev_row = kNoRow, prev_hits = 0, hits = 0;
    uint64_t prev_col_ok = 0, prev_pre = 0;
  };
  struct PendingWrite {
    uint32_t bank, row;
  };
  struct Unit {
    uint64_t last_admit = 0, latest = 0;
    uint64_t floor_next = 0;  // an admission from here on moves the timelines' floor
    uint64_t settle_refresh = 0;  // the last refresh (in tREFI) settle() closed rows at
    uint64_t settle_next = 0;     // settle() has nothing to do before this cycle
    // Past every reservation: the latest ACT and column command granted.
    uint64_t act_max = 0, col_max = 0;
    uint64_t dir_max[2] = {0, 0};  // the latest read [0] and write [1] column command
    uint64_t cols[2] = {0, 0};     // read [0] and write [1] column commands granted
    // A column command at or after col_free meets tCCD and the turnarounds against every one
    // granted: col_max + col_clear_, or 0 before the first.
    uint64_t col_free = 0;
    // The same for an ACT (act_clear_ past the latest: tRRD_S, tRRD_L, tFAW), 0 before the
    // first.
    uint64_t act_free = 0;
    bool any_act = false;
    // The refresh window of the last lookup: t / tREFI == ref_k for ref_lo <= t < ref_hi;
    // in it, a burst from ref_ok on is past the refresh (ref_lo + tRFC, or ref_lo in the
    // first window). Before the first lookup the window is empty and ref_ok is UINT64_MAX;
    // without refresh it is every cycle (ref_hi UINT64_MAX, ref_ok 0).
    uint64_t ref_lo = 0, ref_hi = 0, ref_k = 0, ref_ok = UINT64_MAX;
    // Cycles [col_busy_lo, col_busy_hi) hold no read [0] or write [1] column command that
    // tCCD_S and the turnarounds allow against the unit's column commands: found by an
    // earlier search, and true for good, as reservations are only added.
    uint64_t col_busy_lo[2] = {0, 0}, col_busy_hi[2] = {0, 0};
    // When each request in the transaction queue leaves it, ascending from wait_head.
    std::vector<uint64_t> waiting;
    size_t wait_head = 0;
    uint64_t wait_max = 0;  // the latest leave time ever added: none is later
    std::vector<PendingWrite> writes;  // the write buffer (write_queue_depth > 0)
    // The drains granted so far: the cycles their writes leave the buffer for their bank
    // queues, ascending from leave_head (they hold their places in the buffer until then);
    // a read admitted before `release` enters its bank queue no earlier, and the reads held
    // back so move one a cycle (release counts on). 0 without a write buffer.
    std::vector<uint64_t> leave;
    size_t leave_head = 0;
    uint64_t release = 0;
    Timeline act, rd, wr;           // ACTs, read and write column commands
    // Every cycle where tRRD_S or tFAW forbid an ACT of the unit (frfcfs_search.cpp).
    CycleSet act_full;
  };
  struct Group {
    Timeline act, col;
    CycleSet act_full;     // every cycle where tRRD_L forbids an ACT of the group
    uint64_t col_end = 0;  // the latest column command granted, + 1 (0: none)
  };
  uint64_t burst(uint32_t bank, uint32_t row, bool write, uint64_t arrival, RowOutcome& out,
                 bool drained);
  // One burst of schedule() or schedule_run(): the fast path when it takes it (a row miss does
  // not even make the call), else burst(); counts its row outcome.
  __attribute__((always_inline)) uint64_t serve(uint32_t bank, uint32_t row, bool write,
                                                uint64_t arrival, RowCounts& rows) {
    uint64_t done = 0;
    if (fast_ && banks_[bank].open_row == row && hit_fast(bank, write, arrival, done)) {
      ++rows.n[static_cast<unsigned>(RowOutcome::kHit)];
      return done;
    }
    RowOutcome out = RowOutcome::kMiss;  // (burst() tries miss_fast() first)
    done = burst(bank, row, write, arrival, out, false);
    ++rows.n[static_cast<unsigned>(out)];
    return done;
  }
  // Drains the unit's write buffer from cycle t on (after a drain still in progress).
  void drain(Unit& u, uint64_t t, RowCounts& rows);
  // The cycle from t on when a write gets into the unit's buffer (it has room).
  uint64_t buffer_room(Unit& u, uint64_t t);
  // drain(): the writes of each bank, oldest first (a list through drain_next_), the entry of
  // each bank (drain_of_, UINT32_MAX: none) and the writes moved so far.
  struct DrainBank {
    uint32_t bank, head, tail;
  };
  std::vector<DrainBank> drain_banks_;
  std::vector<uint32_t> drain_next_, drain_of_;
  std::vector<uint8_t> drain_taken_;
  // For a burst to its bank's open row (the caller checks); `drained`: a write leaving the
  // write buffer (admitted when it entered it), as burst().
  bool hit_fast(uint32_t bank, bool write, uint64_t arrival, uint64_t& done, bool drained = false);
  // For a burst that is not to the bank's open row, or finds it closed by a refresh: a miss
  // or conflict whose ACT and column command no reservation moves, outside refresh, as
  // burst() grants it (its completion and outcome); 0 (nothing changed) otherwise. burst()
  // tries it first, when the fast path is on. miss_grant(): the rest of it, out of line.
  uint64_t miss_fast(uint32_t bank, uint32_t row, bool write, uint64_t arrival,
                     RowOutcome& out);
  __attribute__((noinline)) uint64_t miss_grant(uint32_t bank, uint32_t row, bool write,
                                                uint64_t arrival, RowOutcome& out);
  bool fast_allowed() const {
    return cfg_.page_policy == PagePolicy::kOpen && !per_bank_;
  }
  // A multi-burst request on one unit (frfcfs_run.cpp): its admission, the refresh bounds of
  // its bursts and the timelines' range, valid while req == run_req_ (the request's number).
  struct RunUnit {
    uint64_t req = 0, admit = 0, use_lo = 0, end_hi = 0, floor = 0, size = 0;
    bool ok = false;
  };
  void run_prepare(RunUnit& r, uint32_t unit, uint64_t arrival);
  uint64_t schedule_run(uint64_t offset, uint64_t len, bool write, uint64_t arrival,
                        RowCounts& rows);
  // A read that finds its unit idle drains the write buffer if it holds more than this many
  // writes (DRAMsim3's rule).
  static constexpr size_t kIdleDrain = 8;
  void advance_floor(Unit& u, uint32_t unit, uint64_t admit);
  // The timelines' floor moves in steps of this many cycles (a multiple of 64): a core's loads
  // admitted a few tens of cycles apart move it every few loads, not every one or two.
  static constexpr uint64_t kFloorStep = 256;
  void extend_col_busy(Unit& u, uint64_t col, bool write) const;
  // Records a column command at `col` on its unit's and group's timelines (burst(), the fast
  // path, pass_hit); `extend`: grow the unit's busy intervals with it.
  void reserve_col(Unit& u, Group& g, uint64_t col, bool write, bool extend) {
    if (!u.rd.in_range(col)) {
      ++overflows_;
    } else {  // (the unit's and its groups' timelines share one floor)
      (write ? u.wr : u.rd).put(col);
      g.col.put(col);
    }
    g.col_end = std::max(g.col_end, col + 1);
    if (extend) extend_col_busy(u, col, write);
    u.col_max = std::max(u.col_max, col);
    u.col_free = u.col_max + col_clear_;
    u.dir_max[write] = std::max(u.dir_max[write], col + 1);  // + 1: 0 is none
    ++u.cols[write];
  }
  // reserve_col() without extend of a column command that the fast paths found at or after
  // the unit's and the group's latest (col_free; or tCCD_S and the turnaround after the
  // unit's latest of each direction, tCCD_L after the group's): stores instead of maxima.
  void reserve_col_last(Unit& u, Group& g, uint64_t col, bool write) {
    if (!u.rd.in_range(col)) {
      ++overflows_;
    } else {
      (write ? u.wr : u.rd).put(col);
      g.col.put(col);
    }
    g.col_end = col + 1;
    u.col_max = col;
    u.col_free = col + col_clear_;
    u.dir_max[write] = col + 1;
    ++u.cols[write];
  }
  // Records an ACT of `row` at `act` on its unit's maps and timeline and opens the row in its
  // bank (burst() and the miss path); `conflict`: it closes the bank's open row first, with a
  // precharge tRP before the ACT (the bank-state history's precharge).
  __attribute__((always_inline)) void reserve_act(Unit& u, Group& g, Bank& b, uint32_t unit,
                                                  uint32_t bank, uint64_t act, uint32_t row,
                                                  bool conflict) {
    hist_.open(unit, bank, act, conflict);
    if (!u.act.in_range(act)) {
      ++overflows_;
    } else {
      mark_act(u, g, act);
      u.act.put(act);
      if (!shortcuts_) g.act.put(act);  // (only the search without the maps reads it)
    }
    u.act_max = std::max(u.act_max, act);
    u.act_free = u.act_max + act_clear_;
    u.any_act = true;
    b.open_row = row;
    b.pre_ok = act + cfg_.tRAS;
  }
  static void wait_insert(Unit& u, uint64_t t);
  // A queue of times read from `head` on (the transaction queue's leave times, a drain's
  // leave times): drops the entries before head once they are many, or all of them.
  static void drop_read(std::vector<uint64_t>& q, size_t& head) {
    if (head == q.size()) {
      q.clear(), head = 0;
    } else if (head >= 64) {
      q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(head)), head = 0;
    }
  }
  // The door of the unit's transaction queue for a request admitted at `admit` at the
  // earliest: skips the leave times at or before it and, when the queue is still full, waits
  // for the next one (admit moves to it). Returns the new wait_head; the caller stores it
  // when it grants.
  size_t door(const Unit& u, uint64_t& admit) const {
    const auto& w = u.waiting;
    const size_t n = w.size();
    size_t h = u.wait_head;
    while (h < n && w[h] <= admit) ++h;
    if (n - h >= cfg_.queue_depth) admit = w[h++];
    return h;
  }
  // row_hit_cap (models/hbm/row_policy.cpp): a hit on the row the bank's last conflict closes,
  // served before that precharge if it fits; returns its completion, or 0.
  uint64_t pass_hit(Unit& u, Group& g, Bank& b, RowHistory& h, bool write, uint64_t t);
  static void note_row(const Bank& b, RowHistory& h, RowOutcome out, uint64_t pre);
  // page_policy adaptive: closes the bank's row if it has been idle page_idle_cycles at t.
  void close_idle(Bank& b, uint32_t bank, uint64_t t);
  // page_policy adaptive: the precharge of the bank's open row if no column command comes.
  uint64_t idle_precharge(const Bank& b) const {
    return std::max(b.pre_ok, b.col_ok - cfg_.tCCD_L + cfg_.page_idle_cycles);
  }
  // When the bank's open row closes if no request comes: at the first refresh after its last
  // use or, with adaptive pages, at its idle precharge if that comes first.
  uint64_t unused_close(const Bank& b, uint32_t bank) const {
    const uint64_t c = refresh_after(bank, b.last_use);
    return cfg_.page_policy == PagePolicy::kAdaptive ? std::min(c, idle_precharge(b)) : c;
  }
  // The first refresh of `bank` that starts at or after cycle t (the one that closes a row last
  // used at t): k * tREFI (+ the bank's phase with per-bank refresh), k >= 1. UINT64_MAX
  // without refresh.
  uint64_t refresh_after(uint32_t bank, uint64_t t) const {
    if (cfg_.tREFI == 0) return UINT64_MAX;
    const uint64_t p = per_bank_ ? phase_[bank] : 0;
    const uint64_t k = t <= p + cfg_.tREFI ? 1 : (t - p + cfg_.tREFI - 1) / cfg_.tREFI;
    return k * cfg_.tREFI + p;
  }
  // The bank-state history of the unit up to cycle s (every later request is admitted at or
  // after s): rows that a refresh or an idle page closed before s close, and the events
  // before s are counted (advance_floor() calls it). Unless pages are adaptive, it does so at
  // most once in kSettleStep cycles (the history's ring reaches further than that).
  void settle(uint32_t unit, uint64_t s);
  static constexpr uint64_t kSettleStep = 1024;
  // Per-bank refresh: the latest refresh window of `bank` at t (as refresh_window), its phase.
  uint64_t bank_refresh_window(uint32_t bank, uint64_t t) const {
    const uint64_t p = phase_[bank];
    return t < p ? 0 : (t - p) / cfg_.tREFI;
  }
  uint64_t find_act(Unit& u, Group& g, uint64_t a) const;
  // Records an ACT granted at x in the maps of the cycles it forbids (Unit::act_full,
  // Group::act_full).
  void mark_act(Unit& u, Group& g, uint64_t x) const;
  uint64_t find_col(Unit& u, Group& g, uint64_t c, bool write) const;
  // A command granted at x forbids cycles (x - before, x + after) to another one: when those
  // reach the end `hi` of the busy interval [lo, hi), it ends at x + after instead; when they
  // lie after it and it ends before `stale` (where every search starts from now on), they
  // are the new interval.
  static void extend_busy(uint64_t& lo, uint64_t& hi, uint64_t x, uint64_t before,
                          uint64_t after, uint64_t stale) {
    if (x + 1 <= hi + before) {
      if (x + after > hi) hi = x + after;
    } else if (hi <= stale && x + after > x + 1 - before) {
      lo = x + 1 - before, hi = x + after;
    }
  }
  uint64_t refresh_window(Unit& u, uint64_t t) const {  // t / tREFI, cached per unit
    if (t >= u.ref_lo && t < u.ref_hi) return u.ref_k;
    u.ref_k = t / cfg_.tREFI;
    u.ref_lo = u.ref_k * cfg_.tREFI;
    u.ref_hi = u.ref_lo + cfg_.tREFI;
    u.ref_ok = u.ref_k >= 1 ? u.ref_lo + cfg_.tRFC : 0;
    return u.ref_k;
  }
  // The flat bank index (unit, bank group, bank) and the row of an offset (inline: every
  // burst decodes).
  uint32_t bank_index(uint64_t o) const {
    if (__builtin_expect(field_at_ok_, 1)) {  // each field shifted straight into its place
      return static_cast<uint32_t>(((o >> field_at_[0]) & field_mask_[0]) |
                                   ((o >> field_at_[1]) & field_mask_[1]) |
                                   ((o >> field_at_[2]) & field_mask_[2]) |
                                   ((o >> field_at_[3]) & field_mask_[3]));
    }
    return static_cast<uint32_t>(((((o >> ch_shift_) & ch_mask_) << pc_bits_ |
                                   ((o >> pc_shift_) & pc_mask_))
                                  << banks_bits_) |
                                 (((o >> bg_shift_) & bg_mask_) << bpg_bits_) |
                                 ((o >> bk_shift_) & bk_mask_));
  }
  uint32_t row_of(uint64_t o) const { return static_cast<uint32_t>((o >> row_shift_) & row_mask_); }

  HbmConfig cfg_;
  HbmAddressMap map_;
  unsigned burst_shift_ = 0, banks_bits_ = 0, bpg_bits_ = 0, pc_bits_ = 0;
  // The burst (offset >> burst shift) of the last request, and its decode.
  uint64_t last_burst_ = UINT64_MAX;
  uint32_t last_bank_ = 0, last_row_ = 0;
  unsigned ch_shift_ = 0, pc_shift_ = 0, bg_shift_ = 0, bk_shift_ = 0, row_shift_ = 0;
  uint64_t ch_mask_ = 0, pc_mask_ = 0, bg_mask_ = 0, bk_mask_ = 0, row_mask_ = 0;
  // The same decode as one shift and one mask per field (channel, pseudo-channel, bank group,
  // bank), its mask moved to the field's place in the bank index; when every field lies at
  // or above that place in the offset (the burst offset is wider than the index's low bits).
  unsigned field_at_[4] = {0, 0, 0, 0};
  uint64_t field_mask_[4] = {0, 0, 0, 0};
  bool field_at_ok_ = false;
  uint64_t to_data_[2] = {0, 0}, recovery_[2] = {0, 0}, wtr_ = 0, rtw_ = 0, margin_ = 0;
  // By direction (read 0, write 1): column command to the end of its data; the least gap
  // after a column command of the other direction (wtr_ for a read, rtw_ for a write).
  uint64_t to_end_[2] = {0, 0}, turn_before_[2] = {0, 0};
  uint64_t col_clear_ = 0;  // a column command this far after every other one meets them all
  uint64_t act_clear_ = 0;  // and an ACT after every other ACT
  std::vector<Unit> units_;
  std::vector<Bank> banks_;
  std::vector<Group> groups_;
  std::vector<uint64_t> bank_queue_;  // bank * bank_queue_depth + i: column cycle of each entry
  uint64_t last_admit_ = 0;
  uint64_t overflows_ = 0;
  size_t write_high_ = 0;  // the write drain starts at this many buffered writes
  bool per_bank_ = false;  // hbm.refresh per_bank
  std::vector<uint64_t> phase_;  // per-bank refresh: each bank's offset into tREFI
  std::vector<RowHistory> history_;  // row_hit_cap != 0: one per bank
  bool shortcuts_ = true;
  bool fast_ = false;  // set_fast_path()
  uint64_t fast_hits_ = 0, fast_misses_ = 0;
  std::vector<RunUnit> run_;  // per unit
  uint64_t run_req_ = 0;
  BankHistory hist_;  // the banks' open/closed history, for the energy
};

}  // namespace npusim::models::hbm
