#include "models/rv32/program_cluster.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace npusim::models::rv32 {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr size_t kMaxSpansPerHart = 200'000;   // trace spans kept per core (the rest counted)
constexpr size_t kMaxOutputBytes = 1u << 20;   // printed text kept per core
constexpr size_t kMaxLines = 100'000;          // printed lines kept per core (summary, output:)
constexpr size_t kMaxChain = 4096;             // call depth a chain keeps
}  // namespace

void HartRecord::call(uint32_t target, uint64_t cycle) {
  if (track_chain) {
    if (chain.size() < kMaxChain) {
      chain.push_back(target);
      call_pcs.push_back(hart->pc());
    } else {
      ++chain_dropped;
    }
  }
  if (trace_calls) {
    if (spans.size() >= kMaxSpansPerHart || dropped_depth > 0) {
      ++spans_dropped;
      ++dropped_depth;
    } else {
      spans.push_back(CallSpan{target, cycle, cycle, static_cast<uint32_t>(call_stack.size())});
      call_stack.push_back(spans.size() - 1);
    }
  }
  if (on_call) on_call(*this, target, cycle);
}

void HartRecord::ret(uint64_t cycle) {
  if (on_ret) on_ret(*this, cycle);
  if (track_chain) {
    if (chain_dropped > 0) --chain_dropped;
    else if (!chain.empty()) {
      chain.pop_back();
      call_pcs.pop_back();
    }
  }
  if (!trace_calls) return;
  if (dropped_depth > 0) {
    --dropped_depth;
    return;
  }
  if (call_stack.empty()) return;  // a return past main's caller (crt0)
  spans[call_stack.back()].end = cycle;
  call_stack.pop_back();
}

const char* hart_end_name(HartEnd e) {
  switch (e) {
    case HartEnd::kRunning: return "running";
    case HartEnd::kExited: return "exited";
    case HartEnd::kTrap: return "trap";
    case HartEnd::kFault: return "fault";
    case HartEnd::kHung: return "hung";
    case HartEnd::kBudget: return "cycle budget";
    case HartEnd::kInterrupted: return "interrupted";
    case HartEnd::kIdle: return "idle";
  }
  return "?";
}

ProgramCluster::ProgramCluster(sc_core::sc_module_name name, const ProgramClusterConfig& cfg, DmaEngine* dma)
    : sc_core::sc_module(name), cfg_(cfg), dma_(dma), period_(1, sc_core::SC_NS) {
  if (cfg_.quantum_cycles == 0) cfg_.quantum_cycles = 1;
  SC_HAS_PROCESS(ProgramCluster);
  SC_THREAD(thread);
}

HartRecord& ProgramCluster::add_hart(const std::string& name, uint32_t core_idx, uint32_t hartid, bool dm, Core& core,
                                     const ElfImage& program, std::vector<std::string> args) {
  auto r = std::make_unique<HartRecord>();
  r->name = name;
  r->core_idx = core_idx;
  r->dm = dm;
  r->core = &core;
  r->program = &program;
  r->args = std::move(args);
  r->hart = std::make_unique<Hart>(hartid, cfg_.timing);
  if (const ElfSegment* code = program.code()) {
    std::vector<uint32_t> words(code->data.size() / 4);
    std::memcpy(words.data(), code->data.data(), words.size() * 4);
    r->hart->set_code(code->vaddr, words);
  }
  r->end = HartEnd::kRunning;
  period_ = core.period();
  harts_.push_back(std::move(r));
  waiting_.push_back(0);
  return *harts_.back();
}

void ProgramCluster::describe_fault(HartRecord& r, const std::string& kind, const std::string& message) {
  const Hart& h = *r.hart;
  r.fault_kind = kind;
  r.fault_pc = h.pc();
  r.fault_insn = h.text_at(h.pc());
  r.fault_function = r.program->function_name(h.pc());
  r.fault_message = fmt::format("{} on {} at pc 0x{:08x} in {}: {} ({})", kind, r.name, h.pc(), r.fault_function,
                                message, r.fault_insn);
}

void ProgramCluster::end_hart(HartRecord& r, HartEnd e) {
  r.end = e;
  r.end_cycle = r.hart->cycle();
  if (!r.line.empty()) {
    r.lines.emplace_back(r.end_cycle, r.line);
    if (on_line_) on_line_(r, r.end_cycle, r.line);
    r.line.clear();
  }
  // Close open call spans at the end.
  while (!r.call_stack.empty()) {
    r.spans[r.call_stack.back()].end = r.end_cycle;
    r.call_stack.pop_back();
  }
}

