// `npusim heap replay`: the ops on a host-memory heap (xmem or a Neuron wrapper), its checks,
// statistics and report. The ops file is parsed in heap_replay_input.cpp.
#include "sim/tools/heap_replay.h"
#include "sim/output/json_text.h"

#include "sim/output/progress.h"
#include "sim/run/stop_signal.h"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "allocators/memory_port.h"
#include "allocators/neuron/neuron_heaps.h"
#include "allocators/xmem/xmem_heap.h"
#include "sim/input/limits.h"

namespace npusim::sim {

using alloc::HostMemory;
using alloc::xmem::FreeSpaceQual;
using Heap = alloc::xmem::Heap<HostMemory>;

namespace {

// One allocator kind behind the replay: xmem itself or one of the Neuron wrappers.
class Driver {
 public:
  virtual ~Driver() = default;
  virtual Heap& heap() = 0;
  virtual int32_t init(uint32_t size, uint32_t blocks) = 0;
  // Returns the wrapper status; sets addr on success.
  virtual int32_t alloc(uint32_t size, uint32_t align, std::optional<uint64_t>& addr) = 0;
  virtual int32_t free(uint64_t addr) = 0;
  // Maps an xmem buffer address to the address space the user sees (HBM: 64-bit device).
  virtual uint64_t user_address(uint32_t buffer) { return buffer; }
  // The underlying xmem status when the wrapper reduces it to 0 / -1.
  virtual std::optional<int32_t> xmem_status() { return std::nullopt; }
};

class XmemDriver : public Driver {
 public:
  XmemDriver(HostMemory& mem, uint32_t mgr, uint32_t pool, uint32_t header)
      : heap_(mem, mgr), pool_(pool), header_(header) {}
  Heap& heap() override { return heap_; }
  int32_t init(uint32_t size, uint32_t blocks) override {
    return heap_.init(pool_, size, blocks, header_);
  }
  int32_t alloc(uint32_t size, uint32_t align, std::optional<uint64_t>& addr) override {
    int32_t st;
    const uint32_t p = heap_.alloc(size, align, &st);
    if (st == alloc::xmem::kOk) addr = p;
    return st;
  }
  int32_t free(uint64_t addr) override {
    return addr > kU32 ? alloc::xmem::kErrPtrOutOfBounds : heap_.free(static_cast<uint32_t>(addr));
  }

 private:
  Heap heap_;
  uint32_t pool_, header_;
};

class NeuronDriver : public Driver {
 public:
  NeuronDriver(HostMemory& mem, alloc::neuron::HeapId id) : mem_(mem), heaps_(mem), id_(id) {}
  Heap& heap() override { return heaps_.heap(id_); }
  int32_t init(uint32_t size, uint32_t blocks) override {
    using alloc::neuron::HeapId;
    const auto& l = heaps_.layout();
    // The firmware never touches the pool at init; the replay refuses a pool that is not
    // backed by memory before it hands out addresses there.
    const uint32_t pool = id_ == HeapId::kHbm       ? l.hbm_pool()
                          : id_ == HeapId::kDataram ? l.dataram_pool()
                                                    : l.libc_pool();
    if (size > 0) mem_.require_mapped(pool, size);
    int32_t st;
    if (id_ == HeapId::kHbm) {
      st = heaps_.init_neuron_hbm_allocator();  // also writes the wrapper's .bss words
      if (st == 0) st = heap().init(l.hbm_pool(), size, blocks, l.hbm_header());
    } else if (id_ == HeapId::kDataram) {
      st = heap().init(l.dataram_pool(), size, blocks, l.dataram_header());
    } else {
      st = heap().init(l.libc_pool(), size, blocks, l.libc_header());
    }
    status_ = st;
    return st == 0 ? 0 : -1;
  }
  int32_t init_default() {
    using alloc::neuron::HeapId;
    const int r = id_ == HeapId::kHbm       ? heaps_.init_neuron_hbm_allocator()
                  : id_ == HeapId::kDataram ? heaps_.init_neuron_dataram_allocator()
                                            : heaps_.init_libc_heap_allocator();
    status_ = heaps_.last_xmem_status();
    return r;
  }
  int32_t alloc(uint32_t size, uint32_t align, std::optional<uint64_t>& addr) override {
    using alloc::neuron::HeapId;
    int r;
    if (id_ == HeapId::kHbm) {
      uint64_t a = 0;
      r = heaps_.neuron_hbm_allocate(size, &a, align);
      if (r == 0) addr = a;
    } else if (id_ == HeapId::kDataram) {
      uint32_t p = 0;
      r = heaps_.neuron_dataram_allocate(size, &p, align);
      if (r == 0) addr = p;
    } else {
      const uint32_t p = heaps_.libc_heap_allocate(size, align);
      r = heaps_.last_xmem_status() == 0 ? 0 : -1;
      if (r == 0) addr = p;
    }
    status_ = heaps_.last_xmem_status();
    return r;
  }
  int32_t free(uint64_t addr) override {
    using alloc::neuron::HeapId;
    int r;
    if (id_ == HeapId::kHbm) r = heaps_.neuron_hbm_deallocate(addr);
    else if (addr > kU32) {
      status_ = alloc::xmem::kErrPtrOutOfBounds;
      return -1;
    } else if (id_ == HeapId::kDataram) r = heaps_.neuron_dataram_deallocate(static_cast<uint32_t>(addr));
    else r = heaps_.libc_heap_deallocate(static_cast<uint32_t>(addr));
    status_ = heaps_.last_xmem_status();
    return r;
  }
  uint64_t user_address(uint32_t buffer) override {
    return id_ == alloc::neuron::HeapId::kHbm ? heaps_.hbm_device_address(buffer) : buffer;
  }
  std::optional<int32_t> xmem_status() override { return status_; }
  const alloc::neuron::NeuronLayout& layout() const { return heaps_.layout(); }

