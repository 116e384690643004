#include "sim/run/scenario_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <csignal>
#include <ostream>
#include <set>

#include "allocators/xmem/xmem_heap.h"
#include "firmware/neuron_device.h"
#include "firmware/neuron_platform.h"
#include "sim/tools/heap_replay.h"
#include "sim/run/heap_blocks.h"

namespace npusim::sim {

extern const char* const kDefaultScenario;  // generated from scenarios/default.yaml

const char* default_scenario_text() { return kDefaultScenario; }
const char* default_scenario_name() { return "<builtin:scenarios/default.yaml>"; }

namespace {

using alloc::neuron::HeapId;
using Json = nlohmann::ordered_json;

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

// Untimed view of device memory through the core (debug transport), for sampling heaps.
struct DebugPort {
  models::Core& c;
  uint32_t load32(uint64_t a) {
    uint32_t v;
    c.peek(a, &v, 4);
    return v;
  }
  void store32(uint64_t a, uint32_t v) { c.poke(a, &v, 4); }
  void read(uint64_t a, void* d, size_t n) { c.peek(a, d, n); }
  void write(uint64_t a, const void* s, size_t n) { c.poke(a, s, n); }
  void compute(uint64_t) {}
};

const HeapId kHeaps[] = {HeapId::kHbm, HeapId::kDataram, HeapId::kLibc};

HeapId heap_id(const std::string& h) {
  return h == "hbm" ? HeapId::kHbm : h == "dataram" ? HeapId::kDataram : HeapId::kLibc;
}

struct HeapTrack {
  bool initialised = false;
  uint64_t peak_used = 0, peak_descriptors = 0, alloc_failures = 0, frees = 0, allocs = 0;
  uint64_t free_errors = 0;
  double worst_fragmentation = 0;
  uint64_t free_bytes = 0, allocated_bytes = 0, largest_free = 0, descriptors = 0;
  uint64_t unused_fw = 0, unused_true = 0, pool_size = 0, num_blocks = 0;
};

// A fault of the run, classified.
struct Fault {
  std::string kind, message, where;
  uint64_t time_ps = 0;
};

uint64_t ps(const sc_core::sc_time& t) {
  return static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5);
}

class Runner {
 public:
  Runner(const Scenario& sc, const RunOptions& opt, std::vector<std::unique_ptr<RunObserver>> obs)
      : sc_(sc), opt_(opt), obs_(std::move(obs)) {}

  RunResult run(std::ostream& out);

 private:
  // --- the interpreter (runs in the core's thread) ---
  void exec(const std::vector<Step>& steps);
  void exec(const Step& s);
  uint64_t resolve(const AddrExpr& e);
  [[noreturn]] void runtime_error(const Step& s, const std::string& why);
  void sample(HeapId id);
  // Long runs say how far they are, on stderr, at most every two seconds of host time.
  void progress() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_progress_ < std::chrono::seconds(2)) return;
    last_progress_ = now;
    std::cerr << fmt::format("npusim: {} steps, simulated {:.3f} us\n", steps_done_,
                             p_->core.now().to_seconds() * 1e6);
  }
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
  void count_heap_op(HeapId id, bool is_alloc, int status) {
    HeapTrack& t = heaps_[id];
    if (is_alloc) {
      ++t.allocs;
      if (status != 0) ++t.alloc_failures;
    } else {
      ++t.frees;
      if (status != 0) {
        ++t.free_errors;
        ++double_frees_;
      }
    }
  }
  fw::TransferMethod method_of(const Step& s) const;

  void check_expectation_keys() const;
  std::map<std::string, double> metrics() const;
  Json build_report(int exit_code, const std::vector<Json>& expectations) const;
  void print_summary(std::ostream& out, const std::vector<Json>& expectations, int exit_code) const;

  const Scenario& sc_;
  const RunOptions& opt_;
  std::vector<std::unique_ptr<RunObserver>> obs_;
  fw::NeuronPlatformConfig cfg_;
  std::string platform_name_;
  std::unique_ptr<fw::NeuronPlatform> p_;
  std::map<std::string, uint64_t> names_;
  std::set<std::string> failed_names_;
  std::map<HeapId, HeapTrack> heaps_;
  HeapBlockTracker blocks_;  // the heap map's blocks, only when tracing
  std::vector<std::pair<uint64_t, std::string>> markers_;
  std::vector<std::string> layout_warnings_;
  const Step* current_ = nullptr;
  std::optional<Fault> fault_;
  uint64_t double_frees_ = 0;
  struct OpenCall {
    std::string name, args;
    uint64_t start;
  };
  std::vector<OpenCall> calls_;
  uint64_t steps_done_ = 0;
};

[[noreturn]] void Runner::runtime_error(const Step& s, const std::string& why) {
  throw fw::FirmwareFault(fw::FirmwareFault::kUsage, s.at.str(), s.at.str() + ": " + why);
}

