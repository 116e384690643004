// A firmware program on the neuron-gpsimd management core (docs/neuron-programs.md): the
// scenario's `binary:` names an RV32 ELF built with `npusim cc --platform neuron-gpsimd`
// against npusim's device library (firmware/neuron). One hart runs it on the management core
// (models/rv32/program_cluster.h); its loads and stores go through the core's socket to the
// dataram, the HBM window and the firmware image memory. The library's heaps live where the
// C++ model keeps them, so the reports read them the same way; what the C code does is
// observed from outside: its calls by ELF symbol, the stack from the stack registers and sp,
// the DMA engine through npusim's register block.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sim/input/input_error.h"
#include "sim/run/neuron_steps.h"

namespace npusim::sim::neuron {

namespace rv = models::rv32;

namespace {

constexpr uint32_t kArgsRegionBytes = 4096;       // the link script's .npusim_args
constexpr uint64_t kZeroPreloadMax = 1u << 20;    // bss beyond this is left to crt0
constexpr size_t kReportDescriptors = 10000;      // DMA descriptors the report lists
// npusim's register blocks of the management core (docs/neuron-programs.md).
constexpr uint32_t kStackRegs = rv::DEFAULT_HOST_BASE + 0x10;  // STACK_LO, STACK_HI
constexpr uint32_t kDmaBase = rv::DEFAULT_HOST_BASE + 0x100;
enum DmaReg : uint32_t {
  kSrcLo = 0x00, kSrcHi = 0x04, kDstLo = 0x08, kDstHi = 0x0c, kLen = 0x10, kChannel = 0x14,
  kStart = 0x18, kStatus = 0x1c, kErrors = 0x20, kDmaRegsSize = 0x24
};

// The device library's calls the runner watches: heap operations are counted and sampled,
// every one is a span with its arguments in the trace.
struct WatchSpec {
  const char* name;
  int kind;  // 0 init, 1 alloc, 2 free, 3 call
  HeapId heap;
};
const WatchSpec kWatch[] = {
    {"init_neuron_hbm_allocator", 0, HeapId::kHbm},
    {"init_neuron_dataram_allocator", 0, HeapId::kDataram},
    {"_init_libc_heap_allocator", 0, HeapId::kLibc},
    {"neuron_hbm_allocate", 1, HeapId::kHbm},
    {"neuron_dataram_allocate", 1, HeapId::kDataram},
    {"_libc_heap_allocate", 1, HeapId::kLibc},
    {"neuron_hbm_deallocate", 2, HeapId::kHbm},
    {"neuron_dataram_deallocate", 2, HeapId::kDataram},
    {"_libc_heap_deallocate", 2, HeapId::kLibc},
    {"allocate_hbm_stack", 3, HeapId::kHbm},
    {"switchStack", 3, HeapId::kHbm},
    {"switchStackBack", 3, HeapId::kHbm},
    {"data_transfer_to_dram", 3, HeapId::kHbm},
    {"data_transfer_from_dram", 3, HeapId::kHbm},
    {"tensor_stream_copy", 3, HeapId::kHbm},
    {"xmem_heap_alloc", 3, HeapId::kHbm},
    {"xmem_heap_free", 3, HeapId::kHbm},
};

uint32_t u32_of(const void* data) {
  uint32_t v = 0;
  std::memcpy(&v, data, 4);
  return v;
}

std::string human(uint64_t b) {
  if (b >= (1u << 10) && b % (1u << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} bytes", b);
}

}  // namespace

uint64_t NeuronSteps::cycle_ps(uint64_t cycle) const {
  return static_cast<uint64_t>(static_cast<double>(cycle) * p_->core.period().to_seconds() * 1e12 + 0.5);
}

void NeuronSteps::prepare_binary() {
  const auto& bin = *sc_.binary;
  cfg_.firmware_image = true;
  try {
    image_ = std::make_unique<rv::ElfImage>(rv::load_elf(bin.elf));
  } catch (const rv::ElfError& e) {
    throw InputError(bin.at.file, bin.at.line, "elf", e.what(), bin.at.column);
  }
  const auto& fwc = cfg_.firmware;
  const auto& l = fwc.layout;
  for (const auto& s : image_->segments) {
    const uint64_t lo = s.vaddr, hi = uint64_t{s.vaddr} + s.memsz;
    const bool in_image = lo >= fwc.image_base && hi <= uint64_t{fwc.image_base} + fwc.image_size;
    const bool in_dataram = lo >= l.data_scratch && hi <= uint64_t{l.data_scratch} + l.dataram_size;
    if (!in_image && !in_dataram)
      throw InputError(bin.at.file, bin.at.line, "elf",
                       fmt::format("{}: a segment at 0x{:x} of {} bytes lies outside the management core's firmware "
                                   "image memory [0x{:x}, 0x{:x}) and dataram [0x{:x}, 0x{:x}); build it with npusim "
                                   "cc --platform neuron-gpsimd (and the same --set values)",
                                   bin.elf, s.vaddr, s.memsz, fwc.image_base, uint64_t{fwc.image_base} + fwc.image_size,
                                   l.data_scratch, uint64_t{l.data_scratch} + l.dataram_size),
                       bin.at.column);
  }
  if (!image_->symbol("init_neuron_hbm_allocator") && !image_->symbol("__allocator_bss_start"))
    throw InputError(bin.at.file, bin.at.line, "elf",
                     fmt::format("{} is not a firmware program for neuron-gpsimd (it lacks the device library's "
                                 "symbols): build it with npusim cc --platform neuron-gpsimd",
                                 bin.elf),
                     bin.at.column);
  if (const auto start = image_->symbol("__npusim_args_start")) {
    std::vector<std::string> argv{bin.elf.substr(bin.elf.find_last_of('/') + 1)};
    argv.insert(argv.end(), bin.args.begin(), bin.args.end());
    argv_ = rv::lay_out_argv(*start, argv);
    if (argv_.bytes.size() > kArgsRegionBytes)
      throw InputError(bin.at.file, bin.at.line, "args",
                       fmt::format("the arguments take {} bytes; the program's .npusim_args region holds {}",
                                   argv_.bytes.size(), kArgsRegionBytes),
                       bin.at.column);
  } else if (!bin.args.empty()) {
    throw InputError(bin.at.file, bin.at.line, "args",
                     fmt::format("{} has no .npusim_args region to pass arguments in: build it with npusim cc", bin.elf),
                     bin.at.column);
  }
  for (const auto& w : kWatch)
    if (const auto a = image_->symbol(w.name))
      watched_[*a] = Watched{w.name, static_cast<Watch>(w.kind), w.heap};
}

void NeuronSteps::build_binary() {
  const auto& bin = *sc_.binary;
  const auto& fwc = cfg_.firmware;
  const auto& l = fwc.layout;
  rv::ProgramClusterConfig pc;
  pc.quantum_cycles = cfg_.core.quantum_cycles ? cfg_.core.quantum_cycles : 1000;
  if (bin.max_cycles) pc.max_cycles = bin.max_cycles;
  pc.ranges = {rv::MemoryRange{l.data_scratch, uint64_t{l.data_scratch} + l.dataram_size, rv::Target::kTcdm, nullptr},
               rv::MemoryRange{l.hbm_window, uint64_t{l.hbm_window} + l.hbm_scratch_size, rv::Target::kL3, nullptr}};
  pcluster_ = std::make_unique<rv::ProgramCluster>("firmware_program", pc, &p_->dma);
  pcluster_->set_stop_check([] { return interrupted(); });
  rv::HartRecord& h = pcluster_->add_hart(p_->core.basename(), 0, 0, false, p_->core, *image_, bin.args);
  hart_ = &h;
  h.argc = argv_.argc;
  h.argv = argv_.argv;
  h.track_chain = true;
  h.stack_lo = fwc.local_stack_top - fwc.local_stack_bytes;
  h.stack_hi = fwc.local_stack_top;
  stack_hi_ = fwc.local_stack_top;
  h.on_call = [this](rv::HartRecord& r, uint32_t target, uint64_t cycle) { watched_call(r, target, cycle); };
  h.on_ret = [this](rv::HartRecord& r, uint64_t cycle) { watched_return(r, cycle); };
  for (const auto& s : image_->segments) {
    std::vector<uint8_t> bytes = s.data;
    const uint64_t tail = s.memsz - s.data.size();
    bytes.resize(s.data.size() + std::min<uint64_t>(tail, kZeroPreloadMax), 0);
    h.preload.emplace_back(s.vaddr, std::move(bytes));
  }
  if (!argv_.bytes.empty()) h.preload.emplace_back(argv_.argv, argv_.bytes);
  pcluster_->add_mmio(kStackRegs, 8, [this](rv::HartRecord& r, bool write, uint32_t off, uint32_t, void* data) {
    return stack_register(r, write, off, data);
  });
  pcluster_->add_mmio(kDmaBase, kDmaRegsSize, [this](rv::HartRecord& r, bool write, uint32_t off, uint32_t size,
                                                     void* data) {
    if (size != 4 || (off & 3) != 0) {
      r.hart->set_fault("bus error", fmt::format("{}-byte access at DMA register offset 0x{:x}: the DMA registers "
                                                 "take aligned 32-bit accesses",
                                                 size, off));
      return rv::Env::Result::kFault;
    }
    return dma_register(r, write, off, data);
  });
  auto& st = p_->firmware.program_stack();
  st.base = fwc.local_stack_top - fwc.local_stack_bytes;
  st.size = fwc.local_stack_bytes;
  st.sp = fwc.local_stack_top;
}

// --- what the program does, seen from outside ---

std::string NeuronSteps::source_line(uint32_t pc) {
  auto it = lines_.find(pc);
  if (it != lines_.end()) return it->second;
  std::string line;
  // llvm-addr2line reads the program's DWARF line table (built with -g); without it: "".
  int fds[2];
  if (::pipe(fds) == 0) {
    const std::string addr = fmt::format("0x{:x}", pc);
    const pid_t pid = fork();
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) ::dup2(null, 2);
      const char* argv[] = {"llvm-addr2line-14", "-e", image_->path.c_str(), addr.c_str(), nullptr};
      ::execvp(argv[0], const_cast<char* const*>(argv));
      _exit(127);
    }
    ::close(fds[1]);
    char buf[512];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0 && line.size() < 4096) line.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    if (pid > 0) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("??", 0) == 0 || line.find(":0") == line.size() - 2) line.clear();
  const auto slash = line.find_last_of('/');
  if (slash != std::string::npos) line = line.substr(slash + 1);
  lines_[pc] = line;
  return line;
}

