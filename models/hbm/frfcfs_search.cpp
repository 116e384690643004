// The reordering controller's searches (models/hbm/frfcfs.h): the earliest ACT and column
// command that every reservation granted so far allows. burst() and the write drain call
// them. The ACT search reads the maps of forbidden cycles that mark_act keeps; the busy
// intervals of Unit let a column search skip cycles an earlier one found full.
#include <algorithm>

#include "models/hbm/frfcfs.h"

namespace npusim::models::hbm {
// The earliest ACT at or after `a` that keeps tRRD_S (any bank of the unit), tRRD_L (same
// group) and tFAW (no five ACTs within tFAW) with every ACT granted so far.
//
// With the shortcuts (the default), the first cycle marked in neither the unit's nor the
// group's map of forbidden cycles (mark_act below): a scan of their words. Off, the search
// from the timelines themselves, which tests hold equal to it.
uint64_t FrFcfsController::find_act(Unit& u, Group& g, uint64_t a) const {
  const uint64_t rrd_s = cfg_.tRRD_S, rrd_l = cfg_.tRRD_L, faw = cfg_.tFAW;
  if (shortcuts_) {
    for (uint64_t blk = a >> 6;; ++blk) {
      uint64_t free = ~(u.act_full.block(blk) | g.act_full.block(blk));
      if (blk == a >> 6) free &= ~uint64_t{0} << (a & 63);
      if (free != 0) return (blk << 6) + static_cast<uint64_t>(__builtin_ctzll(free));
    }
  }
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

// The maps of forbidden ACT cycles grow with each ACT granted at x, and they are exact: a
// cycle is marked if and only if an ACT there would break a constraint against the ACTs
// granted so far.
//   tRRD_S, tRRD_L: (x - tRRD, x + tRRD), in the unit's and the group's map.
//   tFAW: an ACT at p breaks it when a window of tFAW cycles holds p and four ACTs. Granted
//   ACTs keep tFAW among themselves, so those four are consecutive ones, spanning less than
//   tFAW, and p lies in [last - tFAW, first + tFAW] (open ends). Four consecutive ACTs that
//   did not exist before x include x: with up to three on each side of it within tFAW, there
//   are at most four such runs.
void FrFcfsController::mark_act(Unit& u, Group& g, uint64_t x) const {
  const uint64_t rrd_s = cfg_.tRRD_S, rrd_l = cfg_.tRRD_L, faw = cfg_.tFAW;
  auto lo_of = [](uint64_t v, uint64_t w) { return v + 1 > w ? v + 1 - w : 0; };
  g.act_full.set_range(lo_of(x, rrd_l), x + rrd_l);
  // Every range below holds x, so their union is one range.
  uint64_t lo = lo_of(x, rrd_s), hi = x + rrd_s;
  // (No ACT within tFAW of x when it is tFAW past every one: a stream at one outstanding.)
  if (faw != 0 && u.any_act && x < u.act_max + faw) {
    // b1..b3, a1..a3: how far before and after x its nearest ACTs within tFAW lie (at most
    // three on each side, as the ones granted keep tFAW with x); 2 tFAW if there is none.
    const uint64_t none = 2 * faw;
    uint64_t b1 = none, b2 = none, b3 = none, a1 = none, a2 = none, a3 = none;
    if (faw <= 64) {  // two words of the timeline hold them all
      auto low = [](uint64_t k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; };
      auto top = [](uint64_t w) { return 63u - static_cast<unsigned>(__builtin_clzll(w)); };
      // below: cycles [x - 64, x), bit 63 is x - 1; above: [x, x + 64), bit 0 is x.
      const uint64_t xb = x >> 6, off = x & 63;
      const uint64_t w0 = u.act.block_bits(xb - 1), w1 = u.act.block_bits(xb),
                     w2 = u.act.block_bits(xb + 1);
      const uint64_t below = off == 0 ? w0 : w0 >> off | w1 << (64 - off);
      const uint64_t above = off == 0 ? w1 : w1 >> off | w2 << (64 - off);
      uint64_t left = below & ~low(65 - faw);  // (x - faw, x)
      if (left != 0) {
        b1 = 64 - top(left), left &= ~(uint64_t{1} << (64 - b1));
        if (left != 0) {
          b2 = 64 - top(left), left &= ~(uint64_t{1} << (64 - b2));
          if (left != 0) b3 = 64 - top(left);
        }
      }
      uint64_t right = above & low(faw) & ~uint64_t{1};  // (x, x + faw)
      if (right != 0) {
        a1 = static_cast<uint64_t>(__builtin_ctzll(right)), right &= right - 1;
        if (right != 0) {
          a2 = static_cast<uint64_t>(__builtin_ctzll(right)), right &= right - 1;
          if (right != 0) a3 = static_cast<uint64_t>(__builtin_ctzll(right));
        }
      }
    } else {
      uint64_t d[6] = {none, none, none, none, none, none}, after[3];
      const uint64_t from = lo_of(x, faw);
      uint64_t top = x;
      for (unsigned k = 0; k < 3; ++k) {
        const uint64_t y = u.act.last_in(from, top);
        if (y == UINT64_MAX) break;
        d[k] = x - y;
        top = y;
      }
      const unsigned na = u.act.collect(x + 1, x + faw, after, 3);
      for (unsigned k = 0; k < na; ++k) d[3 + k] = after[k] - x;
      b1 = d[0], b2 = d[1], b3 = d[2], a1 = d[3], a2 = d[4], a3 = d[5];
    }
    // The four runs of four that hold x, each from its first ACT f to its last l: when it
    // spans less than tFAW, no ACT may go in [l - tFAW, f + tFAW] (open ends).
    auto run = [&](uint64_t before, uint64_t after) {
      if (before + after < faw) {
        lo = std::min(lo, lo_of(x + after, faw));
        hi = std::max(hi, x - before + faw);
      }
    };
    run(b3, 0);
    run(b2, a1);
    run(b1, a2);
    run(0, a3);
  }
  u.act_full.set_range(lo, hi);
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
  if (c >= u.col_free) return c;
  // The unit's checks first, then the group's; cycles up to the first that passes the unit's
  // checks stay full for good.
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
