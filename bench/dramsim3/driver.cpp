// Drives a DRAMsim3 build through its public API (dramsim3::MemorySystem) with the request
// streams of `npusim traffic` (bench/hbm_streams.h: the same xorshift64* and address formulas),
// under the same issue width, outstanding limit and rate, and prints one JSON object with the
// timing and the energy DRAMsim3 computed. bench/dramsim3/compare.sh runs it beside npusim.
//
//   dramsim3_driver CONFIG PATTERN N ISSUE_WIDTH OUTSTANDING READ_RATIO SEED SPAN [RATE]
//
// CONFIG       a DRAMsim3 .ini (its output_level is used as it is: 0 keeps the epoch files off)
// PATTERN      seq | random | stride:BYTES (as npusim traffic), or mt19937: 64-byte slots over
//              SPAN drawn with std::mt19937_64 seeded with SEED (slot = draw % slots)
// N            requests; ISSUE_WIDTH: requests offered per cycle (at least 1)
// OUTSTANDING  requests in flight at most (0: no limit but the controller's queues)
// READ_RATIO   fraction of reads (the same draw as npusim traffic's --read-ratio)
// SPAN         bytes the pattern covers, from address 0
// RATE         requests per cycle at most (0 or absent: none): request i is offered no earlier
//              than cycle ceil(i / RATE), as npusim traffic's --rate
//
// Each cycle the driver offers up to ISSUE_WIDTH requests in order and stops at the first the
// controller refuses (WillAcceptTransaction: head-of-line), then calls ClockTick(). A read is
// done at its read callback, a write at its write callback. Latency is the callback's cycle
// minus the cycle the request was added; bandwidth is bytes over the cycles from the first add
// to the last callback. The run ends at the cycle of the last callback ("cycles": every
// ClockTick). "dramsim3" is DRAMsim3's own statistics file (PrintStats() into a temporary
// directory), one object per channel, energy included.
//
// Built only when npusim is configured with -DNPUSIM_DRAMSIM3_DIR=<a DRAMsim3 checkout built
// per its README> (bench/dramsim3/CMakeLists.txt); no DRAMsim3 code is in this repository.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/hbm_streams.h"
#include "memory_system.h"

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "dramsim3_driver: " << why
            << "\nusage: dramsim3_driver CONFIG PATTERN N ISSUE_WIDTH OUTSTANDING READ_RATIO "
               "SEED SPAN [RATE]\n";
  std::exit(2);
}

uint64_t number(const char* what, const char* s) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0' || *s == '-')
    usage(std::string(what) + " '" + s + "' is not a non-negative integer");
  return v;
}

double real(const char* what, const char* s) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !std::isfinite(v) || v < 0)
    usage(std::string(what) + " '" + s + "' is not a non-negative number");
  return v;
}

