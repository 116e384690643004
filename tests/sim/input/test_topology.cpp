// Profiles' `topology:` sections (sim/input/topology_input.cpp): the built-in profile's
// description is the C++ default, and bad descriptions are refused naming file and line.
#include <catch2/catch.hpp>

#include <fstream>

#include "platforms/neuron_gpsimd.h"
#include "sim/input/platform_config.h"
#include "sim/tools/heap_replay.h"

using namespace npusim;

namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string path = "test_topology_" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

const char* kHead = "platform: x\nextends: neuron-gpsimd\ntopology:\n";

}  // namespace

TEST_CASE("topology: the built-in neuron-gpsimd profile describes the C++ default topology") {
  const auto a = sim::load_platform("neuron-gpsimd", {}).topology;
  const auto b = platforms::neuron_gpsimd_topology();
  CHECK(a.name == b.name);
  REQUIRE(a.components.size() == b.components.size());
  for (size_t i = 0; i < a.components.size(); ++i) {
    CHECK(a.components[i].kind == b.components[i].kind);
    CHECK(a.components[i].name == b.components[i].name);
    CHECK(a.components[i].config == b.components[i].config);
    CHECK(a.components[i].count == b.components[i].count);
    CHECK(a.components[i].dma_inline == b.components[i].dma_inline);
  }
  REQUIRE(a.bindings.size() == b.bindings.size());
  for (size_t i = 0; i < a.bindings.size(); ++i) {
    CHECK(a.bindings[i].from == b.bindings[i].from);
    CHECK(a.bindings[i].to == b.bindings[i].to);
  }
  REQUIRE(a.regions.size() == b.regions.size());
  for (size_t i = 0; i < a.regions.size(); ++i) {
    CHECK(a.regions[i].name == b.regions[i].name);
    CHECK(a.regions[i].window == b.regions[i].window);
    CHECK(a.regions[i].base == b.regions[i].base);
  }
}

TEST_CASE("topology: the dual-core profile extends the built-in values and replaces the topology") {
  const auto c = sim::load_platform(NPUSIM_SOURCE_DIR "/scenarios/platforms/neuron-dual-core.yaml", {});
  const auto builtin = sim::load_platform("neuron-gpsimd", {});
  CHECK(c.memory.hbm.channels == builtin.memory.hbm.channels);
  CHECK(c.dma.setup_cycles == builtin.dma.setup_cycles);
  REQUIRE(c.topology.components.size() == 5);
  CHECK(c.topology.components[3].name == "core{i}");
  CHECK(c.topology.components[3].count == 2);
}

TEST_CASE("topology: counts and addresses may name a profile key") {
  const auto p = write("keys", std::string(kHead) +
                                   "  components:\n"
                                   "    - {kind: core, name: \"c{i}\", count: dma.channels}\n");
  CHECK(sim::load_platform(p, {{"dma.channels", "3", {}}}).topology.components[0].count == 3);
}

TEST_CASE("topology: bad descriptions name the file, the line and the value") {
  auto err = [](const std::string& name, const std::string& body) {
    try {
      sim::load_platform(write(name, std::string(kHead) + body), {});
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