void ProgramCluster::release_barrier_if_complete() {
  size_t running = 0, arrived = 0;
  uint64_t last = 0;
  for (size_t i = 0; i < harts_.size(); ++i) {
    if (harts_[i]->end != HartEnd::kRunning) continue;
    ++running;
    if (waiting_[i]) {
      ++arrived;
      last = std::max(last, harts_[i]->hart->cycle());
    }
  }
  if (running == 0 || arrived != running) return;
  ++barrier_episodes_;
  for (size_t i = 0; i < harts_.size(); ++i) {
    if (!waiting_[i]) continue;
    waiting_[i] = 0;
    harts_[i]->hart->leave_barrier(last + cfg_.barrier_cycles);
  }
}

void ProgramCluster::thread() {
  kernel_cycle_ = static_cast<uint64_t>(sc_core::sc_time_stamp() / period_);
  // The program images and argv, written untimed before the first instruction.
  for (auto& r : harts_) {
    for (const auto& [addr, bytes] : r->preload) {
      constexpr size_t kChunk = 1 << 16;
      for (size_t off = 0; off < bytes.size(); off += kChunk)
        r->core->poke(addr + off, bytes.data() + off, std::min(kChunk, bytes.size() - off));
    }
    r->preload.clear();
    r->preload.shrink_to_fit();
  }
  for (auto& r : harts_) {
    if (r->trace_calls || r->track_chain || r->on_call || r->on_ret) r->hart->set_call_observer(r.get());
    r->hart->reset(r->program->entry, kernel_cycle_);
    r->hart->set_x(10, r->argc);  // a0, a1: main's argc and argv (docs/snitch-programs.md)
    r->hart->set_x(11, r->argv);
    r->hart->set_stack_guard(r->stack_lo, r->stack_hi ? r->stack_hi : 0xffffffffu);
  }
  while (true) {
    // The next hart to step: the lowest cycle among running harts not at the barrier.
    uint64_t t = kNever;
    size_t runnable = 0;
    for (size_t i = 0; i < harts_.size(); ++i) {
      const auto& r = *harts_[i];
      if (r.end != HartEnd::kRunning || waiting_[i]) continue;
      ++runnable;
      t = std::min(t, r.hart->cycle());
    }
    if (runnable == 0) {
      // Every running hart waits at a barrier that a finished hart will never reach.
      for (size_t i = 0; i < harts_.size(); ++i) {
        auto& r = *harts_[i];
        if (r.end != HartEnd::kRunning) continue;
        describe_fault(r, "hung", "waits at the cluster barrier (CSR 0x7c2) that a core which ended will never reach");
        end_hart(r, HartEnd::kHung);
        waiting_[i] = 0;
      }
      break;
    }
    // Yield to the kernel at quantum boundaries.
    if (t >= kernel_cycle_ + cfg_.quantum_cycles) {
      Core::set_acting(nullptr);
      sc_core::wait(period_ * static_cast<double>(t - kernel_cycle_));
      kernel_cycle_ = t;
      if (should_stop_ && should_stop_()) {
        for (auto& r : harts_)
          if (r->end == HartEnd::kRunning) {
            describe_fault(*r, "interrupted", "the run was interrupted");
            end_hart(*r, HartEnd::kInterrupted);
          }
        break;
      }
    }
    if (t >= cfg_.max_cycles) {
      for (size_t i = 0; i < harts_.size(); ++i) {
        auto& r = *harts_[i];
        if (r.end != HartEnd::kRunning) continue;
        describe_fault(r, "cycle budget", fmt::format("still running after {} cycles (set program max_cycles to allow more)",
                                                      cfg_.max_cycles));
        end_hart(r, HartEnd::kBudget);
        waiting_[i] = 0;
      }
      break;
    }
    const uint64_t quantum_end = kernel_cycle_ + cfg_.quantum_cycles - 1;
    for (size_t i = 0; i < harts_.size(); ++i) {
      auto& r = *harts_[i];
      if (r.end != HartEnd::kRunning || waiting_[i] || r.hart->cycle() != t) continue;
      current_ = i;
      const uint64_t until = std::min(runnable == 1 ? quantum_end : t, cfg_.max_cycles - 1);
      const Stop s = r.hart->run(until, *this);
      switch (s) {
        case Stop::kBudget:
          break;
        case Stop::kBarrier:
          waiting_[i] = 1;
          release_barrier_if_complete();
          break;
        case Stop::kSync: {
          // Bring the kernel up to the hart's cycle (the DMA engine runs), then it retries.
          const uint64_t c = r.hart->cycle();
          Core::set_acting(nullptr);
          if (c > kernel_cycle_) {
            sc_core::wait(period_ * static_cast<double>(c - kernel_cycle_));
            kernel_cycle_ = c;
          } else {
            sc_core::wait(period_);  // the engine finishes in a later cycle
            kernel_cycle_ += 1;
          }
          break;
        }
        case Stop::kExit:
          end_hart(r, HartEnd::kExited);
          release_barrier_if_complete();
          break;
        case Stop::kTrap:
          describe_fault(r, "trap", "ecall (an allocator's bounds check, or the program's own)");
          end_hart(r, HartEnd::kTrap);
          release_barrier_if_complete();
          break;
        case Stop::kWfi:
          // No interrupts are modelled: a core that waits for one sleeps for good.
          describe_fault(r, "hung", "wfi: waits for an interrupt, and this platform models none");
          end_hart(r, HartEnd::kHung);
          release_barrier_if_complete();
          break;
        case Stop::kFault:
          describe_fault(r, r.hart->fault().kind, r.hart->fault().message);
          end_hart(r, HartEnd::kFault);
          release_barrier_if_complete();
          break;
      }
    }
  }
  Core::set_acting(nullptr);
  end_cycle_ = kernel_cycle_;
  for (auto& r : harts_) end_cycle_ = std::max(end_cycle_, r->end_cycle);
  if (end_cycle_ > kernel_cycle_) sc_core::wait(period_ * static_cast<double>(end_cycle_ - kernel_cycle_));
  done_ = true;
}

