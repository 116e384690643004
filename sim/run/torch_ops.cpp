// The torch-op workload of the run pipeline (pipeline.h): builds the inputs, runs the
// registered op on the GPSIMD cores (firmware/torch), compares the output with a host
// computation; the pipeline checks the expectations and writes the summary and the JSON
// report (docs/custom-ops.md).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "allocators/neuron/neuron_layout.h"
#include "allocators/xmem/xmem_heap.h"
#include "firmware/stop_request.h"
#include "firmware/torch/runtime.h"
#include "sim/run/energy_report.h"
#include "sim/tools/heap_replay.h"
#include "sim/input/platform_config.h"
#include "sim/run/memory_report.h"
#include "sim/run/pipeline.h"
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

uint64_t fnv1a(const torch::detail::HostBytes& b) {
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
      {"negate",  // the SDK guides' tensor_negate_compute: -1 * x
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i) o[i] = -1.0f * static_cast<float>(tr::element(in[0], static_cast<int64_t>(i)));
         return o;
       }},
      {"add",  // the SDK guides' tensor_add_compute: t1 + t2
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i)
           o[i] = static_cast<float>(tr::element(in[0], static_cast<int64_t>(i))) +
                  static_cast<float>(tr::element(in[1], static_cast<int64_t>(i)));
         return o;
       }},
      {"relu_backward",  // the MLP tutorial's relu_backward(t_grad, t_in): t_in > 0 ? t_grad : 0
       [](const std::vector<torch::Tensor>& in) {
         std::vector<float> o(static_cast<size_t>(in[0].numel()));
         for (size_t i = 0; i < o.size(); ++i)
           o[i] = static_cast<float>(tr::element(in[1], static_cast<int64_t>(i))) > 0.0f
                      ? static_cast<float>(tr::element(in[0], static_cast<int64_t>(i)))
                      : 0.0f;
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
      "dma.descriptors", "hbm.bytes", "hbm.requests", "tcm.peak_used", "time.compute", "time.tcm_stack",
      "time.accessor_hbm", "time.dma_wait", "time.core_wait", "time.library", "hbm_accesses", "api_calls"};
  static const std::set<std::string> all = [] {
    std::set<std::string> s = k;
    s.insert(energy_metric_keys().begin(), energy_metric_keys().end());
    return s;
  }();
  return all;
}

// The summary's column of each time kind.
const char* kind_label(tr::TimeKind k) {
  switch (k) {
    case tr::TimeKind::kCompute: return "compute";
    case tr::TimeKind::kTcmStack: return "tcm/stack";
    case tr::TimeKind::kAccessorHbm: return "accessor/hbm";
    case tr::TimeKind::kDmaWait: return "dma wait";
    case tr::TimeKind::kCoreWait: return "core wait";
    case tr::TimeKind::kLibrary: return "library";
  }
  return "?";
}

// A core's heap in the report and the trace: core0_dataram (its TCM), core0_hbm.
std::string heap_label(size_t core, alloc::neuron::HeapId id) {
  return fmt::format("core{}_{}", core, alloc::neuron::heap_name(id));
}

// The torch-op workload: the op on the GPSIMD cores (firmware/torch builds and simulates its
// platform in run_op until that platform moves into platforms/), compared with the host
// computation.
class TorchOps : public Workload {
 public:
  TorchOps(const Scenario& sc, const RunOptions& opt) : sc_(sc), opt_(opt), t(*sc.torch_op) {}

