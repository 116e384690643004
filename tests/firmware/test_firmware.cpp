// The management core, DMA engine, stack switch and data transfer. Each TEST_CASE
// simulates once, and ctest runs each in its own process (SystemC elaborates once).
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "allocators/memory_port.h"
#include "allocators/neuron/neuron_heaps.h"
#include "firmware/neuron_device.h"
#include "firmware/neuron_platform.h"

using namespace npusim;
using fw::Firmware;
using fw::NeuronPlatform;
using fw::NeuronPlatformConfig;

namespace {

// The platform under test; one per process.
std::unique_ptr<NeuronPlatform> make(NeuronPlatformConfig cfg = NeuronPlatformConfig::gpsimd()) {
  return std::make_unique<NeuronPlatform>("soc", cfg);
}

// The same operation sequence on any port: init both Neuron heaps, then a mixed sequence.
template <class Heaps>
std::vector<uint64_t> sequence(Heaps& h) {
  std::vector<uint64_t> out;
  REQUIRE(h.init_neuron_hbm_allocator() == 0);
  REQUIRE(h.init_neuron_dataram_allocator() == 0);
  uint32_t p[6];
  for (int i = 0; i < 6; ++i) {
    REQUIRE(h.neuron_dataram_allocate(100 + 300 * i, &p[i], i % 2 ? 16 : 0) == 0);
    out.push_back(p[i]);
  }
  h.neuron_dataram_deallocate(p[1]);
  h.neuron_dataram_deallocate(p[3]);
  uint32_t q = 0;
  h.neuron_dataram_allocate(120, &q, 8);
  out.push_back(q);
  uint64_t a = 0, b = 0;
  h.neuron_hbm_allocate(4196, &a, 0);
  h.neuron_hbm_allocate(1 << 20, &b, 4096);
  out.push_back(a);
  out.push_back(b);
  h.neuron_hbm_deallocate(a);
  h.neuron_hbm_allocate(64, &a, 0);
  out.push_back(a);
  return out;
}

}  // namespace

TEST_CASE("core: the allocators give the same addresses on the core as on the host port",
          "[core]") {
  alloc::HostMemory mem;
  alloc::neuron::NeuronLayout layout;
  alloc::neuron::map_regions(mem, layout);
  alloc::neuron::NeuronHeaps<alloc::HostMemory> host(mem, layout);
  const auto expected = sequence(host);

  auto p = make();
  std::vector<uint64_t> got;
  p->run([&](Firmware& f) { got = sequence(f.heaps()); });
  fw::simulate(*p);
  CHECK(got == expected);
  // The bookkeeping really lives in the simulated dataram: read it back through debug.
  CHECK(p->firmware.heaps().heap(alloc::neuron::HeapId::kDataram).check().empty());
  CHECK(p->core.stats().dmi_accesses > 100);  // dataram through DMI
  CHECK(p->core.stats().loads > 0);
}

TEST_CASE("core: allocation time is emergent and grows with the dataram latency", "[core]") {
  // Two platforms in one elaboration, identical but for the dataram latency.
  auto fast_cfg = NeuronPlatformConfig::gpsimd();
  auto slow_cfg = fast_cfg;
  slow_cfg.memory.dataram.latency_cycles = fast_cfg.memory.dataram.latency_cycles + 4;
  NeuronPlatform fast("fast", fast_cfg), slow("slow", slow_cfg);
  std::vector<uint64_t> a, b;
  fast.run([&](Firmware& f) { a = sequence(f.heaps()); });
  slow.run([&](Firmware& f) { b = sequence(f.heaps()); });
  sc_core::sc_start();
  REQUIRE(a == b);
  const auto& fs = fast.core.stats();
  const auto& ss = slow.core.stats();
  REQUIRE(fs.dmi_accesses == ss.dmi_accesses);
  REQUIRE(fs.compute_cycles == ss.compute_cycles);
  // Every dataram access (through DMI, or over the bus until DMI is granted) costs 4 cycles
  // more; nothing else changes. The bookkeeping never touches HBM.
  CHECK(fs.bus_transactions <= 2);
  const double accesses = static_cast<double>(fs.dmi_accesses + fs.bus_transactions);
  const sc_core::sc_time extra = slow.memory.dataram.clock() * 4.0 * accesses;
  CHECK(ss.end - fs.end == extra);
  CHECK(ss.end > fs.end);
  CHECK(fs.dmi_accesses > 200);
}

