// The Neuron-steps workload of the run pipeline (pipeline.h): a scenario's program (or a
// custom op) on the management core of a neuron-gpsimd platform, with the firmware on it.
// The interpreter runs in the core's thread (neuron_steps.cpp); metrics, report and summary
// are in neuron_report.cpp.
#pragma once

#include "platforms/energy.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "allocators/neuron/neuron_heaps.h"
#include "firmware/neuron_device.h"
#include "firmware/neuron_platform.h"
#include "models/rv32/program_cluster.h"
#include "sim/run/heap_blocks.h"
#include "sim/run/memory_report.h"
#include "sim/run/pipeline.h"

namespace npusim::sim::neuron {

using alloc::neuron::HeapId;
using Json = nlohmann::ordered_json;

inline const HeapId kHeaps[] = {HeapId::kHbm, HeapId::kDataram, HeapId::kLibc};

inline uint64_t ps(const sc_core::sc_time& t) { return to_ps(t); }

Json violation_json(const models::DmaFault& f);

class NeuronSteps : public Workload {
 public:
  NeuronSteps(const Scenario& sc, const RunOptions& opt)
      : sc_(sc), opt_(opt),
        progress_("run " + (sc.file.empty() ? sc.name : sc.file),
                  opt.progress ? Progress::Mode::kOn : Progress::Mode::kAuto) {
    progress_.set_total(0, "steps");  // loops make the total unknown: steps and simulated time
  }

  void prepare() override;
  void build() override;
  void attach(std::vector<std::unique_ptr<RunObserver>>& observers) override;
  void start() override;
  void collect() override;
  std::map<std::string, double> metrics() const override;
  bool fails(bool has_expectations) const override;
  void finish_outputs(const std::map<std::string, double>& metrics) override;
  Json report(int exit_code, const std::vector<Json>& expectations) const override;
  void summary(std::ostream& out, const Json& report, const std::vector<Json>& expectations,
               int exit_code) const override;

 private:
  // --- the interpreter (runs in the core's thread) ---
  void exec(const std::vector<Step>& steps);
  void exec(const Step& s);
  uint64_t resolve(const AddrExpr& e);
  [[noreturn]] void runtime_error(const Step& s, const std::string& why);
  // Samples heap `id` at `t_ps` (default: the core's time).
  void sample(HeapId id, std::optional<uint64_t> t_ps = std::nullopt);
  void count_heap_op(HeapId id, bool is_alloc, int status) {
    heaps_[id].count_op(is_alloc, status);
    if (!is_alloc && status != 0) ++double_frees_;
  }
  fw::TransferMethod method_of(const Step& s) const;
  void check_expectation_keys() const;

  const Scenario& sc_;
  const RunOptions& opt_;
  std::vector<std::unique_ptr<RunObserver>> obs_;
  fw::NeuronPlatformConfig cfg_;
  std::string platform_name_;
  fw::CustomOpFn op_ = nullptr;
  std::unique_ptr<fw::NeuronPlatform> p_;
  std::map<std::string, uint64_t> names_;
  std::set<std::string> failed_names_;
  std::map<HeapId, HeapTrack> heaps_;
  HeapBlockTracker blocks_;  // the HTML report's heap map, only when tracing
  // A marker's time and its step (whose text the scenario keeps): 16 bytes per marker however
  // long the text, so a loop of a million markers stays small.
  std::vector<std::pair<uint64_t, const Step*>> markers_;
  std::string core_name_;  // the firmware's core, for the observers (set by attach)
  platforms::PlatformEnergy energy_;  // of the run, from collect() on
  std::vector<std::string> layout_warnings_;
  std::vector<std::string> warnings_;  // of the run (u32 size wraps); the report's `warnings`
  const Step* current_ = nullptr;
  std::optional<Fault> fault_;
  uint64_t double_frees_ = 0;
  struct OpenCall {
    std::string name, args;
    uint64_t start;
  };
  std::vector<OpenCall> calls_;
  uint64_t steps_done_ = 0;
  Progress progress_;

  // --- a firmware program on the management core instead of steps (neuron_binary.cpp) ---
  bool binary() const { return sc_.binary.has_value(); }
  void prepare_binary();
  void build_binary();
  void collect_binary();
  void binary_metrics(std::map<std::string, double>& m) const;
  void binary_report(Json& r) const;
  void binary_summary(std::ostream& out) const;
  void binary_trace();
  uint64_t cycle_ps(uint64_t cycle) const;
  models::rv32::Env::Result stack_register(models::rv32::HartRecord& r, bool write, uint32_t offset, void* data);
  models::rv32::Env::Result dma_register(models::rv32::HartRecord& r, bool write, uint32_t offset, void* data);
  void watched_call(models::rv32::HartRecord& r, uint32_t target, uint64_t cycle);
  void watched_return(models::rv32::HartRecord& r, uint64_t cycle);
  std::string call_site(const models::rv32::HartRecord& r, bool with_line);
  std::string source_line(uint32_t pc);
  std::string chain_text(const models::rv32::HartRecord& r) const;
  void switch_stack(models::rv32::HartRecord& r, uint32_t lo, uint32_t hi);
  void mark_stack_use(const models::rv32::HartRecord& r);
  std::unique_ptr<models::rv32::ElfImage> image_;
  std::unique_ptr<models::rv32::ProgramCluster> pcluster_;
  models::rv32::HartRecord* hart_ = nullptr;
  models::rv32::ArgvImage argv_;
  enum class Watch { kInit, kAlloc, kFree, kCall };
  struct Watched {
    std::string name;
    Watch kind;
    HeapId heap;
  };
  std::map<uint32_t, Watched> watched_;  // function entry -> what it is
  struct OpenWatch {
    const Watched* w;
    size_t depth;
    uint64_t start;  // cycle
    uint32_t a[6];  // a0..a5 at the call
  };
  std::vector<OpenWatch> open_watch_;
  struct DoneCall {
    std::string name, args;
    uint64_t start_ps, end_ps;
    int status;
  };
  std::vector<DoneCall> fw_calls_;
  std::map<HeapId, uint64_t> exhaustion_;  // allocations handed a whole block for want of a descriptor
  uint64_t dma_src_ = 0, dma_dst_ = 0;
  uint32_t dma_len_ = 0, dma_channel_ = 0;
  std::vector<uint64_t> dma_tickets_;
  std::vector<models::DmaDescriptor> dma_submitted_;  // for the report
  size_t dma_done_ = 0;
  bool dma_polling_ = false;  // the program's last STATUS read found the engine busy
  uint64_t dma_poll_start_ = 0;
  uint32_t stack_lo_reg_ = 0;
  uint32_t stack_hi_ = 0;  // top of the stack the guard watches
  uint64_t program_end_ps_ = 0;
  std::vector<std::string> missing_output_;
  std::map<uint32_t, std::string> lines_;  // pc -> "file:line" (or "")
};

}  // namespace npusim::sim::neuron
