#include "firmware/firmware.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace npusim::fw {

using alloc::neuron::HeapId;

const char* method_name(TransferMethod m) {
  switch (m) {
    case TransferMethod::kCMemcpy: return "C_MEMCPY";
    case TransferMethod::kVecMemcpy: return "VEC_MEMCPY";
    case TransferMethod::kDma: return "DMA";
  }
  return "?";
}

const char* FirmwareFault::kind_name(Kind k) {
  switch (k) {
    case kAllocFailure: return "allocation failure";
    case kDoubleFree: return "double free";
    case kStackOverflow: return "stack overflow";
    case kStackTooLarge: return "stack too large";
    case kBadAddress: return "bad address";
    case kUsage: return "usage error";
  }
  return "?";
}

namespace {
std::unordered_map<const models::Core*, Firmware*>& registry() {
  static std::unordered_map<const models::Core*, Firmware*> r;
  return r;
}
}  // namespace

Firmware& current() {
  models::Core* core = models::Core::current();
  const auto it = registry().find(core);
  if (core == nullptr || it == registry().end())
    throw FirmwareFault(FirmwareFault::kUsage, "device API",
                        "a device API function was called outside a simulated core's program");
  return *it->second;
}

void bind_to_core(Firmware& fw) { registry()[&fw.core()] = &fw; }

Firmware::Firmware(models::Core& core, models::DmaEngine* dma, const FirmwareConfig& cfg)
    : core_(core), dma_(dma), cfg_(cfg), heaps_(core, cfg.layout) {
  stack_.base = cfg.local_stack_top - cfg.local_stack_bytes;
  stack_.size = cfg.local_stack_bytes;
  stack_.sp = cfg.local_stack_top;
}

Firmware::~Firmware() {
  auto& r = registry();
  const auto it = r.find(&core_);
  if (it != r.end() && it->second == this) r.erase(it);
}

void Firmware::begin(const std::string& call, const std::string& args) {
  if (hooks_.call_begin) hooks_.call_begin(call, args);
  core_.compute(cfg_.call_cycles);
}

int Firmware::end(const std::string& call, int status) {
  if (hooks_.call_end) hooks_.call_end(call, status);
  return status;
}

// --- allocators ---

int Firmware::init_neuron_hbm_allocator() {
  begin("init_neuron_hbm_allocator", "");
  const int r = heaps_.init_neuron_hbm_allocator();
  if (hooks_.heap_changed) hooks_.heap_changed(HeapId::kHbm);
  return end("init_neuron_hbm_allocator", r);
}

int Firmware::init_neuron_dataram_allocator() {
  begin("init_neuron_dataram_allocator", "");
  const int r = heaps_.init_neuron_dataram_allocator();
  if (hooks_.heap_changed) hooks_.heap_changed(HeapId::kDataram);
  return end("init_neuron_dataram_allocator", r);
}

int Firmware::init_libc_heap_allocator() {
  begin("_init_libc_heap_allocator", "");
  const int r = heaps_.init_libc_heap_allocator();
  if (hooks_.heap_changed) hooks_.heap_changed(HeapId::kLibc);
  return end("_init_libc_heap_allocator", r);
}

int Firmware::neuron_hbm_allocate(uint32_t size, uint64_t* out_addr, uint32_t align) {
  begin("neuron_hbm_allocate", fmt::format("size={} align={}", size, align));
  const int r = heaps_.neuron_hbm_allocate(size, out_addr, align);
  heap_op(HeapId::kHbm, true, r);
  return end("neuron_hbm_allocate", r);
}

int Firmware::neuron_hbm_deallocate(uint64_t addr) {
  begin("neuron_hbm_deallocate", fmt::format("addr=0x{:x}", addr));
  const int r = heaps_.neuron_hbm_deallocate(addr);
  heap_op(HeapId::kHbm, false, r);
  return end("neuron_hbm_deallocate", r);
}

int Firmware::neuron_dataram_allocate(uint32_t size, uint32_t* out_ptr, uint32_t align) {
  begin("neuron_dataram_allocate", fmt::format("size={} align={}", size, align));
  const int r = heaps_.neuron_dataram_allocate(size, out_ptr, align);
  heap_op(HeapId::kDataram, true, r);
  return end("neuron_dataram_allocate", r);
}