uint64_t Runner::resolve(const AddrExpr& e) {
  if (e.name.empty()) return e.offset;
  auto it = names_.find(e.name);
  if (it == names_.end()) {
    throw fw::FirmwareFault(
        fw::FirmwareFault::kUsage, e.at.str(),
        fmt::format("{}: '{}' has no address{}", e.at.str(), e.name,
                    failed_names_.count(e.name) ? " (its allocation failed)" : " (not allocated yet)"));
  }
  return it->second + e.offset;
}

fw::TransferMethod Runner::method_of(const Step& s) const {
  if (!s.has_method) return p_->firmware.config().method;
  const std::string& m = s.method;
  if (m == "c_memcpy" || m == "C_MEMCPY" || m == "0") return fw::TransferMethod::kCMemcpy;
  if (m == "vec_memcpy" || m == "VEC_MEMCPY" || m == "1") return fw::TransferMethod::kVecMemcpy;
  return fw::TransferMethod::kDma;
}

void Runner::sample(HeapId id) {
  DebugPort port{p_->core};
  const auto& l = cfg_.firmware.layout;
  const uint32_t mgr = id == HeapId::kHbm ? l.hbm_mgr() : id == HeapId::kDataram ? l.dataram_mgr() : l.libc_mgr();
  alloc::xmem::Heap<DebugPort> h(port, mgr);
  HeapTrack& t = heaps_[id];
  const auto c = h.counters();
  if (c.num_blocks == 0) return;  // not initialised (or init failed)
  t.initialised = true;
  t.free_bytes = c.free_bytes;
  t.allocated_bytes = c.allocated_bytes;
  t.unused_fw = c.unused_bytes;
  t.pool_size = c.buffer_size;
  t.num_blocks = c.num_blocks;
  try {
    t.largest_free = h.get_free_space(1, alloc::xmem::FreeSpaceQual::kMax);
    t.descriptors = h.descriptors_used();
    t.unused_true = h.true_unused_bytes();
    if (!obs_.empty()) {
      std::vector<HeapBlockTracker::Block> live;
      h.walk([&](const alloc::xmem::BlockInfo& b) {
        if (!b.free) live.push_back({b.buffer, b.size, b.aligned});
      });
      blocks_.update(alloc::neuron::heap_name(id), c.buffer, c.buffer_size, live, ps(p_->core.now()), obs_);
    }
  } catch (const std::exception&) {
    // A corrupted heap cannot be walked; the values keep their last good state.
  }
  t.peak_used = std::max<uint64_t>(t.peak_used, c.allocated_bytes);
  t.peak_descriptors = std::max(t.peak_descriptors, t.descriptors);
  if (c.free_bytes > 0)
    t.worst_fragmentation = std::max(t.worst_fragmentation,
                                     1.0 - static_cast<double>(t.largest_free) / c.free_bytes);
  const uint64_t now = ps(p_->core.now());
  for (auto& o : obs_) o->heap(alloc::neuron::heap_name(id), now, t.free_bytes, t.largest_free, t.descriptors);
}

void Runner::exec(const std::vector<Step>& steps) {
  for (const auto& s : steps) exec(s);
}

