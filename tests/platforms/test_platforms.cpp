// The platforms layer: the generic builder wires what a topology says, every binding goes
// through platforms::bind, and a third platform is built from a profile alone and runs a
// scenario. Each TEST_CASE simulates (or elaborates) once; ctest runs each in its own process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "firmware/neuron_platform.h"
#include "platforms/bind.h"
#include "platforms/neuron_gpsimd.h"
#include "platforms/snitch_cluster.h"
#include "sim/input/platform_config.h"
#include "sim/input/snitch_profile.h"
#include "sim/run/scenario_runner.h"

using namespace npusim;

namespace {
const std::string kDual = NPUSIM_SOURCE_DIR "/scenarios/platforms/neuron-dual-core.yaml";

bool logged(const std::string& b) {
  const auto& l = platforms::binding_log();
  return std::find(l.begin(), l.end(), b) != l.end();
}
}  // namespace

TEST_CASE("platforms: the neuron-gpsimd platform is wired through platforms::bind as its topology says") {
  const size_t before = platforms::binding_log().size();
  fw::NeuronPlatform p("soc", fw::NeuronPlatformConfig::gpsimd());
  const auto& l = platforms::binding_log();
  REQUIRE(l.size() - before == 4);
  CHECK(std::vector<std::string>(l.begin() + static_cast<long>(before), l.end()) ==
        std::vector<std::string>{"interconnect -> dataram", "interconnect -> hbm", "mgmt_core -> interconnect",
                                 "dma -> interconnect"});
  // With NPUSIM_PROTOCOL_CHECKS every binding has its protocol checker, named after it.
  if (models::protocol_checks_built_in()) {
    REQUIRE(p.checkers().size() == 4);
    CHECK(std::string(p.checkers()[2]->name()) == "soc.check_mgmt_core_to_interconnect");
    CHECK(p.checkers()[0]->config().map_last == p.sram("dataram").config().size - 1);
  } else {
    CHECK(p.checkers().empty());
  }
  CHECK(platforms::checker_name("c1_dm -> interconnect") == "check_c1_dm_to_interconnect");
  REQUIRE(p.cores().size() == 1);
  CHECK(std::string(p.core.name()) == "soc.mgmt_core");
  CHECK(p.memories().size() == 2);
  const auto& regions = p.memory.interconnect.map().regions();
  REQUIRE(regions.size() == 3);
  CHECK(std::count_if(regions.begin(), regions.end(), [](const auto& r) { return r.name == "hbm_window"; }) == 1);
  CHECK_THROWS_AS(p.sram("hbm"), std::out_of_range);
  const platforms::Platform& base = p;  // NeuronPlatform::core is the firmware's core
  CHECK_THROWS_AS(base.core("nope"), std::out_of_range);
}

TEST_CASE("platforms: snitch-cluster clusters are replicated groups, bound in the old order") {
  auto cfg = sim::load_snitch_platform("snitch-cluster", {{"cluster.clusters", "2", {}}});
  const size_t before = platforms::binding_log().size();
  platforms::SnitchSystem s("snitch", cfg);
  // 2 TCDMs + the L3 on the interconnect, 2 x (9 cores + 1 DMA) onto it.
  CHECK(platforms::binding_log().size() - before == 3 + 2 * 10);
  CHECK(s.checkers().size() == (models::protocol_checks_built_in() ? 3 + 2 * 10 : 0));
  CHECK(logged("interconnect -> tcdm1"));
  CHECK(logged("c1_dm -> interconnect"));
  REQUIRE(s.cores().size() == 18);
  CHECK(std::string(s.core(1, 8).basename()) == "c1_dm");
  CHECK(std::string(s.core(1, 0).basename()) == "c1_core0");
  CHECK(std::string(s.dma(1).basename()) == "c1_dma");
  const auto& regions = s.interconnect().map().regions();
  REQUIRE(regions.size() == 3);
  CHECK(regions[1].base == cfg.tcdm_base(1));
}

TEST_CASE("platforms: a topology naming a missing parameter section is refused, naming it") {
  platforms::Topology t;
  t.components = {{platforms::Kind::kCore, "c", "no_such_section", 1, "", false, ""}};
  CHECK_THROWS_WITH(platforms::Platform("bad", t, platforms::Parameters{}),
                    Catch::Contains("no_such_section") && Catch::Contains("'c'"));
}

TEST_CASE("platforms: the third platform, two cores sharing one dataram, from its profile alone") {
  const auto cfg = sim::load_platform(kDual, {});
  fw::NeuronPlatform p("soc", cfg);
  REQUIRE(p.cores().size() == 2);
  REQUIRE(p.dmas().size() == 2);
  CHECK(logged("core1 -> interconnect"));
  CHECK(logged("dma1 -> interconnect"));
  // core0 runs the firmware and writes a word to the dataram; core1 reads it through its own
  // port after it: one memory, two initiators.
  const uint64_t addr = cfg.memory.dataram.base + 0x100;
  uint32_t seen = 0;
  p.run([addr](fw::Firmware& f) {
    const uint32_t v = 0xc0ffee;
    f.core().write(addr, &v, 4);
  });
  models::Core& c1 = static_cast<platforms::Platform&>(p).core("core1");
  c1.set_program([&seen, addr](models::Core& c) {
    c.idle(sc_core::sc_time(1, sc_core::SC_US));
    c.read(addr, &seen, 4);
  });
  fw::simulate(p);
  CHECK(seen == 0xc0ffee);
  CHECK(c1.stats().block_reads == 1);
  CHECK(c1.stats().bytes_read == 4);
  CHECK(p.memory.dataram.stats().reads >= 1);
}

