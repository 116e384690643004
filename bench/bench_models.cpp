// Speed of the memory models, side by side in one simulation (SystemC elaborates once per
// process, so one SC_THREAD runs every timed loop and measures host time with steady_clock):
//
//   bare     two modules, b_transport + quantum keeper, the target does nothing but answer
//   sram     core-like initiator -> interconnect -> dataram, loads through a DMI pointer
//   hbm      core-like initiator -> interconnect -> HBM, b_transport per access (no DMI)
//   seq/rnd  saturating HBM request streams (256 in flight), 1x and 10x requests
//   dma      2 KiB HBM requests as the DMA engine issues them (32 bursts each), read then
//            write, back to back, over 64 MiB
//
// Also the resident memory of a platform with 16 GiB of HBM before anything runs.
// Each loop reports wall time (steady_clock) and the thread's CPU time; the rates and ratios
// use CPU time, which other processes on a loaded machine disturb less.
// Usage: bench_models [scale] [only]   (scale multiplies every loop count; default 1; may be a
// fraction, e.g. 0.01 under valgrind. `only`: a comma-separated list of the loops to run, of
// bare, sram, hbm, stream, dma; default all. For profiling one loop.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "models/memory_system.h"

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

uint64_t rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  return 0;
}

// The bare target: answers OK after 1 ns, copies 4 bytes.
struct BareTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<BareTarget> bus{"bus"};
  uint32_t word = 0;
  explicit BareTarget(sc_core::sc_module_name n) : sc_module(n) {
    bus.register_b_transport(this, &BareTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    if (t.is_read()) std::memcpy(t.get_data_ptr(), &word, 4);
    else std::memcpy(&word, t.get_data_ptr(), 4);
    d += sc_time(1, SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Driver : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Driver> bare{"bare"};
  tlm_utils::simple_initiator_socket<Driver> core{"core"};
  double scale;
  std::string only;
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name n, double s, std::string o)
      : sc_module(n), scale(s), only(std::move(o)) {
    core.register_invalidate_direct_mem_ptr(this, &Driver::invalidate);
    SC_THREAD(run);
  }

  // A core's DMI cache: one region.
  tlm::tlm_dmi dmi;
  bool dmi_valid = false;
  void invalidate(sc_dt::uint64 s, sc_dt::uint64 e) {
    if (s <= dmi.get_end_address() && e >= dmi.get_start_address()) dmi_valid = false;
  }

  uint64_t sink = 0;

  // A load as a core model does it: DMI if the cache covers it, else b_transport (and ask
  // for DMI when the target hints it).
  void core_load(tlm_utils::tlm_quantumkeeper& qk, tlm::tlm_generic_payload& t, uint64_t addr,
                 uint32_t* v) {
    if (dmi_valid && addr >= dmi.get_start_address() && addr + 4 <= dmi.get_end_address() + 1) {
      std::memcpy(v, dmi.get_dmi_ptr() + (addr - dmi.get_start_address()), 4);
      qk.inc(dmi.get_read_latency());
    } else {
      t.set_command(tlm::TLM_READ_COMMAND);
      t.set_address(addr);
      t.set_data_ptr(reinterpret_cast<unsigned char*>(v));
      t.set_data_length(4);
      t.set_streaming_width(4);
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      t.set_dmi_allowed(false);
      sc_time d = qk.get_local_time();
      core->b_transport(t, d);
      if (!t.is_response_ok()) std::abort();
      qk.set(d);
      if (t.is_dmi_allowed()) dmi_valid = core->get_direct_mem_ptr(t, dmi);
    }
    if (qk.need_sync()) qk.sync();
  }

  uint64_t count(uint64_t n) const {
    return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(n) * scale));
  }

  bool wanted(const char* loop) const {
    return only.empty() || ("," + only + ",").find("," + std::string(loop) + ",") != std::string::npos;
  }

  // Runs body(n) and returns its rate per CPU second (NaN for a loop not wanted).
  template <class F>
  double timed(const char* loop, const char* name, uint64_t n, F&& body) {
    if (!wanted(loop)) return std::nan("");
    const auto t0 = Clock::now();
    const double c0 = thread_cpu_seconds();
    body(n);
    const double cpu = thread_cpu_seconds() - c0;
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("%-42s %10llu ops %8.3f s wall %8.3f s cpu %8.2f M/s (cpu)\n", name,
                static_cast<unsigned long long>(n), s, cpu, static_cast<double>(n) / cpu / 1e6);
    std::fflush(stdout);
    return static_cast<double>(n) / cpu;
  }

  // Prints "  NAME1 R1   NAME2 R2" with the ratios whose loops both ran: a ratio of a loop that
  // did not run (`only` left it out) is not a number, and a line of them says nothing.
  static void ratio_line(const char* n1, double a1, double b1, const char* n2, double a2,
                         double b2) {
    std::string line;
    if (!std::isnan(a1) && !std::isnan(b1)) line += "  " + std::string(n1) + " " + two(a1 / b1);
    if (!std::isnan(a2) && !std::isnan(b2)) line += "  " + std::string(n2) + " " + two(a2 / b2);
    if (!line.empty()) std::printf("%s\n", line.c_str());
  }
  static std::string two(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
  }

  // Saturating HBM stream: 256 requests in flight, 64-byte reads (as npusim traffic).
  void stream(uint64_t n, bool random) {
    tlm::tlm_generic_payload t;
    uint8_t buf[64];
    t.set_data_ptr(buf);
    t.set_data_length(64);
    t.set_streaming_width(64);
    t.set_command(tlm::TLM_READ_COMMAND);
    std::priority_queue<sc_time, std::vector<sc_time>, std::greater<sc_time>> flight;
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    sc_time issue = sc_core::sc_time_stamp();
    uint64_t x = 0x9E3779B97F4A7C15ull;
    const uint64_t hbm = npusim::models::DEFAULT_HBM_BASE, slots = (16ull << 30) / 64;
    for (uint64_t i = 0; i < n; ++i) {
      if (flight.size() >= 256) {
        issue = std::max(issue, flight.top());
        flight.pop();
      }
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
      t.set_address(hbm + 64 * (random ? (x * 0x2545F4914F6CDD1Dull) % slots : i % slots));
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_time d = issue - sc_core::sc_time_stamp();
      core->b_transport(t, d);
      flight.push(sc_core::sc_time_stamp() + d);
      qk.set(issue - sc_core::sc_time_stamp());
      if (qk.need_sync()) qk.sync();
    }
  }

  void run() {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, sc_core::SC_US));
    tlm_utils::tlm_quantumkeeper qk;
    tlm::tlm_generic_payload t;
    uint32_t v = 0;
    const double bare_rate = timed("bare", "bare b_transport loop + quantum keeper", count(20'000'000),
                                   [&](uint64_t n) {
      qk.reset();
      t.set_command(tlm::TLM_READ_COMMAND);
      t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
      t.set_data_length(4);
      t.set_streaming_width(4);
      for (uint64_t i = 0; i < n; ++i) {
        t.set_address(i * 4);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = qk.get_local_time();
        bare->b_transport(t, d);
        qk.set(d);
        if (qk.need_sync()) qk.sync();
        sink += v;
      }
    });
    const double sram_rate = timed("sram", "core -> interconnect -> dataram (DMI)", count(20'000'000),
                                   [&](uint64_t n) {
      qk.reset();
      for (uint64_t i = 0; i < n; ++i) {
        core_load(qk, t, 0x80000 + (i * 4) % 0x10000, &v);
        sink += v;
      }
    });
    const double hbm_rate = timed("hbm", "core -> interconnect -> HBM (b_transport)", count(5'000'000),
                                  [&](uint64_t n) {
      qk.reset();
      for (uint64_t i = 0; i < n; ++i) {
        core_load(qk, t, npusim::models::DEFAULT_HBM_BASE + (i * 4) % (1u << 24), &v);
        sink += v;
      }
    });
    ratio_line("dataram/bare", sram_rate, bare_rate, "hbm/bare", hbm_rate, bare_rate);
    const double s1 = timed("stream", "HBM saturating seq stream, 1x", count(1'000'000),
                            [&](uint64_t n) { stream(n, false); });
    const double s10 = timed("stream", "HBM saturating seq stream, 10x", count(10'000'000),
                             [&](uint64_t n) { stream(n, false); });
    const double r1 = timed("stream", "HBM saturating random stream, 1x", count(1'000'000),
                            [&](uint64_t n) { stream(n, true); });
    const double r10 = timed("stream", "HBM saturating random stream, 10x", count(10'000'000),
                             [&](uint64_t n) { stream(n, true); });
    // The DMA engine's traffic: 2 KiB reads and writes, one request in flight.
    std::vector<uint8_t> block(2048, 0x5A);
    const double dma = timed("dma", "HBM 2 KiB requests (DMA-like), read+write", count(200'000),
                             [&](uint64_t n) {
      qk.reset();
      t.set_data_ptr(block.data());
      t.set_data_length(2048);
      t.set_streaming_width(2048);
      t.set_byte_enable_ptr(nullptr);
      for (uint64_t i = 0; i < n; ++i) {
        t.set_command(i % 2 ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        t.set_address(npusim::models::DEFAULT_HBM_BASE + (i / 2 * 2048) % (64u << 20));
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = qk.get_local_time();
        core->b_transport(t, d);
        if (!t.is_response_ok()) std::abort();
        qk.set(d);
        if (qk.need_sync()) qk.sync();
      }
    });
    if (!std::isnan(dma))
      std::printf("  %.1f M bursts/s (cpu), %.1f ns per 64-byte burst\n", dma * 32 / 1e6,
                  1e9 / (dma * 32));
    if (!std::isnan(s1))  // the stream loops run together: all four or none
      std::printf("  cost per request 10x/1x: seq %.2f  random %.2f (1.00 = linear)\n", s1 / s10,
                  r1 / r10);
    std::printf("  resident after the runs: %llu MiB (sink %llu)\n",
                static_cast<unsigned long long>(rss_kib() / 1024),
                static_cast<unsigned long long>(sink & 1));
  }
};

}  // namespace

int sc_main(int argc, char** argv) {
  const double scale = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
  const uint64_t before = rss_kib();
  npusim::models::MemorySystem platform("platform", npusim::models::MemoryConfig{});
  BareTarget bare_target("bare_target");
  Driver driver("driver", scale > 0 ? scale : 1.0, argc > 2 ? argv[2] : "");
  driver.bare.bind(bare_target.bus);
  driver.core.bind(platform.bus());
  std::printf("platform with %llu GiB of HBM: resident %llu MiB (process before: %llu MiB)\n",
              static_cast<unsigned long long>(platform.hbm.store().size() >> 30),
              static_cast<unsigned long long>(rss_kib() / 1024),
              static_cast<unsigned long long>(before / 1024));
  sc_core::sc_start();
  return 0;
}
