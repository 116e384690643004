// A platform described as data: the components (with a count for replicated ones, and an
// optional group such as a cluster that replicates several components together), the socket
// bindings between them and the address map of every interconnect. The generic builder
// (platform.h) wires the models from it; sim/input reads it from a profile's `topology:`
// section (docs/platforms.md). Plain C++, no SystemC.
//
// Names are patterns: `{g}` is the index of the component's group instance, `{i}` the index
// of the replica inside it ("c{g}_core{i}" -> c0_core0, c0_core1, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npusim::platforms {

// Component kinds the builder knows (each is a model of models/).
enum class Kind { kCore, kSram, kHbm, kTcdm, kDma, kInterconnect };
const char* kind_name(Kind k);
std::optional<Kind> parse_kind(const std::string& s);

struct Group {
  std::string name;
  uint32_t count = 1;
};

struct Component {
  Kind kind = Kind::kCore;
  std::string name;    // pattern
  std::string config;  // the parameter section its model is configured from (Parameters)
  uint32_t count = 1;  // replicas per group instance
  std::string group;   // empty: not replicated with a group
  bool dma_inline = false;  // DMA only: blocking transfers run in the caller's thread
  // The part of the description it belongs to (select_part); empty: every part.
  std::string part;
};

// initiator -> target. Either side may be a pattern; the pairs are formed per instance of
// the replicated side, substituting its {g} and {i} into the other side.
struct Binding {
  std::string from, to;
};

// One region of interconnect `on`, routed to the target `to` (bound to `on`). Without base
// and size the region is the whole of the target memory; `window` maps the target HBM's
// 32-bit window (hbm.window_base/size onto window_target). A region onto an interconnect
// gives base and size. Either side may be a pattern (as in Binding); `stride` moves the base
// and `target_stride` the target offset per {g} (or {i}) of the replicated side.
struct Region {
  std::string on, name, to;
  std::optional<uint64_t> base, size;
  uint64_t stride = 0;
  uint64_t target_offset = 0;
  bool window = false;
  uint64_t target_stride = 0;
};

struct Topology {
  std::string name;
  std::vector<Group> groups;
  std::vector<Component> components;
  std::vector<Binding> bindings;
  std::vector<Region> regions;
};

// The components of one part of a description (those of `part` and those of no part), with
// the groups, bindings and regions among them, in their order: what one workload kind builds
// of a platform whose parts are not used together (neuron-gpsimd: the management core for
// Neuron steps, the GPSIMD cores for torch ops). A description without parts is returned whole.
Topology select_part(const Topology& t, const std::string& part);

// The name of a pattern for group instance g and replica i.
std::string instance_name(const std::string& pattern, uint32_t g, uint32_t i);

}  // namespace npusim::platforms