TEST_CASE("core: a bus error on an unmapped address ends the program with a precise message",
          "[core]") {
  auto p = make();
  p->run([](Firmware& f) { f.core().load32(0x40000000); });
  try {
    fw::simulate(*p);
    FAIL("no bus error");
  } catch (const models::BusError& e) {
    CHECK(e.addr() == 0x40000000);
    CHECK_FALSE(e.write());
    CHECK_THAT(e.what(), Catch::Contains("TLM_ADDRESS_ERROR_RESPONSE") &&
                             Catch::Contains("0x40000000"));
  }
}

TEST_CASE("transfer backends: DMA beats vector beats word loop for a large copy", "[transfer]") {
  auto p = make();
  double t[3] = {0, 0, 0};
  std::vector<uint8_t> got;
  p->run([&](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    uint64_t src = 0;
    REQUIRE(f.neuron_hbm_allocate(16384, &src, 0) == 0);
    std::vector<uint8_t> pattern(16384);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 1);
    f.core().write(f.core_address(src), pattern.data(), pattern.size());
    for (auto m : {fw::TransferMethod::kCMemcpy, fw::TransferMethod::kVecMemcpy,
                   fw::TransferMethod::kDma}) {
      f.core().sync();
      const auto t0 = f.core().now();
      f.set_method(m);
      f.data_transfer_to_dram(0x84000, src, 16384);
      f.core().sync();
      t[static_cast<int>(m)] = (f.core().now() - t0).to_seconds();
      got.assign(16384, 0);
      f.core().read(0x84000, got.data(), got.size());
      REQUIRE(got == pattern);
      f.core().write(0x84000, std::vector<uint8_t>(16384, 0).data(), 16384);
    }
  });
  fw::simulate(*p);
  INFO("C " << t[0] << " VEC " << t[1] << " DMA " << t[2]);
  CHECK(t[2] < t[1]);
  CHECK(t[1] < t[0]);
  CHECK(t[0] > 4 * t[1]);  // 16 word accesses per vector access
}

TEST_CASE("tensor stream: HBM to HBM through the 4 KiB bounce buffer, bytes intact",
          "[transfer]") {
  auto cfg = NeuronPlatformConfig::gpsimd();
  cfg.firmware.double_buffer = true;
  auto p = make(cfg);
  double single = 0, dbl = 0;
  p->run([&](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    REQUIRE(f.init_neuron_dataram_allocator() == 0);
    uint64_t a = 0, b = 0;
    const uint32_t n = 64 * 1024 + 100;  // not a multiple of the bounce buffer
    REQUIRE(f.neuron_hbm_allocate(n, &a, 0) == 0);
    REQUIRE(f.neuron_hbm_allocate(n, &b, 0) == 0);
    std::vector<uint8_t> pattern(n);
    for (uint32_t i = 0; i < n; ++i) pattern[i] = static_cast<uint8_t>(i ^ (i >> 8));
    f.core().write(f.core_address(a), pattern.data(), n);
    const auto free_before = f.heaps().heap(alloc::neuron::HeapId::kDataram).counters().free_bytes;
    for (bool d : {false, true}) {
      auto cfg2 = f.config();
      f.core().sync();
      const auto t0 = f.core().now();
      // Toggle double buffering through a fresh config copy (the firmware reads it per call).
      const_cast<fw::FirmwareConfig&>(f.config()).double_buffer = d;
      REQUIRE(f.tensor_stream_copy(b, a, n) == 0);
      f.core().sync();
      (d ? dbl : single) = (f.core().now() - t0).to_seconds();
      std::vector<uint8_t> got(n);
      f.core().read(f.core_address(b), got.data(), n);
      REQUIRE(got == pattern);
      (void)cfg2;
    }
    // The bounce buffers went back to the heap.
    CHECK(f.heaps().heap(alloc::neuron::HeapId::kDataram).counters().free_bytes == free_before);
  });
  fw::simulate(*p);
  CHECK(dbl < single);
}

