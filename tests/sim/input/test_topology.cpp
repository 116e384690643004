// Profiles' `topology:` sections (sim/input/topology_input.cpp): the built-in profile's
// description is the C++ default, and bad descriptions are refused naming file and line.
#include <catch2/catch.hpp>

#include <fstream>

#include "platforms/neuron_gpsimd.h"
#include "sim/input/input_error.h"
#include "sim/input/platform_config.h"

using namespace npusim;

namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string path = "test_topology_" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

const char* kTopologyHead = "platform: x\nextends: neuron-gpsimd\ntopology:\n";

}  // namespace

TEST_CASE("topology: the built-in neuron-gpsimd profile is the one C++ description with gpsimd.cores") {
  const auto a = sim::load_platform("neuron-gpsimd", {});
  CHECK_FALSE(a.topology.has_value());  // no second copy of the description in the profile
  CHECK(a.description().name == "neuron-gpsimd");
  const auto two = sim::load_platform("neuron-gpsimd", {{"gpsimd.cores", "2", {}}});
  const auto g = two.gpsimd_topology();
  REQUIRE(g.groups.size() == 1);
  CHECK(g.groups[0].count == 2);
  // The management part does not change with the core count.
  const auto m8 = a.management_topology(), m2 = two.management_topology();
  REQUIRE(m8.components.size() == 5);
  REQUIRE(m2.components.size() == 5);
  for (size_t i = 0; i < m8.components.size(); ++i) CHECK(m8.components[i].name == m2.components[i].name);
  CHECK(m8.groups.empty());
}

TEST_CASE("topology: the dual-core profile extends the built-in values and replaces the topology") {
  const auto c = sim::load_platform(NPUSIM_SOURCE_DIR "/scenarios/platforms/neuron-dual-core.yaml", {});
  const auto builtin = sim::load_platform("neuron-gpsimd", {});
  CHECK(c.memory.hbm.channels == builtin.memory.hbm.channels);
  CHECK(c.dma.setup_cycles == builtin.dma.setup_cycles);
  REQUIRE(c.topology->components.size() == 5);
  CHECK(c.topology->components[3].name == "core{i}");
  CHECK(c.topology->components[3].count == 2);
}

TEST_CASE("topology: counts and addresses may name a profile key") {
  const auto p = write("keys", std::string(kTopologyHead) +
                                   "  components:\n"
                                   "    - {kind: core, name: \"c{i}\", count: dma.channels}\n");
  CHECK(sim::load_platform(p, {{"dma.channels", "3", {}}}).topology->components[0].count == 3);
}

TEST_CASE("topology: bad descriptions name the file, the line and the value") {
  auto err = [](const std::string& name, const std::string& body) {
    try {
      sim::load_platform(write(name, std::string(kTopologyHead) + body), {});
    } catch (const sim::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err("kind", "  components:\n    - {kind: gpu, name: g}\n"),
             Catch::Contains("test_topology_kind.yaml:5") && Catch::Contains("gpu") && Catch::Contains("unknown kind"));
  CHECK_THAT(err("bind", "  components:\n    - {kind: core, name: c}\n  bindings:\n    - c -> nowhere\n"),
             Catch::Contains(":7") && Catch::Contains("nowhere"));
  CHECK_THAT(err("arrow", "  components:\n    - {kind: core, name: c}\n  bindings:\n    - c nowhere\n"),
             Catch::Contains("initiator -> target"));
  CHECK_THAT(err("key", "  components:\n    - {kind: core, name: c, colour: red}\n"),
             Catch::Contains("colour") && Catch::Contains("unknown component key"));
  CHECK_THAT(err("count", "  components:\n    - {kind: core, name: c, count: lots}\n"),
             Catch::Contains("lots"));
  CHECK_THAT(err("inline", "  components:\n    - {kind: core, name: c, inline: true}\n"),
             Catch::Contains("only a dma"));
  CHECK_THAT(err("empty", "  name: x\n"), Catch::Contains("at least one component"));
}
