#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "allocators/neuron/neuron_layout.h"
#include "sim/cli/commands.h"
#include "sim/input/yaml_input.h"
#include "sim/tools/heap_replay.h"
#include "sim/tools/snitch_replay.h"

namespace npusim::sim {

namespace {

// CLI11 validator-free number parsing: decimal or 0x-hex, with the option named in errors.
uint64_t cli_number(const std::string& opt, const std::string& v) {
  auto n = parse_number(v);
  if (!n) throw CLI::ValidationError(opt, "'" + v + "' is not a decimal or 0x-hex number");
  return *n;
}

// The value given to option `f`, quoted for a message ("'0x100'"; a flag: its name).
std::string given(const CLI::App* app, const char* f) {
  const auto& r = app->get_option(f)->results();
  return "'" + (r.empty() || std::string(f) == "--stop-on-trap" ? std::string(f) : r.front()) + "'";
}

}  // namespace

void register_heap_commands(CLI::App& app, Commands& cmds) {
  auto* heap = app.add_subcommand("heap", "Allocator tools");
  heap->require_subcommand(1);
  auto* replay = heap->add_subcommand(
      "replay", "Replay an allocation trace on an exact allocator model; JSON Lines out");
  struct Args {
    ReplayOptions opt;
    std::string file, pool_base, pool_size, blocks, header_base, mgr_base;
    std::string core_idx, compute_cores, base, end, startup_bytes;
    bool stop_on_trap = false;
  };
  auto a = std::make_shared<Args>();
  replay->add_option("--allocator", a->opt.allocator,
                     "xmem | neuron-hbm | neuron-dataram | neuron-libc | snitch-l1 | snitch-l3")
      ->check(CLI::IsMember(
          {"xmem", "neuron-hbm", "neuron-dataram", "neuron-libc", "snitch-l1", "snitch-l3"}));
  replay->add_option("--pool-base", a->pool_base, "xmem: pool base address (default 0x10000000)");
  replay->add_option("--pool-size", a->pool_size, "xmem: pool size in bytes (default 0x10000)");
  replay->add_option("--blocks", a->blocks, "xmem: number of descriptors (default 32)");
  replay->add_option("--header", a->opt.header,
                     "xmem: 'after' (external header after the pool) or 'none' (in the pool)");
  replay->add_option("--header-base", a->header_base, "xmem: external header address");
  replay->add_option("--mgr-base", a->mgr_base, "xmem: manager address");
  replay->add_flag("--summary", a->opt.summary, "Print a human summary instead of JSON Lines");
  replay->add_flag("--progress", a->opt.progress,
                   "Show progress on stderr even when it is not a terminal (on a terminal: always)");
  replay->add_option("--core-idx", a->core_idx, "snitch: the replaying core (compute cores, then DM)");
  replay->add_option("--compute-cores", a->compute_cores, "snitch: compute cores per cluster (8)");
  replay->add_option("--base", a->base, "snitch: address init aligns up (TCDM start / _edram)");
  replay->add_option("--end", a->end, "snitch: allocator end (replaces the computed one)");
  replay->add_option("--startup-bytes", a->startup_bytes,
                     "snitch-l1: the runtime's own first allocation (4; 0 for none)");
  replay->add_flag("--stop-on-trap", a->stop_on_trap, "snitch: stop at the first trap (exit 1)");
  replay->add_option("OPS_FILE", a->file, "Trace: init/alloc/free/free_space, one per line")
      ->required();
  replay->callback([a, &cmds, replay] {
    // Flags of one allocator family given for another would be ignored silently: refuse them.
    const bool snitch = a->opt.allocator.rfind("snitch-", 0) == 0;
    for (const char* f : {"--pool-base", "--pool-size", "--blocks", "--header", "--header-base", "--mgr-base"})
      if (a->opt.allocator != "xmem" && replay->count(f) > 0)
        throw CLI::ValidationError(f, given(replay, f) + " is only for --allocator xmem (given: " + a->opt.allocator + ")");
    for (const char* f : {"--core-idx", "--compute-cores", "--base", "--end", "--startup-bytes", "--stop-on-trap"})
      if (!snitch && replay->count(f) > 0)
        throw CLI::ValidationError(f, given(replay, f) + " is only for --allocator snitch-l1 or snitch-l3 (given: " +
                                          a->opt.allocator + ")");
    if (!a->pool_base.empty()) a->opt.pool_base = cli_number("--pool-base", a->pool_base);
    if (!a->pool_size.empty()) a->opt.pool_size = cli_number("--pool-size", a->pool_size);
    if (!a->blocks.empty()) {
      a->opt.blocks = cli_number("--blocks", a->blocks);
      if (a->opt.blocks == 0 || a->opt.blocks > (1u << 20))
        throw CLI::ValidationError("--blocks", "'" + a->blocks + "' is not in [1, 1048576] descriptors");
    }
    if (!a->header_base.empty()) a->opt.header_base = cli_number("--header-base", a->header_base);
    if (!a->mgr_base.empty()) a->opt.mgr_base = cli_number("--mgr-base", a->mgr_base);
    std::istringstream in;
    try {
      in.str(read_input_file(a->file, "ops"));  // bounded: a FIFO or /dev/zero is not read forever
    } catch (const InputError& e) {
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
      return;
    }
    if (a->opt.allocator.rfind("snitch-", 0) == 0) {
      SnitchReplayOptions so;
      so.allocator = a->opt.allocator;
      so.stop_on_trap = a->stop_on_trap;
      so.progress = a->opt.progress;
      if (!a->core_idx.empty()) so.core_idx = cli_number("--core-idx", a->core_idx);
      if (!a->compute_cores.empty()) so.compute_cores = cli_number("--compute-cores", a->compute_cores);
      if (!a->base.empty()) so.base = cli_number("--base", a->base);
      if (!a->end.empty()) so.end = cli_number("--end", a->end);
      if (!a->startup_bytes.empty()) so.startup_bytes = cli_number("--startup-bytes", a->startup_bytes);
      try {
        cmds.exit_code = run_snitch_replay(so, in, a->file, std::cout);
      } catch (const InputError& e) {
        std::cout.flush();
        std::cerr << "npusim: error: " << e.what() << '\n';
        cmds.exit_code = 2;
      }
      return;
    }
    try {
      const auto ops = parse_ops(in, a->file);
      if (a->opt.allocator != "xmem") {
        for (const auto& w : alloc::neuron::lint_layout(alloc::neuron::NeuronLayout{}))
          std::cerr << "npusim: layout warning: " << w << '\n';
      }
      cmds.exit_code = run_heap_replay(a->opt, ops, a->file, std::cout);
    } catch (const InputError& e) {
      std::cout.flush();
      std::cerr << "npusim: error: " << e.what() << '\n';
      cmds.exit_code = 2;
    }
  });
}

}  // namespace npusim::sim