std::string NeuronSteps::chain_text(const rv::HartRecord& r) const {
  // Outermost first; a run of one function (recursion) is written once with its count.
  std::string s;
  for (size_t i = 0; i < r.chain.size();) {
    size_t j = i;
    while (j < r.chain.size() && r.chain[j] == r.chain[i]) ++j;
    const rv::ElfFunction* f = image_->function_at(r.chain[i]);
    s += (i ? " > " : "") + (f ? f->name : fmt::format("0x{:x}", r.chain[i]));
    if (j - i > 1) s += fmt::format(" (x{})", j - i);
    i = j;
  }
  if (r.chain_dropped) s += fmt::format(" > ... ({} deeper calls)", r.chain_dropped);
  return s.empty() ? "_start" : s;
}

// Where a descriptor or fault comes from: the device-library function the program called and
// the program's own line that called it (the innermost frame outside the library), or the
// instruction itself when the program drives the registers directly.
std::string NeuronSteps::call_site(const rv::HartRecord& r, bool with_line) {
  const uint32_t pc = r.hart->pc();
  std::string lib;
  uint32_t from = pc;
  for (size_t i = 0; i < r.chain.size() && i < r.call_pcs.size(); ++i)
    if (watched_.count(r.chain[i])) {
      lib = watched_.at(r.chain[i]).name;
      from = r.call_pcs[i];
      break;
    }
  const std::string fn = image_->function_name(from);
  std::string line = with_line ? source_line(from) : "";
  if (!lib.empty())
    return fmt::format("{} called from {}{} (pc 0x{:x})", lib, fn, line.empty() ? "" : " at " + line, from);
  return fmt::format("{}{} (pc 0x{:x})", fn, line.empty() ? "" : " at " + line, from);
}

