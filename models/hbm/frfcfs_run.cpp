// The reordering controller's path for the bursts of a multi-burst request (a DMA transfer,
// a core port's 4 KiB host copy; models/hbm/frfcfs.h): a burst that hits the open row of a
// unit where the request waits neither at the door nor for its bank queue, outside refresh,
// whose column command the search would return at its start. It is the row-hit fast path
// (frfcfs_hit.cpp) with what is the same for every burst of the request on one unit (the
// admission, the transaction queue, the refresh window, the timelines' floor and horizon)
// worked out once per unit and request; the bursts are taken in address order, each as
// burst() would grant it. When a condition fails, the burst takes the fast or the full path
// and the unit's facts are worked out again for the request's next burst there.
// tests/models/test_hbm_fast_path.cpp holds it equal to the full path.
#include <algorithm>

#include "models/hbm/frfcfs.h"

namespace npusim::models::hbm {

// The facts of a unit for the current request (run_req_), or !ok when a burst there must take
// another path (a wait at the door, a refresh at the admission).
void FrFcfsController::run_prepare(RunUnit& r, uint32_t unit, uint64_t arrival) {
  Unit& u = units_[unit];
  r.req = run_req_;
  r.ok = false;
  const uint64_t admit = std::max(arrival, u.last_admit);
  // The transaction queue as burst() reads it: the leave times up to the admission are gone
  // (burst() would drop them too); a full queue means a wait at the door.
  auto& w = u.waiting;
  size_t h = u.wait_head;
  while (h < w.size() && w[h] <= admit) ++h;
  u.wait_head = h;
  if (w.size() - h >= cfg_.queue_depth) return;
  if (admit < u.release) return;  // held back by a write drain
  r.use_lo = 0, r.end_hi = UINT64_MAX;
  if (cfg_.tREFI != 0) {
    const uint64_t k = refresh_window(u, admit);
    if (k >= 1) {
      if (admit < k * cfg_.tREFI + cfg_.tRFC) return;  // in a refresh
      r.use_lo = k * cfg_.tREFI;  // a bank last used up to the refresh has its row closed
    }
    r.end_hi = (k + 1) * cfg_.tREFI;  // the access ends in this refresh interval
  }
  // As burst(): the timelines' floor and the admission (the same for every burst here, as no
  // burst of this path waits).
  if (admit >= u.floor_next) advance_floor(u, unit, admit);
  u.last_admit = admit;
  // Every timeline of the unit and of its groups has the same floor and size.
  r.floor = u.rd.floor();
  r.size = u.rd.size();
  r.admit = admit;
  r.ok = true;
}

uint64_t FrFcfsController::schedule_run(uint64_t offset, uint64_t len, bool write,
                                        uint64_t arrival, RowCounts& rows) {
  ++run_req_;
  // The constants of every burst, in registers (the grants' stores would make the compiler
  // load them again from the controller each time).
  const unsigned shift = burst_shift_, units_shift = banks_bits_, group_shift = bpg_bits_;
  const uint64_t ccd_s = cfg_.tCCD_S, ccd_l = cfg_.tCCD_L, clear = col_clear_;
  const uint64_t other_before = write ? rtw_ : wtr_, other_after = write ? wtr_ : rtw_;
  const uint64_t to_end = to_data_[write] + cfg_.burst_cycles(), recovery = recovery_[write];
  const uint32_t bqd = cfg_.bank_queue_depth;
  const bool sc = shortcuts_, cap = cfg_.row_hit_cap != 0;
  const bool buffered = cfg_.write_queue_depth != 0;  // (then this is a read)
  uint64_t done = arrival, hits = 0;
  const uint64_t first = offset >> shift, last = (offset + len - 1) >> shift;
  uint32_t bank = 0, row = 0;
  for (uint64_t bi = first; bi <= last; ++bi) {
    bank = bank_index(bi << shift);
    row = row_of(bi << shift);
    const uint32_t unit = bank >> units_shift;
    Unit& u = units_[unit];
    RunUnit& r = run_[unit];
    if (buffered) {  // as schedule(): a read that finds the unit idle drains the buffer
      const uint64_t t = std::max(arrival, u.last_admit);
      if (u.writes.size() > kIdleDrain && u.col_max < t) {
        drain(u, t, rows);
        r.req = 0;  // the unit changed
      }
    }
    if (r.req != run_req_) run_prepare(r, unit, arrival);
    if (r.ok) {
      Bank& b = banks_[bank];
      uint64_t& slot = bank_queue_[size_t{bank} * bqd + b.queue_next];
      const uint64_t t = r.admit;
      Group& g = groups_[bank >> group_shift];
      uint64_t col = std::max(t, b.col_ok);
      bool ok = b.open_row == row && slot <= t && b.last_use > r.use_lo;
      if (ok && col < u.col_free) {
        if (col >= u.col_busy_lo[write] && col < u.col_busy_hi[write]) col = u.col_busy_hi[write];
        ok = sc && u.dir_max[write] + ccd_s <= col + 1 && u.dir_max[!write] + other_before <= col + 1 &&
             g.col_end + ccd_l <= col + 1;
      }
      const uint64_t end = col + to_end;
      // Inside the refresh interval of the admission (then so is the column command: t <=
      // col < end), and inside the timelines' horizon.
      if (ok && end <= r.end_hi && col - r.floor < r.size) {
        // The grant, as burst(); the busy intervals grow with every command (the request's
        // next bursts on the unit land right behind it).
        last_admit_ = t;
        (write ? u.wr : u.rd).put(col);
        g.col.put(col);
        g.col_end = std::max(g.col_end, col + 1);
        if (sc) {  // extend_col_busy()
          extend_busy(u.col_busy_lo[write], u.col_busy_hi[write], col, ccd_s, ccd_s, t);
          extend_busy(u.col_busy_lo[!write], u.col_busy_hi[!write], col, other_before,
                      other_after, t);
        }
        u.col_max = std::max(u.col_max, col);
        u.col_free = u.col_max + clear;
        u.dir_max[write] = std::max(u.dir_max[write], col + 1);
        ++u.cols[write];
        if (cap) ++history_[bank].hits;  // burst()'s note_row for a hit
        b.col_ok = col + ccd_l;
        b.pre_ok = std::max(b.pre_ok, col + recovery);
        b.last_use = std::max(b.last_use, end);
        u.latest = std::max(u.latest, end);
        slot = col;
        if (++b.queue_next == bqd) b.queue_next = 0;
        done = std::max(done, end);
        ++hits;
        continue;
      }
      r.req = 0;  // the other path may change the unit: work its facts out again
    }
    done = std::max(done, serve(bank, row, write, arrival, rows));
  }
  last_burst_ = last, last_bank_ = bank, last_row_ = row;  // as schedule()'s decode
  rows.n[static_cast<unsigned>(RowOutcome::kHit)] += hits;
  fast_hits_ += hits;
  return done;
}

}  // namespace npusim::models::hbm