Env::Result ProgramCluster::host(Hart& h, uint32_t offset, uint32_t size, const void* data) {
  HartRecord& r = record_of(h);
  uint32_t v = 0;
  std::memcpy(&v, data, std::min<uint32_t>(size, 4));
  if (offset == kHostPutchar) {
    const char c = static_cast<char>(v & 0xff);
    if (r.output.size() < kMaxOutputBytes) r.output.push_back(c);
    if (c == '\n') {
      if (r.lines.size() < kMaxLines) r.lines.emplace_back(h.cycle(), r.line);
      else ++r.lines_dropped;
      if (on_line_) on_line_(r, h.cycle(), r.line);
      r.line.clear();
    } else if (r.line.size() < 4096) {
      r.line.push_back(c);
    }
    return Result::kOk;
  }
  if (offset == kHostExit) {
    h.set_exit_code(v);
    h.request_stop(Stop::kExit);
    return Result::kStop;
  }
  h.set_fault("bus error", fmt::format("store to 0x{:08x}: no register of the host interface (0x{:08x}: putchar, 0x{:08x}: exit)",
                                       cfg_.host_base + offset, cfg_.host_base + kHostPutchar, cfg_.host_base + kHostExit));
  return Result::kFault;
}

Env::Result ProgramCluster::access(Hart& h, bool write, uint32_t addr, uint32_t size, void* data, Answer& a) {
  HartRecord& r = record_of(h);
  for (auto& m : mmio_)
    if (addr - m.base < m.size) {
      a.ready = h.cycle() + 1;
      if (!write) std::memset(data, 0, size);
      return m.access(r, write, addr - m.base, size, data);
    }
  if (addr - cfg_.host_base < kHostSize) {
    if (!write) {
      std::memset(data, 0, size);
      a.ready = h.cycle() + 1;
      return Result::kOk;
    }
    a.ready = h.cycle() + 1;
    return host(h, addr - cfg_.host_base, size, data);
  }
  const uint64_t t_ps = h.cycle() * period_.value();
  const uint64_t now = sc_core::sc_time_stamp().value();
  sc_core::sc_time delay = sc_core::sc_time::from_value(t_ps > now ? t_ps - now : 0);
  trans_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans_.set_address(addr);
  trans_.set_data_ptr(static_cast<unsigned char*>(data));
  trans_.set_data_length(size);
  trans_.set_streaming_width(size);
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  Core::set_acting(r.core);
  r.core->bus->b_transport(trans_, delay);
  Core::set_acting(nullptr);
  if (trans_.get_response_status() != tlm::TLM_OK_RESPONSE) {
    h.set_fault("bus error", fmt::format("{} of {} bytes at 0x{:08x}: {}", write ? "store" : "load", size, addr,
                                         trans_.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE
                                             ? "no memory at this address"
                                             : trans_.get_response_string()));
    return Result::kFault;
  }
  const uint64_t done = now + delay.value();
  const uint64_t p = period_.value();
  a.ready = (done + p - 1) / p;
  a.target = Target::kOther;
  a.stall = 0;
  for (const auto& m : cfg_.ranges)
    if (addr >= m.base && addr < m.end) {
      a.target = m.target;
      if (m.tcdm) a.stall = m.tcdm->last_stall_cycles();
      break;
    }
  if (write && a.target != Target::kOther) {
    // A store clears every other hart's reservation of that word (LR/SC).
    for (auto& o : harts_)
      if (o->hart.get() != &h && o->hart->has_reservation() && o->hart->reserved(addr)) o->hart->clear_reservation();
  }
  return Result::kOk;
}