TEST_CASE("DMA window: a transfer whose start is inside and end outside aborts the run",
          "[dma]") {
  auto p = make();  // default policy: abort
  p->run([](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    uint64_t src = 0;
    REQUIRE(f.neuron_hbm_allocate(8192, &src, 0) == 0);
    f.data_transfer_to_dram(0x8f000, src, 8192);  // [0x8f000, 0x91000): end outside
    FAIL("the transfer should have been stopped");
  });
  try {
    fw::simulate(*p);
    FAIL("no abort");
  } catch (const models::DmaAbort& e) {
    const auto& v = e.fault();
    CHECK(v.kind == models::DmaFault::kWindow);
    CHECK(v.desc.dst == 0x8f000);
    CHECK(v.desc.len == 8192);
    CHECK(v.finding.side == "dst");
    CHECK(v.finding.bound == "upper");
    CHECK(v.finding.bound_value == 0x90000);
    CHECK(v.finding.start_inside);
    CHECK(v.finding.text == "dram_addr >= 0x80000 && dram_addr < 0x90000");
    CHECK(v.desc.call_site == "data_transfer_to_dram");
    CHECK(v.time > sc_core::SC_ZERO_TIME);
    CHECK_THAT(e.what(), Catch::Contains("start passes the firmware's start-only assertion"));
  }
  // Nothing was written past the window: the transfer never moved.
  CHECK(p->dma.channel_stats()[0].bytes == 0);
}

TEST_CASE("DMA window: record policy reports every violation and goes on", "[dma]") {
  auto cfg = NeuronPlatformConfig::gpsimd();
  cfg.dma.policy = models::ViolationPolicy::kRecord;
  cfg.dma.complete_violating = false;  // reject the violating descriptors
  auto p = make(cfg);
  bool reached_end = false;
  p->run([&](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    uint64_t src = 0;
    REQUIRE(f.neuron_hbm_allocate(8192, &src, 0) == 0);
    f.data_transfer_to_dram(0x81000, src, 4096);  // inside: fine
    f.data_transfer_to_dram(0x8f000, src, 8192);  // start inside, end outside
    f.data_transfer_to_dram(0x70000, src, 256);   // fully outside (below)
    f.data_transfer_to_dram(0x90000, src, 0);     // zero length at the upper bound
    f.data_transfer_to_dram(0x85000, src, 0);     // zero length inside: fine
    reached_end = true;
  });
  fw::simulate(*p);
  CHECK(reached_end);
  const auto& faults = p->dma.faults();
  REQUIRE(faults.size() == 3);
  CHECK(faults[0].finding.bound == "upper");
  CHECK(faults[0].finding.start_inside);
  CHECK(faults[1].finding.bound == "lower");
  CHECK_FALSE(faults[1].finding.start_inside);
  CHECK(faults[2].desc.len == 0);
  CHECK_FALSE(faults[2].finding.start_inside);
  CHECK(p->dma.channel_stats()[0].rejected == 3);
  CHECK(p->dma.channel_stats()[0].bytes == 4096);
}

TEST_CASE("stack switch: frames go to HBM, the high-water mark is tracked", "[stack]") {
  auto p = make();
  p->run([](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    REQUIRE(allocate_hbm_stack(0, 0, 1) == 0);  // default size, align 64, switch now
    CHECK(f.stack().switched);
    CHECK(f.stack().size == fw::kStackSize);
    CHECK(f.stack().hbm_stack % 64 == 0);
    CHECK(f.stack().base == f.core_address(f.stack().hbm_stack));
    const auto hbm_before = f.core().stats().bus_transactions;
    {
      NPUSIM_FRAME(1000);
      {
        npusim_frame inner("leaf", 2000);
        CHECK(f.stack().high_water == 3000);
      }
    }
    CHECK(f.core().stats().bus_transactions > hbm_before);  // spills went over the bus to HBM
    CHECK(f.stack().frames.empty());
    CHECK(f.stack().hbm_high_water == 3000);
    switchStackBack();
    CHECK_FALSE(f.stack().switched);
  });
  fw::simulate(*p);
}