int Firmware::neuron_dataram_deallocate(uint32_t ptr) {
  begin("neuron_dataram_deallocate", fmt::format("ptr=0x{:x}", ptr));
  const int r = heaps_.neuron_dataram_deallocate(ptr);
  heap_op(HeapId::kDataram, false, r);
  return end("neuron_dataram_deallocate", r);
}

// --- stack switch ---

int Firmware::allocate_hbm_stack(uint32_t size, uint32_t align, uint32_t flags) {
  const std::string call = "allocate_hbm_stack";
  begin(call, fmt::format("size={} align={} flags={}", size, align, flags));
  if (size == 0) size = kStackSize;
  if (size > kMaxStackSize)
    throw FirmwareFault(FirmwareFault::kStackTooLarge, call,
                        fmt::format("{}: stack size {} exceeds MAX_STACK_SIZE 0x{:x} (4 MiB)", call,
                                    size, kMaxStackSize));
  if (stack_.hbm_stack != 0)
    throw FirmwareFault(FirmwareFault::kUsage, call,
                        fmt::format("{}: an HBM stack is already allocated at 0x{:x}", call,
                                    stack_.hbm_stack));
  uint64_t addr = 0;
  if (heaps_.neuron_hbm_allocate(size, &addr, align) != 0) {
    heap_op(HeapId::kHbm, true, -1);
    ++alloc_failures_;
    // The firmware treats a failed stack allocation as fatal, whatever the policy.
    throw FirmwareFault(FirmwareFault::kAllocFailure, call,
                        fmt::format("{}: neuron_hbm_allocate({}) failed (xmem status {} {}); a "
                                    "failed stack allocation is fatal",
                                    call, size, heaps_.last_xmem_status(),
                                    alloc::xmem::status_name(heaps_.last_xmem_status())));
  }
  heap_op(HeapId::kHbm, true, 0);
  stack_.hbm_stack = addr;
  stack_.hbm_stack_size = size;
  if (flags & 1u) switch_to_hbm_stack();
  return end(call, 0);
}

void Firmware::switch_to_hbm_stack() {
  if (stack_.hbm_stack == 0)
    throw FirmwareFault(FirmwareFault::kUsage, "switchStack",
                        "switchStack: no HBM stack was allocated (call allocate_hbm_stack first)");
  if (stack_.switched) return;
  if (!stack_.frames.empty())
    throw FirmwareFault(FirmwareFault::kUsage, "switchStack",
                        "switchStack: frames are still open on the local stack");
  const uint64_t base = core_address(stack_.hbm_stack);
  stack_.switched = true;
  stack_.base = static_cast<uint32_t>(base);
  stack_.size = stack_.hbm_stack_size;
  stack_.sp = stack_.base + stack_.size;
  stack_.high_water = 0;
  core_.compute(cfg_.call_cycles);
}

void Firmware::switch_to_local_stack() {
  if (!stack_.switched) return;
  if (!stack_.frames.empty())
    throw FirmwareFault(FirmwareFault::kUsage, "switchStack",
                        "switchStack: frames are still open on the HBM stack");
  stack_.switched = false;
  stack_.base = cfg_.local_stack_top - cfg_.local_stack_bytes;
  stack_.size = cfg_.local_stack_bytes;
  stack_.sp = cfg_.local_stack_top;
  stack_.high_water = 0;
  core_.compute(cfg_.call_cycles);
}

void Firmware::free_hbm_stack() {
  if (stack_.hbm_stack == 0) return;
  switch_to_local_stack();
  heap_op(HeapId::kHbm, false, heaps_.neuron_hbm_deallocate(stack_.hbm_stack));
  stack_.hbm_stack = 0;
  stack_.hbm_stack_size = 0;
}