Env::Result ProgramCluster::load(Hart& h, uint32_t addr, uint32_t size, void* data, Answer& a) {
  return access(h, false, addr, size, data, a);
}

Env::Result ProgramCluster::store(Hart& h, uint32_t addr, uint32_t size, const void* data, Answer& a) {
  uint64_t buf = 0;
  std::memcpy(&buf, data, size);
  return access(h, true, addr, size, &buf, a);
}

void ProgramCluster::update_completed(HartRecord& r) {
  while (r.completed < r.transfers.size()) {
    bool all = true;
    for (uint64_t t : r.transfers[r.completed]) all = all && dma_->done(t);
    if (!all) break;
    ++r.completed;
  }
}

Env::Result ProgramCluster::dma(Hart& h, Op op, uint32_t a, uint32_t b, uint32_t* rd) {
  HartRecord& r = record_of(h);
  if (!r.dm || dma_ == nullptr) {
    h.set_fault("illegal instruction",
                fmt::format("{}: only the DM core drives the cluster's DMA engine (Xdma)", mnemonic(op)));
    return Result::kFault;
  }
  switch (op) {
    case Op::kDmsrc:
      if (b != 0) {
        h.set_fault("dma", fmt::format("dmsrc: source address high word 0x{:x}: the platform's addresses are 32-bit", b));
        return Result::kFault;
      }
      r.dma_src = a;
      return Result::kOk;
    case Op::kDmdst:
      if (b != 0) {
        h.set_fault("dma", fmt::format("dmdst: destination address high word 0x{:x}: the platform's addresses are 32-bit", b));
        return Result::kFault;
      }
      r.dma_dst = a;
      return Result::kOk;
    case Op::kDmstr:
      r.dma_sstride = a;
      r.dma_dstride = b;
      return Result::kOk;
    case Op::kDmrep:
      r.dma_reps = a;
      return Result::kOk;
    case Op::kDmcpyi:
    case Op::kDmcpy: {
      const bool two_d = (b & 2) != 0;
      const uint64_t rows = two_d ? r.dma_reps : 1;
      const uint32_t size = a;
      const sc_core::sc_time issue = period_ * static_cast<double>(h.cycle());
      std::vector<uint64_t> tickets;
      const char* site = two_d ? "snrt_dma_start_2d" : "snrt_dma_start_1d";
      try {
        if (size > 0 && rows > 0) {
          if (!two_d || (r.dma_sstride == size && r.dma_dstride == size)) {
            tickets.push_back(dma_->submit(DmaDescriptor{r.dma_src, r.dma_dst, uint64_t{size} * rows, 0, site}, issue));
          } else {
            if (rows > 65536) {
              h.set_fault("dma", fmt::format("dmcpyi: {} rows of a 2-D transfer is more than 65536", rows));
              return Result::kFault;
            }
            for (uint64_t k = 0; k < rows; ++k)
              tickets.push_back(dma_->submit(DmaDescriptor{r.dma_src + k * r.dma_sstride, r.dma_dst + k * r.dma_dstride,
                                                           size, 0, site},
                                             issue));
          }
        }
      } catch (const DmaAbort& e) {
        h.set_fault("dma window", e.what());
        return Result::kFault;
      }
      r.transfers.push_back(std::move(tickets));
      *rd = static_cast<uint32_t>(r.transfers.size());
      return Result::kOk;
    }
    case Op::kDmstati:
    case Op::kDmstat: {
      update_completed(r);
      const bool busy = r.completed < r.transfers.size();
      // A busy engine is asked again at the hart's own time: the kernel must have reached it.
      if (busy && sc_core::sc_time_stamp() < period_ * static_cast<double>(h.cycle())) return Result::kRetry;
      for (uint32_t i = r.completed; i < r.transfers.size(); ++i)
        for (uint64_t t : r.transfers[i])
          if (const DmaFault* f = dma_->fault_of(t)) {
            h.set_fault("dma bus error", f->message);
            return Result::kFault;
          }
      switch (b & 3) {
        case 0: *rd = r.completed; break;
        case 1: *rd = static_cast<uint32_t>(r.transfers.size() + 1); break;
        case 2: *rd = busy ? 1 : 0; break;
        default: *rd = (r.transfers.size() - r.completed) >= cfg_.dma_queue_depth ? 1 : 0; break;
      }
      return Result::kOk;
    }
    default:
      break;
  }
  h.set_fault("illegal instruction", fmt::format("{}: not an Xdma instruction", mnemonic(op)));
  return Result::kFault;
}

}  // namespace npusim::models::rv32