TEST_CASE("stack switch: overflow names the frame that caused it", "[stack]") {
  auto p = make();
  p->run([](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    REQUIRE(allocate_hbm_stack(4096, 0, 1) == 0);
    npusim_frame a("main", 1024);
    npusim_frame b("conv_layer", 2048);
    npusim_frame c("im2col", 1500);  // 4572 > 4096
  });
  try {
    fw::simulate(*p);
    FAIL("no overflow");
  } catch (const fw::FirmwareFault& e) {
    CHECK(e.kind() == fw::FirmwareFault::kStackOverflow);
    CHECK(e.call() == "im2col");
    CHECK_THAT(e.what(), Catch::Contains("main > conv_layer > im2col") &&
                             Catch::Contains("476 over") && Catch::Contains("HBM stack of 4096"));
  }
}

TEST_CASE("stack switch: sizes above MAX_STACK_SIZE are refused", "[stack]") {
  auto p = make();
  p->run([](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    allocate_hbm_stack(0x400001, 0, 0);
  });
  try {
    fw::simulate(*p);
    FAIL("accepted");
  } catch (const fw::FirmwareFault& e) {
    CHECK(e.kind() == fw::FirmwareFault::kStackTooLarge);
    CHECK_THAT(e.what(), Catch::Contains("4194305") && Catch::Contains("0x400000"));
  }
}

TEST_CASE("stack switch: exactly MAX_STACK_SIZE is accepted, a failed allocation is fatal",
          "[stack]") {
  auto cfg = NeuronPlatformConfig::gpsimd();
  cfg.firmware.layout.hbm_scratch_size = 6 << 20;  // room for one 4 MiB stack only
  cfg.memory.hbm.window_size = 6 << 20;
  auto p = make(cfg);
  p->run([](Firmware& f) {
    REQUIRE(f.init_neuron_hbm_allocator() == 0);
    REQUIRE(allocate_hbm_stack(0x400000, 0, 0) == 0);
    uint64_t a = 0;
    REQUIRE(f.neuron_hbm_allocate(3 << 20, &a, 0) == -1);  // plain calls just fail
    f.free_hbm_stack();
    REQUIRE(f.neuron_hbm_allocate(3 << 20, &a, 0) == 0);
    allocate_hbm_stack(0x400000, 0, 0);  // does not fit any more: fatal
  });
  try {
    fw::simulate(*p);
    FAIL("no fault");
  } catch (const fw::FirmwareFault& e) {
    CHECK(e.kind() == fw::FirmwareFault::kAllocFailure);
    CHECK_THAT(e.what(), Catch::Contains("XMEM_ERR_ALLOC_FAILED"));
  }
}

TEST_CASE("device API: dataram allocate writes *out_ptr even on failure", "[device]") {
  auto p = make();
  p->run([](Firmware&) {
    REQUIRE(init_neuron_dataram_allocator() == 0);
    void* ptr = reinterpret_cast<void*>(0x1234);
    CHECK(neuron_dataram_allocate(1 << 20, &ptr, 0) == -1);
    CHECK(ptr == nullptr);
    CHECK(neuron_dataram_allocate(256, &ptr, 0) == 0);
    npusim_store32(ptr, 0xabcd1234u);
    CHECK(npusim_load32(ptr) == 0xabcd1234u);
    CHECK(neuron_dataram_deallocate(ptr) == 0);
    CHECK(neuron_dataram_deallocate(ptr) == -1);  // double free: the wrapper's -1
  });
  fw::simulate(*p);
}

TEST_CASE("example custom op relu_bounce runs and computes the right result", "[customop]") {
  auto p = make();
  auto op = fw::find_custom_op("relu_bounce");
  REQUIRE(op != nullptr);
  p->firmware.args()["elements"] = 3000;
  p->run([op](Firmware&) { op(); });
  fw::simulate(*p);  // npusim_fail would throw here
  CHECK(p->dma.channel_stats()[0].descriptors == 6);  // 3 tiles in, 3 out
  CHECK(p->core.stats().compute_cycles >= 3000);
}

TEST_CASE("example custom op deep_calls overflows a stack that is too small", "[customop]") {
  auto p = make();
  auto op = fw::find_custom_op("deep_calls");
  REQUIRE(op != nullptr);
  p->firmware.args()["depth"] = 20;  // 21 frames of 256 bytes > 4196
  p->run([op](Firmware&) { op(); });
  try {
    fw::simulate(*p);
    FAIL("no overflow");
  } catch (const fw::FirmwareFault& e) {
    CHECK(e.kind() == fw::FirmwareFault::kStackOverflow);
    CHECK(p->firmware.stack().hbm_high_water == 16 * 256);
  }
}

