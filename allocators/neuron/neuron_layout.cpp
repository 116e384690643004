#include "neuron_layout.h"

#include <fmt/format.h>

#include "allocators/memory_port.h"
#include "allocators/neuron/neuron_heaps.h"
#include "allocators/xmem/xmem_heap.h"

namespace npusim::alloc::neuron {

const char* heap_name(HeapId id) {
  switch (id) {
    case HeapId::kHbm: return "hbm";
    case HeapId::kDataram: return "dataram";
    case HeapId::kLibc: return "libc";
  }
  return "?";
}

void map_regions(HostMemory& mem, const NeuronLayout& l) {
  mem.add_region("dataram", l.data_scratch, l.dataram_size);
  mem.add_region("hbm-scratch-window", l.hbm_window, l.hbm_scratch_size);
}

std::vector<Range> NeuronLayout::ranges() const {
  const uint64_t hdr = xmem::header_bytes(num_blocks);
  return {
      {"allocator .bss scalars (_hbm_scratch_base, _hbm_heap_mgr_base)", bss() + 0x8u, 0xcu},
      {"HBM heap manager (_hbm_heap_mgr)", hbm_mgr(), xmem::mgr::kSize},
      {"dataram heap manager (_dataram_heap_mgr)", dataram_mgr(), xmem::mgr::kSize},
      {"libc heap manager (_dataram_libc_heap_mgr)", libc_mgr(), xmem::mgr::kSize},
      {"HBM heap header", hbm_header(), hdr},
      {"dataram heap header", dataram_header(), hdr},
      {"libc heap header", libc_header(), hdr},
      {"HBM heap pool (core window)", hbm_pool(), hbm_pool_size()},
      {"dataram heap pool", dataram_pool(), dataram_pool_size},
      {"libc heap pool", libc_pool(), libc_pool_size},
  };
}

std::vector<std::string> lint_layout(const NeuronLayout& l) {
  std::vector<std::string> out;
  const auto rs = l.ranges();
  auto str = [](const Range& r) { return fmt::format("{} [0x{:x}, 0x{:x})", r.name, r.base, r.end()); };
  for (size_t i = 0; i < rs.size(); ++i) {
    for (size_t j = i + 1; j < rs.size(); ++j) {
      const Range& a = rs[i];
      const Range& b = rs[j];
      if (a.base >= b.end() || b.base >= a.end()) continue;
      const uint64_t lo = std::max(a.base, b.base), hi = std::min(a.end(), b.end());
      out.push_back(fmt::format(
          "{} overlaps {} in [0x{:x}, 0x{:x}): an allocation or store there corrupts the other",
          str(a), str(b), lo, hi));
    }
  }
  const uint64_t dr_lo = l.data_scratch, dr_hi = uint64_t{l.data_scratch} + l.dataram_size;
  for (const auto& r : rs) {
    if (r.base >= l.hbm_window && r.base < uint64_t{l.hbm_window} + l.hbm_scratch_size) {
      if (r.end() > uint64_t{l.hbm_window} + l.hbm_scratch_size)
        out.push_back(fmt::format("{} ends past the HBM scratch window", str(r)));
      continue;
    }
    if (r.base < dr_lo || r.end() > dr_hi)
      out.push_back(fmt::format("{} is not inside dataram [0x{:x}, 0x{:x})", str(r), dr_lo, dr_hi));
  }
  if (uint64_t{l.hbm_window} + l.hbm_scratch_size > 0x1'0000'0000ull)
    out.push_back(fmt::format("HBM scratch window 0x{:x} + 0x{:x} exceeds the 32-bit space",
                              l.hbm_window, l.hbm_scratch_size));
  return out;
}

namespace {
struct DataramPreset {
  const char* name;
  uint32_t pool_offset, header_offset, libc_pool_offset, libc_pool_size;
};
constexpr DataramPreset kPresets[] = {
    {"seed", 0x42c, 0x3200, 0x4500, 0x8000},
    {"guides", 0x440, 0x4440, 0x4680, 0x7e00},
};
}  // namespace

bool apply_named_layout(NeuronLayout& l, const std::string& name) {
  for (const auto& p : kPresets) {
    if (name != p.name) continue;
    l.dataram_pool_offset = p.pool_offset;
    l.dataram_header_offset = p.header_offset;
    l.libc_pool_offset = p.libc_pool_offset;
    l.libc_pool_size = p.libc_pool_size;
    return true;
  }
  return false;
}

std::string layout_name(const NeuronLayout& l) {
  for (const auto& p : kPresets)
    if (l.dataram_pool_offset == p.pool_offset && l.dataram_header_offset == p.header_offset &&
        l.libc_pool_offset == p.libc_pool_offset && l.libc_pool_size == p.libc_pool_size)
      return p.name;
  return "custom";
}

}  // namespace npusim::alloc::neuron
