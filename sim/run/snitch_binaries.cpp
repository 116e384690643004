// RV32 programs on the snitch-cluster platform (docs/snitch-programs.md): the scenario's `binary:`
// entries name ELF files built by `npusim cc` and the cores that run them. Every selected core
// becomes a hart of its cluster's ProgramCluster (models/rv32/program_cluster.h); its metrics,
// report, summary lines and trace spans are here. The step interpreter is not involved.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <ostream>
#include <set>

#include "sim/input/input_error.h"
#include "sim/run/snitch_programs.h"

namespace npusim::sim::snitch {

namespace rv = models::rv32;

namespace {

constexpr uint32_t kArgsRegionBytes = 4096;  // the link script's .npusim_args
constexpr uint64_t kZeroPreloadMax = 1u << 20;  // bss beyond this is left to crt0

std::string core_name(uint32_t cluster, uint32_t idx, uint32_t compute) {
  return idx < compute ? fmt::format("c{}_core{}", cluster, idx) : fmt::format("c{}_dm", cluster);
}

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

namespace {

// One value of a memory check, little-endian, or why it is not one.
std::optional<std::string> encode_value(const std::string& type, const std::string& text, std::vector<uint8_t>& out) {
  char* end = nullptr;
  errno = 0;
  if (type == "f32" || type == "f64") {
    const double d = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return "expected a number";
    if (type == "f32") {
      const float f = static_cast<float>(d);
      uint8_t b[4];
      std::memcpy(b, &f, 4);
      out.insert(out.end(), b, b + 4);
    } else {
      uint8_t b[8];
      std::memcpy(b, &d, 8);
      out.insert(out.end(), b, b + 8);
    }
    return std::nullopt;
  }
  const bool neg = !text.empty() && text[0] == '-';
  if (neg && type != "i32") return "expected a non-negative integer";
  const long long sv = neg ? std::strtoll(text.c_str(), &end, 0) : 0;
  const unsigned long long uv = neg ? 0 : std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) return "expected an integer";
  const size_t n = type == "u8" ? 1 : type == "u64" ? 8 : 4;
  const unsigned long long max = n == 8 ? ~0ull : type == "i32" ? 0x7fffffffull : (1ull << (8 * n)) - 1;
  if (neg ? sv < -2147483648LL : uv > max) return fmt::format("out of range for {}", type);
  const uint64_t v = neg ? static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(sv))) : uv;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return std::nullopt;
}

}  // namespace

void SnitchPrograms::prepare_memory_checks() {
  for (const auto& c : sc_.memory) {
    MemoryExpectation m;
    m.at = c.at;
    m.type = c.type;
    m.elem = c.type == "u8" ? 1 : (c.type == "u64" || c.type == "f64") ? 8 : 4;
    std::optional<uint32_t> addr;
    for (const auto& img : images_)
      if (!addr) addr = img->symbol(c.at);
    if (!addr) {
      const auto n = parse_size(c.at);
      if (!n || *n > 0xffffffffull)
        throw InputError(c.where.file, c.where.line, "at",
                         fmt::format("'{}' is neither a symbol of the program nor a 32-bit address", c.at),
                         c.where.column);
      addr = static_cast<uint32_t>(*n);
    }
    m.addr = *addr;
    for (size_t i = 0; i < c.values.size(); ++i)
      if (const auto why = encode_value(c.type, c.values[i], m.expected))
        throw InputError(c.where.file, c.where.line, c.type,
                         fmt::format("value {} '{}': {}", i + 1, c.values[i], *why), c.where.column);
    memory_checks_.push_back(std::move(m));
  }
}

