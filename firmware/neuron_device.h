// The device library's API, with the device signatures, for custom ops compiled against
// npusim. Each call reaches the firmware of the simulated core running the caller
// (npusim::fw::current()). Pointers returned for dataram are device addresses of the core:
// read and write them with npusim_load32 / npusim_store32 / npusim_read / npusim_write (a
// host dereference does not touch the simulated memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// allocator.o
int init_neuron_hbm_allocator();
int init_neuron_dataram_allocator();
int _init_libc_heap_allocator();
int neuron_hbm_allocate(unsigned size, unsigned long long* out_addr, unsigned align);
int neuron_hbm_deallocate(unsigned long long addr);
int neuron_dataram_allocate(unsigned size, void** out_ptr, unsigned align);
int neuron_dataram_deallocate(void* ptr);

// stack_switch.o (parameters: see docs/assumptions.md)
int allocate_hbm_stack(unsigned size, unsigned align, unsigned flags);
void switchStack();        // to the HBM stack
void switchStackBack();    // back to the core's local stack

// data_transfer.o: method table {C_MEMCPY=0, VEC_MEMCPY=1, DMA=2}
enum data_transfer_method { C_MEMCPY = 0, VEC_MEMCPY = 1, DMA = 2 };
void set_data_transfer_method(data_transfer_method m);
int data_transfer_to_dram(void* dram_addr, unsigned long long hbm_addr, unsigned bytes);
int data_transfer_from_dram(unsigned long long hbm_addr, const void* dram_addr, unsigned bytes);
int tensor_stream_copy(unsigned long long dst, unsigned long long src, unsigned long long bytes);

// npusim additions: the core's memory and time.
uint32_t npusim_load32(const void* addr);
void npusim_store32(void* addr, uint32_t value);
uint32_t npusim_hbm_load32(unsigned long long hbm_addr);
void npusim_hbm_store32(unsigned long long hbm_addr, uint32_t value);
void npusim_read(const void* addr, void* host_dst, size_t bytes);
void npusim_write(void* addr, const void* host_src, size_t bytes);
void npusim_compute(uint64_t cycles);
// A custom op's argument (from the scenario), or `fallback` when not given.
long long npusim_arg(const char* name, long long fallback);
// Ends the custom op with a failure the run reports (like an assertion in the op).
[[noreturn]] void npusim_fail(const char* what);

// A stack frame the code declares: costs stack traffic, and overflows like the real stack.
class npusim_frame {
 public:
  npusim_frame(const char* name, unsigned bytes);
  ~npusim_frame();
  npusim_frame(const npusim_frame&) = delete;
  npusim_frame& operator=(const npusim_frame&) = delete;
};
#define NPUSIM_FRAME(bytes) npusim_frame npusim_frame_guard_(__func__, (bytes))

// Registers a custom op so scenarios can name it: NPUSIM_CUSTOM_OP(name) { ... body ... }
namespace npusim::fw {
using CustomOpFn = void (*)();
bool register_custom_op(const char* name, CustomOpFn fn, const char* description);
CustomOpFn find_custom_op(const char* name);
// name -> description of every registered op.
std::vector<std::pair<std::string, std::string>> custom_ops();
}  // namespace npusim::fw
#define NPUSIM_CUSTOM_OP(name, description)                                         \
  static void npusim_op_##name();                                                   \
  static const bool npusim_op_registered_##name =                                   \
      ::npusim::fw::register_custom_op(#name, &npusim_op_##name, description);      \
  static void npusim_op_##name()