void Firmware::push_frame(const std::string& name, uint32_t bytes) {
  const uint32_t used = stack_.base + stack_.size - stack_.sp;
  if (uint64_t{used} + bytes > stack_.size) {
    std::string chain;
    for (const auto& f : stack_.frames) chain += f.first + " > ";
    throw FirmwareFault(
        FirmwareFault::kStackOverflow, name,
        fmt::format("stack overflow: frame '{}' of {} bytes needs {} bytes on the {} stack of {} "
                    "bytes ({} over); call chain: {}{}",
                    name, bytes, uint64_t{used} + bytes, stack_.switched ? "HBM" : "local",
                    stack_.size, uint64_t{used} + bytes - stack_.size, chain, name));
  }
  stack_.sp -= bytes;
  stack_.frames.emplace_back(name, bytes);
  stack_.high_water = std::max(stack_.high_water, used + bytes);
  if (stack_.switched) stack_.hbm_high_water = std::max(stack_.hbm_high_water, used + bytes);
  const uint32_t spill = std::min(bytes, cfg_.frame_spill_bytes);
  if (spill) {
    scratch_.assign(spill, 0);
    core_.write(stack_.sp, scratch_.data(), spill);
  }
}

void Firmware::pop_frame() {
  if (stack_.frames.empty())
    throw FirmwareFault(FirmwareFault::kUsage, "pop_frame", "pop_frame: no frame is open");
  const uint32_t bytes = stack_.frames.back().second;
  const uint32_t spill = std::min(bytes, cfg_.frame_spill_bytes);
  if (spill) {
    scratch_.resize(spill);
    core_.read(stack_.sp, scratch_.data(), spill);
  }
  stack_.sp += bytes;
  stack_.frames.pop_back();
}

// --- data transfer ---

uint64_t Firmware::core_address(uint64_t a) const {
  const auto& l = cfg_.layout;
  if (a >= l.hbm_scratch && a < l.hbm_scratch + l.hbm_scratch_size)
    return a - l.hbm_scratch + l.hbm_window;
  return a;
}

void Firmware::core_copy(uint64_t dst, uint64_t src, uint64_t n, TransferMethod m) {
  const uint64_t cs = core_address(src), cd = core_address(dst);
  if (cs > 0xffffffffull || cd > 0xffffffffull)
    throw FirmwareFault(FirmwareFault::kBadAddress, method_name(m),
                        fmt::format("{}: the core cannot reach 0x{:x} (outside its 32-bit space "
                                    "and the HBM window)",
                                    method_name(m), cs > 0xffffffffull ? src : dst));
  const size_t chunk = m == TransferMethod::kCMemcpy ? 4 : core_.config().vector_bytes;
  scratch_.resize(chunk);
  for (uint64_t off = 0; off < n; off += chunk) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, n - off));
    core_.read(cs + off, scratch_.data(), len);
    core_.write(cd + off, scratch_.data(), len);
  }
}

void Firmware::dma_copy(uint64_t dst, uint64_t src, uint64_t n, uint32_t channel,
                        const std::string& call) {
  if (dma_ == nullptr)
    throw FirmwareFault(FirmwareFault::kUsage, call, call + ": the platform has no DMA engine");
  core_.sync();
  const models::DmaDescriptor d{src, dst, n, channel, call};
  uint64_t t = 0;
  if (auto now = dma_->run_now(d, core_.now())) {
    t = now->first;
    core_.idle(now->second);
  } else {
    t = dma_->submit(d, core_.now());
    while (!dma_->done(t)) core_.wait_for(dma_->completion_event());
  }
  if (const models::DmaFault* f = dma_->fault_of(t);
      f != nullptr && dma_->config().policy == models::ViolationPolicy::kAbort)
    throw models::DmaAbort(*f);
}

void Firmware::transfer(uint64_t dst, uint64_t src, uint64_t n, TransferMethod m,
                        const std::string& call) {
  if (m == TransferMethod::kDma) dma_copy(dst, src, n, cfg_.dma_channel, call);
  else core_copy(dst, src, n, m);
}

int Firmware::data_transfer_to_dram(uint32_t dram_addr, uint64_t hbm_addr, uint64_t n) {
  const std::string call = "data_transfer_to_dram";
  begin(call, fmt::format("dram_addr=0x{:x} hbm_addr=0x{:x} bytes={} method={}", dram_addr,
                          hbm_addr, n, method_name(cfg_.method)));
  transfer(dram_addr, hbm_addr, n, cfg_.method, call);
  return end(call, 0);
}