  void prepare() override {
  const TorchOpSpec& t = *sc_.torch_op;
  for (const auto& e : sc_.expect)
    if (!metric_keys().count(e.key))
      throw InputError(e.at.file, e.at.line, e.key,
                       "unknown expectation key for a torch_op (duration, cycles, faults, errors, "
                       "warnings, mismatches, dma.bytes, hbm.bytes, time.compute, time.dma_wait, ...)",
                       e.at.column);
  if (!t.reference.empty() && !references().count(t.reference))
    throw InputError(t.at.file, t.at.line, t.reference, "unknown reference (relu, relu_backward, gelu, negate, add, clamp_unit, row_sum, softmax_rows)", t.at.column);
  sets_ = run_settings(sc_.set, opt_);
  platform_ = opt_.platform_override.empty() ? sc_.platform : opt_.platform_override;
  cfg_ = load_platform(platform_, sets_);
  check_torch_inputs(t, cfg_);  // sizes against the platform before any host allocation

  spec_.op = t.op;
  spec_.multicore = t.multicore;
  spec_.stack_size = t.stack_size;
  // Every core's heaps, sampled after each heap operation (the report's `heaps`, the trace's
  // heap counters and blocks), and the memories and DMA channels once the op has run.
  spec_.on_built = [this](tr::GpsimdPlatform& p) {
    for (size_t i = 0; i < p.core_count(); ++i) {
      fw::Firmware& f = p.firmware(i);
      models::Core& core = p.core(i);
      f.hooks().heap_op = [this, i](alloc::neuron::HeapId id, bool is_alloc, int status) {
        heaps_[heap_label(i, id)].count_op(is_alloc, status);
      };
      f.hooks().heap_changed = [this, i, &f, &core](alloc::neuron::HeapId id) {
        const std::string name = heap_label(i, id);
        sample_heap(core, f.config().layout, id, name, heaps_[name], blocks_, obs_);
      };
    }
  };
  spec_.on_finished = [this](tr::GpsimdPlatform& p) {
    for (const auto& m : p.memories())
      if (m.stats) memories_.push_back(Memory{m.name, m.clock_ns, *m.stats});
    for (size_t i = 0; i < p.core_count(); ++i) {
      dma_.push_back(p.dma(i).channel_stats());
      for (const auto id : {alloc::neuron::HeapId::kDataram, alloc::neuron::HeapId::kHbm})
        exhaustion_[heap_label(i, id)] = p.firmware(i).heaps().heap(id).descriptor_exhaustion_events();
    }
  };
  for (double d : t.scalars) spec_.scalars.emplace_back(d);
  for (const auto& in : t.inputs) {
    bool ok = false;
    const auto dt = tr::parse_dtype(in.dtype, &ok);
    if (!ok) throw InputError(in.at.file, in.at.line, in.dtype, "unknown dtype (float, bfloat16, half, int, char, short, byte)", in.at.column);
    if (!in.file.empty()) {
      auto x = tr::make_input(in.shape, dt, "zeros");
      if (const std::string why = input_file_problem(in.file); !why.empty())
        throw InputError(in.at.file, in.at.line, in.file, "the input file " + why, in.at.column);
      std::ifstream f(in.file, std::ios::binary);
      if (!f) throw InputError(in.at.file, in.at.line, in.file, "cannot open the input file", in.at.column);
      auto& host = x.impl()->host;
      f.read(reinterpret_cast<char*>(host.data()), static_cast<std::streamsize>(host.size()));
      if (static_cast<size_t>(f.gcount()) != host.size())
        throw InputError(in.at.file, in.at.line, in.file,
                         fmt::format("the file holds {} bytes; the input needs {}", f.gcount(), host.size()), in.at.column);
      spec_.tensors.push_back(x);
    } else {
      try {
        spec_.tensors.push_back(tr::make_input(in.shape, dt, in.init));
      } catch (const std::invalid_argument& e) {
        throw InputError(in.at.file, in.at.line, in.init, e.what(), in.at.column);
      }
    }
  }
  }
  void build() override {}
  void attach(std::vector<std::unique_ptr<RunObserver>>& observers) override {
    obs_ = std::move(observers);
    spec_.record = !obs_.empty();
  }
  void start() override {}
  void run() override {
  // The progress line, ticked by the torch runtime at its call boundaries (fw::at_call_boundary).
  Progress progress("run " + (sc_.file.empty() ? sc_.name : sc_.file),
                    opt_.progress ? Progress::Mode::kOn : Progress::Mode::kAuto);
  progress.set_total(0, "calls");
  static Progress* g_progress = nullptr;
  static uint64_t g_calls = 0;
  g_progress = &progress;
  g_calls = 0;
  fw::g_boundary_tick = [](double ns) { g_progress->update(++g_calls, ns); };
  struct Untick {
    ~Untick() { fw::g_boundary_tick = nullptr; }
  } untick;
  try {
    r_ = tr::run_op(cfg_, spec_);
  } catch (const std::invalid_argument& e) {
    throw InputError(t.at.file, t.at.line, t.op, e.what(), t.at.column);
  }
  }
  void collect() override {
  // Compare with the host computation.
  if (!t.reference.empty() && r_.output.defined()) {
    const auto want = references().at(t.reference)(spec_.tensors);
    if (static_cast<size_t>(r_.output.numel()) != want.size()) {
      mismatches_ = want.size();
      first_mismatch_ = fmt::format("the output has {} elements, the reference {}", r_.output.numel(), want.size());
    } else {
      for (size_t i = 0; i < want.size(); ++i) {
        const float got = static_cast<float>(tr::element(r_.output, static_cast<int64_t>(i)));
        if (std::memcmp(&got, &want[i], 4) != 0) {
          if (mismatches_++ == 0) first_mismatch_ = fmt::format("element {}: {} instead of {}", i, got, want[i]);
        }
      }
    }
  }
  if (!t.output.empty() && r_.output.defined()) {
    const auto& host = r_.output.impl()->host;
    try {
      write_output({t.at.str() + ": torch_op output", t.output, {}},
                   std::string_view(reinterpret_cast<const char*>(host.data()), host.size()));
    } catch (const InputError& e) {  // a write error: the report and the other outputs go on
      opt_.output_errors->push_back(e.what());
    }
  }

  }
  std::map<std::string, double> metrics() const override {
  std::map<std::string, double> m;
  double kind_ns[tr::kTimeKinds] = {};
  uint64_t hbm_acc = 0, api = 0;
  for (const auto& c : r_.cores) {
    for (tr::TimeKind k : tr::kAllTimeKinds) kind_ns[tr::index_of(k)] += c.ns(k);
    hbm_acc += c.hbm_accesses;
    api += c.api_calls;
  }
  uint64_t errors = 0, warnings = 0;
  for (const auto& d : r_.diagnostics) (d.severity == "error" ? errors : warnings)++;
  m["duration"] = r_.duration_ns;
  m["cycles"] = std::round(r_.duration_ns * r_.clock_ghz);
  m["faults"] = r_.failed ? 1 : 0;
  m["errors"] = static_cast<double>(errors);
  m["warnings"] = static_cast<double>(warnings);
  m["mismatches"] = static_cast<double>(mismatches_);
  m["cores"] = static_cast<double>(r_.cores.size());
  m["dma.bytes"] = static_cast<double>(r_.dma_bytes);
  m["dma.descriptors"] = static_cast<double>(r_.dma_descriptors);
  m["hbm.bytes"] = static_cast<double>(r_.hbm_bytes);
  m["hbm.requests"] = static_cast<double>(r_.hbm_requests);
  m["tcm.peak_used"] = static_cast<double>(r_.tcm_peak_bytes);
  m["hbm_accesses"] = static_cast<double>(hbm_acc);
  m["api_calls"] = static_cast<double>(api);
  for (tr::TimeKind k : tr::kAllTimeKinds) m[std::string("time.") + tr::time_kind_name(k)] = kind_ns[tr::index_of(k)];
  add_energy_metrics(r_.energy, m);

    return m;
  }
  bool fails(bool has_expectations) const override {
    // Without expectations, a fault or a wrong result fails the run; a mismatch always does.
    return (!has_expectations && r_.failed) || mismatches_ != 0;
  }
  void finish_outputs(const std::map<std::string, double>&) override {
  const double end_ns = std::max(r_.kernel_start_ns + r_.duration_ns, r_.output_copy.end_ns);
  const uint64_t end_ps = static_cast<uint64_t>(end_ns * 1e3 + 0.5);
  for (auto& o : obs_) {
    auto ps = [](double ns) { return static_cast<uint64_t>(ns * 1e3 + 0.5); };
    for (size_t i = 0; i < r_.cores.size(); ++i) {
      const std::string core = fmt::format("gpsimd{}", i);
      o->core_busy(core, ps(r_.cores[i].start_ns), true);
      for (const auto& c : r_.calls[i]) o->call(core, c.name, "", ps(c.start_ns), ps(c.end_ns), 0);
      o->core_busy(core, ps(r_.cores[i].end_ns), false);
    }
    // The host copies around the kernel, on core 0 (whose port moves them).
    if (r_.inputs_copy.bytes)
      o->call("gpsimd0", "load inputs (host to HBM)", "", ps(r_.inputs_copy.start_ns), ps(r_.inputs_copy.end_ns), 0);
    if (r_.output_copy.bytes)
      o->call("gpsimd0", "read output (HBM to host)", "", ps(r_.output_copy.start_ns), ps(r_.output_copy.end_ns), 0);
    // DMA tracks: core k's channel c is track k * channels + c.
    const auto per_core = static_cast<uint32_t>(dma_channels_per_core());
    for (const auto& x : r_.transfers)
      o->transfer(static_cast<uint32_t>(x.core) * per_core + x.channel, x.src, x.dst, x.len,
                  fmt::format("core {}: {}", x.core, x.call), ps(x.start_ns), ps(x.end_ns));
    for (const auto& d : r_.diagnostics) {
      Json args{{"message", d.message}};
      if (!d.backtrace.empty()) args["backtrace"] = d.backtrace;
      o->instant("faults", d.kind, end_ps, args);
    }
  }
  for (const Memory* mem : reported_memories()) send_memory_series(mem->name, mem->stats, mem->clock_ns, end_ps, obs_);
  for (auto& o : obs_) o->finish(end_ps);
  }
  Json report(int exit_code, const std::vector<Json>& expectations) const override {
  const auto m = metrics();
  Json rep = report_head(sc_.name, sc_.file, sc_.description, platform_, sets_);
  Json inputs = Json::array();
  for (size_t i = 0; i < spec_.tensors.size(); ++i)
    inputs.push_back(Json{{"tensor", shape_text(spec_.tensors[i])}, {"init", t.inputs[i].file.empty() ? t.inputs[i].init : "file"}});
  // The shape function's result: the op's output as the framework sees it (a kernel may return
  // the same elements in another shape, e.g. flat).
  std::string shape_fn = fmt::format("{}[", torch::dtype_name(r_.shape_dtype));
  for (size_t i = 0; i < r_.shape_sizes.size(); ++i) shape_fn += fmt::format("{}{}", i ? "," : "", r_.shape_sizes[i]);
  shape_fn += "]";
  rep["op"] = Json{{"name", t.op}, {"kernel", r_.kernel}, {"symbol", r_.mangled}, {"multicore", r_.multicore},
                   {"inputs", inputs}, {"stack_size", r_.stack_size}, {"stack_in_hbm", r_.hbm_stack},
                   {"kernel_code", Json{{"timed", r_.kernel_code_timed},
                                        {"source", r_.kernel_code_timed ? Json(r_.kernel_code_source) : Json()}}},
                   {"shape_function", r_.shape_sizes.empty() && r_.kernel.empty() ? Json() : Json(shape_fn)}};
  // The dataram layout that ran (heaps.layout: seed | guides, or custom offsets).
  const LayoutSpan lay = layout_span();
  rep["dataram_layout"] = Json{{"name", lay.name},
                               {"pool", Json::array({lay.pool_lo, lay.pool_hi})},
                               {"heap_header", Json::array({lay.hdr_lo, lay.hdr_hi})},
                               {"header_in_pool", lay.header_in_pool()}};
  Json outcome{{"exit_code", exit_code}, {"status", r_.failed ? "fault" : exit_code == 0 ? "ok" : "failed"}};
  outcome["fault"] = r_.failed ? Json{{"kind", r_.fault_kind}, {"message", r_.fault_message}} : Json();
  if (r_.failed && !r_.fault_backtrace.empty()) outcome["fault"]["backtrace"] = r_.fault_backtrace;
  outcome["expectations"] = expectations;
  rep["outcome"] = outcome;
  rep["duration_ns"] = r_.duration_ns;
  rep["cycles"] = static_cast<uint64_t>(m.at("cycles"));
  Json cores = Json::array();
  for (size_t i = 0; i < r_.cores.size(); ++i) {
    const auto& c = r_.cores[i];
    const auto cyc = tr::kind_cycles(c, r_.clock_ghz);
    Json b = Json::object();
    for (tr::TimeKind k : tr::kAllTimeKinds) b[tr::time_kind_name(k)] = cyc[tr::index_of(k)];
    cores.push_back(Json{{"core", i}, {"start_ns", c.start_ns}, {"end_ns", c.end_ns},
                         {"cycles", tr::total_cycles(c, r_.clock_ghz)}, {"breakdown_cycles", b},
                         {"hbm_accesses", c.hbm_accesses}, {"tcm_accesses", c.tcm_accesses},
                         {"dma_transfers", c.dma_transfers}, {"dma_bytes", c.dma_bytes}, {"bulk_bytes", c.bulk_bytes}, {"api_calls", c.api_calls}});
  }
  rep["cores"] = cores;
  // The heaps of the cores that ran, their memories and DMA channels, their stacks.
  Json heaps = Json::object();
  for (const auto& [name, h] : heaps_) {
    if (!h.initialised) continue;
    const auto ex = exhaustion_.find(name);
    heaps[name] = heap_json(h, ex == exhaustion_.end() ? 0 : ex->second);
  }
  rep["heaps"] = heaps;
  Json mems = Json::object();
  for (const Memory* mem : reported_memories()) mems[mem->name] = memory_json(mem->stats, mem->clock_ns);
  rep["memories"] = mems;
  Json chans = Json::array();
  const size_t per_core = dma_channels_per_core();
  for (size_t i = 0; i < r_.cores.size() && i < dma_.size(); ++i)
    for (size_t ch = 0; ch < dma_[i].size(); ++ch) chans.push_back(channel_json(i * per_core + ch, dma_[i][ch]));
  rep["dma"] = Json{{"channels", chans}};
  Json stacks = Json::array();
  for (size_t i = 0; i < r_.cores.size(); ++i) {
    const auto& c = r_.cores[i];
    stacks.push_back(Json{{"core", i}, {"kernel_high_water", c.stack_peak}, {"high_water", c.frames_high_water},
                          {"hbm_high_water", c.frames_hbm_high_water}, {"hbm_stack", c.hbm_stack},
                          {"hbm_stack_size", c.hbm_stack_size}});
  }
  rep["stack"] = Json{{"limit", r_.stack_limit}, {"cores", stacks}};
  auto copy = [](const tr::HostCopy& h) { return Json{{"bytes", h.bytes}, {"start_ns", h.start_ns}, {"end_ns", h.end_ns}}; };
  rep["host_copies"] = Json{{"inputs", copy(r_.inputs_copy)}, {"output", copy(r_.output_copy)}};
  Json diags = Json::array();
  for (const auto& d : r_.diagnostics) {
    Json dj{{"severity", d.severity}, {"kind", d.kind}, {"kernel", d.kernel}, {"core", d.core},
            {"call", d.call}, {"address", d.address}, {"message", d.message}};
    if (!d.backtrace.empty()) dj["backtrace"] = d.backtrace;  // a contained kernel fault
    diags.push_back(dj);
  }
  rep["diagnostics"] = diags;
  Json outj;
  if (r_.output.defined()) {
    outj = Json{{"tensor", shape_text(r_.output)}, {"fnv1a", fmt::format("0x{:016x}", fnv1a(r_.output.impl()->host))}};
    Json first = Json::array();
    for (int64_t i = 0; i < std::min<int64_t>(8, r_.output.numel()); ++i) first.push_back(tr::element(r_.output, i));
    outj["first"] = first;
  }
  rep["output"] = outj;
  rep["reference"] = t.reference.empty() ? Json() : Json{{"name", t.reference}, {"mismatches", mismatches_}, {"first_mismatch", first_mismatch_}};
  rep["energy"] = energy_json(r_.energy);
  Json mj = Json::object();
  for (const auto& [k, v] : m) mj[k] = v;
  rep["metrics"] = mj;
  return rep;

  }
  void summary(std::ostream& out, const Json& report, const std::vector<Json>& expectations,
               int exit_code) const override {
  auto cyc = [&](double ns) { return static_cast<uint64_t>(std::round(ns * r_.clock_ghz)); };
  std::string ins;
  for (const auto& x : spec_.tensors) ins += (ins.empty() ? "" : ", ") + shape_text(x);
  out << fmt::format("npusim run: {} on {}\n", sc_.name.empty() ? sc_.file : sc_.name, platform_);
  out << fmt::format("  op               {} (kernel {}), {}, inputs {}\n", t.op, r_.kernel,
                     r_.multicore ? fmt::format("multicore ({} cores)", r_.cores.size()) : "single core", ins);
  const LayoutSpan lay = layout_span();
  out << fmt::format("  dataram layout   {}: pool [0x{:x}, 0x{:x}), heap header [0x{:x}, 0x{:x}){}\n",
                     lay.name, lay.pool_lo, lay.pool_hi, lay.hdr_lo, lay.hdr_hi,
                     lay.header_in_pool() ? " inside the pool (fewer than four 4 KiB stream buffers fit)" : "");
  out << fmt::format("  simulated time   {:.3f} us = {} cycles at {} GHz\n", r_.duration_ns / 1e3, cyc(r_.duration_ns), r_.clock_ghz);
  // Each core's cycles by kind (they add up to its total, from its start to the op's end).
  std::string head = "  cycles by core ";
  for (tr::TimeKind k : tr::kAllTimeKinds) head += fmt::format("{:>13}", kind_label(k));
  out << head << fmt::format("{:>13}", "total") << "\n";
  for (size_t i = 0; i < r_.cores.size(); ++i) {
    const auto& c = r_.cores[i];
    std::string row = fmt::format("    core {:<2}      ", i);
    for (uint64_t v : tr::kind_cycles(c, r_.clock_ghz)) row += fmt::format("{:>13}", v);
    out << row << fmt::format("{:>13}", tr::total_cycles(c, r_.clock_ghz)) << "\n";
  }
  out << fmt::format("  traffic          HBM {} B in {} requests ({} core accesses), DMA {} B in {} descriptors, TCM peak {} B\n",
                     r_.hbm_bytes, r_.hbm_requests, static_cast<uint64_t>(report["metrics"]["hbm_accesses"].get<double>()), r_.dma_bytes, r_.dma_descriptors, r_.tcm_peak_bytes);
  out << fmt::format("  host copies      inputs {} B in {} cycles before the kernel, output {} B in {} cycles after it "
                     "(core 0's port; not in the op's time)\n",
                     r_.inputs_copy.bytes, cyc(r_.inputs_copy.end_ns - r_.inputs_copy.start_ns), r_.output_copy.bytes,
                     cyc(r_.output_copy.end_ns - r_.output_copy.start_ns));
  uint64_t kernel_stack = 0, frames = 0;
  for (const auto& c : r_.cores) {
    kernel_stack = std::max(kernel_stack, c.stack_peak);
    frames = std::max<uint64_t>(frames, std::max(c.frames_high_water, c.frames_hbm_high_water));
  }
  out << fmt::format("  stack            {}: {}; high-water {} B in the kernel (host-measured), {} B of library frames\n",
                     r_.stack_size >= 0 ? fmt::format("STACK_SIZE={}", r_.stack_size) : "no STACK_SIZE",
                     r_.hbm_stack ? "in HBM (stack switch)"
                                  : fmt::format("local dataram{}", r_.stack_size >= 0 ? "" : fmt::format(", {} B", r_.stack_limit)),
                     kernel_stack, frames);
  if (r_.kernel.empty()) {
  } else if (r_.kernel_code_timed)
    out << fmt::format("  kernel code      timed: {} was compiled with the npusim kernel-cost pass\n",
                       r_.kernel_code_source.empty() ? r_.kernel : r_.kernel_code_source);
  else
    out << fmt::format("  kernel code      NOT MODELLED: {} was built without the npusim kernel-cost pass, so its own "
                       "arithmetic, loops and TCM/stack accesses took no simulated time; build it with `npusim op "
                       "build` (or npusim_add_custom_op) to time them\n",
                       r_.kernel);
  if (r_.output.defined())
    out << fmt::format("  output           {}, fnv1a {}\n", shape_text(r_.output), report["output"]["fnv1a"].get<std::string>());
  if (!t.reference.empty())
    out << fmt::format("  reference        {}: {}\n", t.reference,
                       mismatches_ ? fmt::format("{} mismatches, first {}", mismatches_, first_mismatch_)
                                  : fmt::format("equal ({} elements)", r_.output.defined() ? r_.output.numel() : 0));
  write_energy_summary(out, r_.energy);
  for (const auto& d : r_.diagnostics) out << fmt::format("  {}: {}\n", d.severity, d.message);
  if (r_.failed) out << fmt::format("  FAULT ({}): {}\n", r_.fault_kind, r_.fault_message);
  if (r_.failed && !r_.fault_backtrace.empty()) {
    out << "  kernel backtrace (innermost first):\n";
    for (size_t i = 0; i < r_.fault_backtrace.size(); ++i) out << fmt::format("    #{} {}\n", i, r_.fault_backtrace[i]);
  }
  write_expectations_and_result(out, expectations, exit_code);

  }

