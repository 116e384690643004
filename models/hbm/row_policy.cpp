// The frfcfs controller's row policies beyond open and closed pages (docs/timing-model.md,
// "Controller options").
//
// hbm.row_hit_cap: row hits that pass an older request of their bank (FR-FCFS within a
// bank, as DRAMsim3's precharge arbitration lets up to 4 hits on the open row go before a
// queued conflict). Reservations are final when granted, so a hit cannot push the older
// conflict's precharge back; it takes the cycles between the row's last column command and
// that precharge when its column command, its data and its recovery (tRTP, or write data +
// tWR) fit there. Cost: one column search.
#include <algorithm>

#include "models/hbm/frfcfs.h"

namespace npusim::models::hbm {

// Called at each grant while row_hit_cap is on, before the bank's state changes: `pre` is the
// precharge of a conflict (its first command).
void FrFcfsController::note_row(const Bank& b, RowHistory& h, RowOutcome out, uint64_t pre) {
  if (out == RowOutcome::kHit) {
    ++h.hits;
    return;
  }
  if (out == RowOutcome::kConflict) {
    h.prev_row = b.open_row;
    h.prev_hits = h.hits;
    h.prev_col_ok = b.col_ok;
    h.prev_pre = pre;
  } else {
    h.prev_row = kNoRow;
  }
  h.hits = 1;  // the column command that opens the new row
}

uint64_t FrFcfsController::pass_hit(Unit& u, Group& g, Bank& b, RowHistory& h, bool write,
                                    uint64_t t) {
  const uint64_t c0 = std::max(t, h.prev_col_ok);
  if (c0 + recovery_[write] > h.prev_pre) return 0;
  const uint64_t col = find_col(u, g, c0, write);
  if (col + recovery_[write] > h.prev_pre) return 0;
  reserve_col(u, g, col, write, false);  // the group's col_end too (burst()'s record)
  h.prev_col_ok = col + cfg_.tCCD_L;
  ++h.prev_hits;
  const uint64_t done = col + to_data_[write] + cfg_.burst_cycles();
  b.last_use = std::max(b.last_use, done);
  u.latest = std::max(u.latest, done);
  return done;
}

// page_policy adaptive: the row is precharged page_idle_cycles after its last column command
// (no earlier than the bank allows); a request at or after that finds the bank closed.
void FrFcfsController::close_idle(Bank& b, uint32_t bank, uint64_t t) {
  if (b.open_row == kNoRow) return;
  const uint64_t pre = idle_precharge(b);
  if (t < pre) return;
  hist_.close(bank, pre);
  b.open_row = kNoRow;
  b.act_ok = std::max(b.act_ok, pre + cfg_.tRP);
}

}  // namespace npusim::models::hbm