int Firmware::data_transfer_from_dram(uint64_t hbm_addr, uint32_t dram_addr, uint64_t n) {
  const std::string call = "data_transfer_from_dram";
  begin(call, fmt::format("hbm_addr=0x{:x} dram_addr=0x{:x} bytes={} method={}", hbm_addr,
                          dram_addr, n, method_name(cfg_.method)));
  transfer(hbm_addr, dram_addr, n, cfg_.method, call);
  return end(call, 0);
}

int Firmware::tensor_stream_copy(uint64_t dst, uint64_t src, uint64_t n) {
  const std::string call = "tensor_stream_copy";
  begin(call, fmt::format("dst=0x{:x} src=0x{:x} bytes={} method={}{}", dst, src, n,
                          method_name(cfg_.method), cfg_.double_buffer ? " double-buffered" : ""));
  const bool dbl = cfg_.double_buffer && cfg_.method == TransferMethod::kDma && dma_ != nullptr &&
                   dma_->config().channels > 1;
  uint32_t bounce[2] = {0, 0};
  for (int b = 0; b < (dbl ? 2 : 1); ++b) {
    const int r = heaps_.neuron_dataram_allocate(kBufferSizeBytes, &bounce[b], 0);
    heap_op(HeapId::kDataram, true, r);
    if (r != 0) {
      for (int k = 0; k < b; ++k) heap_op(HeapId::kDataram, false, heaps_.neuron_dataram_deallocate(bounce[k]));
      ++alloc_failures_;
      // The bounce buffer is indispensable: fatal, as in the firmware.
      throw FirmwareFault(FirmwareFault::kAllocFailure, call,
                          fmt::format("{}: the {} B bounce buffer could not be allocated from the "
                                      "dataram heap (xmem status {} {}); fatal",
                                      call, kBufferSizeBytes, heaps_.last_xmem_status(),
                                      alloc::xmem::status_name(heaps_.last_xmem_status())));
    }
  }
  if (!dbl) {
    for (uint64_t off = 0; off < n; off += kBufferSizeBytes) {
      const uint64_t len = std::min<uint64_t>(kBufferSizeBytes, n - off);
      transfer(bounce[0], src + off, len, cfg_.method, call);
      transfer(dst + off, bounce[0], len, cfg_.method, call);
    }
  } else {
    // Two channels: chunk i+1 comes in on one buffer while chunk i goes out from the other.
    const uint32_t in_ch = cfg_.dma_channel, out_ch = (cfg_.dma_channel + 1) % dma_->config().channels;
    const uint64_t chunks = (n + kBufferSizeBytes - 1) / kBufferSizeBytes;
    auto len_of = [&](uint64_t i) { return std::min<uint64_t>(kBufferSizeBytes, n - i * kBufferSizeBytes); };
    std::vector<uint64_t> pending;
    auto wait_all = [&] {
      for (uint64_t t : pending) {
        while (!dma_->done(t)) core_.wait_for(dma_->completion_event());
        if (const models::DmaFault* f = dma_->fault_of(t);
            f != nullptr && dma_->config().policy == models::ViolationPolicy::kAbort)
          throw models::DmaAbort(*f);
      }
      pending.clear();
    };
    core_.sync();
    if (chunks > 0) {
      pending.push_back(dma_->submit({src, bounce[0], len_of(0), in_ch, call}, core_.now()));
      wait_all();
    }
    for (uint64_t i = 0; i < chunks; ++i) {
      const uint32_t cur = bounce[i % 2], nxt = bounce[(i + 1) % 2];
      core_.sync();
      pending.push_back(
          dma_->submit({cur, dst + i * kBufferSizeBytes, len_of(i), out_ch, call}, core_.now()));
      if (i + 1 < chunks)
        pending.push_back(dma_->submit(
            {src + (i + 1) * kBufferSizeBytes, nxt, len_of(i + 1), in_ch, call}, core_.now()));
      wait_all();
    }
  }
  for (int b = 0; b < (dbl ? 2 : 1); ++b)
    heap_op(HeapId::kDataram, false, heaps_.neuron_dataram_deallocate(bounce[b]));
  return end(call, 0);
}

}  // namespace npusim::fw
