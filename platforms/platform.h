// One Platform interface: a platform built from a Topology and the parameter sections of its
// profile by one generic builder. It names its cores, memories, DMA engines and interconnects;
// their statistics are the models' own. Specific platforms (neuron_gpsimd.h,
// snitch_cluster.h) are a topology and typed views onto the same object.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/protocol_checker.h"

#include "models/core.h"
#include "models/dma_engine.h"
#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/memory_config.h"
#include "models/snitch/tcdm.h"
#include "models/sram.h"
#include "platforms/topology.h"

namespace npusim::platforms {

// The model configurations a topology's components name in `config`.
struct Parameters {
  std::map<std::string, models::CoreConfig> cores;
  std::map<std::string, models::SramConfig> srams;
  std::map<std::string, models::HbmConfig> hbms;
  std::map<std::string, models::TcdmConfig> tcdms;
  std::map<std::string, models::DmaConfig> dmas;
  std::map<std::string, models::InterconnectConfig> interconnects;
};

// A memory of the platform and where its statistics are.
struct MemoryRef {
  std::string name;
  Kind kind;
  sc_core::sc_module* module;
  double clock_ns;                          // its clock (latency statistics are in cycles)
  const models::MemoryStats* stats;         // SRAM and HBM; nullptr for a TCDM
};

class Platform : public sc_core::sc_module {
 public:
  // Builds every component, binds every socket through platforms::bind and adds every region.
  // Throws std::invalid_argument naming the component, binding or region that is wrong.
  Platform(sc_core::sc_module_name name, const Topology& topology, const Parameters& params);
  ~Platform() override;

  const Topology& topology() const { return topo_; }
  const std::vector<models::Core*>& cores() const { return cores_; }
  const std::vector<models::DmaEngine*>& dmas() const { return dmas_; }
  const std::vector<models::Interconnect*>& interconnects() const { return ics_; }
  const std::vector<MemoryRef>& memories() const { return memories_; }
  // The protocol checkers on the bindings (empty without NPUSIM_PROTOCOL_CHECKS).
  const models::ProtocolCheckers& checkers() const { return checkers_; }

  // By instance name; throw std::out_of_range naming the missing component.
  models::Core& core(const std::string& name) const;
  models::DmaEngine& dma(const std::string& name) const;
  models::Interconnect& interconnect(const std::string& name) const;
  models::Sram& sram(const std::string& name) const;
  models::Hbm& hbm(const std::string& name) const;
  models::Tcdm& tcdm(const std::string& name) const;

 private:
  struct Instance;
  Instance& find(const std::string& name) const;
  void build_component(const Component& c, uint32_t g, const Parameters& p);
  void bind_all();
  void add_regions();

  Topology topo_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::map<std::string, Instance*> by_name_;
  std::vector<models::Core*> cores_;
  std::vector<models::DmaEngine*> dmas_;
  std::vector<models::Interconnect*> ics_;
  std::vector<MemoryRef> memories_;
  models::ProtocolCheckers checkers_;  // last: destroyed before the models they connect
};

}  // namespace npusim::platforms