void Runner::exec(const Step& s) {
  if (g_interrupted)
    throw fw::FirmwareFault(fw::FirmwareFault::kUsage, "interrupt", "interrupted (Ctrl-C)");
  current_ = &s;
  if ((++steps_done_ & 0xfffff) == 0) progress();
  fw::Firmware& f = p_->firmware;
  switch (s.kind) {
    case Step::kInit:
      for (const auto& h : s.heaps) {
        const int r = h == "hbm" ? f.init_neuron_hbm_allocator()
                      : h == "dataram" ? f.init_neuron_dataram_allocator()
                                       : f.init_libc_heap_allocator();
        if (r != 0) runtime_error(s, fmt::format("init of the {} heap failed (xmem status {})", h, f.heaps().last_xmem_status()));
      }
      break;
    case Step::kAlloc: {
      const HeapId id = heap_id(s.heap);
      uint64_t addr = 0;
      int r;
      if (id == HeapId::kHbm) {
        r = f.neuron_hbm_allocate(static_cast<uint32_t>(s.size), &addr, static_cast<uint32_t>(s.align));
      } else if (id == HeapId::kDataram) {
        uint32_t p = 0;
        r = f.neuron_dataram_allocate(static_cast<uint32_t>(s.size), &p, static_cast<uint32_t>(s.align));
        addr = p;
      } else {
        addr = f.heaps().libc_heap_allocate(static_cast<uint32_t>(s.size), static_cast<uint32_t>(s.align));
        r = f.heaps().last_xmem_status() == 0 ? 0 : -1;
        count_heap_op(id, true, r);
        sample(id);
      }
      if (r != 0) {
        if (!s.name.empty()) failed_names_.insert(s.name);
        for (auto& o : obs_)
          o->instant("faults", "allocation failure", ps(p_->core.now()),
                     Json{{"heap", s.heap}, {"size", s.size}, {"align", s.align}, {"step", s.at.str()}});
        if (!s.flag && sc_.alloc_failure_policy == "abort")
          throw fw::FirmwareFault(
              fw::FirmwareFault::kAllocFailure, s.at.str(),
              fmt::format("{}: allocation of {} bytes (align {}) from the {} heap failed: xmem "
                          "status {} {}",
                          s.at.str(), s.size, s.align, s.heap, f.heaps().last_xmem_status(),
                          alloc::xmem::status_name(f.heaps().last_xmem_status())));
      } else if (!s.name.empty()) {
        names_[s.name] = addr;
        failed_names_.erase(s.name);
      }
      break;
    }
    case Step::kFree: {
      const HeapId id = heap_id(s.heap);
      uint64_t addr;
      if (!s.name.empty()) {
        auto it = names_.find(s.name);
        if (it == names_.end()) {
          if (failed_names_.count(s.name)) break;  // its allocation failed (recorded): nothing to free
          runtime_error(s, fmt::format("free of '{}', which is not allocated", s.name));
        }
        addr = it->second;
      } else {
        addr = resolve(s.addr);
      }
      int r;
      if (id == HeapId::kHbm) r = f.neuron_hbm_deallocate(addr);
      else if (id == HeapId::kDataram) r = f.neuron_dataram_deallocate(static_cast<uint32_t>(addr));
      else {
        r = f.heaps().libc_heap_deallocate(static_cast<uint32_t>(addr));
        count_heap_op(id, false, r);
        sample(id);
      }
      if (r != 0) {
        const std::string what = fmt::format(
            "{}: free of {} (0x{:x}) on the {} heap: not a live allocation (double free or bad "
            "pointer); the wrapper returns -1 (xmem status {})",
            s.at.str(), s.name.empty() ? s.addr.text : s.name, addr, s.heap, f.heaps().last_xmem_status());
        for (auto& o : obs_)
          o->instant("faults", "bad free", ps(p_->core.now()), Json{{"heap", s.heap}, {"addr", addr}, {"step", s.at.str()}});
        if (sc_.alloc_failure_policy == "abort")
          throw fw::FirmwareFault(fw::FirmwareFault::kDoubleFree, s.at.str(), what);
      }
      break;
    }
    case Step::kStackAlloc:
      f.allocate_hbm_stack(static_cast<uint32_t>(s.size), static_cast<uint32_t>(s.align), s.flag ? 1u : 0u);
      break;
    case Step::kStackSwitch:
      if (s.text == "hbm") f.switch_to_hbm_stack();
      else f.switch_to_local_stack();
      break;
    case Step::kCall:
      f.push_frame(s.name, static_cast<uint32_t>(s.size));
      exec(s.body);
      current_ = &s;
      f.pop_frame();
      break;
    case Step::kTransfer: {
      const uint64_t src = resolve(s.src), dst = resolve(s.dst);
      const uint64_t chunk = s.chunk ? s.chunk : s.size;
      const auto m = method_of(s);
      const std::string site = "transfer@" + s.at.str();
      const uint64_t t0 = ps(p_->core.now());
      for (uint64_t off = 0; off < s.size || (s.size == 0 && off == 0); off += chunk) {
        f.transfer(dst + off, src + off, std::min(chunk, s.size - off), m, site);
        if (s.size == 0) break;
      }
      for (auto& o : obs_)
        o->call("mgmt_core", "transfer", fmt::format("src=0x{:x} dst=0x{:x} bytes={} method={}", src, dst, s.size, fw::method_name(m)),
                t0, ps(p_->core.now()), 0);
      break;
    }
    case Step::kTensorStream: {
      const uint64_t src = resolve(s.src), dst = resolve(s.dst);
      auto& c = const_cast<fw::FirmwareConfig&>(f.config());
      const auto saved_m = c.method;
      const bool saved_d = c.double_buffer;
      if (s.has_method) c.method = method_of(s);
      if (s.double_buffer) c.double_buffer = *s.double_buffer;
      f.tensor_stream_copy(dst, src, s.size);
      c.method = saved_m;
      c.double_buffer = saved_d;
      break;
    }
    case Step::kCompute:
      f.core().compute(s.cycles);
      break;
    case Step::kWait:
      f.core().idle(sc_core::sc_time(s.wait_ns, sc_core::SC_NS));
      break;
    case Step::kLoop:
      for (uint64_t i = 0; i < s.count; ++i) exec(s.body);
      break;
    case Step::kMarker: {
      const uint64_t t = ps(p_->core.now());
      markers_.emplace_back(t, s.text);
      for (auto& o : obs_) o->instant("mgmt_core", s.text, t, Json{{"step", s.at.str()}});
      break;
    }
    case Step::kWrite:
    case Step::kCheck: {
      const uint64_t a = f.core_address(resolve(s.addr));
      std::vector<uint8_t> want(s.size);
      for (uint64_t i = 0; i < s.size; ++i)
        want[i] = s.value > 0xff ? static_cast<uint8_t>(s.value >> (8 * (i % 4))) : static_cast<uint8_t>(s.value);
      if (s.kind == Step::kWrite) {
        f.core().write(a, want.data(), want.size());
      } else {
        std::vector<uint8_t> got(s.size);
        f.core().read(a, got.data(), got.size());
        for (uint64_t i = 0; i < s.size; ++i)
          if (got[i] != want[i])
            runtime_error(s, fmt::format("check failed at 0x{:x}: byte {} is 0x{:02x}, expected 0x{:02x}",
                                         a + i, i, got[i], want[i]));
      }
      break;
    }
  }
}

