#include "sim/tools/traffic.h"
#include "sim/output/progress.h"
#include "sim/run/stop_signal.h"

#include <algorithm>
#include <cmath>
#include <signal.h>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "models/fast_div.h"
#include "models/hbm.h"
#include "models/memory_stats.h"
#include "models/memory_system.h"
#include "models/unwind.h"
#include "sim/input/input_error.h"
#include "sim/input/platform_config.h"
#include "sim/input/snitch_profile.h"
#include "sim/input/yaml_input.h"
#include "sim/output/output_paths.h"
#include "sim/tools/heap_replay.h"
#include "sim/tools/traffic_ring.h"
#include "sim/tools/traffic_trace.h"

namespace npusim::sim {

namespace {

using sc_core::sc_time;

// The request stream: address, direction and earliest issue time of request i.
struct Pattern {
  enum Kind { kSeq, kRandom, kStride } kind = kSeq;
  uint64_t stride = 0;
};

Pattern parse_pattern(const std::string& p) {
  if (p == "seq") return {Pattern::kSeq, 0};
  if (p == "random") return {Pattern::kRandom, 0};
  if (p.rfind("stride:", 0) == 0) {
    auto n = parse_number(p.substr(7));
    if (!n || *n == 0)
      throw TrafficError("--pattern '" + p + "': stride must be a positive decimal or 0x-hex "
                         "number of bytes");
    return {Pattern::kStride, *n};
  }
  throw TrafficError("--pattern '" + p + "': expected seq, random or stride:BYTES");
}

// The TLM quantum keeper, telling its next sync point (so the generator need not ask
// need_sync(), which reads the simulation time, at every request).
class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
 public:
  sc_core::sc_time::value_type next_sync_point() const { return m_next_sync_point.value(); }
};

// Drives the pattern from one SC_THREAD as a loosely-timed initiator with a quantum keeper.
// Up to `outstanding` requests are in flight: request i is issued when a slot frees (the
// earliest completion among the requests in flight), not before the rate allows (the clock
// edge at or after i / rate cycles), and not before request i - 1. With an issue width W, at most W requests go out per memory cycle, and
// a request that waited at a full HBM queue holds back the ones behind it until it got in.
class TrafficGenerator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TrafficGenerator> mem;

  struct Setup {
    uint64_t base, span, size, requests, outstanding, seed, issue_width;
    Pattern pattern;
    double read_ratio;
    std::optional<double> rate;  // per memory cycle
    sc_time clock;               // the memory's
    Progress* progress;          // ticked at every request
    const Trace* trace;          // replayed instead of the pattern; nullptr: the pattern
    TraceWriter* writer;         // every request issued, as it is; nullptr: none
  };

  SC_HAS_PROCESS(TrafficGenerator);
  TrafficGenerator(sc_core::sc_module_name name, const Setup& s) : sc_module(name), mem("mem"), s_(s) {
    SC_THREAD(run);
  }

  models::LatencyHistogram latency_cycles;
  // A pattern with writes (--read-ratio < 1): the reads' latency on its own, as DRAMsim3 and
  // most memory studies report it (a posted write's completion is its acceptance).
  models::LatencyHistogram read_latency_cycles;
  uint64_t bytes = 0, completed = 0;  // bytes and requests completed
  sc_time first_issue = sc_core::SC_ZERO_TIME, last_done = sc_core::SC_ZERO_TIME;
  std::string error;
  uint64_t failed_request = UINT64_MAX;  // the general loop's request that failed (a trace's line)

 private:
  uint64_t next_random() {  // xorshift64*: fast and fully specified (same numbers everywhere)
    x_ ^= x_ >> 12;
    x_ ^= x_ << 25;
    x_ ^= x_ >> 27;
    return x_ * 0x2545F4914F6CDD1Dull;
  }

