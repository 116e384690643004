// The reordering controller's searches (models/hbm/frfcfs.h): the earliest ACT and column
// command that every reservation granted so far allows. burst() and the write drain call
// them; the busy intervals of Unit let a search skip cycles an earlier one found full.
#include <algorithm>

#include "models/hbm/frfcfs.h"

namespace npusim::models::hbm {
// The earliest ACT at or after `a` that keeps tRRD_S (any bank of the unit), tRRD_L (same
// group) and tFAW (no five ACTs within tFAW) with every ACT granted so far.
uint64_t FrFcfsController::find_act(Unit& u, Group& g, uint64_t a) const {
  const uint64_t rrd_s = cfg_.tRRD_S, rrd_l = cfg_.tRRD_L, faw = cfg_.tFAW;
  // Under saturation the ACT timeline is full for hundreds of cycles ahead: jump over the
  // part an earlier search found full.
  if (a >= u.busy_lo && a < u.busy_hi) a = u.busy_hi;
  // After every ACT of the unit by tRRD_S and of the group by tRRD_L (a saturated stream's
  // requests land at the end of the schedule): only the window of five that ends with it.
  if (shortcuts_ && u.any_act && u.act_max + rrd_s <= a && g.act_end + rrd_l <= a + 1) {
    if (faw != 0 && u.last_acts[0] != 0) a = std::max(a, u.last_acts[0] - 1 + faw);
    return a;
  }
  if (faw < 64 && rrd_l < 64 && a >= 64) return find_act_near(u, g, a);
  for (;;) {
    // tRRD: nothing to check past every ACT granted (the common case of an in-order stream).
    if (u.any_act && a < u.act_max + rrd_l) {
      uint64_t hit = u.act.last_in(a + 1 > rrd_s ? a + 1 - rrd_s : 0, a + rrd_s);
      if (hit != UINT64_MAX) {
        a = hit + rrd_s;
        continue;
      }
      hit = g.act.last_in(a + 1 > rrd_l ? a + 1 - rrd_l : 0, a + rrd_l);
      if (hit != UINT64_MAX) {
        a = hit + rrd_l;
        continue;
      }
    }
    if (faw == 0) return a;
    // The ACTs within tFAW on either side, with `a` among them: every five in a row must
    // span at least tFAW.
    // Only the four nearest on each side can share a window of five with it.
    uint64_t t[9];
    const uint64_t lo = a + 1 > faw ? a + 1 - faw : 0;
    unsigned n = 0;
    for (uint64_t hi = a; n < 4;) {
      const uint64_t x = u.act.last_in(lo, hi);
      if (x == UINT64_MAX) break;
      t[3 - n++] = x;
      hi = x;
    }
    if (n < 4) std::copy(t + 4 - n, t + 4, t);  // the n found, ascending, at t[0..n)
    const unsigned at = n;
    t[n++] = a;
    n += u.act.collect(a + 1, a + faw, t + n, 4);
    // A window of five within tFAW that holds `a`: every later cycle up to the bound below
    // leaves `a` in a window with the same four others. If the window starts before `a`,
    // that is until tFAW after its first ACT; if it starts at `a`, until its last ACT.
    uint64_t next = 0;
    for (unsigned i = at >= 4 ? at - 4 : 0; i + 4 < n && i <= at; ++i) {
      if (t[i + 4] - t[i] < faw) next = std::max(next, i < at ? t[i] + faw : t[i + 4] + 1);
    }
    if (next == 0) return a;
    a = std::max(next, a + 1);
  }
}

// find_act() when tFAW and tRRD_L are below 64 cycles: every check reads the 64 cycles on
// either side of the candidate at once (two words per timeline), and the same jumps follow.
uint64_t FrFcfsController::find_act_near(Unit& u, Group& g, uint64_t a) const {
  const uint64_t rrd_s = cfg_.tRRD_S, rrd_l = cfg_.tRRD_L, faw = cfg_.tFAW;
  auto low = [](uint64_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; };
  auto top = [](uint64_t w) { return static_cast<uint64_t>(63 - __builtin_clzll(w)); };
  // Each jump below skips only cycles that break a constraint, so the first cycle that
  // passes them all is the earliest allowed one, whatever the order of the checks. The unit's
  // own checks come first: up to the first cycle that passes them, every cycle is full for
  // any bank of the unit (the busy interval, see find_act).
  const uint64_t start = a;
  bool recorded = false;
  for (;;) {
    // below: cycles [a - 64, a), bit 63 is a - 1; above: [a, a + 64), bit 0 is a.
    const uint64_t below = u.act.bits64(a - 64), above = u.act.bits64(a);
    // tRRD_S: an ACT in (a - rrd_s, a + rrd_s) moves `a` to rrd_s after the latest of them.
    uint64_t hit = above & low(rrd_s);
    if (hit != 0) {
      a += top(hit) + rrd_s;
      continue;
    }
    hit = below & ~low(65 - rrd_s);
    if (hit != 0) {
      a = a - 64 + top(hit) + rrd_s;
      continue;
    }
    if (faw != 0) {
      // tFAW as in find_act: the four nearest ACTs on each side within tFAW.
      uint64_t t[9];
      unsigned n = 0;
      uint64_t left = below & ~low(65 - faw);  // (a - faw, a)
      uint64_t left4[4];
      unsigned nl = 0;
      while (left != 0 && nl < 4) {
        const uint64_t b = top(left);
        left4[nl++] = a - 64 + b;
        left &= ~(uint64_t{1} << b);
      }
      for (unsigned i = 0; i < nl; ++i) t[n++] = left4[nl - 1 - i];
      const unsigned at = n;
      t[n++] = a;
      uint64_t right = above & low(faw) & ~uint64_t{1};  // (a, a + faw)
      for (unsigned k = 0; right != 0 && k < 4; ++k) {
        t[n++] = a + static_cast<uint64_t>(__builtin_ctzll(right));
        right &= right - 1;
      }
      uint64_t next = 0;
      for (unsigned i = at >= 4 ? at - 4 : 0; i + 4 < n && i <= at; ++i) {
        if (t[i + 4] - t[i] < faw) next = std::max(next, i < at ? t[i] + faw : t[i + 4] + 1);
      }
      if (next != 0) {
        a = std::max(next, a + 1);
        continue;
      }
    }
    if (!recorded && shortcuts_) {
      recorded = true;
      if (start >= u.busy_lo && start <= u.busy_hi) {
        u.busy_hi = std::max(u.busy_hi, a);
      } else if (a > start) {
        u.busy_lo = start, u.busy_hi = a;
      }
    }
    const uint64_t gb = g.act.bits64(a - 64), ga = g.act.bits64(a);
    hit = ga & low(rrd_l);
    if (hit != 0) {
      a += top(hit) + rrd_l;
      continue;
    }
    hit = gb & ~low(65 - rrd_l);
    if (hit != 0) {
      a = a - 64 + top(hit) + rrd_l;
      continue;
    }
    return a;
  }
}

// The earliest column command at or after `c`: tCCD_S against the unit's column commands of
// its direction, tCCD_L against the group's, the turnarounds against the other direction's
// (which keep the data bus free, see the constructor).
uint64_t FrFcfsController::find_col(Unit& u, Group& g, uint64_t c, bool write) const {
  const uint64_t ccd_s = cfg_.tCCD_S, ccd_l = cfg_.tCCD_L;
  const Timeline& same = write ? u.wr : u.rd;
  const Timeline& other = write ? u.rd : u.wr;
  // A command of the other direction at w forbids (w - after, w + before): a read after a
  // write waits wtr, a write after a read waits rtw.
  const uint64_t before = write ? rtw_ : wtr_;  // this command after the other one
  const uint64_t after = write ? wtr_ : rtw_;   // the other one after this command
  auto lo_of = [](uint64_t x, uint64_t w) { return x + 1 > w ? x + 1 - w : 0; };
  // Past every column command and burst granted: nothing to check.
  if (!u.any_col || c >= u.col_max + col_clear_) return c;
  // As for ACTs (find_act_near): the unit's checks first, then the group's; cycles up to the
  // first that passes the unit's checks stay full for good.
  uint64_t& busy_lo = u.col_busy_lo[write];
  uint64_t& busy_hi = u.col_busy_hi[write];
  if (c >= busy_lo && c < busy_hi) c = busy_hi;
  const uint64_t start = c;
  bool recorded = false;
  for (;;) {
    // Every command of its direction lies at or before c - tCCD_S: none to check (a stream
    // that appends to the unit's schedule).
    uint64_t hit = shortcuts_ && u.dir_max[write] + ccd_s <= c + 1
                       ? UINT64_MAX
                       : same.last_in(lo_of(c, ccd_s), c + ccd_s);
    if (hit != UINT64_MAX) {
      c = hit + ccd_s;
      continue;
    }
    // The other direction's commands all lie before (c - before, c + after): none to check
    // (always, in a stream of one direction).
    if (!shortcuts_ || u.dir_max[!write] + before > c + 1) {
      hit = other.last_in(lo_of(c, before), c + after);
      if (hit != UINT64_MAX) {
        c = std::max(c + 1, hit + before);
        continue;
      }
    }
    if (!recorded && shortcuts_) {
      recorded = true;
      if (start >= busy_lo && start <= busy_hi) {
        busy_hi = std::max(busy_hi, c);
      } else if (c > start) {
        busy_lo = start, busy_hi = c;
      }
    }
    if (shortcuts_ && g.col_end + ccd_l <= c + 1) return c;  // the group's all lie before
    hit = g.col.last_in(lo_of(c, ccd_l), c + ccd_l);
    if (hit != UINT64_MAX) {
      c = hit + ccd_l;
      continue;
    }
    return c;
  }
}

}  // namespace npusim::models::hbm
