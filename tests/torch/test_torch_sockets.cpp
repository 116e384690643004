// Every byte of a torch op through the sockets: the library's bulk ops and the host
// copies move through a core's port into the HBM model (timed, counted), and tcm_malloc
// pointers come from a DMI grant of the TCM model that a revocation ends. One op run per test
// case (SystemC elaborates once per process).
#include <catch2/catch.hpp>

#include <algorithm>

#include "firmware/torch/runtime.h"
#include "platforms/bind.h"

namespace tr = npusim::torchrt;

extern void (*npusim_test_tcm_hook)();  // tests/torch/bad_kernels.cpp

namespace {

npusim::fw::NeuronPlatformConfig platform() {
  auto c = npusim::fw::NeuronPlatformConfig::gpsimd();
  c.memory.hbm.channels = 16;
  c.memory.hbm.tck_ns = 0.625;
  return c;
}

bool has(const tr::OpResult& r, const std::string& severity, const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.severity == severity && d.message.find(text) != std::string::npos) return true;
  return false;
}

npusim::models::Sram* g_tcm0 = nullptr;

tr::OpSpec revoke_spec(void (*hook)()) {
  tr::OpSpec s;
  s.op = "tcm_revoked";
  s.tensors = {tr::make_input({512}, torch::kFloat, "range")};
  s.on_built = [](tr::GpsimdPlatform& p) { g_tcm0 = &p.tcm(0); };
  npusim_test_tcm_hook = hook;
  return s;
}

}  // namespace

TEST_CASE("torch sockets: library ops move their operands through the core's port into HBM") {
  // axpy_ops: out = empty; scaled = mul(a, alpha); add_out(out, scaled, b). mul reads a and
  // writes scaled, add_out reads b and scaled and writes out: 5 x 400 bytes by the kernel.
  tr::OpSpec s;
  s.op = "axpy_ops";
  s.tensors = {tr::make_input({100}, torch::kFloat, "range"), tr::make_input({100}, torch::kFloat, "constant(0.5)")};
  s.scalars = {c10::Scalar(2.0)};
  auto r = tr::run_op(platform(), s);
  REQUIRE_FALSE(r.failed);
  for (int64_t i = 0; i < 100; ++i) CHECK(tr::element(r.output, i) == 2.0 * static_cast<double>(i) + 0.5);
  REQUIRE(r.cores.size() == 1);
  const auto& c = r.cores[0];
  CHECK(c.bulk_bytes == 5 * 400);
  CHECK(c.hbm_accesses == 0);  // element accesses of standard accessors only
  CHECK(c.dma_bytes == 0);     // no formula "at the DMA rate" any more: the port moved them
  // Timed by the HBM path: each 400-byte request crosses the fabric (20 cycles per crossing
  // each way) and waits for HBM, so far more than a cycle per 64 bytes. All of it is library
  // time, beside the ops' element work (a cycle per element of mul and add_out) and their
  // three calls' entry and exit.
  const double work = 2 * 100 * 1 + 3 * 8;
  CHECK(c.ns(tr::TimeKind::kLibrary) * r.clock_ghz > 5 * 40 + work);
  // Counted in the HBM statistics: the kernel's 2000 bytes, the two inputs loaded (800) and
  // the output read back (400).
  CHECK(r.inputs_copy.bytes == 800);
  CHECK(r.output_copy.bytes == 400);
  CHECK(r.hbm_bytes == 2000 + 800 + 400);
}

TEST_CASE("torch sockets: a fill over several port chunks writes every element, through the port") {
  // fill_ops: f = full(-1.75) writes 40000 bytes (10 requests, the last one partial); add_out
  // reads f and a and writes out: 4 x 40000 bytes by the kernel.
  tr::OpSpec s;
  s.op = "fill_ops";
  s.tensors = {tr::make_input({10000}, torch::kFloat, "range")};
  auto r = tr::run_op(platform(), s);
  REQUIRE_FALSE(r.failed);
  for (int64_t i = 0; i < 10000; ++i) REQUIRE(tr::element(r.output, i) == static_cast<double>(i) - 1.75);
  REQUIRE(r.cores.size() == 1);
  CHECK(r.cores[0].bulk_bytes == 4 * 40000);
}