  uint64_t address(uint64_t i) {
    const uint64_t slots = slots_;
    switch (s_.pattern.kind) {
      case Pattern::kSeq: {  // (i % slots) * size, by a wrapping counter (i counts up by 1)
        const uint64_t slot = seq_slot_;
        if (++seq_slot_ == slots) seq_slot_ = 0;
        return s_.base + slot * s_.size;
      }
      case Pattern::kRandom: {
        // Uniform in [0, slots) by a multiply instead of a division.
        const auto r = static_cast<unsigned __int128>(next_random()) * slots;
        return s_.base + static_cast<uint64_t>(r >> 64) * s_.size;
      }
      case Pattern::kStride: {
        // Wraps inside the span; an access never runs past its end.
        // (i * stride) % span: by adding stride % span and wrapping, while i * stride fits
        // in 64 bits (the formula wraps modulo 2^64 beyond that).
        uint64_t offset;
        if (i <= stride_exact_) {
          offset = stride_offset_;
          stride_offset_ += stride_step_;
          if (stride_offset_ >= s_.span) stride_offset_ -= s_.span;
        } else {
          offset = (i * s_.pattern.stride) % s_.span;
        }
        return s_.base + std::min(offset, s_.span - s_.size);
      }
    }
    return s_.base;
  }

  // The request loop of the common case, no --rate and no --issue-width (run() sets it up):
  // every time is on the clock grid, so it counts in cycles, and its state stays in locals
  // (run()'s loop reads members again after each b_transport). The traffic_grid tests hold
  // the two loops equal; run()'s takes over if the simulation time ever leaves the grid.
  struct Grid {
    tlm::tlm_generic_payload& t;
    CompletionRing& in_flight;
    QuantumKeeper& qk;
    const sc_time* cycles_time;  // k cycles as an sc_time, k < cycles_n
    uint64_t cycles_n, clk;
    const models::DivideBy& per_clk;
    // In and out: the next request; the previous one's issue cycle; the simulation time (in
    // time units and cycles) and the quantum keeper's next sync; the latest completion.
    uint64_t i, prev_c, now, now_c, next_sync, last;
    bool stop, off_grid;  // out: a stop signal came; the simulation time left the grid
  };
  template <Pattern::Kind K>
  __attribute__((noinline)) void grid_loop(Grid& g) {
    const uint64_t requests = s_.requests, size = s_.size, base = s_.base, span = s_.span;
    const bool bounded = s_.outstanding != 0;
    const uint64_t limit = s_.outstanding;
    const uint64_t clk = g.clk, cycles_n = g.cycles_n, slots = slots_;
    const double read_ratio = s_.read_ratio;
    const bool all_reads = read_ratio >= 1.0, mixed = read_ratio < 1.0;
    tlm::tlm_generic_payload& t = g.t;
    CompletionRing& in_flight = g.in_flight;
    tlm::tlm_blocking_transport_if<>* const target = mem.operator->();  // looked up once
    uint64_t i = g.i, prev_c = g.prev_c, now = g.now, now_c = g.now_c, last = g.last;
    uint64_t x = x_, slot = seq_slot_, addr = base + slot * size, offset = stride_offset_;
    const uint64_t step = stride_step_, exact = stride_exact_, stride = s_.pattern.stride;
    auto random = [&x] {  // next_random() on the local copy
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
      return x * 0x2545F4914F6CDD1Dull;
    };
    for (; i < requests; ++i) {
      if ((i & 255) == 0) {  // the progress line, and a stop on SIGINT/SIGTERM
        if ((g.stop = interrupted())) break;
        s_.progress->update(i, static_cast<double>(prev_c * clk) / 1e3);
      }
      uint64_t issue_c = prev_c;
      if (bounded && in_flight.size() >= limit) issue_c = std::max(issue_c, in_flight.pop());
      const bool read =
          all_reads ||
          (read_ratio > 0.0 && static_cast<double>(random() >> 11) * 0x1.0p-53 < read_ratio);
      uint64_t a;  // as address(i)
      if constexpr (K == Pattern::kSeq) {
        a = addr, addr += size;
        if (++slot == slots) slot = 0, addr = base;
      } else if constexpr (K == Pattern::kRandom) {
        const auto r = static_cast<unsigned __int128>(random()) * slots;
        a = base + static_cast<uint64_t>(r >> 64) * size;
      } else {
        uint64_t o;
        if (i <= exact) {
          o = offset, offset += step;
          if (offset >= span) offset -= span;
        } else {
          o = (i * stride) % span;
        }
        a = base + std::min(o, span - size);
      }
      t.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
      t.set_address(a);
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      t.set_dmi_allowed(false);  // a reused payload: the last target may have set the hint
      const uint64_t ahead_c = issue_c - now_c;
      sc_time delay =
          ahead_c < cycles_n ? g.cycles_time[ahead_c] : sc_time::from_value(ahead_c * clk);
      target->b_transport(t, delay);
      if (!t.is_response_ok()) {
        error = fmt::format("request {} ({} {} bytes at {:#x}) failed: {}", i,
                            read ? "read" : "write", size, a, t.get_response_string());
        break;
      }
      const uint64_t done = now + static_cast<uint64_t>(delay.value());
      last = std::max(last, done);
      const uint64_t done_c = g.per_clk.ceil(done);
      latency_cycles.record(done_c - issue_c);
      if (mixed && read) read_latency_cycles.record(done_c - issue_c);
      if (bounded) in_flight.push(done_c);
      prev_c = issue_c;
      if (issue_c * clk >= g.next_sync) {  // the quantum keeper's set + need_sync
        g.qk.set(sc_time::from_value(issue_c * clk - now));
        g.qk.sync();
        now = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
        now_c = g.per_clk.floor(now);
        g.next_sync = static_cast<uint64_t>(g.qk.next_sync_point());
        if (now_c * clk != now) {  // (not expected: the sync is to an issue cycle)
          g.off_grid = true;
          ++i;
          break;
        }
      }
    }
    g.i = i, g.prev_c = prev_c, g.now = now, g.now_c = now_c, g.last = last;
    x_ = x, seq_slot_ = slot, stride_offset_ = offset;
  }

