// --dump-config: the effective profile as YAML that the loaders read back to the same config.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "sim/input/input_error.h"
#include "sim/input/profile_dump.h"
#include "sim/input/snitch_profile.h"

using namespace npusim::sim;

namespace {

std::string write_temp(const std::string& text, const char* name) {
  const std::string path = std::string("profile_dump_") + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

std::vector<Setting> sets(std::initializer_list<std::pair<const char*, const char*>> kv) {
  std::vector<Setting> out;
  for (const auto& [k, v] : kv) out.push_back({k, v, Where{"--set", 0, 0}});
  return out;
}

}  // namespace

TEST_CASE("dump-config: a neuron-gpsimd profile with overrides reads back to the same config", "[dump]") {
  const auto o = sets({{"dma.channels", "2"}, {"heaps.num_blocks", "16"}, {"hbm.tRCD", "20"},
                       {"windows.0.hi", "0x88000"}, {"firmware.method", "vec_memcpy"}});
  const auto want = load_platform("neuron-gpsimd", o);
  const std::string yaml = profile_yaml(apply_settings(profile_settings("neuron-gpsimd"), o), "test");
  CHECK_THAT(yaml, Catch::StartsWith("# test\nplatform: neuron-gpsimd\n"));
  const auto got = load_platform(write_temp(yaml, "neuron"), {});
  CHECK(got.dma.channels == 2);
  CHECK(got.dma.channels == want.dma.channels);
  CHECK(got.firmware.layout.num_blocks == 16);
  CHECK(got.memory.hbm.tRCD == 20);
  CHECK(got.memory.hbm.channels == want.memory.hbm.channels);
  REQUIRE(got.dma.windows.size() == 1);
  CHECK(got.dma.windows[0].hi == 0x88000);
  CHECK(got.dma.windows[0].lo == want.dma.windows[0].lo);
  CHECK(got.firmware.method == npusim::fw::TransferMethod::kVecMemcpy);
  CHECK(got.core.clock_ghz == want.core.clock_ghz);
  CHECK(got.gpsimd_cores.tensor_arena_bytes == want.gpsimd_cores.tensor_arena_bytes);
  // A dump of the dump is the same profile.
  CHECK(profile_yaml(profile_settings(write_temp(yaml, "neuron")), "test") == yaml);
}

TEST_CASE("dump-config: a snitch-cluster profile with overrides reads back to the same config", "[dump]") {
  const auto o = sets({{"cluster.clusters", "2"}, {"tcdm.banks", "16"}, {"l3.tRCD", "7"}});
  const auto want = load_snitch_platform("snitch-cluster", o);
  const std::string yaml = profile_yaml(apply_settings(profile_settings("snitch-cluster"), o), "x");
  const auto got = load_snitch_platform(write_temp(yaml, "snitch"), {});
  CHECK(got.clusters == 2);
  CHECK(got.tcdm.geometry.banks == 16);
  CHECK(got.l3.tRCD == 7);
  CHECK(got.runtime.tcdm_size == want.runtime.tcdm_size);
  CHECK(got.runtime.l3_end == want.runtime.l3_end);
}

TEST_CASE("dump-config: an override keeps the key's place, a new key is appended", "[dump]") {
  const auto base = sets({{"a.x", "1"}, {"a.y", "2"}});
  const auto out = apply_settings(base, sets({{"a.x", "5"}, {"b.z", "3"}}));
  REQUIRE(out.size() == 3);
  CHECK(out[0].key == "a.x");
  CHECK(out[0].value == "5");
  CHECK(out[2].key == "b.z");
  CHECK(profile_yaml(out, "") == "a:\n  x: 5\n  y: 2\nb:\n  z: 3\n");
}
