// Timing of the Snitch cluster's TCDM (tightly coupled data memory): plain C++, no SystemC.
//
// The TCDM is `banks` single-ported banks of `bank_width` bytes, word-interleaved (bank =
// (offset / bank_width) % banks). Every initiator reaches every bank through the cluster's
// crossbar; one bank serves one request per cycle. An access is cut into beats of the
// initiator's port width (a core: 8 B; the DMA engine: 64 B, i.e. 8 banks per cycle), port
// aligned; a beat needs all the banks its bytes touch in the same cycle. If one of them is
// already taken in that cycle the beat waits a cycle and retries (a bank conflict: one stall
// cycle). Beats of one access issue at most one per cycle. The access completes
// `latency_cycles` after its last beat was granted. The DMA engine's wide port is itself a
// resource: with `wide_port` set, a beat also needs that port in its cycle, so the engine moves
// at most one beat (dma_port_bytes) per cycle however many bursts it has in flight.
//
// Why a reservation table and not "bank free after cycle X" (models/sram_timing.h): the cores
// are loosely timed and run ahead of each other inside their quantum, so requests reach the
// TCDM out of time order. Each bank remembers which cycles it is taken (a bitmap over a
// sliding window of kWindowCycles), so a request that comes late in host order but early in
// simulated time collides only with what really overlaps it. Arbitration between two requests
// for the same bank and cycle is first-come in host order (the real crossbar is round-robin):
// which of the two waits may differ, and so may the interleaving that follows. A request older than the
// window (never seen with quanta far below it) is granted without reservation and counted in
// `stale`.
#pragma once

#include <cstdint>
#include <vector>

namespace npusim::models {

inline constexpr uint32_t DEFAULT_TCDM_BANKS = 32;
inline constexpr uint32_t DEFAULT_TCDM_BANK_WIDTH = 8;
inline constexpr uint64_t DEFAULT_TCDM_LATENCY = 1;  // assumption: data the cycle after grant

struct TcdmGeometry {
  uint32_t banks = DEFAULT_TCDM_BANKS;
  uint32_t bank_width = DEFAULT_TCDM_BANK_WIDTH;
  uint64_t latency_cycles = DEFAULT_TCDM_LATENCY;
};

struct TcdmAccessTiming {
  uint64_t first_grant = 0;   // cycle of the first beat
  uint64_t done = 0;          // completion cycle (last grant + latency)
  uint64_t beats = 0;
  uint64_t conflicts = 0;     // beats that had to wait at least one cycle
  uint64_t stall_cycles = 0;  // cycles waited for banks over all beats
  uint64_t port_wait_cycles = 0;  // cycles waited for the wide port (not a bank conflict)
};

class TcdmTiming {
 public:
  static constexpr uint64_t kWindowWords = 512;  // per bank: 512 x 64 cycles
  static constexpr uint64_t kWindowCycles = kWindowWords * 64;

  explicit TcdmTiming(const TcdmGeometry& g);

  // Grants [offset, offset + len) (len 0 counts as 1) to an initiator with a port of
  // `port_bytes` (a multiple of the bank width, or smaller than it) arriving at `arrival`.
  // `wide_port`: the beats also reserve the single wide (DMA) port.
  TcdmAccessTiming access(uint64_t offset, uint64_t len, uint64_t arrival, uint32_t port_bytes,
                          bool wide_port = false);
  // Whether bank `bank` is taken in `cycle` (within the window).
  bool taken(uint32_t bank, uint64_t cycle) const;
  uint32_t bank_of(uint64_t offset) const {
    return static_cast<uint32_t>((offset / g_.bank_width) % g_.banks);
  }
  const TcdmGeometry& geometry() const { return g_; }
  uint64_t stale() const { return stale_; }

 private:
  struct Slot {
    uint64_t word = 0;  // cycle / 64 this slot holds
    uint64_t bits = 0;  // bit c % 64: taken in cycle c
  };
  // Banks [first, first + n) (mod banks), and the wide port if `wide`, all free in `cycle`?
  // Reserve them if so.
  enum class Take { kGranted, kPortBusy, kBankBusy };
  Take try_take(uint32_t first, uint32_t n, bool wide, uint64_t cycle);
  Slot& slot(uint32_t resource, uint64_t idx) { return slots_[uint64_t{resource} * kWindowWords + idx]; }

  TcdmGeometry g_;
  std::vector<Slot> slots_;  // (banks + 1 wide port) x kWindowWords
  uint64_t newest_word_ = 0;
  uint64_t stale_ = 0;
};

}  // namespace npusim::models