  void run() {
    QuantumKeeper qk;
    qk.set_global_quantum(sc_time(1, sc_core::SC_US));
    qk.reset();
    uint64_t max_size = s_.size;  // a trace's requests may be larger
    if (s_.trace != nullptr)
      for (const auto& q : s_.trace->requests) max_size = std::max<uint64_t>(max_size, q.size);
    std::vector<uint8_t> data(max_size);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 7);
    tlm::tlm_generic_payload t;
    t.set_data_ptr(data.data());
    t.set_data_length(static_cast<unsigned>(s_.size));
    t.set_streaming_width(static_cast<unsigned>(s_.size));
    t.set_byte_enable_ptr(nullptr);
    // The setup in locals: the loop's b_transport is an opaque call, after which members
    // would be read again.
    const uint64_t clk = static_cast<uint64_t>(s_.clock.value());
    const double clk_ps = s_.clock.to_seconds() * 1e12;
    const uint64_t requests = s_.requests, outstanding = s_.outstanding;
    const uint64_t issue_width = s_.issue_width, size = s_.size;
    const double read_ratio = s_.read_ratio;
    const bool mixed = read_ratio < 1.0 || trace_writes();
    const std::optional<double> rate = s_.rate;
    CompletionRing in_flight;
    // The admission extension only with an issue width: without one alive, the HBM does not
    // look for it (models/hbm.h).
    std::optional<models::HbmAdmitExtension> admit;
    if (issue_width != 0) {
      admit.emplace();
      t.set_extension(&*admit);
    }
    x_ = s_.seed * 0x9E3779B97F4A7C15ull + 1;
    slots_ = s_.span / s_.size;
    seq_slot_ = stride_offset_ = 0;
    if (s_.pattern.kind == Pattern::kStride) {
      stride_step_ = s_.pattern.stride % s_.span;
      stride_exact_ = UINT64_MAX / s_.pattern.stride;  // i * stride does not wrap up to here
    }
    // Times as SystemC time values (multiples of the resolution), in plain integers: only the
    // delay handed to the target is an sc_time. `now` is the simulation time, which moves only
    // at a sync of the quantum keeper.
    uint64_t now = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
    uint64_t next_sync = static_cast<uint64_t>(qk.next_sync_point());
    const models::DivideBy per_clk(clk);
    // k clock cycles as an sc_time, for the delays on the clock grid (sc_time::from_value is
    // an out-of-line call).
    std::vector<sc_time> cycles_time;
    for (uint64_t k = 0; k < 4096 && k * clk / clk == k; ++k)
      cycles_time.push_back(sc_time::from_value(k * clk));
    const uint64_t cycles_n = cycles_time.size();
    uint64_t prev_issue = 0;
    uint64_t prev_offer_c = 0;  // the cycle the previous request was offered (a trace's issue cycle)
    // Without --rate every issue time is on the clock grid (a completion rounded up, the
    // previous admission, an issue-width edge) and so is the simulation time (the quantum
    // keeper syncs to an admission): the loop then keeps the cycle counts as well (issue_c,
    // now_c) and divides once a request (the completion) instead of three times.
    uint64_t prev_c = 0, now_c = per_clk.floor(now);
    bool on_grid = !rate && now_c * clk == now;
    uint64_t edge = 0;      // --issue-width: the clock edge of the previous request
    uint64_t on_edge = 0;   // and how many went out on it
    uint64_t first = 0, last = 0, done_requests = 0, done_bytes = 0;
    uint64_t general_requests = 0;  // completed by the general loop below (done_bytes is theirs)
    auto finish = [&] {
      first_issue = sc_time::from_value(first);
      last_done = sc_time::from_value(last);
      completed = done_requests;
      // (the grid loop's requests are all --size bytes)
      bytes = done_bytes + (done_requests - general_requests) * size;
      if (admit) t.clear_extension(&*admit);
    };
    uint64_t i = 0;
    bool stop = false;  // SIGINT/SIGTERM: the requests so far are the measurement
    // The common case, without --rate or --issue-width (and no trace read or written):
    // grid_loop() below.
    if (on_grid && issue_width == 0 && s_.trace == nullptr && s_.writer == nullptr) {
      first = prev_c * clk;  // the first request's issue (nothing in flight holds it back)
      Grid g{t, in_flight, qk, cycles_time.data(), cycles_n, clk, per_clk, 0, prev_c, now,
             now_c, next_sync, last, false, false};
      switch (s_.pattern.kind) {
        case Pattern::kSeq: grid_loop<Pattern::kSeq>(g); break;
        case Pattern::kRandom: grid_loop<Pattern::kRandom>(g); break;
        case Pattern::kStride: grid_loop<Pattern::kStride>(g); break;
      }
      i = done_requests = g.i;
      prev_c = g.prev_c, prev_issue = g.prev_c * clk;
      now = g.now, now_c = g.now_c, next_sync = g.next_sync;
      last = g.last;
      on_grid = !g.off_grid;
      stop = g.stop;
      if (!error.empty()) {
        finish();
        return;
      }
    }
    for (; !stop && i < requests; ++i) {
      if ((i & 255) == 0) {  // every 256 requests: the progress line, and a stop on SIGINT/SIGTERM
        if (interrupted()) break;  // the requests so far are the measurement
        s_.progress->update(i, static_cast<double>(prev_issue) / 1e3);
      }
      uint64_t issue = prev_issue, issue_c = prev_c;  // (issue_c: on the grid only)
      if (on_grid) {
        if (outstanding != 0 && in_flight.size() >= outstanding)
          issue_c = std::max(issue_c, in_flight.pop());
        if (issue_width != 0)
          issue_c = std::max(issue_c, on_edge >= issue_width ? edge + 1 : edge);
        issue = issue_c * clk;
      } else {
        if (outstanding != 0 && in_flight.size() >= outstanding)
          issue = std::max(issue, in_flight.pop() * clk);
        if (rate) {  // on the clock edge at or after i / rate cycles (so a trace written
                     // from the run holds its exact issue cycles)
          const double at_ps = static_cast<double>(i) / *rate * clk_ps;
          const uint64_t at = static_cast<uint64_t>(sc_time(at_ps, sc_core::SC_PS).value());
          issue = std::max(issue, per_clk.ceil(at) * clk);
        }
        if (issue_width != 0) {
          const uint64_t c = std::max(per_clk.ceil(issue),
                                      on_edge >= issue_width ? edge + 1 : edge);
          issue = c * clk;
        }
      }
      bool read;
      uint64_t addr, req_size = size;
      if (s_.trace != nullptr) {  // the trace's request: its address, direction, size, time
        const TraceRequest& q = s_.trace->requests[i];
        read = !q.write;
        addr = s_.base + q.offset;
        if (q.size != 0) req_size = q.size;
        // Not before its cycle; in a relative trace, its cycles after the previous request's
        // issue cycle.
        if (q.cycle != 0 || s_.trace->relative) {
          const uint64_t at_c = s_.trace->relative ? prev_offer_c + q.cycle : q.cycle;
          if (on_grid) {
            issue_c = std::max(issue_c, at_c);
            issue = issue_c * clk;
          } else {
            issue = std::max(issue, at_c * clk);
          }
          if (issue_width != 0) {  // (the edge rule above, for the moved issue)
            const uint64_t c = std::max(per_clk.ceil(issue), on_edge >= issue_width ? edge + 1 : edge);
            issue = c * clk, issue_c = c;
          }
        }
        if (req_size != t.get_data_length()) {
          t.set_data_length(static_cast<unsigned>(req_size));
          t.set_streaming_width(static_cast<unsigned>(req_size));
        }
      } else {
        read = read_ratio >= 1.0 ||
               (read_ratio > 0.0 && static_cast<double>(next_random() >> 11) * 0x1.0p-53 < read_ratio);
        addr = address(i);
      }
      prev_offer_c = on_grid ? issue_c : per_clk.ceil(issue);
      if (s_.writer != nullptr) s_.writer->add(addr - s_.base, !read, prev_offer_c, req_size);
      t.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
      t.set_address(addr);
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      t.set_dmi_allowed(false);  // a reused payload: the last target may have set the hint
      if (admit) admit->arrival = admit->admit = 0;
      const uint64_t ahead = issue - now;
      const uint64_t ahead_cycles = on_grid ? issue_c - now_c : per_clk.floor(ahead);
      sc_time delay = (on_grid || ahead_cycles * clk == ahead) && ahead_cycles < cycles_n
                          ? cycles_time[ahead_cycles]
                          : sc_time::from_value(ahead);
      mem->b_transport(t, delay);
      if (!t.is_response_ok()) {
        error = fmt::format("request {} ({} {} bytes at {:#x}) failed: {}", i,
                            read ? "read" : "write", req_size, addr, t.get_response_string());
        failed_request = i;
        finish();
        return;
      }
      const uint64_t done = now + static_cast<uint64_t>(delay.value());
      // A full queue kept the request waiting: it went in `stall` cycles after it was offered,
      // and the next one is offered no earlier (head-of-line).
      const uint64_t stall = admit ? admit->admit - admit->arrival : 0;
      const uint64_t accepted = issue + stall * clk;
      if (i == 0) first = issue;
      last = std::max(last, done);
      ++done_requests;
      ++general_requests;
      done_bytes += req_size;
      const uint64_t done_c = per_clk.ceil(done);
      // ceil((done - accepted) / clk) = ceil(done / clk) - accepted / clk on the grid.
      const uint64_t accepted_c = on_grid ? issue_c + stall : 0;
      const uint64_t lat = on_grid ? done_c - accepted_c : per_clk.ceil(done - accepted);
      latency_cycles.record(lat);
      if (mixed && read) read_latency_cycles.record(lat);
      if (outstanding != 0) in_flight.push(done_c);
      prev_issue = accepted;
      prev_c = accepted_c;
      if (issue_width != 0) {
        const uint64_t c = on_grid ? accepted_c : per_clk.floor(accepted);
        on_edge = c == edge ? on_edge + 1 : 1;
        edge = c;
      }
      // The quantum keeper's set + need_sync, without reading the simulation time each time.
      if (accepted >= next_sync) {
        qk.set(sc_time::from_value(accepted - now));
        qk.sync();
        now = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
        now_c = per_clk.floor(now);
        on_grid = on_grid && now_c * clk == now;  // (it stays: the sync is to an admission)
        next_sync = static_cast<uint64_t>(qk.next_sync_point());
      }
    }
    finish();
  }

  // A trace with writes: the reads' latency is reported on its own, as for --read-ratio < 1.
 public:
  bool trace_writes() const {
    if (s_.trace != nullptr)
      for (const auto& q : s_.trace->requests)
        if (q.write) return true;
    return false;
  }

 private:
  Setup s_;
  uint64_t x_ = 1;
  uint64_t slots_ = 1, seq_slot_ = 0;  // span / size; kSeq: i % slots
  // kStride: (i * stride) % span for every i up to stride_exact_, the next one's offset.
  uint64_t stride_offset_ = 0, stride_step_ = 0, stride_exact_ = 0;
};

}  // namespace

