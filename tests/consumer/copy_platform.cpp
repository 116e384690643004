// An out-of-tree platform: a core of its own fills a tensor in HBM, has npusim's DMA engine
// copy it to another HBM buffer, and reads the copy back -- every access through npusim's
// interconnect, timed by npusim's HBM model. Exit 0 when the copy is exact.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "models/dma_engine.h"
#include "models/hbm.h"
#include "models/interconnect.h"
#include "models/memory_config.h"

namespace {

constexpr uint64_t kHbmBase = 0x1'0000'0000ull;
constexpr uint64_t kSrc = kHbmBase + 0x10000, kDst = kHbmBase + 0x200000;
constexpr unsigned kBytes = 64 * 1024;

// The platform's own core: word writes, one DMA descriptor, word reads, all over its socket.
class CopyCore : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<CopyCore> bus;
  bool ok = false;
  sc_core::sc_time dma_time;

  CopyCore(sc_core::sc_module_name name, npusim::models::DmaEngine& dma) : sc_module(name), bus("bus"), dma_(dma) {
    SC_HAS_PROCESS(CopyCore);
    SC_THREAD(run);
  }

 private:
  bool access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len) {
    tlm::tlm_generic_payload p;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(len);
    p.set_streaming_width(len);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    bus->b_transport(p, delay);
    wait(delay);
    return p.is_response_ok();
  }

  void run() {
    std::vector<uint8_t> tensor(kBytes);
    for (unsigned i = 0; i < kBytes; ++i) tensor[i] = static_cast<uint8_t>(i * 7 + 3);
    for (unsigned off = 0; off < kBytes; off += 64)
      if (!access(tlm::TLM_WRITE_COMMAND, kSrc + off, tensor.data() + off, 64)) return;
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    npusim::models::DmaDescriptor d;
    d.src = kSrc;
    d.dst = kDst;
    d.len = kBytes;
    d.call_site = "copy_platform";
    const uint64_t ticket = dma_.submit(d, t0);
    while (!dma_.done(ticket)) wait(dma_.completion_event());
    dma_time = sc_core::sc_time_stamp() - t0;
    std::vector<uint8_t> back(kBytes);
    for (unsigned off = 0; off < kBytes; off += 64)
      if (!access(tlm::TLM_READ_COMMAND, kDst + off, back.data() + off, 64)) return;
    ok = std::memcmp(back.data(), tensor.data(), kBytes) == 0 && dma_.fault_of(ticket) == nullptr;
  }

  npusim::models::DmaEngine& dma_;
};

}  // namespace

int sc_main(int, char*[]) {
  using namespace npusim::models;
  HbmConfig hcfg;  // npusim's HBM2 defaults
  hcfg.base = kHbmBase;
  Hbm hbm("hbm", hcfg);
  DmaConfig dcfg;
  dcfg.windows.clear();  // no dataram window on this platform
  DmaEngine dma("dma", dcfg);
  Interconnect noc("noc", InterconnectConfig{});
  noc.add_region("hbm", kHbmBase, 64ull << 20, 0, 0);  // the HBM model sees offsets from its base
  CopyCore core("core", dma);
  core.bus.bind(noc.bus);
  dma.bus.bind(noc.bus);
  noc.mem.bind(hbm.bus);
  sc_core::sc_start();
  const auto& st = hbm.stats();
  std::printf("copy_platform: %u bytes by DMA in %.1f ns; hbm reads %llu writes %llu row hits %llu; copy %s\n",
              kBytes, core.dma_time.to_seconds() * 1e9, static_cast<unsigned long long>(st.reads),
              static_cast<unsigned long long>(st.writes), static_cast<unsigned long long>(st.row_hits),
              core.ok ? "exact" : "WRONG");
  return core.ok && st.reads > 0 && st.writes > 0 ? 0 : 1;
}
