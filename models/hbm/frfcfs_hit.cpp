// The reordering controller's fast path (models/hbm/frfcfs.h): a burst that hits the open
// row of its bank with nothing to search, the common case of a core's loads, of a DMA
// request's first burst on each unit and of a saturated sequential stream (which waits at the
// door and for its bank queue). It takes the cycles burst() would take, with none of its
// searches: every condition below is one under which burst() itself computes them without a
// search, and the queues and reservations are updated as burst() updates them. When a
// condition fails it changes nothing and the caller takes the full path.
// tests/models/test_hbm_fast_path.cpp holds the two equal.
// schedule(), the controller's entry for every request, is here too (see its comment).
#include <algorithm>

#include "models/hbm/frfcfs.h"

namespace npusim::models::hbm {

// As for an ACT: a column command makes tCCD_S full for its direction, the turnaround for
// the other.
void FrFcfsController::extend_col_busy(Unit& u, uint64_t col, bool write) const {
  extend_busy(u.col_busy_lo[write], u.col_busy_hi[write], col, cfg_.tCCD_S, cfg_.tCCD_S,
              u.last_admit);
  extend_busy(u.col_busy_lo[!write], u.col_busy_hi[!write], col, turn_before_[write],
              turn_before_[!write], u.last_admit);
}

bool FrFcfsController::hit_fast(uint32_t bank, bool write, uint64_t arrival, uint64_t& done,
                                bool drained) {
  const uint32_t unit = bank >> banks_bits_;
  Unit& u = units_[unit];
  Bank& b = banks_[bank];
  // (The callers checked that the burst is to the bank's open row: never with closed pages.)
  // The transaction queue and the bank queue as in burst(): wait at the door while the
  // transaction queue is full, then for the entry a full bank queue ahead to issue. Nothing
  // is changed until the grant below.
  uint64_t admit = std::max(arrival, u.last_admit);
  // (A write from the write buffer passed the door when it entered the buffer.) Every leave
  // time is at or before the admission in the common case: then the queue holds nobody at
  // it, and the leave times burst() would drop here, a later scan drops as well.
  const bool scan = !drained && admit < u.wait_max;
  const size_t h = scan ? door(u, admit) : u.wait_head;
  uint64_t& slot = bank_queue_[size_t{bank} * cfg_.bank_queue_depth + b.queue_next];
  uint64_t t = std::max(admit, slot);
  // A read that came while a drain moved its writes: as burst(), it takes the next release.
  const bool held = !drained && admit < u.release && t <= u.release;
  if (held) t = u.release;
  // Past every column command by the column search's own bound, or (with the shortcuts) after
  // every one of its unit and group once in or past the busy interval: the search returns
  // this cycle without reading a timeline and without recording anything.
  uint64_t col = std::max(t, b.col_ok);
  Group& g = groups_[bank >> bpg_bits_];
  const bool behind = col < u.col_free;
  if (behind) {
    if (!shortcuts_) return false;
    if (col >= u.col_busy_lo[write] && col < u.col_busy_hi[write]) col = u.col_busy_hi[write];
    if (u.dir_max[write] + cfg_.tCCD_S > col + 1 ||
        u.dir_max[!write] + turn_before_[write] > col + 1 || g.col_end + cfg_.tCCD_L > col + 1)
      return false;
  }
  const uint64_t end = col + to_end_[write];
  // Refresh: not in a refresh, the bank not refreshed since its last use, and the access (its
  // column command to its last data) inside one refresh interval. Inside the unit's cached
  // refresh window that is three compares (ref_ok > ref_lo when the window has a refresh);
  // else the window of t is looked up, and the same compares decide.
  if (t < u.ref_ok || end > u.ref_hi || b.last_use <= u.ref_lo) {
    refresh_window(u, t);
    if (t < u.ref_ok || end > u.ref_hi || b.last_use <= u.ref_lo) return false;
  }
  // As burst(): the queues, the timelines' floor, the admission, the grant.
  if (held) ++u.release;
  if (scan) u.wait_head = h;
  if (!drained && t > admit) wait_insert(u, t);  // it leaves the transaction queue at t
  if (admit >= u.floor_next) advance_floor(u, unit, admit);
  if (!drained) {  // (a drained write entered the buffer at its admission)
    u.last_admit = admit;
    last_admit_ = admit;
  }
  // The busy intervals grow as in burst() when the command lands right behind others (a
  // DMA request's bursts on one unit); past them all (a core's loads) that costs more than
  // the next search it would save.
  reserve_col_last(u, g, col, write);
  if (behind) {
    extend_col_busy(u, col, write);
    b.last_use = std::max(b.last_use, end);
    u.latest = std::max(u.latest, end);
  } else {
    // Past col_free its data end last too: col_clear_ >= rtw_ >= tCL + BL/2 - tWL covers
    // the longer read latency.
    u.latest = end;
    b.last_use = end;
  }
  if (cfg_.row_hit_cap != 0) ++history_[bank].hits;  // burst()'s note_row for a hit
  b.col_ok = col + cfg_.tCCD_L;
  b.pre_ok = std::max(b.pre_ok, col + recovery_[write]);
  slot = col;
  if (++b.queue_next == cfg_.bank_queue_depth) b.queue_next = 0;
  done = end;
  ++fast_hits_;
  return true;
}

// The row-miss and row-conflict path, burst()'s first pass for them where neither search
// moves anything: the ACT at or past act_free (no tRRD or tFAW window of a granted ACT reaches
// it, so find_act() returns it), the column command at or past col_free (so does find_col()),
// after the refresh that holds the admission (none at t, and the access ends before the next:
// burst() then runs its loop once). tests/models/test_hbm_fast_path.cpp holds it equal.
// It applies where no column command is pending at the admission (a core's loads): on a busy
// unit it gives up before miss_grant() saves a register.
uint64_t FrFcfsController::miss_fast(uint32_t bank, uint32_t row, bool write, uint64_t arrival,
                                     RowOutcome& out) {
  if (cfg_.row_hit_cap != 0) return 0;  // a hit may pass a conflict (pass_hit, note_row)
  const Unit& u = units_[bank >> banks_bits_];
  if (std::max(arrival, u.last_admit) < u.col_free) return 0;
  return miss_grant(bank, row, write, arrival, out);
}

uint64_t FrFcfsController::miss_grant(uint32_t bank, uint32_t row, bool write, uint64_t arrival,
                                      RowOutcome& out) {
  const uint32_t unit = bank >> banks_bits_;
  Unit& u = units_[unit];
  Bank& b = banks_[bank];
  // The door and the bank queue, as hit_fast().
  uint64_t admit = std::max(arrival, u.last_admit);
  const bool scan = admit < u.wait_max;
  const size_t h = scan ? door(u, admit) : u.wait_head;
  // A read held back by a write drain (admitted before its release) takes burst()'s path.
  // (Unreachable while every drained write's column command lies at or after its move, as
  // col_free then lies past the release; kept so the rule does not rest on that.)
  if (admit < u.release) return 0;
  uint64_t& slot = bank_queue_[size_t{bank} * cfg_.bank_queue_depth + b.queue_next];
  const uint64_t t = std::max(admit, slot);
  // burst()'s refresh step at t: none in progress (burst() would start after it); a bank
  // refreshed since its last use has its row closed and no ACT before the refresh ends.
  if (t < u.ref_ok || t >= u.ref_hi) {
    refresh_window(u, t);
    if (t < u.ref_ok) return 0;
  }
  const bool refreshed = b.last_use <= u.ref_lo;  // (as burst(): at the refresh's start too)
  const uint32_t open = refreshed ? kNoRow : b.open_row;
  if (open == row) return 0;  // a hit the fast path did not take: burst()
  const uint64_t act_ok = refreshed ? std::max(b.act_ok, u.ref_ok) : b.act_ok;
  uint64_t act = std::max(t, act_ok);
  if (open != kNoRow) act = std::max(act, std::max(t, b.pre_ok) + cfg_.tRP);
  if (act < u.act_free) return 0;  // find_act() would search
  const uint64_t col = std::max(act + cfg_.tRCD, b.col_ok);
  if (col < u.col_free) return 0;  // find_col() would search
  // The access, from its first command (the precharge tRP before the ACT of a conflict, at
  // or after t) to its last data, inside the refresh interval of t.
  const uint64_t end = col + to_end_[write];
  if (end > u.ref_hi) return 0;
  // The grant, in burst()'s order.
  if (scan) u.wait_head = h;
  if (admit >= u.floor_next) advance_floor(u, unit, admit);
  u.last_admit = admit;
  last_admit_ = admit;
  if (t > admit) wait_insert(u, t);
  Group& g = groups_[bank >> bpg_bits_];
  if (refreshed) {
    b.act_ok = act_ok;
    hist_.close(bank, unused_close(b, bank));
  }
  reserve_act(u, g, b, unit, bank, act, row, open != kNoRow);
  out = open == kNoRow ? RowOutcome::kMiss : RowOutcome::kConflict;
  reserve_col_last(u, g, col, write);  // (past col_free: no busy interval grown, as hit_fast())
  b.col_ok = col + cfg_.tCCD_L;
  b.pre_ok = std::max(b.pre_ok, col + recovery_[write]);
  u.latest = end;  // (past col_free: as hit_fast())
  b.last_use = end;
  slot = col;
  if (++b.queue_next == cfg_.bank_queue_depth) b.queue_next = 0;
  ++fast_misses_;
  return end;  // (> 0: to_end_ >= 1)
}

// Here rather than in frfcfs.cpp so that the fast path (hit_fast() and its reservations) is
// inlined (`flatten`): nearly every request of a core's loads or of a saturated sequential
// stream is one burst that takes it, and the call, its saved registers and its result through
// memory were ~25 instructions of it. burst(), drain() and the multi-burst path stay calls.
__attribute__((flatten)) uint64_t FrFcfsController::schedule(uint64_t offset, uint64_t len,
                                                             bool write, uint64_t arrival_cycles,
                                                             RowCounts& rows) {
  const unsigned shift = burst_shift_;
  // One burst of the request at `a`: posted to the write buffer (its completion is the
  // cycle after it gets in), or served.
  auto one = [&](uint64_t a) -> uint64_t {
    // Consecutive accesses to one burst (a core reading an array) decode once.
    if (a >> shift != last_burst_) {
      last_burst_ = a >> shift;
      last_bank_ = bank_index(a);
      last_row_ = row_of(a);
    }
    if (cfg_.write_queue_depth != 0) {
      Unit& u = units_[last_bank_ >> banks_bits_];
      const uint64_t t = std::max(arrival_cycles, u.last_admit);
      if (write) {
        // Posted: the write is done for its initiator once in the buffer (when it has room);
        // a buffer at its high watermark starts a drain (down to the low watermark).
        const uint64_t in = u.leave_head != u.leave.size() ? buffer_room(u, t) : t;
        u.writes.push_back(PendingWrite{last_bank_, last_row_});
        u.last_admit = in;
        last_admit_ = in;
        if (u.writes.size() >= write_high_) drain(u, in, rows);
        return in + 1;
      }
      // A read finds the unit idle (no command pending) with writes waiting: drain them.
      if (u.writes.size() > kIdleDrain && u.col_max < t) drain(u, t, rows);
    }
    // A row hit with nothing in its way takes the fast path (hit_fast above).
    return serve(last_bank_, last_row_, write, arrival_cycles, rows);
  };
  // The common case first: a request inside one burst, with no loop around it.
  if (len != 0 && (offset + len - 1) >> shift == offset >> shift)
    return std::max(arrival_cycles, one(offset));
  // Several bursts, not posted to a write buffer: the multi-burst path (frfcfs_run.cpp).
  if (fast_ && len != 0 && !(write && cfg_.write_queue_depth != 0))
    return schedule_run(offset, len, write, arrival_cycles, rows);
  const uint64_t bsz = uint64_t{1} << shift;
  uint64_t done = arrival_cycles;
  for (uint64_t a = offset & ~(bsz - 1); a < offset + len; a += bsz) done = std::max(done, one(a));
  return done;
}

}  // namespace npusim::models::hbm
