// The Snitch-programs workload of the run pipeline (pipeline.h): every core of the
// snitch-cluster platform runs the scenario's program (and its `cores:` steps) as its own
// SystemC thread (alloc_v2 on the core, TCDM through the bank model, the DM core's DMA,
// barriers); traps are recorded. The phases are in snitch_programs.cpp, the interpreter each
// core runs in snitch_exec.cpp; metrics, report, summary, trace and VCD in snitch_report.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "allocators/snitch/alloc_v2.h"
#include "models/rv32/program_cluster.h"
#include "platforms/energy.h"
#include "sim/input/snitch_profile.h"
#include "sim/input/snitch_scenario.h"
#include "sim/output/chrome_trace.h"
#include "sim/output/vcd_writer.h"
#include "sim/run/pipeline.h"

namespace npusim::sim::snitch {

using Json = nlohmann::ordered_json;
using TJson = nlohmann::json;  // trace-event arguments
namespace as = alloc::snitch;

inline uint64_t ps(const sc_core::sc_time& t) { return to_ps(t); }
inline double ns_of(uint64_t p) { return static_cast<double>(p) / 1e3; }
inline std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

struct TrapRecord {
  uint32_t cluster, core;
  std::string name;
  as::TrapInfo info;
  uint64_t t_ps;
  std::string step;
  bool stopped;
};
struct UndefinedRecord {
  uint32_t cluster, core;
  std::string name;
  std::string call;
  uint32_t size, addr;
  uint64_t t_ps;
  std::string step;
};
struct FaultRecord {
  std::string kind, message, step, core;
  uint64_t t_ps;
};

struct Ctx {
  uint32_t cluster = 0, idx = 0;
  std::string name;
  bool dm = false;
  models::Core* core = nullptr;
  std::unique_ptr<as::CoreAllocator<models::Core>> alloc;
  const std::vector<Step>* own = nullptr;  // its `cores:` steps, after `program`
  std::vector<uint64_t> env;
  std::vector<uint8_t> bound;
  std::vector<uint64_t> tickets;
  const Step* current = nullptr;
  enum Status { kPending, kFinished, kStopped, kFault, kInterrupted, kIdle } status = kPending;
  models::rv32::HartRecord* hart = nullptr;  // the RV32 program this core runs, if any
  uint64_t end_ps = 0;
  uint64_t step_start = 0;  // start of the allocation step in progress (ps)
  uint64_t accesses = 0;  // loads and stores of stream/check steps
  int track = -1;
};

struct Barrier {
  uint32_t members = 0, arrived = 0;
  uint64_t episodes = 0;
  std::unique_ptr<sc_core::sc_event> ev;
};

const char* status_name(Ctx::Status s);

class SnitchPrograms : public Workload {
 public:
  SnitchPrograms(const Scenario& sc, const RunOptions& opt)
      : sc_(sc), opt_(opt),
        progress_("run " + (sc.file.empty() ? sc.name : sc.file),
                  opt.progress ? Progress::Mode::kOn : Progress::Mode::kAuto) {
    progress_.set_total(0, "steps");
  }

  void prepare() override;
  void build() override;
  void attach(std::vector<std::unique_ptr<RunObserver>>& observers) override;
  void start() override;
  void collect() override;
  std::map<std::string, double> metrics() const override;
  bool fails(bool has_expectations) const override;
  // The expectations of the run: the scenario's, and `output.missing == 0` when it names output.
  static std::vector<Expectation> expectations_of(const Scenario& sc);
  void finish_outputs(const std::map<std::string, double>& metrics) override;
  Json report(int exit_code, const std::vector<Json>& expectations) const override;
  void summary(std::ostream& out, const Json& report, const std::vector<Json>& expectations,
               int exit_code) const override;

 private:
  uint64_t eval(Ctx& x, const Expr& e);
  uint64_t eval_or(Ctx& x, const Expr& e, uint64_t dflt) { return e.present ? eval(x, e) : dflt; }
  uint32_t u32(const Expr& e, uint64_t v, const char* what) {
    if (v > 0xffffffffull)
      throw RunFault("bad operand", fmt::format("{}: {} = {} does not fit the core's 32-bit {}",
                                                 e.at.str(), e.text, v, what));
    return static_cast<uint32_t>(v);
  }
  void bind(Ctx& x, uint32_t slot, uint64_t v) {
    x.env[slot] = v;
    x.bound[slot] = 1;
  }
  void exec(Ctx& x, const std::vector<Step>& steps);
  void exec(Ctx& x, const Step& s);
  void alloc_step(Ctx& x, const Step& s);
  void barrier(Ctx& x, bool global);
  void core_main(Ctx& x);
  void slice(Ctx& x, const std::string& name, uint64_t t0, const TJson& args = TJson());
  void write_trace(uint64_t end_ps);

  // RV32 programs on the cores instead of steps (snitch_binaries.cpp).
  bool binaries() const { return !sc_.binaries.empty(); }
  void prepare_binaries();
  void start_binaries();
  void collect_binaries();
  void binary_metrics(std::map<std::string, double>& m) const;
  void binary_report(Json& r) const;
  void binary_summary(std::ostream& out, const Json& r) const;
  void binary_trace();
  std::vector<std::unique_ptr<models::rv32::ElfImage>> images_;  // one per binary entry
  std::vector<int> core_binary_;  // per core (cluster-major): its binary entry, or -1
  std::vector<std::pair<uint32_t, uint32_t>> argv_of_;  // per binary entry: argc, argv
  std::vector<std::vector<uint8_t>> argv_blob_;        // per binary entry: what argv points into
  std::vector<std::unique_ptr<models::rv32::ProgramCluster>> pclusters_;
  std::vector<std::string> missing_output_;

  const Scenario& sc_;
  const RunOptions& opt_;
  std::string platform_name_;
  SnitchPlatformConfig cfg_;
  std::unique_ptr<SnitchSystem> sys_;
  platforms::PlatformEnergy energy_;  // of the run, from collect() on
  std::vector<std::unique_ptr<Ctx>> ctx_;
  std::vector<Barrier> cluster_barriers_;
  Barrier global_barrier_;
  std::vector<TrapRecord> traps_;
  std::vector<UndefinedRecord> undefined_;
  std::vector<FaultRecord> faults_;
  std::vector<std::tuple<uint64_t, std::string, std::string>> markers_;  // t, core, text
  std::unique_ptr<ChromeTrace> trace_;
  Progress progress_;        // steps of every core, and simulated time
  uint64_t steps_done_ = 0;
  // VCD: value changes collected during the run (cores report them slightly out of time
  // order), sorted and written at the end.
  struct Change {
    uint64_t t;
    std::string name;
    uint64_t value;
  };
  std::unique_ptr<VcdWriter> vcd_;
  std::vector<Change> changes_;
  void write_vcd(uint64_t end_ps);
  uint64_t check_failures_ = 0;
};

}  // namespace npusim::sim::snitch
