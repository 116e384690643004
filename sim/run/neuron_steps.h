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
  void sample(HeapId id);
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
};

}  // namespace npusim::sim::neuron
