// `npusim traffic`: the command line of sim/traffic.h.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>
#include <memory>

#include "models/memory_config.h"
#include "sim/cli/commands.h"
#include "sim/input/input_error.h"
#include "sim/input/platform_config.h"
#include "sim/input/scenario.h"
#include "sim/run/stop_signal.h"
#include "sim/tools/traffic.h"

namespace npusim::sim {

void register_traffic_command(CLI::App& app, Commands& cmds) {
  auto* t = app.add_subcommand(
      "traffic", "Characterise a memory: bandwidth, latency and row hits of a request pattern");
  struct Args {
    TrafficOptions opt;
    std::string requests, size, outstanding, seed, span, issue_width;
    double rate = 0;
    std::vector<std::string> sets;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  t->add_option("--memory", a->opt.memory, "hbm | dataram")->check(CLI::IsMember({"hbm", "dataram"}));
  t->add_option("--pattern", a->opt.pattern, "seq | random | stride:BYTES");
  t->add_option("--requests", a->requests, "Number of requests (default 100000)");
  t->add_option("--size", a->size, "Bytes per request (default 64)");
  t->add_option("--outstanding", a->outstanding,
                "Requests in flight; 0 = as many as the memory queues (default)");
  t->add_option("--issue-width", a->issue_width,
                "Requests offered per memory cycle, stalling while the target queue is full "
                "(as a DRAMsim3 driver); with it --outstanding 0 means no limit");
  auto* rate = t->add_option("--rate", a->rate, "Issue rate limit, requests per memory cycle");
  t->add_option("--read-ratio", a->opt.read_ratio, "Fraction of reads (default 1)");
  t->add_option("--seed", a->seed, "Seed of the random pattern and the read/write mix");
  t->add_option("--span", a->span,
                "Bytes of the memory the pattern covers (default: all of it for reads, "
                "at most 1 GiB when writing)");
  t->add_option("--platform", a->opt.platform, "Memory configuration YAML (models/hbm2.yaml)");
  t->add_option("--set", a->sets, "Override a configuration field: section.key=value")
      ->allow_extra_args(false);  // one value per --set
  t->add_flag("--json", a->json, "One JSON object instead of the table");
  auto* trace = t->add_option("--trace", a->opt.trace,
                "Replay this request trace instead of --pattern (formats: docs/traces.md)");
  t->add_option("--trace-format", a->opt.trace_format,
                "Format of --trace: dramsim3 | ramulator | ramulator2 | stl | rstl (default: "
                "from the name, .stl or .rstl, or from its first request line)");
  auto* write_trace = t->add_option("--write-trace", a->opt.write_trace,
                "Write the requests the run issues, with their issue cycles, as a trace");
  t->add_option("--write-trace-format", a->opt.write_trace_format,
                "Format of --write-trace (default: --trace-format without --trace, else "
                "stl or rstl for a .stl or .rstl name, else dramsim3)");
  t->add_flag("--per-channel", a->opt.per_channel,
              "HBM: the energy of each channel (pseudo-channel) too, under energy.channels");
  t->add_flag("--progress", a->opt.progress,
              "Show progress on stderr even when it is not a terminal (on a terminal: always)");
  t->callback([a, rate, trace, write_trace, &cmds] {
    auto number = [](const std::string& opt, const std::string& v) {
      auto n = parse_number(v);
      if (!n) throw CLI::ValidationError(opt, "'" + v + "' is not a decimal or 0x-hex number");
      return *n;
    };
    if (!a->requests.empty()) {
      a->opt.requests = number("--requests", a->requests);
      a->opt.requests_given = true;
    }
    // Byte counts take the suffixes `run` takes (KiB, MiB, GiB, K, M, G, B).
    auto bytes = [](const std::string& opt, const std::string& v) {
      auto n = parse_size(v);
      if (!n) throw CLI::ValidationError(opt, "'" + v + "' is not a size (decimal or 0x-hex, optional KiB/MiB/GiB)");
      return *n;
    };
    if (!a->size.empty()) a->opt.size = bytes("--size", a->size);
    if (!a->outstanding.empty()) a->opt.outstanding = number("--outstanding", a->outstanding);
    if (!a->issue_width.empty()) {
      a->opt.issue_width = number("--issue-width", a->issue_width);
      if (a->opt.issue_width == 0)
        throw CLI::ValidationError("--issue-width", "'0': must be at least 1 request per cycle");
    }
    if (!a->seed.empty()) a->opt.seed = number("--seed", a->seed);
    if (!a->span.empty()) a->opt.span = bytes("--span", a->span);
    if (rate->count() > 0) a->opt.rate = a->rate;
    try {
      // An empty name is not "no trace": it would run the pattern instead of a replay.
      for (const auto* o : {trace, write_trace})
        if (o->count() > 0 && o->as<std::string>().empty())
          throw InputError(o->get_name(), 0, "", "needs a file name, not an empty string");
      for (const auto& s : a->sets) {
        auto o = models::parse_override(s);
        for (const auto& [k, v] : a->opt.overrides)
          if (k == o.first && v != o.second)
            throw InputError("--set", 0, s,
                             fmt::format("{} is already set to '{}' by an earlier --set: give a key once", k, v));
        a->opt.overrides.push_back(std::move(o));
      }
      StopSignals stop;  // SIGINT/SIGTERM: the pattern ends at the next request; results printed
      const TrafficResult r = run_traffic(a->opt);
      if (a->json) print_json(r, std::cout);
      else print_text(r, std::cout);
      cmds.exit_code = stop_exit_code();  // 0, or 130/143
    } catch (const models::ConfigError& e) {
      const InputError ie(e.file(), e.line(), e.key() == "<file>" ? e.value() : e.key() + "=" + e.value(),
                          config_reason(e, e.key(), e.value()));
      std::cerr << "npusim: error: " << ie.what() << '\n';
      cmds.exit_code = 2;
    } catch (const InputError& e) {  // a platform profile's error
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
    } catch (const TrafficError& e) {
      // "--opt VALUE: why" in the one shape: "--opt: why (at 'VALUE')".
      std::string m = e.what();
      const size_t sp = m.find(' '), colon = m.find(": ");
      if (m.rfind("--", 0) == 0 && sp != std::string::npos && colon != std::string::npos && sp < colon) {
        std::string v = m.substr(sp + 1, colon - sp - 1);
        if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
        m = InputError(m.substr(0, sp), 0, v, m.substr(colon + 2)).what();
      }
      std::cerr << "npusim: error: " << m << '\n';
      cmds.exit_code = interrupted() ? stop_exit_code() : 2;  // a signal stopped the trace's read
    }
  });
}

}  // namespace npusim::sim