void SnitchPrograms::prepare_binaries() {
  const uint32_t per = cfg_.cores_per_cluster();
  const uint32_t total = cfg_.clusters * per;
  core_binary_.assign(total, -1);
  // Memory the images may load into: the L3 and every cluster's TCDM.
  auto in_memory = [&](uint64_t lo, uint64_t hi) {
    if (lo >= cfg_.runtime.l3_start && hi <= cfg_.runtime.l3_end) return true;
    for (uint32_t k = 0; k < cfg_.clusters; ++k)
      if (lo >= cfg_.tcdm_base(k) && hi <= cfg_.tcdm_base(k) + cfg_.runtime.tcdm_size) return true;
    return false;
  };
  std::map<std::string, size_t> first_of_file;  // elf path -> first entry using it
  for (size_t b = 0; b < sc_.binaries.size(); ++b) {
    const Binary& bin = sc_.binaries[b];
    try {
      images_.push_back(std::make_unique<rv::ElfImage>(rv::load_elf(bin.elf)));
    } catch (const rv::ElfError& e) {
      throw InputError(bin.at.file, bin.at.line, "elf", e.what(), bin.at.column);
    }
    const rv::ElfImage& img = *images_.back();
    for (const auto& s : img.segments)
      if (!in_memory(s.vaddr, uint64_t{s.vaddr} + s.memsz))
        throw InputError(bin.at.file, bin.at.line, "elf",
                         fmt::format("{}: a segment at 0x{:x} of {} bytes lies outside the platform's memory (l3 "
                                     "[0x{:x}, 0x{:x}), tcdm [0x{:x}, 0x{:x})); build it with npusim cc for this platform",
                                     bin.elf, s.vaddr, s.memsz, cfg_.runtime.l3_start, cfg_.runtime.l3_end,
                                     cfg_.tcdm_base(0), cfg_.tcdm_base(0) + cfg_.runtime.tcdm_size),
                         bin.at.column);
    // Two different programs cannot share the cores' one memory at the same addresses.
    if (!first_of_file.count(bin.elf)) {
      for (const auto& [other, idx] : first_of_file)
        for (const auto& s : img.segments)
          for (const auto& o : images_[idx]->segments)
            if (s.vaddr < uint64_t{o.vaddr} + o.memsz && o.vaddr < uint64_t{s.vaddr} + s.memsz)
              throw InputError(bin.at.file, bin.at.line, "elf",
                               fmt::format("{} and {} both load at 0x{:x}: the cores share one memory, so a scenario "
                                           "runs one program (branch on snrt_cluster_core_idx()) or programs linked "
                                           "apart", bin.elf, other, std::max(s.vaddr, o.vaddr)),
                               bin.at.column);
      first_of_file[bin.elf] = b;
    }
    // Which cores.
    std::vector<uint32_t> picked;
    std::string on = bin.on;
    size_t pos = 0;
    while (pos <= on.size()) {
      const size_t comma = on.find(',', pos);
      const std::string tok = trim(on.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      pos = comma == std::string::npos ? on.size() + 1 : comma + 1;
      bool ok = false;
      for (uint32_t k = 0; k < cfg_.clusters; ++k)
        for (uint32_t i = 0; i < per; ++i) {
          const bool dm = i >= cfg_.runtime.compute_cores;
          const bool hit = tok == "all" || (tok == "compute" && !dm) || (tok == "dm" && dm) ||
                           tok == fmt::format("cluster {}", k) || tok == core_name(k, i, cfg_.runtime.compute_cores);
          if (hit) {
            picked.push_back(k * per + i);
            ok = true;
          }
        }
      if (!ok)
        throw InputError(bin.at.file, bin.at.line, "on",
                         fmt::format("'{}' names no core (on: all, compute, dm, cluster N, or core names such as "
                                     "c0_core0 and c0_dm, comma separated; this platform has {} cluster{} of {} cores)",
                                     tok, cfg_.clusters, cfg_.clusters == 1 ? "" : "s", per),
                         bin.at.column);
    }
    for (uint32_t g : picked) {
      if (core_binary_[g] >= 0 && core_binary_[g] != static_cast<int>(b))
        throw InputError(bin.at.file, bin.at.line, "on",
                         fmt::format("{} is already given a program by binary entry {}",
                                     core_name(g / per, g % per, cfg_.runtime.compute_cores), core_binary_[g] + 1),
                         bin.at.column);
      core_binary_[g] = static_cast<int>(b);
    }
  }
  // argv: argv[0] is the program's file name; the strings and the array go into the program's
  // .npusim_args region, one part per entry that shares the file.
  std::map<std::string, uint32_t> used;  // elf path -> bytes of its region used
  argv_of_.assign(sc_.binaries.size(), {0, 0});
  argv_blob_.assign(sc_.binaries.size(), {});
  for (size_t b = 0; b < sc_.binaries.size(); ++b) {
    const Binary& bin = sc_.binaries[b];
    const rv::ElfImage& img = *images_[b];
    const auto start = img.symbol("__npusim_args_start");
    if (!start) {
      if (!bin.args.empty())
        throw InputError(bin.at.file, bin.at.line, "args",
                         fmt::format("{} has no .npusim_args region (__npusim_args_start) to pass arguments in: "
                                     "build it with npusim cc", bin.elf),
                         bin.at.column);
      continue;
    }
    std::vector<std::string> argv{bin.elf.substr(bin.elf.find_last_of('/') + 1)};
    argv.insert(argv.end(), bin.args.begin(), bin.args.end());
    uint32_t& off = used[bin.elf];
    const uint32_t base = *start + off;
    rv::ArgvImage av = rv::lay_out_argv(base, argv);
    std::vector<uint8_t>& blob = av.bytes;
    if (off + blob.size() > kArgsRegionBytes)
      throw InputError(bin.at.file, bin.at.line, "args",
                       fmt::format("the arguments take {} bytes; the program's .npusim_args region holds {}",
                                   off + blob.size(), kArgsRegionBytes),
                       bin.at.column);
    off += static_cast<uint32_t>(blob.size());
    argv_of_[b] = {static_cast<uint32_t>(argv.size()), base};
    argv_blob_[b] = std::move(blob);
  }
  prepare_memory_checks();
}


void SnitchPrograms::start_binaries() {
  const uint32_t per = cfg_.cores_per_cluster();
  uint64_t max_cycles = 0;
  for (const auto& b : sc_.binaries) max_cycles = std::max(max_cycles, b.max_cycles);
  std::vector<rv::MemoryRange> ranges;
  for (uint32_t k = 0; k < cfg_.clusters; ++k)
    ranges.push_back(rv::MemoryRange{cfg_.tcdm_base(k), cfg_.tcdm_base(k) + cfg_.runtime.tcdm_size, rv::Target::kTcdm,
                                     &sys_->tcdm(k)});
  ranges.push_back(rv::MemoryRange{cfg_.runtime.l3_start, cfg_.runtime.l3_end, rv::Target::kL3, nullptr});
  std::set<std::string> loaded;
  std::set<size_t> args_loaded;
  for (uint32_t k = 0; k < cfg_.clusters; ++k) {
    bool any = false;
    for (uint32_t i = 0; i < per; ++i) any = any || core_binary_[k * per + i] >= 0;
    if (!any) {
      pclusters_.push_back(nullptr);
      continue;
    }
    rv::ProgramClusterConfig pc;
    pc.cluster = k;
    pc.quantum_cycles = cfg_.program_quantum_cycles;
    pc.barrier_cycles = cfg_.barrier_cycles;
    if (max_cycles) pc.max_cycles = max_cycles;
    pc.timing = cfg_.program_timing;
    pc.ranges = ranges;
    pclusters_.push_back(
        std::make_unique<rv::ProgramCluster>(fmt::format("c{}_programs", k).c_str(), pc, &sys_->dma(k)));
    auto& cl = *pclusters_.back();
    cl.set_stop_check([] { return interrupted(); });
    for (uint32_t i = 0; i < per; ++i) {
      const int b = core_binary_[k * per + i];
      Ctx& x = *ctx_[k * per + i];
      if (b < 0) {
        x.status = Ctx::kIdle;
        continue;
      }
      const rv::ElfImage& img = *images_[b];
      rv::HartRecord& h = cl.add_hart(x.name, i, k * per + i, x.dm, *x.core, img, sc_.binaries[b].args);
      h.argc = argv_of_[b].first;
      h.argv = argv_of_[b].second;
      h.trace_calls = trace_ != nullptr;
      if (loaded.insert(sc_.binaries[b].elf).second)
        for (const auto& s : img.segments) {
          std::vector<uint8_t> bytes = s.data;
          const uint64_t tail = s.memsz - s.data.size();
          bytes.resize(s.data.size() + std::min<uint64_t>(tail, kZeroPreloadMax), 0);
          h.preload.emplace_back(s.vaddr, std::move(bytes));
        }
      if (args_loaded.insert(b).second && !argv_blob_[b].empty()) h.preload.emplace_back(argv_of_[b].second, argv_blob_[b]);
      x.hart = &h;
    }
  }
}

void SnitchPrograms::collect_binaries() {
  const double ns_per_cycle = 1.0 / cfg_.core.clock_ghz;
  for (auto& xp : ctx_) {
    Ctx& x = *xp;
    if (!x.hart) continue;
    const rv::HartRecord& h = *x.hart;
    x.end_ps = static_cast<uint64_t>(static_cast<double>(h.end_cycle) * ns_per_cycle * 1e3 + 0.5);
    switch (h.end) {
      case rv::HartEnd::kExited: x.status = Ctx::kFinished; break;
      case rv::HartEnd::kTrap: x.status = Ctx::kStopped; break;
      case rv::HartEnd::kInterrupted: x.status = Ctx::kInterrupted; break;
      case rv::HartEnd::kHung: case rv::HartEnd::kRunning: x.status = Ctx::kPending; break;
      default: x.status = Ctx::kFault; break;
    }
    if (h.end != rv::HartEnd::kExited && h.end != rv::HartEnd::kIdle && h.end != rv::HartEnd::kInterrupted)
      faults_.push_back(FaultRecord{h.fault_kind, h.fault_message, "", x.name, x.end_ps});
  }
  // Memory the programs left, read after the run (debug transport: untimed).
  memory_mismatches_ = 0;
  for (const auto& m : memory_checks_) {
    std::vector<uint8_t> got(m.expected.size());
    try {
      ctx_.front()->core->peek(m.addr, got.data(), got.size());
    } catch (const std::exception& e) {
      memory_findings_.push_back(fmt::format("{}: cannot be read: {}", m.at, e.what()));
      memory_mismatches_ += got.size() / m.elem;
      continue;
    }
    for (size_t i = 0; i < got.size() / m.elem; ++i) {
      if (std::memcmp(got.data() + i * m.elem, m.expected.data() + i * m.elem, m.elem) == 0) continue;
      ++memory_mismatches_;
      if (memory_findings_.size() < 8) {
        auto show = [&](const uint8_t* p) {
          uint64_t v = 0;
          std::memcpy(&v, p, m.elem);
          if (m.type == "f64") {
            double d;
            std::memcpy(&d, p, 8);
            return fmt::format("{}", d);
          }
          if (m.type == "f32") {
            float f;
            std::memcpy(&f, p, 4);
            return fmt::format("{}", f);
          }
          if (m.type == "i32") return fmt::format("{}", static_cast<int32_t>(v));
          return fmt::format("{}", v);
        };
        memory_findings_.push_back(fmt::format("{}[{}] at 0x{:x}: {} {}, expected {}", m.at, i, m.addr + i * m.elem,
                                               m.type, show(got.data() + i * m.elem),
                                               show(m.expected.data() + i * m.elem)));
      }
    }
  }
  missing_output_.clear();
  for (const auto& [line, at] : sc_.output) {
    bool found = false;
    for (const auto& xp : ctx_)
      if (xp->hart)
        for (const auto& l : xp->hart->lines) found = found || l.second.find(line) != std::string::npos;
    if (!found) missing_output_.push_back(line);
  }
}

void SnitchPrograms::binary_metrics(std::map<std::string, double>& m) const {
  double exit_sum = 0, exited = 0, instr = 0, cycles = 0, dep = 0, mem = 0, conf = 0, bar = 0, dma = 0;
  for (const auto& xp : ctx_) {
    if (!xp->hart) continue;
    const rv::HartRecord& h = *xp->hart;
    const auto& st = h.hart->stats();
    if (h.end == rv::HartEnd::kExited) {
      exit_sum += h.hart->exit_code();
      ++exited;
    }
    instr += static_cast<double>(st.instret);
    cycles = std::max(cycles, static_cast<double>(h.end_cycle));
    dep += static_cast<double>(st.stall_dependency);
    for (uint64_t v : st.stall_memory) mem += static_cast<double>(v);
    conf += static_cast<double>(st.stall_conflict);
    bar += static_cast<double>(st.stall_barrier);
    dma += static_cast<double>(st.stall_dma);
    m[xp->name + ".exit_code"] = h.end == rv::HartEnd::kExited ? h.hart->exit_code() : -1.0;
    m[xp->name + ".instructions"] = static_cast<double>(st.instret);
    m[xp->name + ".cycles"] = static_cast<double>(h.end_cycle);
  }
  m["exit_code"] = exit_sum;
  m["exited_cores"] = exited;
  m["instructions"] = instr;
  m["cycles"] = cycles;
  m["ipc"] = cycles > 0 ? instr / cycles : 0;
  m["stall.dependency"] = dep;
  m["stall.memory"] = mem;
  m["stall.conflict"] = conf;
  m["stall.barrier"] = bar;
  m["stall.dma"] = dma;
  m["output.missing"] = static_cast<double>(missing_output_.size());
  m["memory.mismatches"] = static_cast<double>(memory_mismatches_);
}

void SnitchPrograms::binary_report(Json& r) const {
  for (auto& c : r["cores"]) {
    const Ctx* x = nullptr;
    for (const auto& xp : ctx_)
      if (xp->name == c["name"].get<std::string>()) x = xp.get();
    if (!x || !x->hart) {
      c["program"] = nullptr;
      continue;
    }
    const rv::HartRecord& h = *x->hart;
    const auto& st = h.hart->stats();
    Json mem = Json::object();
    for (int t = 0; t < static_cast<int>(rv::Target::kCount); ++t)
      mem[rv::target_name(static_cast<rv::Target>(t))] = st.stall_memory[t];
    Json p{{"elf", h.program->path},
           {"args", h.args},
           {"end", rv::hart_end_name(h.end)},
           {"exit_code", h.end == rv::HartEnd::kExited ? Json(h.hart->exit_code()) : Json(nullptr)},
           {"instructions", st.instret},
           {"cycles", h.end_cycle},
           {"ipc", h.end_cycle ? static_cast<double>(st.instret) / static_cast<double>(h.end_cycle) : 0.0},
           {"loads", st.loads},
           {"stores", st.stores},
           {"stall_cycles", Json{{"dependency", st.stall_dependency},
                                 {"memory", mem},
                                 {"bank_conflict", st.stall_conflict},
                                 {"barrier", st.stall_barrier},
                                 {"dma_wait", st.stall_dma}}},
           {"output", h.output}};
    if (!h.fault_kind.empty())
      p["fault"] = Json{{"kind", h.fault_kind}, {"message", h.fault_message}, {"pc", hex(h.fault_pc)},
                        {"instruction", h.fault_insn}, {"function", h.fault_function}};
    c["program"] = p;
  }
  Json miss = Json::array();
  for (const auto& l : missing_output_) miss.push_back(l);
  r["missing_output"] = miss;
  Json mem = Json::array();
  for (const auto& f : memory_findings_) mem.push_back(f);
  r["memory_mismatches"] = Json{{"count", memory_mismatches_}, {"first", mem}};
}

void SnitchPrograms::binary_summary(std::ostream& out, const Json& r) const {
  const auto& m = r["metrics"];
  out << fmt::format("  programs         {} instructions in {} cycles (IPC {:.2f}), exit code {}\n",
                     m["instructions"].get<double>(), m["cycles"].get<double>(), m["ipc"].get<double>(),
                     m["exit_code"].get<double>());
  for (const auto& c : r["cores"]) {
    const auto& p = c["program"];
    if (p.is_null()) continue;
    const auto& s = p["stall_cycles"];
    out << fmt::format("  {:<16} {:<12} {} instr, {} cycles, IPC {:.2f}; stalls: dependency {}, memory {} (tcdm {}, l3 {}), "
                       "bank conflict {}, barrier {}, dma {}\n",
                       c["name"].get<std::string>(),
                       p["end"].get<std::string>() == "exited" ? fmt::format("exit {}", p["exit_code"].get<int64_t>())
                                                               : p["end"].get<std::string>(),
                       p["instructions"].get<uint64_t>(), p["cycles"].get<uint64_t>(), p["ipc"].get<double>(),
                       s["dependency"].get<uint64_t>(),
                       s["memory"]["tcdm"].get<uint64_t>() + s["memory"]["l3"].get<uint64_t>() +
                           s["memory"]["other"].get<uint64_t>(),
                       s["memory"]["tcdm"].get<uint64_t>(), s["memory"]["l3"].get<uint64_t>(),
                       s["bank_conflict"].get<uint64_t>(), s["barrier"].get<uint64_t>(), s["dma_wait"].get<uint64_t>());
  }
  // What the cores printed, in core order: the first 200 lines (the report has each core's all).
  constexpr size_t kShownLines = 200;
  size_t shown = 0, more = 0;
  for (const auto& xp : ctx_)
    if (xp->hart)
      for (const auto& [cyc, line] : xp->hart->lines) {
        if (shown++ < kShownLines) out << fmt::format("  [{}] {}\n", xp->name, line);
        else ++more;
      }
  for (const auto& xp : ctx_)
    if (xp->hart) more += xp->hart->lines_dropped;
  if (more) out << fmt::format("  ... {} more printed lines (the report's program.output of each core)\n", more);
  for (const auto& xp : ctx_)
    if (xp->hart && !xp->hart->fault_kind.empty())
      out << fmt::format("  {}: {}\n", xp->hart->end == rv::HartEnd::kTrap ? "TRAP" : "FAULT", xp->hart->fault_message);
  for (const auto& l : missing_output_) out << fmt::format("  MISSING OUTPUT \"{}\"\n", l);
  for (const auto& f : memory_findings_) out << fmt::format("  MEMORY {}\n", f);
  if (memory_mismatches_ > memory_findings_.size())
    out << fmt::format("  MEMORY ... {} mismatching values in all\n", memory_mismatches_);
}

void SnitchPrograms::binary_trace() {
  const double us_per_cycle = 1.0 / cfg_.core.clock_ghz / 1e3;
  for (const auto& xp : ctx_) {
    if (!xp->hart) continue;
    const rv::HartRecord& h = *xp->hart;
    for (const auto& s : h.spans) {
      const rv::ElfFunction* f = h.program->function_at(s.function);
      trace_->slice(xp->track, f ? f->name : hex(s.function), static_cast<double>(s.begin) * us_per_cycle,
                    static_cast<double>(s.end - std::min(s.begin, s.end)) * us_per_cycle,
                    TJson{{"depth", s.depth}});
    }
    if (!h.fault_kind.empty())
      trace_->instant(trace_->track("faults", "traps and faults", 0), fmt::format("{} on {}", h.fault_kind, h.name),
                      static_cast<double>(h.end_cycle) * us_per_cycle,
                      TJson{{"pc", hex(h.fault_pc)}, {"function", h.fault_function}, {"instruction", h.fault_insn}});
  }
}

}  // namespace npusim::sim::snitch