// The smallest recorded value v with at least fraction q of the samples <= v (npusim's
// LatencyHistogram::percentile on exact values).
uint64_t percentile(const std::vector<uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  size_t k = static_cast<size_t>(std::ceil(q * n));
  if (k == 0) k = 1;
  return sorted[std::min(k, sorted.size()) - 1];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9 && argc != 10) usage("expected 8 or 9 arguments");
  const std::string config = argv[1], pattern = argv[2];
  const uint64_t n = number("N", argv[3]);
  const uint64_t width = number("ISSUE_WIDTH", argv[4]);
  const uint64_t outstanding = number("OUTSTANDING", argv[5]);
  const double read_ratio = real("READ_RATIO", argv[6]);
  const uint64_t seed = number("SEED", argv[7]);
  const uint64_t span = number("SPAN", argv[8]);
  const double rate = argc == 10 ? real("RATE", argv[9]) : 0.0;
  if (n == 0) usage("N must be at least 1");
  if (width == 0) usage("ISSUE_WIDTH must be at least 1");
  if (read_ratio > 1.0) usage("READ_RATIO must be in [0, 1]");
  if (span < 64) usage("SPAN must be at least 64 bytes");
  if (!std::ifstream(config)) usage("cannot read CONFIG '" + config + "'");

  std::vector<npusim::bench::HbmRequest> stream;
  if (pattern == "mt19937") {  // DRAMsim3-style random addresses, reads only
    std::mt19937_64 gen(seed);
    const uint64_t slots = span / 64;
    stream.resize(n);
    for (auto& r : stream) r = {(gen() % slots) * 64, false};
  } else if (pattern == "seq" || pattern == "random" || pattern.rfind("stride:", 0) == 0) {
    stream = npusim::bench::hbm_stream(pattern, n, read_ratio, seed, span);
  } else {
    usage("PATTERN '" + pattern + "': expected seq, random, stride:BYTES or mt19937");
  }

  // DRAMsim3 writes its statistics into an output directory: a temporary one, removed after.
  char dir_template[] = "/tmp/dramsim3_driver.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) usage("cannot create a temporary directory");
  const std::string out_dir = dir;

  uint64_t clk = 0, done = 0, in_flight = 0, bytes = 0;
  uint64_t first_add = UINT64_MAX, last_done = 0;
  std::unordered_map<uint64_t, std::deque<uint64_t>> pending[2];  // by address: add cycles
  std::vector<uint64_t> read_latency;
  read_latency.reserve(n);
  auto finish = [&](uint64_t addr, bool write) {
    auto it = pending[write].find(addr);
    if (it == pending[write].end() || it->second.empty()) {
      std::cerr << "dramsim3_driver: a callback for an address never added: " << addr << '\n';
      std::exit(1);
    }
    const uint64_t added = it->second.front();
    it->second.pop_front();
    if (!write) read_latency.push_back(clk - added);
    last_done = std::max(last_done, clk);
    ++done;
    --in_flight;
    bytes += 64;
  };
  const auto t0 = std::chrono::steady_clock::now();
  dramsim3::MemorySystem ms(
      config, out_dir, [&](uint64_t a) { finish(a, false); }, [&](uint64_t a) { finish(a, true); });
  const auto t1 = std::chrono::steady_clock::now();
  uint64_t next = 0;
  while (done < n) {
    for (uint64_t k = 0; k < width && next < n; ++k) {
      if (outstanding != 0 && in_flight >= outstanding) break;
      if (rate > 0.0 && static_cast<double>(clk) < std::ceil(static_cast<double>(next) / rate))
        break;
      const auto& r = stream[next];
      if (!ms.WillAcceptTransaction(r.offset, r.write)) break;
      ms.AddTransaction(r.offset, r.write);
      pending[r.write][r.offset].push_back(clk);
      first_add = std::min(first_add, clk);
      ++in_flight;
      ++next;
    }
    ms.ClockTick();
    ++clk;
  }
  const auto t2 = std::chrono::steady_clock::now();
  ms.PrintStats();

  // DRAMsim3's statistics, one object per channel (energies in its unit: mW x cycles, which is
  // pJ at tCK 1 ns), passed on verbatim: bench/dramsim3/compare.sh sums them.
  std::string stats;
  {
    std::ifstream in(out_dir + "/dramsim3.json");
    std::ostringstream text;
    text << in.rdbuf();
    stats = text.str();
  }
  std::filesystem::remove_all(out_dir);
  if (stats.empty() || stats.front() != '{') {
    std::cerr << "dramsim3_driver: DRAMsim3 wrote no statistics (dramsim3.json)\n";
    return 1;
  }

  std::sort(read_latency.begin(), read_latency.end());
  double mean = 0;
  for (uint64_t l : read_latency) mean += static_cast<double>(l);
  if (!read_latency.empty()) mean /= static_cast<double>(read_latency.size());
  const double tck = ms.GetTCK();
  const uint64_t cycles = last_done - first_add;
  const double secs = std::chrono::duration<double>(t2 - t1).count();
  std::printf(
      "{\"pattern\":\"%s\",\"requests\":%llu,\"bytes\":%llu,\"cycles\":%llu,"
      "\"tck_ns\":%.17g,\"bandwidth_gbps\":%.17g,\"reads\":%zu,"
      "\"read_latency_mean_cycles\":%.17g,\"read_latency_p50_cycles\":%llu,"
      "\"read_latency_p99_cycles\":%llu,\"req_per_s\":%.17g,\"setup_s\":%.17g,"
      "\"dramsim3\":%s}\n",
      pattern.c_str(), static_cast<unsigned long long>(n), static_cast<unsigned long long>(bytes),
      static_cast<unsigned long long>(clk), tck,
      cycles ? static_cast<double>(bytes) / (static_cast<double>(cycles) * tck) : 0.0,
      read_latency.size(), mean,
      static_cast<unsigned long long>(percentile(read_latency, 0.5)),
      static_cast<unsigned long long>(percentile(read_latency, 0.99)),
      secs > 0 ? static_cast<double>(n) / secs : 0.0,
      std::chrono::duration<double>(t1 - t0).count(), stats.c_str());
  return 0;
}
