// `npusim run` of a scenario with a torch_op: builds the inputs, runs the registered op on the
// GPSIMD cores (firmware/torch), compares the output with a host computation, checks the
// expectations and writes the summary and the JSON report (docs/custom-ops.md).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "firmware/torch/runtime.h"
#include "sim/tools/heap_replay.h"
#include "sim/input/platform_config.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/torch_limits.h"

namespace npusim::sim {

namespace {

using Json = nlohmann::ordered_json;
namespace tr = npusim::torchrt;

std::string shape_text(const torch::Tensor& t) {
  std::string s = fmt::format("{}[", torch::dtype_name(t.scalar_type()));
  for (size_t i = 0; i < t.sizes().size(); ++i) s += fmt::format("{}{}", i ? "," : "", t.sizes()[i]);
  return s + "]";
}

uint64_t fnv1a(const std::vector<uint8_t>& b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : b) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Host computations of the example kernels, element by element in float, in the kernels'
// order of operations: the simulated result must equal them exactly.
using Reference = std::function<std::vector<float>(const std::vector<torch::Tensor>&)>;
const std::map<std::string, Reference>& references() {
  static const std::map<std::string, Reference> r = {
      {"relu",
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i) {
           const float x = static_cast<float>(tr::element(in[0], static_cast<int64_t>(i)));
           o[i] = x > 0.0f ? x : 0.0f;
         }
         return o;
       }},
      {"gelu",
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i) {
           const float x = static_cast<float>(tr::element(in[0], static_cast<int64_t>(i)));
           const float k = 0.7978845608f;
           o[i] = 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
         }
         return o;
       }},
      {"clamp_unit",
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i)
           o[i] = std::min(1.0f, std::max(-1.0f, static_cast<float>(tr::element(in[0], static_cast<int64_t>(i)))));
         return o;
       }},
      {"row_sum",
       [](const std::vector<torch::Tensor>& in) {
         const int64_t rows = in[0].size(0), cols = in[0].size(1);
         std::vector<float> o(static_cast<size_t>(rows));
         for (int64_t r = 0; r < rows; ++r) {
           float acc = 0.0f;
           for (int64_t c = 0; c < cols; ++c) acc += static_cast<float>(tr::element(in[0], r * cols + c));
           o[static_cast<size_t>(r)] = acc;
         }
         return o;
       }},
      {"softmax_rows",
       [](const std::vector<torch::Tensor>& in) {
         const int64_t rows = in[0].size(0), cols = in[0].size(1);
         std::vector<float> o(static_cast<size_t>(rows * cols));
         for (int64_t r = 0; r < rows; ++r) {
           float mx = static_cast<float>(tr::element(in[0], r * cols));
           for (int64_t c = 1; c < cols; ++c) mx = std::max(mx, static_cast<float>(tr::element(in[0], r * cols + c)));
           float sum = 0.0f;
           std::vector<float> e(static_cast<size_t>(cols));
           for (int64_t c = 0; c < cols; ++c) {
             e[static_cast<size_t>(c)] = std::exp(static_cast<float>(tr::element(in[0], r * cols + c)) - mx);
             sum += e[static_cast<size_t>(c)];
           }
           for (int64_t c = 0; c < cols; ++c) o[static_cast<size_t>(r * cols + c)] = e[static_cast<size_t>(c)] / sum;
         }
         return o;
       }},
  };
  return r;
}

const std::set<std::string>& metric_keys() {
  static const std::set<std::string> k = {
      "duration", "cycles", "faults", "errors", "warnings", "mismatches", "cores", "dma.bytes",
      "dma.descriptors", "hbm.bytes", "hbm.requests", "tcm.peak_used", "time.compute", "time.hbm",
      "time.tcm", "time.dma", "time.stack", "time.call", "hbm_accesses", "api_calls"};
  return k;
}

}  // namespace

