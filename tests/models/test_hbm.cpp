// HBM module tests: data, statuses, timing through the interconnect, statistics.
#include <catch2/catch.hpp>

#include <vector>

#include "models/memory_system.h"
#include "test_initiator.h"

using namespace npusim::models;
using npusim::test::TestInitiator;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr uint64_t kHbm = DEFAULT_HBM_BASE;

struct Platform {
  TestInitiator cpu{"cpu"};
  MemorySystem mem;
  explicit Platform(const MemoryConfig& c = MemoryConfig{}) : mem("mem", c) {
    cpu.mem.bind(mem.bus());
    npusim::test::start_simulation();
  }
};
}  // namespace

TEST_CASE("hbm: a 16 GiB HBM costs nothing until written; data round-trips", "[hbm]") {
  Platform p;
  CHECK(p.mem.hbm.store().size() == (16ull << 30));
  CHECK(p.mem.hbm.store().resident_bytes() == 0);
  std::vector<uint8_t> data(300), back(300, 0xFF);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i ^ 0x5A);
  const uint64_t top = kHbm + (16ull << 30) - 300;
  REQUIRE(p.cpu.do_write(top, data.data(), 300) == tlm::TLM_OK_RESPONSE);
  REQUIRE(p.cpu.do_read(top, back.data(), 300) == tlm::TLM_OK_RESPONSE);
  CHECK(back == data);
  CHECK(p.mem.hbm.store().pages_allocated() == 1);
  uint64_t z = 1;
  REQUIRE(p.cpu.do_read(kHbm + (8ull << 30), &z, 8) == tlm::TLM_OK_RESPONSE);
  CHECK(z == 0);
  CHECK(p.mem.hbm.store().pages_allocated() == 1);
}

TEST_CASE("hbm: latency through the interconnect matches the timing table", "[hbm]") {
  Platform p;  // hop 2 ns, tCK 1 ns
  struct Row {
    const char* what;
    uint64_t offset;
    sc_time at;
    sc_time done;
  };
  const Row rows[] = {
      {"closed bank: 2 + 30", 0, sc_time(0, SC_NS), sc_time(32, SC_NS)},
      {"row hit: 2 + 16", 64 * 32, sc_time(100, SC_NS), sc_time(118, SC_NS)},
      {"row conflict: 2 + 44 (row 1, same bank)", 1u << 18, sc_time(200, SC_NS),
       sc_time(246, SC_NS)},
      {"arrival between clock edges rounds up", 64, sc_time(300.5, SC_NS),
       sc_time(333, SC_NS)},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    uint32_t v;
    sc_time d = r.at;
    REQUIRE(p.cpu.do_read(kHbm + r.offset, &v, 4, d) == tlm::TLM_OK_RESPONSE);
    CHECK(d == r.done);
  }
  const MemoryStats& s = p.mem.hbm.stats();
  CHECK(s.row_hits == 1);
  CHECK(s.row_misses == 2);
  CHECK(s.row_conflicts == 1);
  CHECK(s.latency_cycles.max() == 44);
  CHECK(s.latency_cycles.percentile(0.5) == 30);
}