 private:
  HostMemory& mem_;
  alloc::neuron::NeuronHeaps<HostMemory> heaps_;
  alloc::neuron::HeapId id_;
  int32_t status_ = 0;
};

struct Stats {
  uint64_t ops = 0, allocs = 0, alloc_failures = 0, frees = 0, free_failures = 0;
  uint64_t wrapped = 0, check_failures = 0;
  uint32_t peak_allocated = 0, peak_descriptors = 0, num_blocks = 0;
  double worst_fragmentation = 0;
  std::vector<std::string> failures;
};

uint32_t largest_free(Heap& h) { return h.get_free_space(1, FreeSpaceQual::kMax); }

}  // namespace

int run_heap_replay(const ReplayOptions& opt, const std::vector<ReplayOp>& ops,
                    const std::string& file, std::ostream& out) {
  HostMemory mem;
  std::unique_ptr<Driver> drv;
  const char* args = "command line";
  if (opt.allocator == "xmem") {
    if (opt.pool_base == 0 || opt.pool_base > kU32)
      throw InputError(args, 0, fmt::format("0x{:x}", opt.pool_base),
                       "--pool-base must be a non-zero 32-bit device address");
    uint64_t max_pool = opt.pool_size, max_blocks = opt.blocks;
    for (const auto& op : ops) {
      if (op.kind == ReplayOp::kInit) {
        max_pool = std::max(max_pool, op.a);
        max_blocks = std::max(max_blocks, op.b);
      }
    }
    const bool none = opt.header == "none";
    if (!none && opt.header != "after")
      throw InputError(args, 0, opt.header, "--header must be 'after' or 'none'");
    if (max_pool == 0) throw InputError(args, 0, "0", "--pool-size must be positive");
    const uint64_t pool_end = opt.pool_base + max_pool;
    const uint64_t hdr_bytes = none ? 0 : alloc::xmem::header_bytes(std::max<uint64_t>(max_blocks, 1));
    const uint64_t header = opt.header_base.value_or((pool_end + 63) & ~uint64_t{63});
    const uint64_t mgr = opt.mgr_base.value_or((header + hdr_bytes + 63) & ~uint64_t{63});
    if (pool_end > kU32 + 1 || mgr + alloc::xmem::mgr::kSize > kU32 + 1 ||
        header + hdr_bytes > kU32 + 1)
      throw InputError(args, 0, fmt::format("0x{:x}+0x{:x}", opt.pool_base, max_pool),
                       "pool, header and manager must fit in the 32-bit device address space");
    try {
      mem.add_region("pool", opt.pool_base, max_pool);
      if (!none) mem.add_region("header", header, hdr_bytes);
      mem.add_region("manager", mgr, alloc::xmem::mgr::kSize);
    } catch (const std::invalid_argument& e) {
      throw InputError(args, 0, "--header-base/--mgr-base", e.what());
    }
    drv = std::make_unique<XmemDriver>(mem, static_cast<uint32_t>(mgr),
                                       static_cast<uint32_t>(opt.pool_base),
                                       none ? 0u : static_cast<uint32_t>(header));
  } else {
    using alloc::neuron::HeapId;
    HeapId id;
    if (opt.allocator == "neuron-hbm") id = HeapId::kHbm;
    else if (opt.allocator == "neuron-dataram") id = HeapId::kDataram;
    else if (opt.allocator == "neuron-libc") id = HeapId::kLibc;
    else
      throw InputError(args, 0, opt.allocator,
                       "--allocator must be xmem, neuron-hbm, neuron-dataram or neuron-libc");
    auto nd = std::make_unique<NeuronDriver>(mem, id);
    alloc::neuron::map_regions(mem, nd->layout());
    drv = std::move(nd);
  }

  Stats st;
  auto run_init = [&](uint64_t size, uint64_t blocks) {
    return drv->init(static_cast<uint32_t>(size), static_cast<uint32_t>(blocks));
  };
  // The heap starts initialised: the xmem heap with the command-line pool, a Neuron heap
  // with its wrapper's init function on the default layout.
  int32_t init_status = 0;
  try {
    if (opt.allocator == "xmem") init_status = run_init(opt.pool_size, opt.blocks);
    else init_status = static_cast<NeuronDriver&>(*drv).init_default();
  } catch (const alloc::MemoryError& e) {
    throw InputError(args, 0, alloc::hex(e.addr()), e.what());
  }
  bool initialised = init_status == 0;

  auto snapshot = [&](nlohmann::ordered_json& j) {
    Heap& h = drv->heap();
    const auto c = h.counters();
    j["free_bytes"] = c.free_bytes;
    j["allocated_bytes"] = c.allocated_bytes;
    j["unused_bytes"] = c.unused_bytes;
    j["true_unused_bytes"] = h.true_unused_bytes();
    const uint32_t lf = largest_free(h);
    j["largest_free"] = lf;
    const uint32_t used = h.descriptors_used();
    j["descriptors_used"] = used;
    auto list = nlohmann::json::array();
    h.walk([&](const alloc::xmem::BlockInfo& b) {
      if (b.free) list.push_back({drv->user_address(b.buffer), b.size});
    });
    j["free_list"] = std::move(list);
    st.peak_allocated = std::max(st.peak_allocated, c.allocated_bytes);
    st.peak_descriptors = std::max(st.peak_descriptors, used);
    st.num_blocks = c.num_blocks;
    if (c.free_bytes > 0)
      st.worst_fragmentation =
          std::max(st.worst_fragmentation, 1.0 - static_cast<double>(lf) / c.free_bytes);
    auto problems = h.check();
    if (!problems.empty()) {
      ++st.check_failures;
      j["heap_check"] = problems;
    }
  };

  Progress progress("heap replay " + file, opt.progress ? Progress::Mode::kOn : Progress::Mode::kAuto);
  progress.set_total(ops.size(), "ops");
  StopSignals stop;  // SIGINT/SIGTERM: stop before the next op; the output so far is complete
  for (const auto& op : ops) {
    if (interrupted()) break;
    ++st.ops;
    progress.update(st.ops);
    nlohmann::ordered_json j;
    try {
      const uint64_t exhaustion_before = drv->heap().descriptor_exhaustion_events();
      switch (op.kind) {
        case ReplayOp::kInit: {
          j["op"] = "init";
          const int32_t s = run_init(op.a, op.b);
          initialised = s == 0;
          j["status"] = s;
          j["addr"] = nullptr;
          j["result"] = nullptr;
          break;
        }
        case ReplayOp::kAlloc: {
          j["op"] = "alloc";
          std::optional<uint64_t> addr;
          const int32_t s = drv->alloc(static_cast<uint32_t>(op.a), static_cast<uint32_t>(op.b), addr);
          j["status"] = s;
          j["addr"] = addr ? nlohmann::ordered_json(*addr) : nlohmann::ordered_json(nullptr);
          j["result"] = nullptr;
          ++st.allocs;
          if (s != 0) {
            ++st.alloc_failures;
            st.failures.push_back(fmt::format("line {}: alloc {} align {} -> {}", op.line, op.a,
                                              op.b, s));
          }
          // need = size + slack in u32 wrapped: the firmware "succeeds" with a tiny block.
          if (addr) {
            drv->heap().walk([&](const alloc::xmem::BlockInfo& b) {
              if (!b.free && drv->user_address(b.aligned) == *addr && b.size < op.a) {
                ++st.wrapped;
                j["warning"] = fmt::format(
                    "size + alignment slack wrapped around 2^32: the block holds only {} bytes",
                    b.size);
              }
            });
          }
          break;
        }
        case ReplayOp::kFree: {
          j["op"] = "free";
          const int32_t s = drv->free(op.a);
          j["status"] = s;
          j["addr"] = op.a;
          j["result"] = nullptr;
          ++st.frees;
          if (s != 0) {
            ++st.free_failures;
            st.failures.push_back(fmt::format("line {}: free 0x{:x} -> {}", op.line, op.a, s));
          }
          break;
        }
        case ReplayOp::kFreeSpace: {
          j["op"] = "free_space";
          static const FreeSpaceQual quals[] = {FreeSpaceQual::kMax, FreeSpaceQual::kStart,
                                                FreeSpaceQual::kEnd};
          int32_t s = 0;
          const uint32_t r = drv->heap().get_free_space(static_cast<uint32_t>(op.a), quals[op.b],
                                                        nullptr, nullptr, &s);
          j["status"] = s;
          j["addr"] = nullptr;
          j["result"] = r;
          break;
        }
      }
      j["line"] = op.line;
      if (auto xs = drv->xmem_status(); xs && op.kind != ReplayOp::kFreeSpace) j["xmem_status"] = *xs;
      if (drv->heap().descriptor_exhaustion_events() > exhaustion_before)
        j["descriptor_exhaustion"] = true;
      if (initialised) snapshot(j);
    } catch (const alloc::MemoryError& e) {
      throw InputError(file, op.line, alloc::hex(e.addr()), e.what());
    } catch (const alloc::xmem::HeapCorrupted& e) {
      throw InputError(file, op.line, "heap", e.what());
    }
    if (!opt.summary) out << json_text(j) << '\n';
  }
  progress.finish();
  if (interrupted() && !opt.summary)  // the last line says the replay stopped early
    out << json_text(nlohmann::ordered_json{{"interrupted", stop_signal_name()}, {"ops", st.ops}, {"of", ops.size()}})
        << '\n';

  if (opt.summary) {
    const auto c = drv->heap().counters();
    out << fmt::format("heap replay: {} ({} ops from {})\n", opt.allocator, st.ops, file);
    out << fmt::format("  {:<34}{:>12}\n", "pool size (bytes)", c.buffer_size);
    out << fmt::format("  {:<34}{:>12}\n", "allocations / failed", fmt::format("{} / {}", st.allocs, st.alloc_failures));
    out << fmt::format("  {:<34}{:>12}\n", "frees / failed", fmt::format("{} / {}", st.frees, st.free_failures));
    out << fmt::format("  {:<34}{:>12}\n", "peak allocated bytes", st.peak_allocated);
    out << fmt::format("  {:<34}{:>12}\n", "peak descriptors used",
                       fmt::format("{} / {}", st.peak_descriptors, st.num_blocks));
    out << fmt::format("  {:<34}{:>12}\n", "descriptor exhaustion events",
                       drv->heap().descriptor_exhaustion_events());
    out << fmt::format("  {:<34}{:>11.1f}%\n", "worst fragmentation", 100.0 * st.worst_fragmentation);
    out << fmt::format("  {:<34}{:>12}\n", "final free / allocated bytes",
                       fmt::format("{} / {}", c.free_bytes, c.allocated_bytes));
    out << fmt::format("  {:<34}{:>12}\n", "final largest free block", largest_free(drv->heap()));
    out << fmt::format("  {:<34}{:>12}\n", "unused_bytes (firmware counter)", c.unused_bytes);
    out << fmt::format("  {:<34}{:>12}\n", "alignment slack actually held", drv->heap().true_unused_bytes());
    if (st.wrapped) out << fmt::format("  {:<34}{:>12}\n", "size+slack wrap-arounds", st.wrapped);
    if (st.check_failures) out << fmt::format("  {:<34}{:>12}\n", "ops leaving an inconsistent heap", st.check_failures);
    for (const auto& f : st.failures) out << "  failed: " << f << '\n';
    if (interrupted())
      out << fmt::format("  interrupted by {} after {} of {} ops: the figures above are partial\n",
                         stop_signal_name(), st.ops, ops.size());
  }
  return stop_exit_code();  // 0, or 130/143 after SIGINT/SIGTERM
}

}  // namespace npusim::sim