// --- expectations ---

const std::set<std::string>& fixed_metric_keys() {
  static const std::set<std::string> k = {
      "duration", "violations", "window_violations", "bus_errors", "alloc_failures", "faults",
      "stack_overflows", "double_frees", "dma.bytes", "dma.descriptors", "hbm.bytes",
      "hbm.requests", "hbm.row_hit_rate", "hbm.latency_mean_cycles", "dataram_memory.bytes",
      "stack.high_water", "stack.hbm_high_water", "core.busy_ns", "core.idle_ns", "steps"};
  return k;
}
const char* kHeapFields[] = {"peak_used", "descriptors_peak", "exhaustion_events", "free_bytes",
                             "largest_free", "alloc_failures", "fragmentation", "unused_bytes"};

void Runner::check_expectation_keys() const {
  for (const auto& e : sc_.expect) {
    if (fixed_metric_keys().count(e.key)) continue;
    const auto dot = e.key.find('.');
    bool ok = false;
    if (dot != std::string::npos) {
      const std::string h = e.key.substr(0, dot), field = e.key.substr(dot + 1);
      if (h == "hbm" || h == "dataram" || h == "libc")
        for (const char* f : kHeapFields) ok = ok || field == f;
    }
    if (!ok)
      throw InputError(e.at.file, e.at.line, e.key,
                       "unknown expectation key (see docs/scenarios.md: duration, violations, "
                       "alloc_failures, faults, stack_overflows, dataram.peak_used, ...)",
                       e.at.column);
  }
}

std::map<std::string, double> Runner::metrics() const {
  std::map<std::string, double> m;
  const auto& cs = p_->core.stats();
  uint64_t window = 0, bus = 0;
  for (const auto& f : p_->dma.faults()) (f.kind == models::DmaFault::kWindow ? window : bus)++;
  const bool core_bus_error = fault_ && fault_->kind == "bus error";
  uint64_t dma_bytes = 0, dma_desc = 0;
  for (const auto& c : p_->dma.channel_stats()) {
    dma_bytes += c.bytes;
    dma_desc += c.descriptors;
  }
  uint64_t end = ps(cs.end);
  for (const auto& c : p_->dma.channel_stats()) end = std::max(end, ps(c.last_end));
  m["duration"] = static_cast<double>(end) / 1e3;
  m["violations"] = m["window_violations"] = static_cast<double>(window);
  m["bus_errors"] = static_cast<double>(bus + (core_bus_error ? 1 : 0));
  uint64_t af = 0;
  for (const auto& [id, t] : heaps_) af += t.alloc_failures;
  m["alloc_failures"] = static_cast<double>(af);
  m["faults"] = fault_ ? 1 : 0;
  m["stack_overflows"] = fault_ && fault_->kind == "stack overflow" ? 1 : 0;
  m["double_frees"] = static_cast<double>(double_frees_);
  m["dma.bytes"] = static_cast<double>(dma_bytes);
  m["dma.descriptors"] = static_cast<double>(dma_desc);
  const auto& hs = p_->memory.hbm.stats();
  m["hbm.bytes"] = static_cast<double>(hs.bytes());
  m["hbm.requests"] = static_cast<double>(hs.requests());
  m["hbm.row_hit_rate"] = hs.row_hit_rate();
  m["hbm.latency_mean_cycles"] = hs.latency_cycles.mean();
  m["dataram_memory.bytes"] = static_cast<double>(p_->memory.dataram.stats().bytes());
  m["stack.high_water"] = p_->firmware.stack().high_water;
  m["stack.hbm_high_water"] = p_->firmware.stack().hbm_high_water;
  m["core.busy_ns"] = (cs.memory_time + cs.compute_time).to_seconds() * 1e9;
  m["core.idle_ns"] = cs.wait_time.to_seconds() * 1e9;
  m["steps"] = static_cast<double>(steps_done_);
  for (HeapId id : kHeaps) {
    const std::string h = alloc::neuron::heap_name(id);
    auto it = heaps_.find(id);
    const HeapTrack t = it == heaps_.end() ? HeapTrack{} : it->second;
    m[h + ".peak_used"] = static_cast<double>(t.peak_used);
    m[h + ".descriptors_peak"] = static_cast<double>(t.peak_descriptors);
    m[h + ".exhaustion_events"] =
        static_cast<double>(p_->firmware.heaps().heap(id).descriptor_exhaustion_events());
    m[h + ".free_bytes"] = static_cast<double>(t.free_bytes);
    m[h + ".largest_free"] = static_cast<double>(t.largest_free);
    m[h + ".alloc_failures"] = static_cast<double>(t.alloc_failures);
    m[h + ".fragmentation"] = t.worst_fragmentation;
    m[h + ".unused_bytes"] = static_cast<double>(t.unused_fw);
  }
  return m;
}