TEST_CASE("torch sockets: inputs are loaded before the kernel and the output read after it, timed") {
  tr::OpSpec s;
  s.op = "relu_tcm";
  s.tensors = {tr::make_input({4096}, torch::kFloat, "random(3)")};
  auto r = tr::run_op(platform(), s);
  REQUIRE_FALSE(r.failed);
  CHECK(r.inputs_copy.bytes == 4096 * 4);
  CHECK(r.inputs_copy.start_ns == 0);
  CHECK(r.inputs_copy.end_ns > 0);
  CHECK(r.kernel_start_ns == r.inputs_copy.end_ns);
  CHECK(r.cores[0].start_ns == r.kernel_start_ns);
  // The op's time is the kernel's alone; the read-back follows it.
  CHECK(r.duration_ns == Approx(r.cores[0].end_ns - r.kernel_start_ns));
  CHECK(r.output_copy.bytes == 4096 * 4);
  CHECK(r.output_copy.start_ns >= r.cores[0].end_ns);
  CHECK(r.output_copy.end_ns > r.output_copy.start_ns);
  // HBM saw the kernel's zeros() through the port, its DMA (in and out) and both host copies.
  CHECK(r.cores[0].bulk_bytes == 4096 * 4);
  CHECK(r.hbm_bytes == r.cores[0].bulk_bytes + r.dma_bytes + 2 * 4096 * 4);
  for (int64_t i = 0; i < 4096; ++i) {
    const double x = tr::element(s.tensors[0], i);
    CHECK(tr::element(r.output, i) == (x > 0 ? x : 0.0));
  }
}

TEST_CASE("torch sockets: a revoked TCM grant makes the kernel's old TCM pointer unusable") {
  // The hook revokes and re-enables: the second tcm_malloc gets a new grant and works; the
  // first block's pointer belongs to the revoked grant.
  auto r = tr::run_op(platform(), revoke_spec([] {
    g_tcm0->revoke_dmi();
    g_tcm0->enable_dmi();
  }));
  CHECK(r.failed);
  CHECK(r.fault_kind == "bad address");
  CHECK(has(r, "error", "kernel tcm_revoked on core 0, call tensor_to_tcm"));
  CHECK(has(r, "error", "which the TCM revoked at"));
  REQUIRE(r.cores.size() == 1);
  CHECK(r.cores[0].dma_transfers == 2);  // the first block before, the second block after
}

TEST_CASE("torch sockets: after a revocation without a new grant tcm_malloc fails") {
  auto r = tr::run_op(platform(), revoke_spec([] { g_tcm0->revoke_dmi(); }));
  CHECK(r.failed);
  CHECK(has(r, "error", "kernel tcm_revoked on core 0, call tcm_malloc"));
  CHECK(has(r, "error", "refused a DMI grant"));
  CHECK(has(r, "error", "it revoked the last one at"));
}

TEST_CASE("torch sockets: the 8-core platform is the generic builder's, every binding through platforms::bind") {
  const size_t before = npusim::platforms::binding_log().size();
  size_t checkers = 0, bindings = 0;
  std::string first_core;
  tr::OpSpec s;
  s.op = "relu_tcm";
  s.tensors = {tr::make_input({64}, torch::kFloat, "ones")};
  s.on_built = [&](tr::GpsimdPlatform& p) {
    bindings = npusim::platforms::binding_log().size() - before;
    checkers = p.checkers().size();
    first_core = p.core(0).name();
    CHECK(p.core_count() == 8);
    CHECK(p.cores().size() == 8);
    CHECK(p.topology().name == "neuron-gpsimd");
    CHECK(p.topology().components.size() == 6);  // the GPSIMD part only
  };
  auto r = tr::run_op(platform(), s);
  REQUIRE_FALSE(r.failed);
  // hbm_ic -> hbm, and per core: its interconnect onto its TCM and the fabric, the core and
  // its DMA engine onto its interconnect.
  CHECK(bindings == 1 + 8 * 4);
  CHECK(checkers == (npusim::models::protocol_checks_built_in() ? 1 + 8 * 4 : 0));
  const auto& l = npusim::platforms::binding_log();
  CHECK(std::find(l.begin(), l.end(), "core7_dma -> core7_ic") != l.end());
  CHECK(first_core == "gpsimd.gpsimd0");  // as in the bus-error messages
}