namespace {

// While alive, SIGINT and SIGTERM interrupt a blocking system call (an open or a read of a
// FIFO) instead of restarting it: their handlers (StopSignals) stay, only SA_RESTART is off.
class InterruptibleCalls {
 public:
  InterruptibleCalls() {
    for (int i = 0; i < 2; ++i) {
      struct sigaction sa {};
      sigaction(kSignals[i], nullptr, &sa);
      old_[i] = sa;
      sa.sa_flags &= ~SA_RESTART;
      sigaction(kSignals[i], &sa, nullptr);
    }
  }
  ~InterruptibleCalls() {
    for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  InterruptibleCalls(const InterruptibleCalls&) = delete;
  InterruptibleCalls& operator=(const InterruptibleCalls&) = delete;

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGTERM};
  struct sigaction old_[2];
};

// A platform profile rather than a memory configuration: a built-in name, or a YAML file with a
// top-level `platform:` or `extends:`.
bool is_neuron_profile(const std::string& p) {
  if (!builtin_profile(p).empty()) return true;
  if (!input_file_problem(p).empty()) return false;
  try {
    const YAML::Node root = load_yaml(read_input_file(p, "configuration"), p);
    return root.IsMap() && (root["platform"] || root["extends"]);
  } catch (const InputError&) {
    return false;  // the memory configuration's loader says what is wrong with it
  }
}

}  // namespace