Json channel_json(size_t ch, const models::DmaChannelStats& c) {
  const double busy_ns = c.busy.to_seconds() * 1e9;
  return Json{{"channel", ch},
              {"descriptors", c.descriptors},
              {"bytes", c.bytes},
              {"bursts", c.bursts},
              {"rejected", c.rejected},
              {"errors", c.errors},
              {"busy_ns", busy_ns},
              {"throughput_gbps", busy_ns > 0 ? static_cast<double>(c.bytes) / busy_ns : 0.0}};
}

Json memory_json(const models::MemoryStats& s, double clock_ns) {
  return Json{{"reads", s.reads},
              {"writes", s.writes},
              {"bytes", s.bytes()},
              {"errors", s.errors},
              {"latency_mean_ns", s.latency_cycles.mean() * clock_ns},
              {"latency_p99_ns", static_cast<double>(s.latency_cycles.percentile(0.99)) * clock_ns},
              {"latency_max_ns", static_cast<double>(s.latency_cycles.max()) * clock_ns},
              {"row_hits", s.row_hits},
              {"row_misses", s.row_misses},
              {"row_conflicts", s.row_conflicts},
              {"row_hit_rate", s.row_hit_rate()},
              {"bank_conflicts", s.bank_conflicts},
              {"refreshes", s.refreshes}};
}

Json violation_json(const models::DmaFault& f) {
  Json j{{"kind", f.kind == models::DmaFault::kWindow ? "window" : "bus_error"},
         {"time_ns", f.time.to_seconds() * 1e9},
         {"channel", f.channel},
         {"descriptor", Json{{"src", f.desc.src}, {"dst", f.desc.dst}, {"len", f.desc.len}}},
         {"call_site", f.desc.call_site}};
  if (f.kind == models::DmaFault::kWindow) {
    j["rule"] = f.finding.rule;
    j["side"] = f.finding.side;
    j["bound"] = f.finding.bound;
    j["bound_value"] = f.finding.bound_value;
    j["range"] = Json::array({f.finding.addr, f.finding.end});
    j["assertion"] = f.finding.text;
    j["firmware_assertion_passes"] = f.finding.start_inside;
  } else {
    j["address"] = f.bus_addr;
  }
  j["message"] = f.message;
  return j;
}

