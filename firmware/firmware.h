// The firmware layer of the Neuron GPSIMD management core: what libneuroncustomop.a gives a
// custom op, running on a simulated core. The allocators of allocators/ run on the core's
// socket (their bookkeeping in the simulated dataram), the stack switch takes its stack from
// the HBM heap, and the data-transfer backends move bytes with the core or the DMA engine.
//
// Faults the firmware would hit end the program with a FirmwareFault (or a DmaAbort / BusError
// from the models); the platform reports them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "allocators/neuron/neuron_heaps.h"
#include "models/core.h"
#include "models/dma_engine.h"

namespace npusim::fw {

// data_transfer_method_table @.data 0x200.
enum class TransferMethod : int { kCMemcpy = 0, kVecMemcpy = 1, kDma = 2 };
const char* method_name(TransferMethod m);

constexpr uint32_t kBufferSizeBytes = 4096;    // BUFFER_SIZE_BYTES: TensorStream bounce buffer
constexpr uint32_t kStackSize = 4196;          // STACK_SIZE: default switched stack
constexpr uint32_t kMaxStackSize = 0x400000;   // MAX_STACK_SIZE: 4 MiB

struct FirmwareConfig {
  alloc::neuron::NeuronLayout layout;
  TransferMethod method = TransferMethod::kDma;
  bool double_buffer = false;    // TensorStream with DMA: two bounce buffers in flight
  uint32_t dma_channel = 0;      // first channel the firmware uses
  // The core's own stack before any switch (assumption: the top of dataram, 14 KiB).
  uint32_t local_stack_top = 0x90000;
  uint32_t local_stack_bytes = 0x3800;
  // Bytes a frame push writes (return address, saved registers) and a pop reads back
  // (assumption: 32 bytes; the rest of a frame is touched only by what the code does).
  uint32_t frame_spill_bytes = 32;
  uint64_t call_cycles = 8;      // compute cycles of a firmware call's entry/exit (assumption)
  // Where a firmware program's image (text, data, bss) lives: an SRAM the simulator adds to
  // the management core's map when it runs a program (assumption: 1 MiB at 1 MiB).
  uint32_t image_base = 0x100000;
  uint32_t image_size = 0x100000;
};

class FirmwareFault : public std::runtime_error {
 public:
  enum Kind { kAllocFailure, kDoubleFree, kStackOverflow, kStackTooLarge, kBadAddress, kUsage };
  FirmwareFault(Kind k, const std::string& call, const std::string& msg)
      : std::runtime_error(msg), kind_(k), call_(call) {}
  Kind kind() const { return kind_; }
  const std::string& call() const { return call_; }
  static const char* kind_name(Kind k);

 private:
  Kind kind_;
  std::string call_;
};

// What the stack did (reports, traces).
struct StackState {
  bool switched = false;
  uint32_t base = 0, size = 0;  // current stack [base, base+size), core addresses
  uint32_t sp = 0;
  uint64_t hbm_stack = 0;       // device address of the HBM stack (0: none)
  uint32_t hbm_stack_size = 0;
  uint32_t high_water = 0;      // deepest use of the current stack, bytes
  uint32_t hbm_high_water = 0;  // deepest use of the HBM stack, bytes
  std::vector<std::pair<std::string, uint32_t>> frames;  // name, bytes
};

// Observers for traces and reports (all optional).
struct FirmwareHooks {
  // A firmware call begins / ends (name, arguments as text).
  std::function<void(const std::string& call, const std::string& args)> call_begin;
  std::function<void(const std::string& call, int status)> call_end;
  // A heap changed (after an allocate/deallocate/init).
  std::function<void(alloc::neuron::HeapId)> heap_changed;
  // An allocation (is_alloc) or a free on a heap finished with the wrapper's status (0/-1).
  std::function<void(alloc::neuron::HeapId, bool is_alloc, int status)> heap_op;
};

class Firmware {
 public:
  Firmware(models::Core& core, models::DmaEngine* dma, const FirmwareConfig& cfg = {});
  ~Firmware();