void NeuronSteps::watched_call(rv::HartRecord& r, uint32_t target, uint64_t cycle) {
  auto it = watched_.find(target);
  if (it == watched_.end()) return;
  OpenWatch w{&it->second, r.chain.size(), cycle, {}};
  for (unsigned i = 0; i < 6; ++i) w.a[i] = r.hart->x(10 + i);
  open_watch_.push_back(w);
}

void NeuronSteps::watched_return(rv::HartRecord& r, uint64_t cycle) {
  if (open_watch_.empty() || open_watch_.back().depth != r.chain.size()) return;
  const OpenWatch w = open_watch_.back();
  open_watch_.pop_back();
  const Watched& what = *w.w;
  const uint64_t t = cycle_ps(cycle);
  const uint32_t a0 = r.hart->x(10);
  int status = static_cast<int32_t>(a0);
  std::string args;
  const auto& l = cfg_.firmware.layout;
  const std::string heap = alloc::neuron::heap_name(what.heap);
  switch (what.kind) {
    case Watch::kInit:
      sample(what.heap, t);
      break;
    case Watch::kAlloc: {
      const uint32_t size = w.a[0];
      const uint32_t align = what.heap == HeapId::kLibc ? w.a[1] : w.a[2];
      args = fmt::format("size={} align={}", size, align);
      uint32_t ptr = 0;
      if (what.heap == HeapId::kLibc) {
        ptr = a0;
        status = a0 ? 0 : -1;
      } else if (status == 0 && what.heap == HeapId::kHbm) {
        uint64_t dev = 0;
        p_->core.peek(w.a[1], &dev, 8);
        ptr = static_cast<uint32_t>(dev - l.hbm_scratch + l.hbm_window);
        args += fmt::format(" -> 0x{:x}", dev);
      } else if (status == 0) {
        p_->core.peek(w.a[1], &ptr, 4);
        args += fmt::format(" -> 0x{:x}", ptr);
      }
      count_heap_op(what.heap, true, status);
      if (status != 0) {
        for (auto& o : obs_)
          o->instant("faults", "allocation failure", t,
                     Json{{"heap", heap}, {"size", size}, {"align", align}, {"call", call_site(r, false)}});
      } else {
        // Handed a whole block with more than XMEM_HEAP_MIN_ALLOC_SIZE to spare: no descriptor
        // was free to split it (xmem's descriptor exhaustion).
        DebugPort port{p_->core};
        const uint32_t mgr = what.heap == HeapId::kHbm ? l.hbm_mgr() : what.heap == HeapId::kDataram ? l.dataram_mgr() : l.libc_mgr();
        alloc::xmem::Heap<DebugPort> hp(port, mgr);
        try {
          hp.walk([&](const alloc::xmem::BlockInfo& b) {
            if (!b.free && b.aligned == ptr && b.size - (b.aligned - b.buffer) - size > alloc::xmem::kMinAllocSize)
              ++exhaustion_[what.heap];
          });
        } catch (const std::exception&) {
          // A heap that cannot be walked: sample_heap keeps its last values, the count stays.
        }
      }
      sample(what.heap, t);
      break;
    }
    case Watch::kFree: {
      const uint64_t addr = what.heap == HeapId::kHbm ? (uint64_t{w.a[1]} << 32 | w.a[0]) : w.a[0];
      args = fmt::format("addr=0x{:x}", addr);
      count_heap_op(what.heap, false, status);
      if (status != 0)
        for (auto& o : obs_)
          o->instant("faults", "bad free", t, Json{{"heap", heap}, {"addr", addr}, {"call", call_site(r, false)}});
      sample(what.heap, t);
      break;
    }
    case Watch::kCall: {
      // The arguments as the ilp32 ABI passes them (a 64-bit one in the next two registers).
      auto u64 = [&](unsigned i) { return uint64_t{w.a[i + 1]} << 32 | w.a[i]; };
      const std::string n = what.name;
      if (n == "tensor_stream_copy")
        args = fmt::format("dst=0x{:x} src=0x{:x} bytes={}", u64(0), u64(2), u64(4));
      else if (n == "data_transfer_to_dram")
        args = fmt::format("dram_addr=0x{:x} hbm_addr=0x{:x} bytes={}", w.a[0], u64(1), w.a[3]);
      else if (n == "data_transfer_from_dram")
        args = fmt::format("hbm_addr=0x{:x} dram_addr=0x{:x} bytes={}", u64(0), w.a[2], w.a[3]);
      else if (n == "allocate_hbm_stack")
        args = fmt::format("size={} align={} flags={}", w.a[0], w.a[1], w.a[2]);
      else if (n == "xmem_heap_alloc") {
        args = fmt::format("mgr=0x{:x} size={} align={} -> 0x{:x}", w.a[0], w.a[1], w.a[2], a0);
        status = 0;  // a pointer; xmem's status goes through *status
      }
      else if (n == "xmem_heap_free")
        args = fmt::format("mgr=0x{:x} ptr=0x{:x}", w.a[0], w.a[1]);
      if (n == "switchStack" || n == "switchStackBack") status = 0;  // void
      break;
    }
  }
  if (!obs_.empty() && fw_calls_.size() < 200'000)
    fw_calls_.push_back(DoneCall{what.name, args, cycle_ps(w.start), t, status});
}

// The deepest use of the stack the program runs on (from the lowest sp the hart saw on it) into
// its high-water marks.
void NeuronSteps::mark_stack_use(const rv::HartRecord& r) {
  auto& st = p_->firmware.program_stack();
  const uint32_t low = r.hart->sp_low();
  const uint32_t used = low < stack_hi_ ? stack_hi_ - low : 0;
  st.high_water = std::max(st.high_water, used);
  if (st.switched) st.hbm_high_water = std::max(st.hbm_high_water, used);
}

void NeuronSteps::switch_stack(rv::HartRecord& r, uint32_t lo, uint32_t hi) {
  mark_stack_use(r);
  auto& st = p_->firmware.program_stack();
  const auto& l = cfg_.firmware.layout;
  const bool hbm = lo >= l.hbm_window && lo - l.hbm_window < l.hbm_scratch_size;
  st.switched = hbm;
  st.base = lo;
  st.size = hi - lo;
  st.sp = hi;
  st.high_water = 0;
  if (hbm) {
    st.hbm_stack = l.hbm_scratch + (lo - l.hbm_window);
    st.hbm_stack_size = hi - lo;
  }
  stack_hi_ = hi;
  r.hart->set_stack_guard(lo, hi);
  for (auto& o : obs_)
    o->instant(p_->core.basename(), hbm ? "stack switch to HBM" : "stack switch to local", cycle_ps(r.hart->cycle()),
               Json{{"lo", lo}, {"hi", hi}});
}

rv::Env::Result NeuronSteps::stack_register(rv::HartRecord& r, bool write, uint32_t offset, void* data) {
  if (!write) return rv::Env::Result::kOk;  // reads give 0
  const uint32_t v = u32_of(data);
  if (offset == 0) {
    stack_lo_reg_ = v;
  } else if (offset == 4) {
    if (v <= stack_lo_reg_) {
      r.hart->set_fault("stack", fmt::format("STACK_HI 0x{:x} is not above STACK_LO 0x{:x}", v, stack_lo_reg_));
      return rv::Env::Result::kFault;
    }
    switch_stack(r, stack_lo_reg_, v);
  }
  return rv::Env::Result::kOk;
}

rv::Env::Result NeuronSteps::dma_register(rv::HartRecord& r, bool write, uint32_t offset, void* data) {
  rv::Hart& h = *r.hart;
  auto& dma = p_->dma;
  if (write) {
    const uint32_t v = u32_of(data);
    switch (offset) {
      case kSrcLo: dma_src_ = (dma_src_ & ~0xffffffffull) | v; break;
      case kSrcHi: dma_src_ = (dma_src_ & 0xffffffffull) | uint64_t{v} << 32; break;
      case kDstLo: dma_dst_ = (dma_dst_ & ~0xffffffffull) | v; break;
      case kDstHi: dma_dst_ = (dma_dst_ & 0xffffffffull) | uint64_t{v} << 32; break;
      case kLen: dma_len_ = v; break;
      case kChannel:
        if (v >= dma.config().channels) {
          h.set_fault("dma", fmt::format("CHANNEL {}: the engine has channels 0 to {}", v, dma.config().channels - 1));
          return rv::Env::Result::kFault;
        }
        dma_channel_ = v;
        break;
      case kStart: {
        const bool violates =
            !models::check_windows(dma.config().windows, models::DmaTransfer{dma_src_, dma_dst_, dma_len_}).empty();
        const models::DmaDescriptor d{dma_src_, dma_dst_, dma_len_, dma_channel_, call_site(r, violates)};
        const sc_core::sc_time issue = p_->core.period() * static_cast<double>(h.cycle());
        if (dma_submitted_.size() < kReportDescriptors) dma_submitted_.push_back(d);
        try {
          dma_tickets_.push_back(dma.submit(d, issue));
        } catch (const models::DmaAbort& e) {
          h.set_fault("dma window violation", e.what());
          return rv::Env::Result::kFault;
        }
        break;
      }
      default:
        h.set_fault("bus error", fmt::format("store to DMA register offset 0x{:x}, which is read-only or none", offset));
        return rv::Env::Result::kFault;
    }
    return rv::Env::Result::kOk;
  }
  uint32_t v = 0;
  switch (offset) {
    case kStatus: {
      while (dma_done_ < dma_tickets_.size() && dma.done(dma_tickets_[dma_done_])) ++dma_done_;
      for (size_t i = dma_done_; i < dma_tickets_.size(); ++i)
        if (!dma.done(dma_tickets_[i])) {
          // Busy: the kernel must reach the hart's time before the answer counts.
          if (sc_core::sc_time_stamp() < p_->core.period() * static_cast<double>(h.cycle())) return rv::Env::Result::kRetry;
          ++v;
        }
      // The cycles between the first busy answer and the idle one are the program's DMA wait.
      if (v && !dma_polling_) {
        dma_polling_ = true;
        dma_poll_start_ = h.cycle();
      } else if (!v && dma_polling_) {
        dma_polling_ = false;
        h.stats().stall_dma += h.cycle() - dma_poll_start_;
      }
      break;
    }
    case kErrors: {
      uint64_t n = 0;
      for (const auto& c : dma.channel_stats()) n += c.rejected + c.errors;
      v = static_cast<uint32_t>(n);
      break;
    }
    case kSrcLo: v = static_cast<uint32_t>(dma_src_); break;
    case kSrcHi: v = static_cast<uint32_t>(dma_src_ >> 32); break;
    case kDstLo: v = static_cast<uint32_t>(dma_dst_); break;
    case kDstHi: v = static_cast<uint32_t>(dma_dst_ >> 32); break;
    case kLen: v = dma_len_; break;
    case kChannel: v = dma_channel_; break;
    default: break;
  }
  std::memcpy(data, &v, 4);
  return rv::Env::Result::kOk;
}

// --- after the run ---

void NeuronSteps::collect_binary() {
  rv::HartRecord& h = *hart_;
  program_end_ps_ = cycle_ps(h.end_cycle);
  mark_stack_use(h);
  auto& st = p_->firmware.program_stack();
  st.sp = h.hart->x(2);
  if (h.end != rv::HartEnd::kExited && h.end != rv::HartEnd::kIdle) {
    Fault fl;
    fl.kind = h.fault_kind;
    fl.time_ps = program_end_ps_;
    if (h.fault_kind == "stack overflow") {
      const uint32_t sp = h.hart->x(2);
      const uint32_t lo = h.hart->stack_guard();
      fl.message = fmt::format("stack overflow in {} (pc 0x{:08x}{}): its frame takes sp to 0x{:08x}, {} bytes past the "
                               "end of the {} stack [0x{:x}, 0x{:x}) of {}; call chain: {}",
                               h.fault_function, h.fault_pc,
                               source_line(h.fault_pc).empty() ? "" : ", " + source_line(h.fault_pc), sp, lo - sp,
                               st.switched ? "HBM" : "local", st.base, st.base + st.size, human(st.size), chain_text(h));
    } else if (h.fault_kind == "dma window violation") {
      fl.message = h.hart->fault().message;  // the engine's message names the call site and line
    } else {
      fl.message = h.fault_message;
      const std::string line = h.fault_pc ? source_line(h.fault_pc) : "";
      if (!line.empty()) fl.message += " at " + line;
      if (h.end == rv::HartEnd::kFault || h.end == rv::HartEnd::kTrap) fl.message += "; call chain: " + chain_text(h);
    }
    fault_ = fl;
    for (auto& o : obs_) o->instant("faults", fl.kind, fl.time_ps, Json{{"message", fl.message}});
  }
  for (const auto& [want, at] : sc_.output) {
    bool found = false;
    for (const auto& [c, line] : h.lines) found = found || line.find(want) != std::string::npos;
    if (!found) missing_output_.push_back(want);
  }
}

void NeuronSteps::binary_metrics(std::map<std::string, double>& m) const {
  const rv::HartRecord& h = *hart_;
  const auto& s = h.hart->stats();
  const double ns = static_cast<double>(program_end_ps_) / 1e3;
  m["exit_code"] = h.end == rv::HartEnd::kExited ? static_cast<double>(static_cast<int32_t>(h.hart->exit_code())) : -1;
  m["instructions"] = static_cast<double>(s.instret);
  m["cycles"] = static_cast<double>(h.end_cycle);
  m["ipc"] = h.end_cycle ? static_cast<double>(s.instret) / static_cast<double>(h.end_cycle) : 0;
  m["stall.dependency"] = static_cast<double>(s.stall_dependency);
  m["stall.dataram"] = static_cast<double>(s.stall_memory[static_cast<int>(rv::Target::kTcdm)]);
  m["stall.hbm"] = static_cast<double>(s.stall_memory[static_cast<int>(rv::Target::kL3)]);
  m["stall.fwmem"] = static_cast<double>(s.stall_memory[static_cast<int>(rv::Target::kOther)]);
  m["stall.dma"] = static_cast<double>(s.stall_dma);
  m["stall.total"] = static_cast<double>(s.stall_total());
  m["output.missing"] = static_cast<double>(missing_output_.size());
  m["core.busy_ns"] = ns;
  m["core.idle_ns"] = 0;
  m["duration"] = std::max(m["duration"], ns);
  for (HeapId id : kHeaps) {
    auto it = exhaustion_.find(id);
    m[std::string(alloc::neuron::heap_name(id)) + ".exhaustion_events"] =
        it == exhaustion_.end() ? 0.0 : static_cast<double>(it->second);
  }
}

void NeuronSteps::binary_report(Json& r) const {
  // The program, in the shape of a snitch-cluster core's (docs/report.md), on the firmware's
  // core: memory stalls by target, named after the management core's memories.
  const rv::HartRecord& h = *hart_;
  const auto& s = h.hart->stats();
  std::string out = h.output;
  Json p{{"elf", sc_.binary->elf},
         {"args", sc_.binary->args},
         {"end", rv::hart_end_name(h.end)},
         {"exit_code", h.end == rv::HartEnd::kExited ? Json(static_cast<int32_t>(h.hart->exit_code())) : Json(nullptr)},
         {"instructions", s.instret},
         {"cycles", h.end_cycle},
         {"ipc", h.end_cycle ? static_cast<double>(s.instret) / static_cast<double>(h.end_cycle) : 0.0},
         {"loads", s.loads},
         {"stores", s.stores},
         {"stall_cycles", Json{{"dependency", s.stall_dependency},
                               {"memory", Json{{"dataram", s.stall_memory[static_cast<int>(rv::Target::kTcdm)]},
                                               {"hbm", s.stall_memory[static_cast<int>(rv::Target::kL3)]},
                                               {"fwmem", s.stall_memory[static_cast<int>(rv::Target::kOther)]}}},
                               {"dma_wait", s.stall_dma}}},
         {"firmware_calls", fw_calls_.size()},
         {"output", out}};
  // The DMA descriptors the program submitted through the registers, in order (the first 10,000).
  Json descs = Json::array();
  for (const auto& d : dma_submitted_)
    descs.push_back(Json{{"src", d.src}, {"dst", d.dst}, {"len", d.len}, {"channel", d.channel}});
  p["dma_descriptors"] = descs;
  if (!h.fault_kind.empty())
    p["fault"] = Json{{"kind", h.fault_kind}, {"message", h.fault_message}, {"pc", fmt::format("0x{:x}", h.fault_pc)},
                      {"instruction", h.fault_insn}, {"function", h.fault_function}};
  // The core's time is the program's: waiting for memory (loads' data) and the rest.
  auto& core = r["cores"][0];
  const double period_ns = p_->core.period().to_seconds() * 1e9;
  uint64_t memory_cycles = 0;
  for (uint64_t v : s.stall_memory) memory_cycles += v;
  const double busy_ns = static_cast<double>(program_end_ps_) / 1e3;
  const double memory_ns = std::min(busy_ns, static_cast<double>(memory_cycles) * period_ns);
  core["busy_ns"] = busy_ns;
  core["idle_ns"] = 0.0;
  core["memory_ns"] = memory_ns;
  core["compute_ns"] = busy_ns - memory_ns;
  core["compute_cycles"] = h.end_cycle - std::min<uint64_t>(h.end_cycle, memory_cycles);
  core["loads"] = s.loads;
  core["stores"] = s.stores;
  core["program"] = p;
  r["missing_output"] = missing_output_;
}

void NeuronSteps::binary_summary(std::ostream& out) const {
  const rv::HartRecord& h = *hart_;
  const auto& s = h.hart->stats();
  out << fmt::format("  program          {} on {}: {}{}, {} instructions in {} cycles (IPC {:.2f}), stalls: "
                     "dependency {}, dataram {}, hbm {}, fwmem {}, dma {}\n",
                     sc_.binary->elf.substr(sc_.binary->elf.find_last_of('/') + 1), h.name, rv::hart_end_name(h.end),
                     h.end == rv::HartEnd::kExited ? fmt::format(" with code {}", static_cast<int32_t>(h.hart->exit_code())) : "",
                     s.instret, h.end_cycle, h.end_cycle ? static_cast<double>(s.instret) / static_cast<double>(h.end_cycle) : 0.0,
                     s.stall_dependency, s.stall_memory[static_cast<int>(rv::Target::kTcdm)],
                     s.stall_memory[static_cast<int>(rv::Target::kL3)], s.stall_memory[static_cast<int>(rv::Target::kOther)],
                     s.stall_dma);
  constexpr size_t kShown = 40;
  for (size_t i = 0; i < h.lines.size() && i < kShown; ++i) out << "  | " << h.lines[i].second << "\n";
  if (h.lines.size() > kShown) out << fmt::format("  | ... {} more lines (the report has the first 1000)\n", h.lines.size() - kShown);
  for (const auto& m : missing_output_) out << fmt::format("  output missing: \"{}\"\n", m);
}

void NeuronSteps::binary_trace() {
  if (obs_.empty()) return;
  const std::string core = p_->core.basename();
  // Every function call as a span, named from the ELF's symbols; the device library's calls
  // carry their arguments and status.
  std::map<std::pair<uint64_t, std::string>, const DoneCall*> lib;
  for (const auto& c : fw_calls_) lib[{c.start_ps, c.name}] = &c;
  for (const auto& sp : hart_->spans) {
    const rv::ElfFunction* f = image_->function_at(sp.function);
    const std::string name = f ? f->name : fmt::format("0x{:x}", sp.function);
    const uint64_t b = cycle_ps(sp.begin), e = cycle_ps(std::max(sp.begin, sp.end));
    auto it = lib.find({b, name});
    for (auto& o : obs_)
      o->call(core, name, it == lib.end() ? "" : it->second->args, b, e, it == lib.end() ? 0 : it->second->status);
  }
}

}  // namespace npusim::sim::neuron