Json Runner::build_report(int exit_code, const std::vector<Json>& expectations) const {
  const auto m = metrics();
  Json r = report_head(sc_.name, sc_.file, sc_.description, platform_name_,
                       run_settings(sc_.set, opt_));
  r["policies"] = Json{{"dma_window", sc_.dma_window_policy}, {"on_alloc_failure", sc_.alloc_failure_policy}};
  Json outcome{{"exit_code", exit_code},
               {"status", fault_ ? "fault" : exit_code == 0 ? "ok" : "expectations_failed"}};
  if (fault_)
    outcome["fault"] = Json{{"kind", fault_->kind}, {"message", fault_->message},
                            {"time_ns", static_cast<double>(fault_->time_ps) / 1e3}, {"step", fault_->where}};
  else
    outcome["fault"] = nullptr;
  outcome["expectations"] = expectations;
  r["outcome"] = outcome;
  r["duration_ns"] = m.at("duration");
  const auto& cs = p_->core.stats();
  r["cores"] = Json::array({Json{{"name", "mgmt_core"},
                                 {"busy_ns", m.at("core.busy_ns")},
                                 {"idle_ns", m.at("core.idle_ns")},
                                 {"memory_ns", cs.memory_time.to_seconds() * 1e9},
                                 {"compute_ns", cs.compute_time.to_seconds() * 1e9},
                                 {"compute_cycles", cs.compute_cycles},
                                 {"loads", cs.loads},
                                 {"stores", cs.stores},
                                 {"dmi_accesses", cs.dmi_accesses},
                                 {"bus_transactions", cs.bus_transactions}}});
  Json heaps = Json::object();
  for (HeapId id : kHeaps) {
    const std::string h = alloc::neuron::heap_name(id);
    auto it = heaps_.find(id);
    if (it == heaps_.end() || !it->second.initialised) continue;
    const HeapTrack& t = it->second;
    heaps[h] = Json{{"pool_size", t.pool_size},
                    {"descriptors", t.num_blocks},
                    {"allocations", t.allocs},
                    {"alloc_failures", t.alloc_failures},
                    {"frees", t.frees},
                    {"free_errors", t.free_errors},
                    {"peak_used", t.peak_used},
                    {"descriptors_peak", t.peak_descriptors},
                    {"exhaustion_events", m.at(h + ".exhaustion_events")},
                    {"worst_fragmentation", t.worst_fragmentation},
                    {"final_free_bytes", t.free_bytes},
                    {"final_allocated_bytes", t.allocated_bytes},
                    {"final_largest_free", t.largest_free},
                    {"unused_bytes_firmware", t.unused_fw},
                    {"unused_bytes_true", t.unused_true}};
  }
  r["heaps"] = heaps;
  r["memories"] = Json{{"dataram", memory_json(p_->memory.dataram.stats(), cfg_.memory.dataram.clock_ns)},
                       {"hbm", memory_json(p_->memory.hbm.stats(), cfg_.memory.hbm.tck_ns)}};
  Json chans = Json::array();
  const auto& st = p_->dma.channel_stats();
  for (size_t i = 0; i < st.size(); ++i) chans.push_back(channel_json(i, st[i]));
  r["dma"] = Json{{"channels", chans}};
  Json viol = Json::array();
  for (const auto& f : p_->dma.faults()) viol.push_back(violation_json(f));
  r["violations"] = viol;
  const auto& stk = p_->firmware.stack();
  r["stack"] = Json{{"hbm_stack", stk.hbm_stack},
                    {"hbm_stack_size", stk.hbm_stack_size},
                    {"switched", stk.switched},
                    {"high_water", stk.high_water},
                    {"hbm_high_water", stk.hbm_high_water}};
  Json marks = Json::array();
  for (const auto& [t, text] : markers_) marks.push_back(Json{{"time_ns", static_cast<double>(t) / 1e3}, {"text", text}});
  r["markers"] = marks;
  r["layout_warnings"] = layout_warnings_;
  Json metrics_json = Json::object();
  for (const auto& [k, v] : m) metrics_json[k] = v;
  r["metrics"] = metrics_json;
  return r;
}

void Runner::print_summary(std::ostream& out, const std::vector<Json>& expectations, int exit_code) const {
  const Json r = build_report(exit_code, expectations);
  const auto m = metrics();
  out << fmt::format("npusim run: {} on {}\n", sc_.name.empty() ? sc_.file : sc_.name, platform_name_);
  out << fmt::format("  simulated time   {}\n", human_ns(m.at("duration")));
  out << fmt::format("  mgmt_core        busy {} (memory {}, compute {}), idle {}\n",
                     human_ns(m.at("core.busy_ns")), human_ns(r["cores"][0]["memory_ns"].get<double>()),
                     human_ns(r["cores"][0]["compute_ns"].get<double>()), human_ns(m.at("core.idle_ns")));
  for (const auto& [h, j] : r["heaps"].items()) {
    out << fmt::format("  heap {:<8}    peak {} of {}, {} allocs ({} failed), {} frees ({} bad), "
                       "descriptors peak {}/{}, exhaustion events {}, worst fragmentation {:.1f}%\n",
                       h, human_bytes(j["peak_used"].get<double>()), human_bytes(j["pool_size"].get<double>()),
                       j["allocations"].get<uint64_t>(), j["alloc_failures"].get<uint64_t>(),
                       j["frees"].get<uint64_t>(), j["free_errors"].get<uint64_t>(),
                       j["descriptors_peak"].get<uint64_t>(), j["descriptors"].get<uint64_t>(),
                       j["exhaustion_events"].get<double>(), 100.0 * j["worst_fragmentation"].get<double>());
  }
  for (const char* mem : {"dataram", "hbm"}) {
    const auto& j = r["memories"][mem];
    if (j["bytes"].get<uint64_t>() == 0) continue;
    std::string extra;
    if (std::string(mem) == "hbm")
      extra = fmt::format(", row hit rate {:.1f}%", 100.0 * j["row_hit_rate"].get<double>());
    const double dur = m.at("duration");
    out << fmt::format("  memory {:<8}  {} in {} requests ({:.2f} GB/s over the run), latency mean {} p99 {}{}\n", mem,
                       human_bytes(j["bytes"].get<double>()), j["reads"].get<uint64_t>() + j["writes"].get<uint64_t>(),
                       dur > 0 ? j["bytes"].get<double>() / dur : 0.0,
                       human_ns(j["latency_mean_ns"].get<double>()), human_ns(j["latency_p99_ns"].get<double>()), extra);
  }
  for (const auto& c : r["dma"]["channels"]) {
    if (c["descriptors"].get<uint64_t>() == 0) continue;
    out << fmt::format("  dma channel {}    {} descriptors, {}, {:.2f} GB/s while busy{}\n",
                       c["channel"].get<uint64_t>(), c["descriptors"].get<uint64_t>(),
                       human_bytes(c["bytes"].get<double>()), c["throughput_gbps"].get<double>(),
                       c["rejected"].get<uint64_t>() ? fmt::format(", {} rejected", c["rejected"].get<uint64_t>()) : "");
  }
  if (r["stack"]["hbm_stack"].get<uint64_t>() != 0)
    out << fmt::format("  hbm stack        {} at 0x{:x}, high-water {}\n",
                       human_bytes(r["stack"]["hbm_stack_size"].get<double>()),
                       r["stack"]["hbm_stack"].get<uint64_t>(), human_bytes(r["stack"]["hbm_high_water"].get<double>()));
  for (const auto& w : layout_warnings_) out << "  layout warning: " << w << "\n";
  for (const auto& v : p_->dma.faults()) out << "  " << v.message << "\n";
  if (fault_) out << fmt::format("  FAULT ({}) at {}: {}\n", fault_->kind, human_ns(static_cast<double>(fault_->time_ps) / 1e3), fault_->message);
  for (const auto& e : expectations)
    out << fmt::format("  expect {}: {} -> {} (actual {})\n", e["key"].get<std::string>(),
                       e["expected"].get<std::string>(), e["ok"].get<bool>() ? "ok" : "FAILED",
                       e["actual"].get<double>());
  out << fmt::format("  result: {}\n", exit_code == 0 ? "PASS" : "FAIL");
}

