#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: one thread per channel
#include "models/dma_engine.h"

#include <fmt/format.h>

#include <algorithm>

namespace npusim::models {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const DmaConfig& cfg)
    : sc_core::sc_module(name), bus("bus"), cfg_(cfg), clk_(cfg.clock_ns, sc_core::SC_NS) {
  if (cfg.channels == 0) throw std::invalid_argument("dma.channels must be at least 1");
  if (cfg.burst_bytes == 0) throw std::invalid_argument("dma.burst_bytes must be positive");
  if (cfg.outstanding == 0) throw std::invalid_argument("dma.outstanding must be at least 1");
  if (cfg.clock_ns <= 0) throw std::invalid_argument("dma.clock_ns must be positive");
  stats_.resize(cfg.channels);
  for (uint32_t ch = 0; ch < cfg.channels; ++ch) {
    channels_.push_back(std::make_unique<Channel>());
    channels_.back()->buf.resize(cfg.burst_bytes);
    sc_core::sc_spawn_options opt;
    sc_core::sc_spawn([this, ch] { channel_thread(ch); },
                      sc_core::sc_gen_unique_name("channel"), &opt);
  }
}

void DmaEngine::record(DmaFault f) {
  faults_.push_back(f);
  if (hook_) hook_(faults_.back());
}

bool DmaEngine::check(const DmaDescriptor& d, const sc_core::sc_time& issue) {
  if (d.channel >= cfg_.channels)
    throw std::invalid_argument(fmt::format("DMA channel {} does not exist (the engine has {})",
                                            d.channel, cfg_.channels));
  bool reject = false;
  for (const auto& f : check_windows(cfg_.windows, DmaTransfer{d.src, d.dst, d.len})) {
    DmaFault fault{DmaFault::kWindow, issue, d.channel, d, f, 0, ""};
    fault.message = fmt::format(
        "DMA window violation at {} on channel {}: descriptor src 0x{:x} dst 0x{:x} len {} "
        "from {}: {}",
        issue.to_string(), d.channel, d.src, d.dst, d.len,
        d.call_site.empty() ? "?" : d.call_site, f.describe());
    record(fault);
    if (cfg_.policy == ViolationPolicy::kAbort) throw DmaAbort(fault);
    if (!cfg_.complete_violating) reject = true;
  }
  return reject;
}

uint64_t DmaEngine::submit(const DmaDescriptor& d, const sc_core::sc_time& issue) {
  const bool reject = check(d, issue);
  const uint64_t ticket = next_ticket_++;
  tickets_.push_back({});
  Channel& c = *channels_[d.channel];
  c.queue.push_back(Job{ticket, d, issue, reject});
  c.wake.notify(sc_core::SC_ZERO_TIME);
  return ticket;
}

std::optional<std::pair<uint64_t, sc_core::sc_time>> DmaEngine::run_now(
    const DmaDescriptor& d, const sc_core::sc_time& issue) {
  if (!inline_ || d.channel >= cfg_.channels) return std::nullopt;
  Channel& c = *channels_[d.channel];
  if (c.busy || !c.queue.empty() || issue != sc_core::sc_time_stamp()) return std::nullopt;
  const bool reject = check(d, issue);
  const uint64_t ticket = next_ticket_++;
  tickets_.push_back({});
  const Job job{ticket, d, issue, reject};
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  const sc_core::sc_time last = issue_job(d.channel, job, start);
  finish_job(d.channel, job, start, start + last);
  tickets_[ticket].done = true;
  ++inline_runs_;
  return std::make_pair(ticket, last);
}

void DmaEngine::channel_thread(uint32_t ch) {
  Channel& c = *channels_[ch];
  for (;;) {
    while (c.queue.empty()) sc_core::wait(c.wake);
    const Job job = std::move(c.queue.front());
    c.queue.pop_front();
    if (job.issue > sc_core::sc_time_stamp()) sc_core::wait(job.issue - sc_core::sc_time_stamp());
    c.busy = true;
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    const sc_core::sc_time last = issue_job(ch, job, start);
    if (!job.reject) sc_core::wait(last);
    finish_job(ch, job, start, sc_core::sc_time_stamp());
    c.busy = false;
    tickets_[job.ticket].done = true;
    completed_.notify(sc_core::SC_ZERO_TIME);
  }
}

sc_core::sc_time DmaEngine::issue_job(uint32_t ch, const Job& job, const sc_core::sc_time& start) {
  Channel& c = *channels_[ch];
  DmaChannelStats& st = stats_[ch];
  ++st.descriptors;
  if (job.reject) {
    ++st.rejected;
    return sc_core::SC_ZERO_TIME;
  }
  // Loosely timed: all bursts are issued now with annotated delays. Burst i may start when
  // burst i - outstanding has completed and the channel has issued the previous one.
  const sc_core::sc_time setup = clk_ * static_cast<double>(cfg_.setup_cycles);
  std::vector<sc_core::sc_time> ring(cfg_.outstanding, setup);
  sc_core::sc_time issue = setup, last = setup;
  uint64_t i = 0;
  for (uint64_t off = 0; off < job.desc.len; off += cfg_.burst_bytes, ++i) {
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>(cfg_.burst_bytes, job.desc.len - off));
    sc_core::sc_time t = std::max(issue, ring[i % cfg_.outstanding]);
    bool ok = true;
    for (int w = 0; w < 2 && ok; ++w) {
      const uint64_t addr = (w == 0 ? job.desc.src : job.desc.dst) + off;
      tlm::tlm_generic_payload& tr = c.trans;
      tr.set_command(w == 0 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
      tr.set_address(addr);
      tr.set_data_ptr(c.buf.data());
      tr.set_data_length(n);
      tr.set_streaming_width(n);
      tr.set_byte_enable_ptr(nullptr);
      tr.set_dmi_allowed(false);
      tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      bus->b_transport(tr, t);
      if (tr.is_response_error()) {
        ok = false;
        ++st.errors;
        DmaFault f{DmaFault::kBusError, start + t, ch, job.desc, {}, addr, ""};
        f.message = fmt::format(
            "DMA bus error at {} on channel {}: {} of {} bytes at 0x{:x} (descriptor src 0x{:x} "
            "dst 0x{:x} len {} from {}): {}",
            (start + t).to_string(), ch, w == 0 ? "read" : "write", n, addr, job.desc.src,
            job.desc.dst, job.desc.len, job.desc.call_site.empty() ? "?" : job.desc.call_site,
            tr.get_response_string());
        record(f);
        tickets_[job.ticket].fault = static_cast<int64_t>(faults_.size() - 1);
      }
    }
    if (!ok) break;
    ring[i % cfg_.outstanding] = t;
    last = std::max(last, t);
    if (cfg_.bytes_per_ns > 0) {
      issue += std::max(clk_, sc_core::sc_time(n / cfg_.bytes_per_ns, sc_core::SC_NS));
      last = std::max(last, issue);
    } else {
      issue += clk_;
    }
    ++st.bursts;
    st.bytes += n;
  }
  return last;
}

void DmaEngine::finish_job(uint32_t ch, const Job& job, const sc_core::sc_time& start,
                           const sc_core::sc_time& end) {
  DmaChannelStats& st = stats_[ch];
  if (job.reject) {
    if (span_hook_) span_hook_(ch, job.desc, start, start);
    return;
  }
  if (st.descriptors == 1) st.first_start = start;
  st.last_end = end;
  st.busy += end - start;
  if (span_hook_) span_hook_(ch, job.desc, start, end);
}

}  // namespace npusim::models