TEST_CASE("platforms: a scenario runs on the third platform through the run pipeline") {
  const sim::Scenario sc = sim::parse_scenario(sim::default_scenario_text(), sim::default_scenario_name());
  sim::RunOptions opt;
  opt.platform_override = kDual;
  std::ostringstream out;
  const auto r = sim::run_scenario(sc, opt, out);
  INFO(out.str());
  CHECK(r.exit_code == 0);
  REQUIRE(r.report["cores"].size() == 2);
  CHECK(r.report["cores"][0]["name"] == "core0");
  CHECK(r.report["cores"][1]["name"] == "core1");
  CHECK(r.report["cores"][0]["bus_transactions"].get<uint64_t>() > 0);
  CHECK(r.report["cores"][1]["bus_transactions"].get<uint64_t>() == 0);
  CHECK(r.report["platform"]["name"] == kDual);
  CHECK(out.str().find("  core0            busy") != std::string::npos);
}

TEST_CASE("platforms: neuron-gpsimd is one description with a GPSIMD core count of 1 or 2 or 8") {
  for (uint32_t n : {1u, 2u, 8u}) {
    auto cfg = fw::NeuronPlatformConfig::gpsimd();
    cfg.gpsimd_cores.cores = n;
    cfg.gpsimd_cores.dma_engines = 2 * n;
    const uint64_t scratch = cfg.firmware.layout.hbm_scratch_size;
    // The whole description: the management part (5 components, one of them the shared HBM)
    // and n GPSIMD groups of four components behind one fabric.
    const auto all = cfg.description();
    REQUIRE(all.groups.size() == 1);
    CHECK(all.groups[0].count == n);
    // The management part is the same at every core count.
    const auto m = cfg.management_topology();
    CHECK(m.components.size() == 5);
    CHECK(m.bindings.size() == 4);
    CHECK(m.regions.size() == 3);
    // The GPSIMD part, built by the generic builder.
    const size_t before = platforms::binding_log().size();
    const std::string name = "g" + std::to_string(n);
    platforms::Platform p(name.c_str(), cfg.gpsimd_topology(), cfg.parameters());
    CHECK(platforms::binding_log().size() - before == 1 + n * 4);
    REQUIRE(p.cores().size() == n);
    CHECK(std::string(p.cores()[n - 1]->basename()) == "gpsimd" + std::to_string(n - 1));
    CHECK(p.dmas().size() == n);
    CHECK(p.dmas()[0]->config().channels == 2);  // dma_engines / cores
    CHECK(p.interconnects().size() == n + 1);
    CHECK(p.memories().size() == n + 1);  // n TCMs and the HBM
    CHECK_THROWS_AS(p.core("mgmt_core"), std::out_of_range);
    CHECK(p.interconnect("hbm_ic").hop_latency() == p.interconnect("core0_ic").hop_latency() * 10);
    // Core g's window maps its own scratch slice of HBM, through the fabric (target 1).
    for (uint32_t g = 0; g < n; ++g) {
      const auto& regions = p.interconnect("core" + std::to_string(g) + "_ic").map().regions();
      REQUIRE(regions.size() == 3);
      const auto w = std::find_if(regions.begin(), regions.end(), [](const auto& r) { return r.name == "hbm_window"; });
      REQUIRE(w != regions.end());
      CHECK(w->base == cfg.firmware.layout.hbm_window);
      CHECK(w->size == scratch);
      CHECK(w->target == 1);
      CHECK(w->target_offset == cfg.memory.hbm.base + g * scratch);
      const auto h = std::find_if(regions.begin(), regions.end(), [](const auto& r) { return r.name == "hbm"; });
      REQUIRE(h != regions.end());
      CHECK(h->base == cfg.memory.hbm.base);
      CHECK(h->size == cfg.memory.hbm.size());
      CHECK(h->target == 1);
    }
  }
}

TEST_CASE("platforms: a description without parts is one part and a profile topology replaces the built-in") {
  platforms::Topology t;
  t.components = {{platforms::Kind::kCore, "c", "core", 1, "", false, ""}};
  CHECK(platforms::select_part(t, platforms::kGpsimdPart).components.size() == 1);
  auto cfg = sim::load_platform(kDual, {});
  REQUIRE(cfg.topology.has_value());
  CHECK(cfg.management_topology().components.size() == 5);
  CHECK(cfg.management_topology().name == "neuron-dual-core");
  // Torch runs keep the built-in GPSIMD cores.
  CHECK(cfg.gpsimd_topology().name == "neuron-gpsimd");
  CHECK(cfg.gpsimd_topology().components.size() == 6);
}