 private:
  // The dataram pool and heap header of the layout that ran.
  struct LayoutSpan {
    std::string name;
    uint64_t pool_lo, pool_hi, hdr_lo, hdr_hi;
    bool header_in_pool() const { return hdr_lo < pool_hi && pool_lo < hdr_hi; }
  };
  LayoutSpan layout_span() const {
    const auto& lay = cfg_.firmware.layout;
    const uint64_t pool = lay.dataram_pool(), hdr = lay.dataram_header();
    return {alloc::neuron::layout_name(lay), pool, pool + lay.dataram_pool_size, hdr,
            hdr + alloc::xmem::header_bytes(lay.num_blocks)};
  }

  const Scenario& sc_;
  const RunOptions& opt_;
  const TorchOpSpec& t;
  std::vector<std::unique_ptr<RunObserver>> obs_;
  std::vector<Setting> sets_;
  std::string platform_;
  fw::NeuronPlatformConfig cfg_;
  tr::OpSpec spec_;
  tr::OpResult r_;
  // The heaps, memories and DMA channels of the GPSIMD cores (the spec's on_built and
  // on_finished): the report's `heaps`, `memories`, `dma`; the trace's heap blocks and memory series.
  std::map<std::string, HeapTrack> heaps_;
  std::map<std::string, uint64_t> exhaustion_;
  HeapBlockTracker blocks_;
  struct Memory {
    std::string name;
    double clock_ns;
    models::MemoryStats stats;
  };
  std::vector<Memory> memories_;
  std::vector<std::vector<models::DmaChannelStats>> dma_;
  // HBM and the TCMs of the cores that ran.
  std::vector<const Memory*> reported_memories() const {
    std::vector<const Memory*> v;
    for (const auto& m : memories_) {
      bool keep = m.name == "hbm";
      for (size_t i = 0; i < r_.cores.size(); ++i) keep = keep || m.name == fmt::format("core{}_tcm", i);
      if (keep) v.push_back(&m);
    }
    return v;
  }
  size_t dma_channels_per_core() const { return std::max(1u, cfg_.gpsimd_cores.dma_engines / cfg_.gpsimd_cores.cores); }
  uint64_t mismatches_ = 0;
  std::string first_mismatch_;
};

}  // namespace

RunResult run_torch_scenario(const Scenario& sc, const RunOptions& opt, std::ostream& out,
                             std::vector<std::unique_ptr<RunObserver>> observers) {
  TorchOps w(sc, opt);
  return run_pipeline(w, sc.expect, out, std::move(observers));
}

}  // namespace npusim::sim