RunResult run_torch_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                             std::vector<std::unique_ptr<RunObserver>> observers) {
  const TorchOpSpec& t = *sc.torch_op;
  for (const auto& e : sc.expect)
    if (!metric_keys().count(e.key))
      throw InputError(e.at.file, e.at.line, e.key,
                       "unknown expectation key for a torch_op (duration, cycles, faults, errors, "
                       "warnings, mismatches, dma.bytes, hbm.bytes, time.compute, time.dma, ...)",
                       e.at.column);
  if (!t.reference.empty() && !references().count(t.reference))
    throw InputError(t.at.file, t.at.line, t.reference, "unknown reference (relu, gelu, clamp_unit, row_sum, softmax_rows)", t.at.column);
  const std::vector<Setting> sets = run_settings(sc.set, opt);
  const std::string platform = opt.platform_override.empty() ? sc.platform : opt.platform_override;
  const fw::NeuronPlatformConfig cfg = load_platform(platform, sets);
  check_torch_inputs(t, cfg);  // sizes against the platform before any host allocation

  tr::OpSpec spec;
  spec.op = t.op;
  spec.multicore = t.multicore;
  spec.stack_size = t.stack_size;
  spec.tcm_cycles_per_element = t.tcm_cycles_per_element;
  spec.record = !observers.empty();
  for (double d : t.scalars) spec.scalars.emplace_back(d);
  for (const auto& in : t.inputs) {
    bool ok = false;
    const auto dt = tr::parse_dtype(in.dtype, &ok);
    if (!ok) throw InputError(in.at.file, in.at.line, in.dtype, "unknown dtype (float, bfloat16, half, int, char, short, byte)", in.at.column);
    if (!in.file.empty()) {
      auto x = tr::make_input(in.shape, dt, "zeros");
      std::ifstream f(in.file, std::ios::binary);
      if (!f) throw InputError(in.at.file, in.at.line, in.file, "cannot open the input file", in.at.column);
      auto& host = x.impl()->host;
      f.read(reinterpret_cast<char*>(host.data()), static_cast<std::streamsize>(host.size()));
      if (static_cast<size_t>(f.gcount()) != host.size())
        throw InputError(in.at.file, in.at.line, in.file,
                         fmt::format("the file holds {} bytes; the input needs {}", f.gcount(), host.size()), in.at.column);
      spec.tensors.push_back(x);
    } else {
      try {
        spec.tensors.push_back(tr::make_input(in.shape, dt, in.init));
      } catch (const std::invalid_argument& e) {
        throw InputError(in.at.file, in.at.line, in.init, e.what(), in.at.column);
      }
    }
  }
  tr::OpResult r;
  try {
    r = tr::run_op(cfg, spec);
  } catch (const std::invalid_argument& e) {
    throw InputError(t.at.file, t.at.line, t.op, e.what(), t.at.column);
  }

  // Compare with the host computation.
  uint64_t mismatches = 0;
  std::string first_mismatch;
  if (!t.reference.empty() && r.output.defined()) {
    const auto want = references().at(t.reference)(spec.tensors);
    if (static_cast<size_t>(r.output.numel()) != want.size()) {
      mismatches = want.size();
      first_mismatch = fmt::format("the output has {} elements, the reference {}", r.output.numel(), want.size());
    } else {
      for (size_t i = 0; i < want.size(); ++i) {
        const float got = static_cast<float>(tr::element(r.output, static_cast<int64_t>(i)));
        if (std::memcmp(&got, &want[i], 4) != 0) {
          if (mismatches++ == 0) first_mismatch = fmt::format("element {}: {} instead of {}", i, got, want[i]);
        }
      }
    }
  }
  if (!t.output.empty() && r.output.defined()) {
    std::ofstream f(t.output, std::ios::binary);
    f.write(reinterpret_cast<const char*>(r.output.impl()->host.data()), static_cast<std::streamsize>(r.output.impl()->host.size()));
  }

  // Metrics.
  std::map<std::string, double> m;
  double cat[tr::kNumCats] = {};
  uint64_t hbm_acc = 0, api = 0;
  for (const auto& c : r.cores) {
    for (int k = 0; k < tr::kNumCats; ++k) cat[k] += c.ns[k];
    hbm_acc += c.hbm_accesses;
    api += c.api_calls;
  }
  uint64_t errors = 0, warnings = 0;
  for (const auto& d : r.diagnostics) (d.severity == "error" ? errors : warnings)++;
  m["duration"] = r.duration_ns;
  m["cycles"] = std::round(r.duration_ns * r.clock_ghz);
  m["faults"] = r.failed ? 1 : 0;
  m["errors"] = static_cast<double>(errors);
  m["warnings"] = static_cast<double>(warnings);
  m["mismatches"] = static_cast<double>(mismatches);
  m["cores"] = static_cast<double>(r.cores.size());
  m["dma.bytes"] = static_cast<double>(r.dma_bytes);
  m["dma.descriptors"] = static_cast<double>(r.dma_descriptors);
  m["hbm.bytes"] = static_cast<double>(r.hbm_bytes);
  m["hbm.requests"] = static_cast<double>(r.hbm_requests);
  m["tcm.peak_used"] = static_cast<double>(r.tcm_peak_bytes);
  m["hbm_accesses"] = static_cast<double>(hbm_acc);
  m["api_calls"] = static_cast<double>(api);
  for (int k = 0; k < tr::kNumCats; ++k) m[std::string("time.") + tr::cat_name(static_cast<tr::Cat>(k))] = cat[k];

  RunResult res;
  std::vector<Json> exps;
  bool ok = evaluate_expectations(sc.expect, m, exps, res.failed_expectations);
  // Without expectations, a fault or a wrong result fails the run; a mismatch always does.
  if (sc.expect.empty() && r.failed) ok = false;
  if (mismatches) ok = false;
  res.exit_code = ok ? 0 : 1;

  // Report.
  Json rep = report_head(sc.name, sc.file, sc.description, platform, sets);
  Json inputs = Json::array();
  for (size_t i = 0; i < spec.tensors.size(); ++i)
    inputs.push_back(Json{{"tensor", shape_text(spec.tensors[i])}, {"init", t.inputs[i].file.empty() ? t.inputs[i].init : "file"}});
  rep["op"] = Json{{"name", t.op}, {"kernel", r.kernel}, {"symbol", r.mangled}, {"multicore", t.multicore},
                   {"inputs", inputs}, {"stack_size", r.stack_size}, {"stack_in_hbm", r.hbm_stack}};
  Json outcome{{"exit_code", res.exit_code}, {"status", r.failed ? "fault" : res.exit_code == 0 ? "ok" : "failed"}};
  outcome["fault"] = r.failed ? Json{{"kind", r.fault_kind}, {"message", r.fault_message}} : Json();
  outcome["expectations"] = exps;
  rep["outcome"] = outcome;
  rep["duration_ns"] = r.duration_ns;
  rep["cycles"] = static_cast<uint64_t>(m["cycles"]);
  Json cores = Json::array();
  for (size_t i = 0; i < r.cores.size(); ++i) {
    const auto& c = r.cores[i];
    Json b = Json::object();
    for (int k = 0; k < tr::kNumCats; ++k) b[tr::cat_name(static_cast<tr::Cat>(k))] = static_cast<uint64_t>(std::round(c.ns[k] * r.clock_ghz));
    cores.push_back(Json{{"core", i}, {"start_ns", c.start_ns}, {"end_ns", c.end_ns},
                         {"cycles", static_cast<uint64_t>(std::round((c.end_ns - c.start_ns) * r.clock_ghz))}, {"breakdown_cycles", b},
                         {"hbm_accesses", c.hbm_accesses}, {"tcm_accesses", c.tcm_accesses},
                         {"dma_transfers", c.dma_transfers}, {"dma_bytes", c.dma_bytes}, {"api_calls", c.api_calls}});
  }
  rep["cores"] = cores;
  Json diags = Json::array();
  for (const auto& d : r.diagnostics)
    diags.push_back(Json{{"severity", d.severity}, {"kind", d.kind}, {"kernel", d.kernel}, {"core", d.core},
                         {"call", d.call}, {"address", d.address}, {"message", d.message}});
  rep["diagnostics"] = diags;
  Json outj;
  if (r.output.defined()) {
    outj = Json{{"tensor", shape_text(r.output)}, {"fnv1a", fmt::format("0x{:016x}", fnv1a(r.output.impl()->host))}};
    Json first = Json::array();
    for (int64_t i = 0; i < std::min<int64_t>(8, r.output.numel()); ++i) first.push_back(tr::element(r.output, i));
    outj["first"] = first;
  }
  rep["output"] = outj;
  rep["reference"] = t.reference.empty() ? Json() : Json{{"name", t.reference}, {"mismatches", mismatches}, {"first_mismatch", first_mismatch}};
  Json mj = Json::object();
  for (const auto& [k, v] : m) mj[k] = v;
  rep["metrics"] = mj;
  res.report = rep;

  // Summary.
  auto cyc = [&](double ns) { return static_cast<uint64_t>(std::round(ns * r.clock_ghz)); };
  std::string ins;
  for (const auto& x : spec.tensors) ins += (ins.empty() ? "" : ", ") + shape_text(x);
  out << fmt::format("npusim run: {} on {}\n", sc.name.empty() ? sc.file : sc.name, platform);
  out << fmt::format("  op               {} (kernel {}), {}, inputs {}\n", t.op, r.kernel,
                     t.multicore ? fmt::format("multicore ({} cores)", r.cores.size()) : "single core", ins);
  out << fmt::format("  simulated time   {:.3f} us = {} cycles at {} GHz\n", r.duration_ns / 1e3, cyc(r.duration_ns), r.clock_ghz);
  out << "  cycles by core   compute      hbm      tcm      dma    stack     call    total\n";
  for (size_t i = 0; i < r.cores.size(); ++i) {
    const auto& c = r.cores[i];
    out << fmt::format("    core {:<2}      {:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}\n", i, cyc(c.ns[tr::kCompute]),
                       cyc(c.ns[tr::kHbm]), cyc(c.ns[tr::kTcm]), cyc(c.ns[tr::kDma]), cyc(c.ns[tr::kStack]),
                       cyc(c.ns[tr::kCall]), cyc(c.end_ns - c.start_ns));
  }
  out << fmt::format("  traffic          HBM {} B in {} requests ({} core accesses), DMA {} B in {} descriptors, TCM peak {} B\n",
                     r.hbm_bytes, r.hbm_requests, hbm_acc, r.dma_bytes, r.dma_descriptors, r.tcm_peak_bytes);
  out << fmt::format("  stack            {}{}\n",
                     r.stack_size >= 0 ? fmt::format("STACK_SIZE={}", r.stack_size) : "no STACK_SIZE",
                     r.hbm_stack ? ": in HBM (stack switch)" : ": local dataram");
  if (r.output.defined())
    out << fmt::format("  output           {}, fnv1a {}\n", shape_text(r.output), outj["fnv1a"].get<std::string>());
  if (!t.reference.empty())
    out << fmt::format("  reference        {}: {}\n", t.reference,
                       mismatches ? fmt::format("{} mismatches, first {}", mismatches, first_mismatch)
                                  : fmt::format("equal ({} elements)", r.output.defined() ? r.output.numel() : 0));
  for (const auto& d : r.diagnostics) out << fmt::format("  {}: {}\n", d.severity, d.message);
  if (r.failed) out << fmt::format("  FAULT ({}): {}\n", r.fault_kind, r.fault_message);
  for (const auto& e : exps)
    out << fmt::format("  expect {}: {} -> {} (actual {})\n", e["key"].get<std::string>(), e["expected"].get<std::string>(),
                       e["ok"].get<bool>() ? "ok" : "FAILED", e["actual"].get<double>());
  out << fmt::format("  result: {}\n", res.exit_code == 0 ? "PASS" : "FAIL");

  const uint64_t end_ps = static_cast<uint64_t>(r.duration_ns * 1e3 + 0.5);
  for (auto& o : observers) {
    auto ps = [](double ns) { return static_cast<uint64_t>(ns * 1e3 + 0.5); };
    for (size_t i = 0; i < r.cores.size(); ++i) {
      const std::string core = fmt::format("gpsimd{}", i);
      o->core_busy(core, ps(r.cores[i].start_ns), true);
      for (const auto& c : r.calls[i]) o->call(core, c.name, "", ps(c.start_ns), ps(c.end_ns), 0);
      o->core_busy(core, ps(r.cores[i].end_ns), false);
    }
    // DMA tracks: core k's channel c is track k * channels + c.
    const uint32_t per_core = std::max(1u, cfg.gpsimd_cores.dma_engines / cfg.gpsimd_cores.cores);
    for (const auto& x : r.transfers)
      o->transfer(static_cast<uint32_t>(x.core) * per_core + x.channel, x.src, x.dst, x.len,
                  fmt::format("core {}: {}", x.core, x.call), ps(x.start_ns), ps(x.end_ns));
    for (const auto& d : r.diagnostics)
      o->instant("faults", d.kind, end_ps, Json{{"message", d.message}});
    o->finish(end_ps);
  }
  return res;
}

}  // namespace npusim::sim
