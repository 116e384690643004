// `npusim cc`: builds an RV32 program for a platform's cores with Debian's clang-14 and
// ld.lld-14, npusim's start-up code and runtime, the platform's numbers as -D macros and a link
// script made from its memory map: on snitch-cluster the Snitch runtime (firmware/snrt,
// docs/snitch-programs.md), on neuron-gpsimd the Neuron device library for the management core
// (firmware/neuron, docs/neuron-programs.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "platforms/snitch_cluster.h"
#include "sim/input/platform_config.h"

namespace npusim::sim {

// npusim's host interface (handled by the core, not a memory): PUTCHAR at +0x00, EXIT at
// +0x08, the same address in every cluster.
constexpr uint32_t kNpusimHostBase = 0x1002'F000;
// The NOLOAD section the simulator writes each core's argv into before reset.
constexpr uint32_t kNpusimArgsBytes = 4096;
// npusim's DMA registers on the neuron-gpsimd management core (docs/neuron-programs.md).
constexpr uint32_t kNpusimDmaBase = 0x1002'F100;
// The Neuron device library's state (allocator.o's .bss) is this many bytes.
constexpr uint32_t kAllocatorBssBytes = 0x124;

// A failed build: `code` is the exit code (2: bad input, a source that does not compile,
// a missing tool; 1: the system failed us).
struct BuildError : std::runtime_error {
  int code;
  BuildError(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

struct ProgramBuildOptions {
  std::string platform = "snitch-cluster";  // a built-in name or a profile file
  std::vector<Setting> sets;                // --set, in order
  std::string output;                       // -o
  std::vector<std::string> sources;         // .c, .cc/.cpp/.cxx, .S/.s
  std::string opt_level = "2";              // -O<level>
  bool debug = false;                       // -g
  std::vector<std::string> includes;        // -I
  std::vector<std::string> defines;         // -D (NAME or NAME=VALUE)
  std::vector<std::string> undefines;       // -U
  std::vector<std::string> warnings;        // -W<what>
  std::vector<std::string> features;        // -f<what>
  std::string std;                          // --std=
  bool verbose = false;                     // -v: print every command
};

// The -D macros a snitch-cluster profile gives a program (name, value), in the contract's
// order: SNRT_CLUSTER_NUM ... NPUSIM_HOST_BASE.
std::vector<std::pair<std::string, std::string>> snitch_program_macros(
    const platforms::SnitchPlatformConfig& cfg);

// The link script for a snitch-cluster profile: everything in L3 from l3.base, the TLS
// template with the allocator state first, .npusim_args, _edram, entry _start.
std::string snitch_link_script(const platforms::SnitchPlatformConfig& cfg);

// The runtime's folder (include/, src/): $NPUSIM_SNRT_DIR, else share/npusim/snrt beside the
// installed program, else the source tree npusim was built from. Throws BuildError.
std::string snrt_dir();

// The -D macros a neuron-gpsimd profile gives a firmware program (name, value):
// NPUSIM_HOST_BASE ... NPUSIM_VECTOR_BYTES (docs/neuron-programs.md).
std::vector<std::pair<std::string, std::string>> neuron_program_macros(const fw::NeuronPlatformConfig& cfg);

// The link script for a neuron-gpsimd profile: the image in FWMEM [firmware.image_base, +size),
// the allocators' state (.allocator_bss) at heaps.data_scratch + heaps.bss_offset, entry _start.
std::string neuron_link_script(const fw::NeuronPlatformConfig& cfg);

// The Neuron device library's folder (include/, src/): $NPUSIM_NEURON_DIR, else
// share/npusim/neuron beside the installed program, else the source tree. Throws BuildError.
std::string neuron_dir();

// Builds the program; progress and -v commands go to `log`. Throws BuildError or InputError.
void build_program(const ProgramBuildOptions& opt, std::ostream& log);

}  // namespace npusim::sim