models::MemoryConfig memory_of(const TrafficOptions& opt) {
  if (opt.platform.empty()) return models::load_memory_config("", "<defaults>", opt.overrides);
  if (is_snitch_platform(opt.platform))
    throw TrafficError(fmt::format("--platform {}: traffic drives the HBM or dataram of a neuron-gpsimd profile or "
                                   "of a memory configuration (docs/memory-config.md); snitch-cluster has neither",
                                   opt.platform));
  if (is_neuron_profile(opt.platform)) {
    // The memories of the profile, with --set applied as `npusim run --set` applies it.
    std::vector<Setting> sets;
    for (const auto& [k, v] : opt.overrides) sets.push_back(Setting{k, v, Where{"--set", 0, 0}});
    return load_platform(opt.platform, sets).memory;
  }
  return models::load_memory_config_file(opt.platform, opt.overrides);
}

TrafficResult run_traffic(const TrafficOptions& opt) {
  if (opt.memory != "hbm" && opt.memory != "dataram")
    throw TrafficError("--memory '" + opt.memory + "': expected hbm or dataram");
  const Pattern pattern = parse_pattern(opt.pattern);
  if (opt.requests == 0) throw TrafficError("--requests 0: nothing to measure");
  if (opt.size == 0 || opt.size > (1u << 20))
    throw TrafficError(fmt::format("--size {}: must be in [1, 1048576] bytes", opt.size));
  if (opt.rate && !(*opt.rate > 0.0 && std::isfinite(*opt.rate)))
    throw TrafficError(fmt::format("--rate {}: must be a positive number of requests per cycle",
                                   *opt.rate));
  if (!(opt.read_ratio >= 0.0 && opt.read_ratio <= 1.0))
    throw TrafficError(fmt::format("--read-ratio {}: must be in [0, 1]", opt.read_ratio));

  const models::MemoryConfig cfg = memory_of(opt);
  const bool hbm = opt.memory == "hbm";
  const uint64_t base = hbm ? cfg.hbm.base : cfg.dataram.base;
  const uint64_t mem_size = hbm ? cfg.hbm.size() : cfg.dataram.size;
  // Writes allocate store pages, so a pattern that writes is kept to 1 GiB unless --span says
  // otherwise; reads allocate nothing and cover the whole memory.
  uint64_t span = opt.span.value_or(opt.read_ratio >= 1.0 ? mem_size
                                                          : std::min<uint64_t>(mem_size, 1ull << 30));
  if (span > mem_size || span < opt.size)
    throw TrafficError(fmt::format("--span {}: must be in [--size, memory size {}]", span, mem_size));
  if (opt.size > mem_size)
    throw TrafficError(fmt::format("--size {}: larger than the {} ({} bytes)", opt.size,
                                   opt.memory, mem_size));
  if (opt.issue_width > 1024)
    throw TrafficError(fmt::format("--issue-width {}: must be in [1, 1024] requests per cycle",
                                   opt.issue_width));
  const double clock_ns = hbm ? cfg.hbm.tck_ns : cfg.dataram.clock_ns;
  constexpr double kMaxTracePs = 1e18;  // a trace request's time (docs/energy.md)
  // A trace: read whole and checked against the memory before anything runs.
  std::optional<Trace> trace;
  uint64_t requests = opt.requests;
  auto format_option = [](const char* option, const std::string& name) -> std::optional<TraceFormat> {
    if (name.empty()) return std::nullopt;
    auto f = trace_format_named(name);
    if (!f)
      throw TrafficError(fmt::format("{} '{}': expected one of {}", option, name, trace_format_names()));
    return f;
  };
  const auto in_format = format_option("--trace-format", opt.trace_format);
  const auto out_format = format_option("--write-trace-format", opt.write_trace_format);
  // Writing the trace being replayed (or the configuration) would destroy it.
  if (!opt.write_trace.empty())
    check_outputs_not_inputs({{"--write-trace", opt.write_trace, {}}},
                             {{"--trace", opt.trace, {}}, {"--platform", opt.platform, {}}});
  if (!opt.trace.empty()) {
    {
      // A FIFO without a writer (or one that stops writing) blocks the read: a stop signal
      // interrupts it instead of being held until the read returns.
      InterruptibleCalls interruptible;
      try {
        trace = read_trace(opt.trace, in_format);
      } catch (const TrafficError&) {
        if (!interrupted()) throw;
      }
      if (interrupted())
        throw TrafficError(fmt::format("--trace: stopped by {} while the trace was read; nothing ran (at '{}')",
                                       stop_signal_name(), opt.trace));
    }
    if (!opt.requests_given || requests > trace->requests.size()) requests = trace->requests.size();
    for (size_t i = 0; i < trace->requests.size(); ++i) {
      const TraceRequest& q = trace->requests[i];
      const uint64_t n = q.size != 0 ? q.size : opt.size;
      // Simulated time is counted in picoseconds in 64 bits: a cycle beyond the limit would
      // wrap around.
      if (static_cast<double>(q.cycle) * clock_ns * 1e3 > kMaxTracePs)
        throw TrafficError(InputError(opt.trace, static_cast<int>(trace->lines[i]), std::to_string(q.cycle),
                                      fmt::format("the cycle is beyond what npusim simulates: at most {:.0f} "
                                                  "cycles of the {} ({} ns a cycle), 10^18 ps (11.6 days)",
                                                  std::floor(kMaxTracePs / (clock_ns * 1e3)), opt.memory, clock_ns))
                               .what());
      if (q.offset >= mem_size || n > mem_size - q.offset)
        throw TrafficError(InputError(opt.trace, static_cast<int>(trace->lines[i]),
                                      fmt::format("{:#x}", q.offset),
                                      fmt::format("{} bytes from this address run past the end "
                                                  "of the {} ({:#x} bytes; addresses are offsets "
                                                  "into it)", n, opt.memory, mem_size))
                               .what());
    }
  }
  std::unique_ptr<TraceWriter> writer;
  if (!opt.write_trace.empty()) {
    TraceFormat f = TraceFormat::kDramsim3;
    if (out_format) f = *out_format;
    else if (opt.trace.empty() && in_format) f = *in_format;
    else if (const auto by_name = trace_format_of_name(opt.write_trace)) f = *by_name;
    writer = std::make_unique<TraceWriter>(opt.write_trace, f, hbm ? cfg.hbm.burst_bytes() : 64);
  }
  // With an issue width the memory's queues limit what is in flight (0: no other limit).
  const uint64_t outstanding =
      opt.outstanding || opt.issue_width
          ? opt.outstanding
          : (hbm ? uint64_t{cfg.hbm.units()} * cfg.hbm.queue_depth : cfg.dataram.banks);

  // The copyright banner would end up in the JSON on stdout.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  models::MemorySystem platform("platform", cfg);
  const std::string what = trace ? "trace " + opt.trace : opt.pattern;
  Progress progress("traffic " + opt.memory + " " + what,
                    opt.progress ? Progress::Mode::kOn : Progress::Mode::kAuto);
  progress.set_total(requests, "requests");
  TrafficGenerator::Setup setup{base, span, opt.size, requests, outstanding, opt.seed,
                                opt.issue_width, pattern, opt.read_ratio, opt.rate,
                                hbm ? platform.hbm.clock() : platform.dataram.clock(), &progress,
                                trace ? &*trace : nullptr, writer.get()};
  TrafficGenerator gen("traffic", setup);
  gen.mem.bind(platform.bus());
  sc_core::sc_start();
  models::main_stack_resume();  // ASan: back on the main stack (models/unwind.h)
  progress.update(gen.completed, static_cast<double>(gen.last_done.value()) / 1e3);
  progress.finish();
  // A failed request: no trace is written (the writer's destructor removes its file).
  if (!gen.error.empty() && trace && gen.failed_request < trace->lines.size())
    throw TrafficError(fmt::format("{}:{}: {}", opt.trace, trace->lines[gen.failed_request], gen.error));
  if (!gen.error.empty()) throw TrafficError(gen.error);
  if (writer) writer->close();  // (what was issued, also when a signal stopped the run)

  TrafficResult r;
  r.memory = opt.memory;
  r.pattern = trace ? "trace:" + opt.trace : opt.pattern;
  r.requests = gen.completed;
  r.planned = requests;
  r.interrupted = stop_signal_name();
  r.bytes = gen.bytes;
  r.outstanding = outstanding;
  r.clock_ns = hbm ? cfg.hbm.tck_ns : cfg.dataram.clock_ns;
  r.elapsed_ns = (gen.last_done - gen.first_issue).to_seconds() * 1e9;
  r.bandwidth_gbps = r.elapsed_ns > 0 ? static_cast<double>(r.bytes) / r.elapsed_ns : 0.0;
  r.latency_mean_cycles = gen.latency_cycles.mean();
  r.latency_p50_cycles = gen.latency_cycles.percentile(0.5);
  r.latency_p99_cycles = gen.latency_cycles.percentile(0.99);
  r.latency_max_cycles = gen.latency_cycles.max();
  r.latency_min_cycles = gen.latency_cycles.min();
  if ((opt.read_ratio < 1.0 || gen.trace_writes()) && gen.read_latency_cycles.count() != 0) {
    // (all writes: no line)
    r.reads = gen.read_latency_cycles.count();
    r.read_latency_mean_cycles = gen.read_latency_cycles.mean();
    r.read_latency_p50_cycles = gen.read_latency_cycles.percentile(0.5);
    r.read_latency_p99_cycles = gen.read_latency_cycles.percentile(0.99);
  }
  const models::MemoryStats& s = hbm ? platform.hbm.stats() : platform.dataram.stats();
  if (hbm) r.row_hit_rate = s.row_hit_rate();
  r.row_hits = s.row_hits;
  r.row_misses = s.row_misses;
  r.row_conflicts = s.row_conflicts;
  r.refreshes = s.refreshes;
  r.bank_conflicts = s.bank_conflicts;
  if (hbm) {
    // Over the whole run: HBM cycles [0, the last completion) (DRAMsim3 counts every cycle
    // it simulated the same way).
    const models::HbmEnergyReport e = platform.hbm.energy(s.last_completion_cycle);
    r.energy = e.total;
    if (opt.per_channel) r.unit_energy = e.units;
    r.pseudo_channels = cfg.hbm.pseudo_channels;
  }
  return r;
}

}  // namespace npusim::sim