RunResult Runner::run(std::ostream& out) {
  // Everything that can be checked before the simulation is checked first (exit 2).
  check_expectation_keys();
  platform_name_ = opt_.platform_override.empty() ? sc_.platform : opt_.platform_override;
  cfg_ = load_platform(platform_name_, run_settings(sc_.set, opt_));
  cfg_.dma.policy = sc_.dma_window_policy == "record" ? models::ViolationPolicy::kRecord
                                                      : models::ViolationPolicy::kAbort;
  fw::CustomOpFn op = nullptr;
  if (!sc_.custom_op.empty()) {
    op = fw::find_custom_op(sc_.custom_op.c_str());
    if (op == nullptr) {
      std::string known;
      for (const auto& [n, d] : fw::custom_ops()) known += (known.empty() ? "" : ", ") + n;
      throw InputError(sc_.file, 0, sc_.custom_op, "no such custom op (registered: " + known + ")");
    }
  }
  layout_warnings_ = alloc::neuron::lint_layout(cfg_.firmware.layout);

  p_ = std::make_unique<fw::NeuronPlatform>("soc", cfg_);
  fw::Firmware& f = p_->firmware;
  f.args() = sc_.op_args;
  auto& hooks = f.hooks();
  hooks.heap_changed = [this](HeapId id) { sample(id); };
  hooks.heap_op = [this](HeapId id, bool is_alloc, int status) { count_heap_op(id, is_alloc, status); };
  if (!obs_.empty()) {
    hooks.call_begin = [this](const std::string& c, const std::string& a) {
      calls_.push_back(OpenCall{c, a, ps(p_->core.now())});
    };
    hooks.call_end = [this](const std::string& c, int status) {
      if (calls_.empty()) return;
      const OpenCall oc = calls_.back();
      calls_.pop_back();
      for (auto& o : obs_) o->call("mgmt_core", c, oc.args, oc.start, ps(p_->core.now()), status);
    };
    p_->dma.set_span_hook([this](uint32_t ch, const models::DmaDescriptor& d, sc_core::sc_time s,
                                 sc_core::sc_time e) {
      for (auto& o : obs_) o->transfer(ch, d.src, d.dst, d.len, d.call_site, ps(s), ps(e));
    });
    p_->dma.set_fault_hook([this](const models::DmaFault& fl) {
      for (auto& o : obs_) o->instant("faults", fl.kind == models::DmaFault::kWindow ? "DMA window violation" : "DMA bus error", ps(fl.time), violation_json(fl));
    });
    p_->core.set_activity_hook([this](bool busy, const sc_core::sc_time& t) {
      for (auto& o : obs_) o->core_busy("mgmt_core", ps(t), busy);
    });
  }
  p_->run([this, op](fw::Firmware& fw) {
    for (auto& o : obs_) o->core_busy("mgmt_core", 0, true);
    if (op) op();
    else exec(sc_.program);
    current_ = nullptr;
    fw.core().sync();
    for (auto& o : obs_) o->core_busy("mgmt_core", ps(fw.core().now()), false);
  });

  g_interrupted = false;
  auto old = std::signal(SIGINT, on_sigint);
  sc_core::sc_start();
  std::signal(SIGINT, old);

  if (auto e = p_->error()) {
    Fault fl;
    fl.time_ps = ps(p_->core.stats().end);
    fl.where = current_ ? current_->at.str() : "";
    try {
      std::rethrow_exception(e);
    } catch (const models::DmaAbort& x) {
      fl.kind = x.fault().kind == models::DmaFault::kWindow ? "dma window violation" : "dma bus error";
      fl.message = x.what();
    } catch (const models::BusError& x) {
      fl.kind = "bus error";
      fl.message = x.what();
    } catch (const fw::FirmwareFault& x) {
      fl.kind = fw::FirmwareFault::kind_name(x.kind());
      fl.message = x.what();
    } catch (const alloc::xmem::HeapCorrupted& x) {
      fl.kind = "heap corrupted";
      fl.message = x.what();
    } catch (const std::exception& x) {
      fl.kind = "error";
      fl.message = x.what();
    }
    if (!fl.where.empty() && fl.message.find(fl.where) == std::string::npos)
      fl.message += " [step " + fl.where + "]";
    fault_ = fl;
    for (auto& o : obs_) o->instant("faults", fl.kind, fl.time_ps, Json{{"message", fl.message}, {"step", fl.where}});
  }
  for (HeapId id : kHeaps) sample(id);

  // Expectations.
  const auto m = metrics();
  std::vector<Json> exps;
  RunResult res;
  bool ok = evaluate_expectations(sc_.expect, m, exps, res.failed_expectations);
  // Without expectations, a fault or a recorded violation fails the run.
  if (sc_.expect.empty() && (fault_ || !p_->dma.faults().empty())) ok = false;
  res.exit_code = ok ? 0 : 1;
  uint64_t end = ps(p_->core.stats().end);
  for (const auto& c : p_->dma.channel_stats()) end = std::max(end, ps(c.last_end));
  send_latency_quantiles("dataram", p_->memory.dataram.stats().latency_cycles, cfg_.memory.dataram.clock_ns, end, obs_);
  send_latency_quantiles("hbm", p_->memory.hbm.stats().latency_cycles, cfg_.memory.hbm.tck_ns, end, obs_);
  for (auto& o : obs_) {
    for (const auto& [name, st] : {std::pair<const char*, const models::MemoryStats*>{"dataram", &p_->memory.dataram.stats()},
                                   {"hbm", &p_->memory.hbm.stats()}})
      o->memory_bandwidth(name, static_cast<uint64_t>(st->bandwidth.window_ns * 1e3 + 0.5), st->bandwidth.bytes);
    o->finish(end);
  }
  res.report = build_report(res.exit_code, exps);
  print_summary(out, exps, res.exit_code);
  return res;
}

}  // namespace