TEST_CASE("DMA: a blocking transfer run in the core's thread equals the channel thread's",
          "[dma]") {
  // Two identical platforms in one simulation (independent memories): `a` runs blocking
  // transfers inline (the management platform's default), `b` through the channel thread.
  NeuronPlatformConfig cfg = NeuronPlatformConfig::gpsimd();
  cfg.dma.policy = models::ViolationPolicy::kRecord;
  cfg.dma.complete_violating = false;  // a violating descriptor is rejected
  auto a = std::make_unique<NeuronPlatform>("soc_a", cfg);
  auto b = std::make_unique<NeuronPlatform>("soc_b", cfg);
  b->dma.set_inline_execution(false);
  struct Span {
    uint32_t ch;
    uint64_t src, dst, len;
    sc_core::sc_time start, end;
    bool operator==(const Span& o) const {
      return ch == o.ch && src == o.src && dst == o.dst && len == o.len && start == o.start &&
             end == o.end;
    }
  };
  std::vector<Span> spans[2];
  sc_core::sc_time end[2];
  NeuronPlatform* ps[2] = {a.get(), b.get()};
  for (int k = 0; k < 2; ++k) {
    ps[k]->dma.set_span_hook([&spans, k](uint32_t ch, const models::DmaDescriptor& d,
                                         sc_core::sc_time s, sc_core::sc_time e) {
      spans[k].push_back(Span{ch, d.src, d.dst, d.len, s, e});
    });
    ps[k]->run([&end, k](Firmware& f) {
      REQUIRE(f.init_neuron_hbm_allocator() == 0);
      REQUIRE(f.init_neuron_dataram_allocator() == 0);
      uint64_t t = 0;
      REQUIRE(f.neuron_hbm_allocate(64 * 1024, &t, 0) == 0);
      f.set_method(fw::TransferMethod::kDma);
      for (uint64_t n : {4u, 100u, 2048u, 4096u, 6000u}) {
        f.data_transfer_to_dram(0x84000, t + n, n);
        f.core().compute(17);
        f.data_transfer_from_dram(t + 3 * n, 0x84000, n);
      }
      f.data_transfer_to_dram(0x8fff0, t, 64);  // straddles the window end: rejected
      f.tensor_stream_copy(t + 32 * 1024, t, 20000);
      f.core().sync();
      end[k] = f.core().now();
    });
  }
  sc_core::sc_start();
  REQUIRE_FALSE(a->error());
  REQUIRE_FALSE(b->error());
  CHECK(end[0] == end[1]);
  REQUIRE(spans[0].size() == spans[1].size());
  CHECK(spans[0].size() > 10);
  CHECK(spans[0] == spans[1]);
  CHECK(a->dma.inline_runs() >= spans[0].size() - 2);  // all but the double-buffer pair
  CHECK(b->dma.inline_runs() == 0);
  const auto& sa = a->dma.channel_stats()[0];
  const auto& sb = b->dma.channel_stats()[0];
  CHECK(sa.descriptors == sb.descriptors);
  CHECK(sa.rejected == 1);
  CHECK(sb.rejected == 1);
  CHECK(sa.bursts == sb.bursts);
  CHECK(sa.busy == sb.busy);
  CHECK(sa.first_start == sb.first_start);
  CHECK(sa.last_end == sb.last_end);
  CHECK(a->dma.faults().size() == 1);
  CHECK(b->dma.faults().size() == 1);
  const auto& ha = a->memory.hbm.stats();
  const auto& hb = b->memory.hbm.stats();
  CHECK(ha.row_hits == hb.row_hits);
  CHECK(ha.row_misses == hb.row_misses);
  CHECK(ha.latency_cycles.max() == hb.latency_cycles.max());
  CHECK(a->core.stats().wait_time == b->core.stats().wait_time);
  CHECK(a->memory.dataram.stats().bank_conflicts == b->memory.dataram.stats().bank_conflicts);
}
