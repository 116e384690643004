// Example custom op: ReLU over an int32 tensor in HBM, through a dataram buffer.
// Written against the device library's API only (firmware/neuron_device.h): it allocates its
// tensors in HBM, stages tiles into dataram with the configured data-transfer method, runs
// the element loop on the core (loads, stores, compute) and writes the tile back.
//
// Arguments (scenario `args:`): elements (default 4096), tile_bytes (default 4096),
// method (0 C_MEMCPY, 1 VEC_MEMCPY, 2 DMA; default 2).
#include "firmware/neuron_device.h"

NPUSIM_CUSTOM_OP(relu_bounce, "ReLU over an HBM int32 tensor, tile by tile through dataram") {
  const unsigned n = static_cast<unsigned>(npusim_arg("elements", 4096));
  const unsigned tile = static_cast<unsigned>(npusim_arg("tile_bytes", 4096));
  set_data_transfer_method(static_cast<data_transfer_method>(npusim_arg("method", DMA)));
  if (init_neuron_hbm_allocator() != 0 || init_neuron_dataram_allocator() != 0)
    npusim_fail("allocator init failed");

  unsigned long long tensor = 0;
  if (neuron_hbm_allocate(n * 4, &tensor, 0) != 0) npusim_fail("no HBM for the tensor");
  // Input: alternating signs, so that ReLU has work to do.
  for (unsigned i = 0; i < n; ++i)
    npusim_hbm_store32(tensor + 4ull * i, static_cast<uint32_t>(i % 2 ? -int(i) : int(i)));

  void* buf = nullptr;
  if (neuron_dataram_allocate(tile, &buf, 0) != 0) npusim_fail("no dataram for the tile");
  for (unsigned off = 0; off < n * 4; off += tile) {
    const unsigned bytes = n * 4 - off < tile ? n * 4 - off : tile;
    data_transfer_to_dram(buf, tensor + off, bytes);
    for (unsigned k = 0; k < bytes; k += 4) {
      void* p = static_cast<char*>(buf) + k;
      const int32_t v = static_cast<int32_t>(npusim_load32(p));
      npusim_compute(1);  // compare + select
      if (v < 0) npusim_store32(p, 0);
    }
    data_transfer_from_dram(tensor + off, buf, bytes);
  }
  neuron_dataram_deallocate(buf);

  // Check the result in HBM.
  for (unsigned i = 0; i < n; ++i) {
    const uint32_t want = i % 2 ? 0u : i;
    if (npusim_hbm_load32(tensor + 4ull * i) != want) npusim_fail("wrong result");
  }
  neuron_hbm_deallocate(tensor);
}
