// A DMA engine: N channels with descriptor queues; each descriptor (src, dst, len) moves in
// bursts through the interconnect with up to `outstanding` bursts in flight per channel. Data
// really moves; timing comes from the memories the bursts touch. Every descriptor is checked
// against the address-window rules (dma_window.h) before it moves: a violation is a
// structured record, and the policy decides between stopping (the firmware's assertion) and
// recording. Bus errors on a burst are recorded the same way.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/dma_window.h"

namespace npusim::models {

inline constexpr uint32_t DEFAULT_DMA_CHANNELS = 4;         // assumption
inline constexpr uint32_t DEFAULT_DMA_BURST_BYTES = 2048;   // assumption
inline constexpr uint32_t DEFAULT_DMA_OUTSTANDING = 4;      // assumption
inline constexpr double DEFAULT_DMA_CLOCK_NS = 1.0;         // assumption
// The engine's own energy per byte moved (the memories it reads and writes count theirs):
// an assumption, one write and one read of a small buffer per byte, 1.25 pJ each (a 64-bit
// access to an 8 KB SRAM: 10 pJ, Horowitz, ISSCC 2014, 45 nm).
inline constexpr double DEFAULT_DMA_PJ_PER_BYTE = 2.5;
inline constexpr uint64_t DEFAULT_DMA_SETUP_CYCLES = 32;    // descriptor fetch/decode; assumption

enum class ViolationPolicy { kAbort, kRecord };

struct DmaConfig {
  uint32_t channels = DEFAULT_DMA_CHANNELS;
  uint32_t burst_bytes = DEFAULT_DMA_BURST_BYTES;
  uint32_t outstanding = DEFAULT_DMA_OUTSTANDING;
  double clock_ns = DEFAULT_DMA_CLOCK_NS;
  uint64_t setup_cycles = DEFAULT_DMA_SETUP_CYCLES;
  std::vector<WindowRule> windows = {WindowRule{}};
  ViolationPolicy policy = ViolationPolicy::kAbort;
  bool complete_violating = true;  // under kRecord: move the data anyway (false: reject)
  // Peak rate of one channel in bytes per ns (0: limited only by the memories). A burst of n
  // bytes occupies the channel for at least n / bytes_per_ns.
  double bytes_per_ns = 0;
  double pj_per_byte = DEFAULT_DMA_PJ_PER_BYTE;  // energy per byte moved (reports only)
};

struct DmaDescriptor {
  uint64_t src = 0, dst = 0, len = 0;
  uint32_t channel = 0;
  std::string call_site;  // the firmware call that issued it
};

// A window violation or a bus error, as reported.
struct DmaFault {
  enum Kind { kWindow, kBusError } kind;
  sc_core::sc_time time;
  uint32_t channel;
  DmaDescriptor desc;
  WindowFinding finding;  // kWindow
  uint64_t bus_addr = 0;  // kBusError: the burst's failing address
  std::string message;    // one line, complete
};

// Thrown into the issuing core under the abort policy.
class DmaAbort : public std::runtime_error {
 public:
  explicit DmaAbort(const DmaFault& f) : std::runtime_error(f.message), fault_(f) {}
  const DmaFault& fault() const { return fault_; }

 private:
  DmaFault fault_;
};

struct DmaChannelStats {
  uint64_t descriptors = 0, bytes = 0, bursts = 0, rejected = 0, errors = 0;
  sc_core::sc_time busy = sc_core::SC_ZERO_TIME;
  sc_core::sc_time first_start = sc_core::SC_ZERO_TIME, last_end = sc_core::SC_ZERO_TIME;
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> bus;

  DmaEngine(sc_core::sc_module_name name, const DmaConfig& cfg);

  // Checks and queues a descriptor issued at simulated time `issue` (the issuing core's
  // local time). Returns a ticket. Under kAbort a violation throws DmaAbort (after recording).
  uint64_t submit(const DmaDescriptor& d, const sc_core::sc_time& issue);
  // A blocking transfer without the channel thread: when inline execution is enabled, the
  // channel is idle (nothing queued or running) and `issue` is the kernel time, runs the
  // descriptor now in the caller's thread — the same checks, bursts, times, statistics and
  // hooks as the channel thread — and returns its ticket (already done) and its duration,
  // for which the caller then waits. Otherwise returns nothing and the caller submits.
  // Only for an engine with one initiator (the management core): other initiators at the
  // same time would otherwise see this transfer's memory traffic earlier than in the
  // channel thread's delta cycle.
  std::optional<std::pair<uint64_t, sc_core::sc_time>> run_now(const DmaDescriptor& d,
                                                               const sc_core::sc_time& issue);
  void set_inline_execution(bool on) { inline_ = on; }
  uint64_t inline_runs() const { return inline_runs_; }  // descriptors run_now executed
  bool done(uint64_t ticket) const { return ticket < tickets_.size() && tickets_[ticket].done; }
  // The fault that ended the descriptor (a bus error), or nullptr.
  const DmaFault* fault_of(uint64_t ticket) const {
    return ticket < tickets_.size() && tickets_[ticket].fault >= 0 ? &faults_[tickets_[ticket].fault]
                                                                   : nullptr;
  }
  // Fires whenever a descriptor completes (on any channel).
  const sc_core::sc_event& completion_event() const { return completed_; }

  // Called on every fault as it happens (trace/report hooks); the fault is also kept.
  void set_fault_hook(std::function<void(const DmaFault&)> h) { hook_ = std::move(h); }
  // Called when a descriptor starts and ends (trace hooks).
  using SpanHook = std::function<void(uint32_t channel, const DmaDescriptor&, sc_core::sc_time start,
                                      sc_core::sc_time end)>;
  void set_span_hook(SpanHook h) { span_hook_ = std::move(h); }

  const DmaConfig& config() const { return cfg_; }
  const std::vector<DmaFault>& faults() const { return faults_; }
  const std::vector<DmaChannelStats>& channel_stats() const { return stats_; }

 private:
  struct Job {
    uint64_t ticket;
    DmaDescriptor desc;
    sc_core::sc_time issue;
    bool reject;
  };
  struct Channel {
    std::deque<Job> queue;
    sc_core::sc_event wake;
    std::vector<uint8_t> buf;  // one burst
    tlm::tlm_generic_payload trans;
    bool busy = false;  // the channel thread is running a job
  };

  void channel_thread(uint32_t ch);
  // Checks a descriptor against the windows (records; throws DmaAbort under kAbort);
  // returns whether it is to be rejected.
  bool check(const DmaDescriptor& d, const sc_core::sc_time& issue);
  // Issues the bursts of `job` from `start` (the kernel time); returns when the last burst
  // completes, relative to start. finish_job records the end.
  sc_core::sc_time issue_job(uint32_t ch, const Job& job, const sc_core::sc_time& start);
  void finish_job(uint32_t ch, const Job& job, const sc_core::sc_time& start,
                  const sc_core::sc_time& end);
  void record(DmaFault f);

  DmaConfig cfg_;
  sc_core::sc_time clk_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::vector<DmaChannelStats> stats_;
  std::vector<DmaFault> faults_;
  struct Ticket {
    bool done = false;
    int64_t fault = -1;  // index into faults_
  };
  std::deque<Ticket> tickets_;  // grows without moving (one per descriptor)
  uint64_t next_ticket_ = 0;
  sc_core::sc_event completed_;
  std::function<void(const DmaFault&)> hook_;
  SpanHook span_hook_;
  bool inline_ = false;
  uint64_t inline_runs_ = 0;
};

}  // namespace npusim::models