TEST_CASE("hbm: a request of several bursts completes with its last burst", "[hbm]") {
  Platform p;
  std::vector<uint8_t> buf(256);
  sc_time d = sc_core::SC_ZERO_TIME;
  // 256 bytes from offset 32: 5 bursts on channels 0..4, all closed: each 30 after its ACT,
  // the channels work in parallel.
  REQUIRE(p.cpu.do_read(kHbm + 32, buf.data(), 256, d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(32, SC_NS));
  CHECK(p.mem.hbm.stats().row_misses == 5);
  // Later, row 3 of the bank that the first burst left open at row 0: a conflict.
  d = sc_time(1000, SC_NS);
  HbmAddressMap m{HbmConfig{}};
  HbmAddress a;
  a.row = 3;
  const uint64_t o = m.encode(a);
  REQUIRE(p.cpu.do_read(kHbm + o, buf.data(), 64, d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(1000 + 2 + 44, SC_NS));  // row 0 of that bank was open: conflict
}

TEST_CASE("hbm: statuses for bad accesses; no DMI; debug transport", "[hbm]") {
  Platform p;
  uint8_t buf[64] = {};
  CHECK(p.cpu.do_read(kHbm + (16ull << 30) - 4, buf, 8) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(p.cpu.do_read(kHbm + (16ull << 30), buf, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(p.cpu.do_write(kHbm, buf, 64, d, nullptr, 0, 8) == tlm::TLM_BURST_ERROR_RESPONSE);
  // Misaligned accesses are legal: 8 bytes across a burst boundary are two bursts.
  CHECK(p.cpu.do_write(kHbm + 60, buf, 8) == tlm::TLM_OK_RESPONSE);
  CHECK(p.mem.hbm.stats().row_misses == 2);
  tlm::tlm_dmi dmi;
  CHECK_FALSE(p.cpu.get_dmi(kHbm + 64, dmi));
  CHECK_FALSE(p.cpu.last_dmi_allowed);
  const uint64_t v = 0x1122334455667788ull;
  CHECK(p.cpu.debug(tlm::TLM_WRITE_COMMAND, kHbm + 128, const_cast<uint64_t*>(&v), 8) == 8);
  uint64_t r = 0;
  CHECK(p.cpu.do_read(kHbm + 128, &r, 8) == tlm::TLM_OK_RESPONSE);
  CHECK(r == v);
  CHECK(p.mem.hbm.stats().debug_accesses == 1);
}

TEST_CASE("hbm: byte enables write only the enabled bytes", "[hbm]") {
  Platform p;
  const uint32_t ones = 0xFFFFFFFF;
  REQUIRE(p.cpu.do_write(kHbm + 0x40, &ones, 4) == tlm::TLM_OK_RESPONSE);
  const uint32_t v = 0x00000000;
  const uint8_t be[4] = {0xFF, 0, 0xFF, 0};
  sc_time d = sc_core::SC_ZERO_TIME;
  REQUIRE(p.cpu.do_write(kHbm + 0x40, &v, 4, d, be, 4) == tlm::TLM_OK_RESPONSE);
  uint32_t r = 0;
  REQUIRE(p.cpu.do_read(kHbm + 0x40, &r, 4) == tlm::TLM_OK_RESPONSE);
  CHECK(r == 0xFF00FF00);
}

TEST_CASE("hbm: the 32-bit window reaches the 64-bit HBM with translation", "[hbm]") {
  Platform p;
  const uint32_t v = 0xA5A5A5A5;
  // neuron_layout: the HBM pool is the window + 0x228.
  REQUIRE(p.cpu.do_write(0x80000228, &v, 4) == tlm::TLM_OK_RESPONSE);
  uint32_t r = 0;
  REQUIRE(p.cpu.do_read(kHbm + 0x228, &r, 4) == tlm::TLM_OK_RESPONSE);
  CHECK(r == v);
  CHECK(p.cpu.do_read(0x80000000 + DEFAULT_HBM_WINDOW_SIZE, &r, 4) ==
        tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("hbm: statistics count requests, bytes, latency and bandwidth", "[hbm]") {
  Platform p;
  uint8_t buf[64];
  sc_time d = sc_core::SC_ZERO_TIME;
  for (int i = 0; i < 16; ++i) {
    d = sc_core::SC_ZERO_TIME;
    REQUIRE(p.cpu.do_read(kHbm + 64 * i, buf, 64, d) == tlm::TLM_OK_RESPONSE);
  }
  d = sc_time(5000, SC_NS);
  REQUIRE(p.cpu.do_write(kHbm, buf, 64, d) == tlm::TLM_OK_RESPONSE);
  const MemoryStats& s = p.mem.hbm.stats();
  CHECK(s.reads == 16);
  CHECK(s.writes == 1);
  CHECK(s.bytes_read == 1024);
  CHECK(s.bytes_written == 64);
  CHECK(s.latency_cycles.count() == 17);
  CHECK(s.refreshes >= 1);  // channel 0 refreshed at 3900 before the write
  REQUIRE(s.bandwidth.bytes.size() == 6);  // 1 us windows up to 5 us
  CHECK(s.bandwidth.bytes[0] == 1024);
  CHECK(s.bandwidth.bytes[5] == 64);
  CHECK(p.mem.interconnect.stats().requests == 17);
}

TEST_CASE("hbm: the bandwidth series holds every completion, in its window", "[hbm][stats]") {
  // The model keeps the cycles of the current window and of the one before it and adds inline
  // while completions stay in them; the series must equal one built by BandwidthSeries::add
  // for every request, with a clock that is not a whole number of ns, completions that go
  // back in time (several initiators), and jumps far enough to make the series coarsen its
  // windows.
  MemoryConfig c;
  c.hbm.tck_ns = 0.625;
  c.hbm.stats_window_ns = 7;
  Platform p(c);
  BandwidthSeries ref;
  ref.window_ns = 7;
  const uint64_t tck_ps = 625;  // the default resolution is 1 ps
  uint64_t x = 0x9E3779B97F4A7C15ull, at_ps = 0;
  uint8_t buf[256] = {};
  for (int i = 0; i < 40000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    switch (x % 20) {
      case 0: at_ps = at_ps > 50000 ? at_ps - x % 50000 : 0; break;  // an earlier initiator
      default: at_ps += x % 9000; break;
    }
    if (i % 4000 == 3999) at_ps += 100'000'000;  // 100 us later
    const unsigned len = (x >> 8) % 3 == 0 ? 256 : 4;
    sc_time d = sc_time::from_value(at_ps);
    REQUIRE(p.cpu.do_read(kHbm + ((x >> 16) % (1u << 28)), buf, len, d) == tlm::TLM_OK_RESPONSE);
    REQUIRE(d.value() % tck_ps == 0);
    ref.add(static_cast<double>(d.value() / tck_ps) * 0.625, len);
  }
  const BandwidthSeries& got = p.mem.hbm.stats().bandwidth;
  CHECK(ref.window_ns > 7);  // coarsened at least once
  CHECK(got.window_ns == ref.window_ns);
  CHECK(got.bytes == ref.bytes);
}

TEST_CASE("hbm: nb_transport completes at once, with b_transport's data and delay", "[hbm]") {
  // The interconnect and the HBM are loosely timed; an approximately timed initiator gets the
  // base protocol's early completion (TLM_COMPLETED on BEGIN_REQ) through both. Compared on
  // two addresses in two channels (the next burst) whose banks went through the same history.
  Platform p;
  const uint64_t a = kHbm + 256, b = a + 64;
  const uint32_t v = 0xCAFEF00D;
  REQUIRE(p.cpu.do_write(a, &v, 4) == tlm::TLM_OK_RESPONSE);
  REQUIRE(p.cpu.do_write(b, &v, 4) == tlm::TLM_OK_RESPONSE);
  uint32_t got = 0;
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(a);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&got));
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time d_nb = sc_time(100, SC_NS);
  CHECK(p.cpu.mem->nb_transport_fw(t, phase, d_nb) == tlm::TLM_COMPLETED);
  CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(got == v);
  uint32_t got_b = 0;
  sc_time d_b = sc_time(100, SC_NS);
  REQUIRE(p.cpu.do_read(b, &got_b, 4, d_b) == tlm::TLM_OK_RESPONSE);
  CHECK(got_b == v);
  CHECK(d_nb == d_b);
  CHECK(d_nb == sc_time(118, SC_NS));  // row hit: 2 + 16
  // Unmapped: an address error, also completed at once.
  t.set_address(0xFFFF'FFFF'0000ull);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  phase = tlm::BEGIN_REQ;
  CHECK(p.cpu.mem->nb_transport_fw(t, phase, d_nb) == tlm::TLM_COMPLETED);
  CHECK(t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("hbm: the admission extension reports a wait at a full queue", "[hbm]") {
  // Sixteen 64-byte reads at once to one unit with a queue of 2: the first two get in on
  // arrival, later ones wait for a leave. b_transport looks for the extension only while one
  // exists (HbmAdmitExtension::any()): it must still find it.
  CHECK_FALSE(HbmAdmitExtension::any());
  MemoryConfig c;
  c.hbm.queue_depth = 2;
  Platform p(c);
  uint8_t buf[64];
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_data_ptr(buf);
  t.set_data_length(64);
  t.set_streaming_width(64);
  uint64_t waits = 0, first_arrival = 0;
  {
    HbmAdmitExtension admit;
    CHECK(HbmAdmitExtension::any());
    t.set_extension(&admit);
    for (uint64_t i = 0; i < 16; ++i) {
      admit.arrival = admit.admit = 0;
      t.set_address(kHbm);  // one bank: the queue fills
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_time d = sc_core::SC_ZERO_TIME;
      p.cpu.mem->b_transport(t, d);
      REQUIRE(t.is_response_ok());
      if (i == 0) first_arrival = admit.arrival;
      CHECK(admit.arrival == first_arrival);
      CHECK(admit.admit >= admit.arrival);
      if (admit.admit > admit.arrival) ++waits;
    }
    CHECK(first_arrival > 0);  // the interconnect's hop, in HBM cycles
    CHECK(waits > 0);
    auto* copy = admit.clone();
    CHECK(HbmAdmitExtension::any());
    copy->free();
    t.clear_extension(&admit);
  }
  CHECK_FALSE(HbmAdmitExtension::any());
}