  models::Core& core() { return core_; }
  models::DmaEngine* dma() { return dma_; }
  const FirmwareConfig& config() const { return cfg_; }
  alloc::neuron::NeuronHeaps<models::Core>& heaps() { return heaps_; }
  const StackState& stack() const { return stack_; }
  FirmwareHooks& hooks() { return hooks_; }
  void set_method(TransferMethod m) { cfg_.method = m; }
  // Allocation failures the firmware treats as fatal end the program (default); when false
  // they are counted and the call returns its failure status.
  void set_alloc_failure_fatal(bool fatal) { alloc_failure_fatal_ = fatal; }
  uint64_t alloc_failures() const { return alloc_failures_; }
  // Arguments of the custom op this firmware runs (npusim_arg).
  std::map<std::string, long long>& args() { return args_; }

  // --- allocator entry points (device ABI in neuron_device.h) ---
  int init_neuron_hbm_allocator();
  int init_neuron_dataram_allocator();
  int init_libc_heap_allocator();
  int neuron_hbm_allocate(uint32_t size, uint64_t* out_addr, uint32_t align);
  int neuron_hbm_deallocate(uint64_t addr);
  int neuron_dataram_allocate(uint32_t size, uint32_t* out_ptr, uint32_t align);
  int neuron_dataram_deallocate(uint32_t ptr);

  // --- stack switch ---
  // allocate_hbm_stack(uint, uint, uint): our reading of the undocumented parameters is
  // (stack_size, align, flags): size 0 -> STACK_SIZE, align 0 -> 64 (the wrapper's default),
  // flags bit 0 = switch to the new stack at once. Above MAX_STACK_SIZE: refused (-1).
  int allocate_hbm_stack(uint32_t size, uint32_t align, uint32_t flags);
  void switch_to_hbm_stack();
  void switch_to_local_stack();
  void free_hbm_stack();
  // A frame of `bytes` the code declares: pushes write the spill, pops read it back. Overflow
  // of the current stack throws kStackOverflow naming the frame.
  void push_frame(const std::string& name, uint32_t bytes);
  void pop_frame();

  // --- data transfer ---
  // Moves n bytes with the given backend. Addresses are device addresses; the core reaches
  // HBM through its 32-bit window, the DMA engine directly.
  void transfer(uint64_t dst, uint64_t src, uint64_t n, TransferMethod m, const std::string& call);
  // HBM <-> dataram (the firmware's dram_addr is the dataram side).
  int data_transfer_to_dram(uint32_t dram_addr, uint64_t hbm_addr, uint64_t n);
  int data_transfer_from_dram(uint64_t hbm_addr, uint32_t dram_addr, uint64_t n);
  // TensorStream: src -> bounce buffer (4 KiB from the dataram heap) -> dst, chunk by chunk.
  int tensor_stream_copy(uint64_t dst, uint64_t src, uint64_t n);
  // Where the core sees a device address (HBM device addresses map into the window).
  uint64_t core_address(uint64_t device_addr) const;

 private:
  void begin(const std::string& call, const std::string& args);
  void heap_op(alloc::neuron::HeapId id, bool is_alloc, int status) {
    if (hooks_.heap_op) hooks_.heap_op(id, is_alloc, status);
    if (hooks_.heap_changed) hooks_.heap_changed(id);
  }
  int end(const std::string& call, int status);
  void dma_copy(uint64_t dst, uint64_t src, uint64_t n, uint32_t channel, const std::string& call);
  void core_copy(uint64_t dst, uint64_t src, uint64_t n, TransferMethod m);

  models::Core& core_;
  models::DmaEngine* dma_;
  FirmwareConfig cfg_;
  alloc::neuron::NeuronHeaps<models::Core> heaps_;
  StackState stack_;
  FirmwareHooks hooks_;
  bool alloc_failure_fatal_ = true;
  uint64_t alloc_failures_ = 0;
  std::vector<uint8_t> scratch_;
  std::map<std::string, long long> args_;
};

// The firmware of the SystemC process now running (set by run_on_core).
Firmware& current();
// Makes `fw` the firmware of core `fw.core()`'s thread: custom-op code calling the device API
// (neuron_device.h) from that thread reaches `fw`.
void bind_to_core(Firmware& fw);

}  // namespace npusim::fw
