#include "sim/run/pipeline.h"

#include <fmt/format.h>

#include <iostream>

#include "models/asan.h"
#if NPUSIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include <systemc>

#include "allocators/xmem/xmem_heap.h"
#include "firmware/firmware.h"
#include "firmware/stop_request.h"
#include "models/core.h"
#include "models/dma_engine.h"
#include "models/unwind.h"
#include "sim/output/version.h"

namespace npusim::sim {

uint64_t to_ps(const sc_core::sc_time& t) { return static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5); }

void simulate() {
  sc_core::sc_start();
  models::main_stack_resume();  // ASan: back on the main stack (models/unwind.h)
}

std::string result_word(int exit_code) {
  if (interrupted() && exit_code == stop_exit_code()) return fmt::format("INTERRUPTED ({})", stop_signal_name());
  return exit_code == 0 ? "PASS" : "FAIL";
}

void write_expectations_and_result(std::ostream& out, const std::vector<nlohmann::ordered_json>& expectations,
                                    int exit_code) {
  for (const auto& e : expectations)
    out << fmt::format("  expect {}: {} -> {} (actual {})\n", e["key"].get<std::string>(),
                       e["expected"].get<std::string>(), e["ok"].get<bool>() ? "ok" : "FAILED",
                       e["actual_text"].get<std::string>());
  out << fmt::format("  result: {}\n", result_word(exit_code));
}


Fault classify_fault(std::exception_ptr e) {
  Fault fl;
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
  } catch (const fw::StopRequested& x) {
    fl.kind = "interrupted";
    fl.message = x.what();
  } catch (const RunFault& x) {
    fl.kind = x.kind();
    fl.message = x.what();
  } catch (const std::exception& x) {
    fl.kind = "error";
    fl.message = x.what();
  }
  return fl;
}


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
                           const std::map<std::string, double>& metrics, std::vector<nlohmann::ordered_json>& report,
                           std::vector<std::string>& failed) {
  bool ok = true;
  for (const auto& e : expect) {
    const double actual = metrics.at(e.key);
    const bool h = e.holds(actual);
    ok = ok && h;
    report.push_back(nlohmann::ordered_json{{"key", e.key}, {"op", e.op}, {"expected", e.text}, {"value", e.value},
                          {"actual", actual}, {"actual_text", e.show(actual)}, {"ok", h}, {"at", e.at.str()}});
    if (!h)
      failed.push_back(fmt::format("{}: {} but is {}", e.at.str(), e.describe(), e.show(actual)));
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

nlohmann::ordered_json report_head(const std::string& name, const std::string& file, const std::string& description,
                 const std::string& platform, const std::vector<Setting>& settings) {
  nlohmann::ordered_json r;
  r["npusim_report_version"] = 1;
  r["npusim_version"] = version_string();  // "0.1.0 (git <short hash>)": which build wrote it
  r["scenario"] = nlohmann::ordered_json{{"name", name}, {"file", file}, {"description", description}};
  nlohmann::ordered_json overrides = nlohmann::ordered_json::array();
  for (const auto& s : settings) overrides.push_back(nlohmann::ordered_json{{"key", s.key}, {"value", s.value}});
  r["platform"] = nlohmann::ordered_json{{"name", platform}, {"overrides", overrides}};
  return r;
}

RunResult run_pipeline(Workload& w, const std::vector<Expectation>& expect, std::ostream& out,
                       std::vector<std::unique_ptr<RunObserver>> observers) {
  // SIGINT/SIGTERM from here on stop the workload at its next step; the outputs are written.
  StopSignals stop;
  w.prepare();
  w.build();
  w.attach(observers);
  w.start();
  w.run();
  w.collect();
  const auto m = w.metrics();
  std::vector<nlohmann::ordered_json> exps;
  RunResult res;
  bool ok = evaluate_expectations(expect, m, exps, res.failed_expectations);
  if (w.fails(!expect.empty())) ok = false;
  res.exit_code = ok ? 0 : 1;
  if (interrupted()) res.exit_code = stop_exit_code();  // 130 or 143, whatever else happened
  w.finish_outputs(m);
  res.report = w.report(res.exit_code, exps);
  if (interrupted()) {
    res.report["outcome"]["status"] = "interrupted";
    res.report["interrupted"] = stop_signal_name();
  }
  w.summary(out, res.report, exps, res.exit_code);
  return res;
}

}  // namespace npusim::sim