std::string human_bytes(double b) {
  if (b >= 1 << 30) return fmt::format("{:.2f} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:.2f} MiB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.2f} KiB", b / (1 << 10));
  return fmt::format("{:.0f} B", b);
}
std::string human_ns(double ns) {
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

bool evaluate_expectations(const std::vector<Expectation>& expect,
                           const std::map<std::string, double>& metrics, std::vector<Json>& report,
                           std::vector<std::string>& failed) {
  bool ok = true;
  for (const auto& e : expect) {
    const double actual = metrics.at(e.key);
    const bool h = e.holds(actual);
    ok = ok && h;
    report.push_back(Json{{"key", e.key}, {"op", e.op}, {"expected", e.text}, {"value", e.value},
                          {"actual", actual}, {"ok", h}, {"at", e.at.str()}});
    if (!h)
      failed.push_back(fmt::format("{}: {} {} {} but is {}", e.at.str(), e.key, e.op, e.text, actual));
  }
  return ok;
}

std::vector<Setting> run_settings(const std::vector<std::tuple<std::string, std::string, Where>>& set,
                                  const RunOptions& opt) {
  std::vector<Setting> out;
  for (const auto& [k, v, w] : set) out.push_back(Setting{k, v, w});
  out.insert(out.end(), opt.sets.begin(), opt.sets.end());
  return out;
}

Json report_head(const std::string& name, const std::string& file, const std::string& description,
                 const std::string& platform, const std::vector<Setting>& settings) {
  Json r;
  r["npusim_report_version"] = 1;
  r["scenario"] = Json{{"name", name}, {"file", file}, {"description", description}};
  Json overrides = Json::array();
  for (const auto& s : settings) overrides.push_back(Json{{"key", s.key}, {"value", s.value}});
  r["platform"] = Json{{"name", platform}, {"overrides", overrides}};
  return r;
}

RunResult run_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                       std::vector<std::unique_ptr<RunObserver>> observers) {
  if (sc.torch_op) return run_torch_scenario(sc, opt, out, std::move(observers));
  Runner r(sc, opt, std::move(observers));
  return r.run(out);
}

}  // namespace npusim::sim
