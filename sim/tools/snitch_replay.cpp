#include "sim/tools/snitch_replay.h"
#include "sim/output/json_text.h"

#include "sim/output/progress.h"

#include <fmt/format.h>

#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/snitch/alloc_v2.h"
#include "sim/tools/heap_replay.h"
#include "sim/input/limits.h"

namespace npusim::sim {

namespace {

namespace sn = alloc::snitch;
using alloc::HostMemory;

constexpr const char* kArgs = "command line";

struct SnitchOp {
  enum Kind { kAlloc, kAllocCoreLocal, kUpdateNext } kind;
  int line;
  uint32_t a = 0;  // alloc*: size; update_next: address
  uint32_t b = 1;  // alloc*: alignment
};

uint32_t number32(const std::string& file, int line, const std::string& tok, const char* what) {
  const auto v = parse_number(tok);
  if (!v)
    throw InputError(file, line, tok, fmt::format("{} is not a decimal or 0x-hex number", what));
  if (*v > kU32)
    throw InputError(file, line, tok,
                     fmt::format("{} does not fit the device's 32-bit size_t/pointer", what));
  return static_cast<uint32_t>(*v);
}

std::vector<SnitchOp> parse(std::istream& in, const std::string& file, bool l3) {
  std::vector<SnitchOp> ops;
  for (const auto& tl : read_trace_lines(in)) {
    const int line = tl.line;
    const std::vector<std::string>& tok = tl.tok;
    const std::string& k = tok[0];
    auto arity = [&](size_t lo, size_t hi, const char* usage) {
      if (tok.size() - 1 < lo || tok.size() - 1 > hi)
        throw InputError(file, line, tok.size() - 1 > hi ? tok[hi + 1] : k,
                         fmt::format("'{}' takes {}", k, usage));
    };
    SnitchOp op{SnitchOp::kAlloc, line};
    if (k == "alloc" || k == "alloc_core_local") {
      arity(1, 2, "SIZE [ALIGN]");
      op.kind = k == "alloc" ? SnitchOp::kAlloc : SnitchOp::kAllocCoreLocal;
      if (op.kind == SnitchOp::kAllocCoreLocal && l3)
        throw InputError(file, line, k,
                         "alloc_core_local is an L1 call (snrt_l1_alloc_compute_core_local); "
                         "use --allocator snitch-l1");
      op.a = number32(file, line, tok[1], "size");
      if (tok.size() > 2) {
        op.b = number32(file, line, tok[2], "alignment");
        if (op.b == 0)
          throw InputError(file, line, tok[2], "alignment 0 divides by zero in snrt_align_up");
      }
    } else if (k == "update_next") {
      arity(1, 1, "ADDR");
      if (l3)
        throw InputError(file, line, k,
                         "update_next is an L1 call (snrt_l1_update_next_v2); "
                         "use --allocator snitch-l1");
      op.kind = SnitchOp::kUpdateNext;
      op.a = number32(file, line, tok[1], "address");
    } else {
      throw InputError(file, line, k,
                       "unknown op (expected alloc, alloc_core_local or update_next)");
    }
    ops.push_back(op);
  }
  return ops;
}

// Options → platform config, with errors naming the option.
sn::SnitchConfig config_for(const SnitchReplayOptions& opt, bool l3) {
  sn::SnitchConfig cfg;
  if (opt.compute_cores == 0 || opt.compute_cores > 1024)
    throw InputError(kArgs, 0, std::to_string(opt.compute_cores),
                     "--compute-cores must be between 1 and 1024");
  cfg.compute_cores = static_cast<uint32_t>(opt.compute_cores);
  try {
    cfg.validate();
  } catch (const std::invalid_argument& e) {
    throw InputError(kArgs, 0, std::to_string(opt.compute_cores),
                     fmt::format("--compute-cores: {}", e.what()));
  }
  if (opt.core_idx > opt.compute_cores)
    throw InputError(kArgs, 0, std::to_string(opt.core_idx),
                     fmt::format("--core-idx must be 0..{} ({} is the DM core)", opt.compute_cores,
                                 opt.compute_cores));
  if (opt.base && *opt.base > kU32)
    throw InputError(kArgs, 0, alloc::hex(*opt.base), "--base must be a 32-bit device address");
  // L1: heap_end_addr is a uint32_t; L3: SNRT_L3_END_ADDR may be 2^32 (the 64-bit field).
  const uint64_t max_end = l3 ? kU32 + 1 : kU32;
  if (opt.end && *opt.end > max_end)
    throw InputError(kArgs, 0, alloc::hex(*opt.end),
                     fmt::format("--end must be at most {}", alloc::hex(max_end)));
  if (opt.startup_bytes) {
    if (l3 && *opt.startup_bytes != 0)
      throw InputError(kArgs, 0, std::to_string(*opt.startup_bytes),
                       "the start-up allocation is an L1 allocation (snitch-l1 only)");
    if (*opt.startup_bytes > kU32)
      throw InputError(kArgs, 0, std::to_string(*opt.startup_bytes),
                       "start-up allocation size does not fit a 32-bit size_t");
    cfg.startup_l1_bytes = static_cast<uint32_t>(*opt.startup_bytes);
  }
  return cfg;
}

nlohmann::ordered_json trap_json(const sn::TrapInfo& t) {
  return {{"call", sn::call_name(t.call)},
          {"size", t.size},
          {"alignment", t.alignment},
          {"next", t.next},
          {"end", t.end},
          {"past_end", t.past_end}};
}

}  // namespace

int run_snitch_replay(const SnitchReplayOptions& opt, std::istream& in, const std::string& file,
                      std::ostream& out) {
  bool l3;
  if (opt.allocator == "snitch-l1")
    l3 = false;
  else if (opt.allocator == "snitch-l3")
    l3 = true;
  else
    throw InputError(kArgs, 0, opt.allocator, "--allocator must be snitch-l1 or snitch-l3");
  const sn::SnitchConfig cfg = config_for(opt, l3);
  const std::vector<SnitchOp> ops = parse(in, file, l3);

  // The allocator touches only its own state, in the core's TLS in the TCDM: map that.
  HostMemory mem;
  mem.add_region("tcdm", cfg.tcdm_base(), cfg.tcdm_size);
  sn::CoreAllocator<HostMemory> core(mem, cfg, static_cast<uint32_t>(opt.core_idx),
                                     sn::TrapPolicy::kRecord);

  // Start-up as the runtime does it, with the overrides applied to the init formulas.
  if (l3) {
    core.l3_init_at(static_cast<uint32_t>(opt.base.value_or(cfg.edram)),
                    opt.end.value_or(cfg.l3_end));
  } else {
    core.l1_init_at(static_cast<uint32_t>(opt.base.value_or(cfg.tcdm_base())),
                    opt.end.value_or(sn::l1_heap_end(cfg)));
    if (cfg.startup_l1_bytes != 0) core.l1_alloc_cluster_local(cfg.startup_l1_bytes, 1);
    if (!core.traps().empty())
      throw InputError(kArgs, 0, std::to_string(cfg.startup_l1_bytes),
                       "the runtime's start-up allocation already overruns --end");
  }

  Progress progress("heap replay " + file, opt.progress ? Progress::Mode::kOn : Progress::Mode::kAuto);
  progress.set_total(ops.size(), "ops");
  uint64_t done = 0;
  for (const auto& op : ops) {
    progress.update(++done);
    nlohmann::ordered_json j;
    j["line"] = op.line;
    sn::AllocResult r;
    switch (op.kind) {
      case SnitchOp::kAlloc:
        j["op"] = "alloc";
        r = l3 ? core.l3_alloc(op.a, op.b) : core.l1_alloc_cluster_local(op.a, op.b);
        j["addr"] = r.addr;
        break;
      case SnitchOp::kAllocCoreLocal:
        j["op"] = "alloc_core_local";
        r = core.l1_alloc_compute_core_local(op.a, op.b);
        j["addr"] = r.addr;
        break;
      case SnitchOp::kUpdateNext:
        j["op"] = "update_next";
        core.l1_update_next(op.a);
        j["addr"] = nullptr;
        break;
    }
    j["next"] = l3 ? core.l3_state().next : core.l1_state().next;
    j["trap"] = r.trapped;
    if (op.kind == SnitchOp::kAllocCoreLocal) j["undefined"] = r.undefined;
    if (r.trap) j["trap_info"] = trap_json(*r.trap);
    out << json_text(j) << '\n';
    if (r.trapped && opt.stop_on_trap) return 1;
  }
  return 0;
}

}  // namespace npusim::sim
