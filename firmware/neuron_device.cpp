#include "firmware/neuron_device.h"

#include <map>
#include <string>

#include "firmware/firmware.h"

using npusim::fw::current;

namespace {
uint32_t ptr32(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }
}  // namespace

int init_neuron_hbm_allocator() { return current().init_neuron_hbm_allocator(); }
int init_neuron_dataram_allocator() { return current().init_neuron_dataram_allocator(); }
int _init_libc_heap_allocator() { return current().init_libc_heap_allocator(); }

int neuron_hbm_allocate(unsigned size, unsigned long long* out_addr, unsigned align) {
  uint64_t a = *out_addr;
  const int r = current().neuron_hbm_allocate(size, &a, align);
  *out_addr = a;
  return r;
}
int neuron_hbm_deallocate(unsigned long long addr) { return current().neuron_hbm_deallocate(addr); }
int neuron_dataram_allocate(unsigned size, void** out_ptr, unsigned align) {
  uint32_t p = 0;
  const int r = current().neuron_dataram_allocate(size, &p, align);
  *out_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(p));  // written even on failure
  return r;
}
int neuron_dataram_deallocate(void* ptr) { return current().neuron_dataram_deallocate(ptr32(ptr)); }

int allocate_hbm_stack(unsigned size, unsigned align, unsigned flags) {
  return current().allocate_hbm_stack(size, align, flags);
}
void switchStack() { current().switch_to_hbm_stack(); }
void switchStackBack() { current().switch_to_local_stack(); }

void set_data_transfer_method(data_transfer_method m) {
  current().set_method(static_cast<npusim::fw::TransferMethod>(m));
}
int data_transfer_to_dram(void* dram_addr, unsigned long long hbm_addr, unsigned bytes) {
  return current().data_transfer_to_dram(ptr32(dram_addr), hbm_addr, bytes);
}
int data_transfer_from_dram(unsigned long long hbm_addr, const void* dram_addr, unsigned bytes) {
  return current().data_transfer_from_dram(hbm_addr, ptr32(dram_addr), bytes);
}
int tensor_stream_copy(unsigned long long dst, unsigned long long src, unsigned long long bytes) {
  return current().tensor_stream_copy(dst, src, bytes);
}

uint32_t npusim_load32(const void* addr) { return current().core().load32(ptr32(addr)); }
void npusim_store32(void* addr, uint32_t v) { current().core().store32(ptr32(addr), v); }
uint32_t npusim_hbm_load32(unsigned long long a) {
  auto& fw = current();
  return fw.core().load32(fw.core_address(a));
}
void npusim_hbm_store32(unsigned long long a, uint32_t v) {
  auto& fw = current();
  fw.core().store32(fw.core_address(a), v);
}
void npusim_read(const void* addr, void* dst, size_t n) { current().core().read(ptr32(addr), dst, n); }
void npusim_write(void* addr, const void* src, size_t n) { current().core().write(ptr32(addr), src, n); }
void npusim_compute(uint64_t cycles) { current().core().compute(cycles); }
long long npusim_arg(const char* name, long long fallback) {
  const auto& args = current().args();
  const auto it = args.find(name);
  return it == args.end() ? fallback : it->second;
}
void npusim_fail(const char* what) {
  throw npusim::fw::FirmwareFault(npusim::fw::FirmwareFault::kUsage, "custom op",
                                  std::string("custom op failed: ") + what);
}

npusim_frame::npusim_frame(const char* name, unsigned bytes) { current().push_frame(name, bytes); }
npusim_frame::~npusim_frame() {
  // During unwinding from a fault the frame is abandoned with the rest of the program.
  if (std::uncaught_exceptions() == 0) current().pop_frame();
}

namespace npusim::fw {
namespace {
struct OpEntry {
  CustomOpFn fn;
  std::string description;
};
std::map<std::string, OpEntry>& ops() {
  static std::map<std::string, OpEntry> m;
  return m;
}
}  // namespace
bool register_custom_op(const char* name, CustomOpFn fn, const char* description) {
  ops()[name] = OpEntry{fn, description};
  return true;
}
std::vector<std::pair<std::string, std::string>> custom_ops() {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& [name, e] : ops()) v.emplace_back(name, e.description);
  return v;
}
CustomOpFn find_custom_op(const char* name) {
  const auto it = ops().find(name);
  return it == ops().end() ? nullptr : it->second.fn;
}
}  // namespace npusim::fw
