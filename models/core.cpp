#include "models/core.h"
#include "models/unwind.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>


namespace npusim::models {

namespace {
const char* response_name(tlm::tlm_response_status s) {
  switch (s) {
    case tlm::TLM_ADDRESS_ERROR_RESPONSE: return "TLM_ADDRESS_ERROR_RESPONSE (unmapped address)";
    case tlm::TLM_COMMAND_ERROR_RESPONSE: return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE: return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE: return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
    case tlm::TLM_GENERIC_ERROR_RESPONSE: return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE: return "TLM_INCOMPLETE_RESPONSE";
    default: return "TLM_OK_RESPONSE";
  }
}
}  // namespace

BusError::BusError(const std::string& core, bool write, uint64_t addr, size_t len,
                   tlm::tlm_response_status status)
    : std::runtime_error(fmt::format("bus error: {} {} of {} bytes at 0x{:x}: {}", core,
                                     write ? "write" : "read", len, addr, response_name(status))),
      write_(write),
      addr_(addr),
      len_(len),
      status_(status) {}

Core::Core(sc_core::sc_module_name name, const CoreConfig& cfg)
    : sc_core::sc_module(name),
      bus("bus"),
      cfg_(cfg),
      period_(sc_core::sc_time(1.0 / cfg.clock_ghz, sc_core::SC_NS)) {
  if (cfg.clock_ghz <= 0) throw std::invalid_argument("core clock_ghz must be positive");
  if (cfg.vector_bytes == 0) throw std::invalid_argument("core vector_bytes must be positive");
  quantum_ = (period_ * static_cast<double>(cfg.quantum_cycles)).value();
  if (quantum_ == 0) quantum_ = 1;
  budget_ = quantum_;
  bus.register_invalidate_direct_mem_ptr(this, &Core::invalidate_direct_mem_ptr);
  SC_HAS_PROCESS(Core);
  SC_THREAD(thread);
  if (cfg.host_stack_bytes) set_stack_size(cfg.host_stack_bytes);
}

namespace {
std::unordered_map<const sc_core::sc_object*, Core*>& core_registry() {
  static std::unordered_map<const sc_core::sc_object*, Core*> r;
  return r;
}
}  // namespace

Core* Core::current() {
  if (acting_ != nullptr) return acting_;
  const auto it = core_registry().find(sc_core::sc_get_current_process_handle().get_process_object());
  return it == core_registry().end() ? nullptr : it->second;
}


void Core::thread() {
  core_registry()[sc_core::sc_get_current_process_handle().get_process_object()] = this;
  if (!program_) return;
  stack_.enter(cfg_.host_stack_bytes ? cfg_.host_stack_bytes : sc_core::SC_DEFAULT_STACK_SIZE);
  running_ = true;
  stats_.start = sc_core::sc_time_stamp();
  std::exception_ptr error;
  try {
    program_(*this);
  } catch (...) {
    forget_unwound_frames();
    error = std::current_exception();
  }
  stats_.end = now();
  running_ = false;
  finished_ = true;
  if (on_exit_) on_exit_(*this, error);
  if (!error) sync();
}

void Core::access(bool write, uint64_t addr, void* data, size_t n) {
  // Outside the core's program (reports, post-mortem inspection): debug transport, no time.
  if (!running_) {
    debug_access(write, addr, data, n);
    return;
  }
  // DMI fast path: the grant used last, then the others.
  if (addr < hot_.lo || addr + n - 1 > hot_.hi || !(write ? hot_.write : hot_.read)) {
    const tlm::tlm_dmi* found = nullptr;
    for (const auto& d : dmi_)
      if (addr >= d.get_start_address() && addr + n - 1 <= d.get_end_address() &&
          (write ? d.is_write_allowed() : d.is_read_allowed())) {
        found = &d;
        break;
      }
    if (found == nullptr) {
      bus_access(write, addr, data, n);
      return;
    }
    hot_ = DmiHot{found->get_start_address(), found->get_end_address(), found->get_dmi_ptr(),
                  found->get_read_latency().value(), found->get_write_latency().value(),
                  found->is_read_allowed(), found->is_write_allowed()};
  }
  unsigned char* p = hot_.ptr + (addr - hot_.lo);
  if (write) std::memcpy(p, data, n);
  else std::memcpy(data, p, n);
  dmi_done(write ? hot_.write_units : hot_.read_units);
}

void Core::bus_access(bool write, uint64_t addr, void* data, size_t n) {
  trans_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans_.set_address(addr);
  trans_.set_data_ptr(static_cast<unsigned char*>(data));
  trans_.set_data_length(static_cast<unsigned>(n));
  trans_.set_streaming_width(static_cast<unsigned>(n));
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::sc_time::from_value(local_);
  bus->b_transport(trans_, delay);
  ++stats_.bus_transactions;
  if (trans_.is_response_error())
    throw BusError(name(), write, addr, n, trans_.get_response_status());
  memory_units_ += delay.value() - local_;
  local_ = delay.value();
  if (local_ >= budget_) sync();
  if (cfg_.use_dmi && trans_.is_dmi_allowed()) {
    tlm::tlm_dmi dmi;
    trans_.set_address(addr);
    if (bus->get_direct_mem_ptr(trans_, dmi) && dmi.get_dmi_ptr() != nullptr) {
      dmi_.push_back(dmi);
    }
  }
}

void Core::debug_access(bool write, uint64_t addr, void* data, size_t n) {
  tlm::tlm_generic_payload t;
  t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  t.set_address(addr);
  t.set_data_ptr(static_cast<unsigned char*>(data));
  t.set_data_length(static_cast<unsigned>(n));
  t.set_streaming_width(static_cast<unsigned>(n));
  if (bus->transport_dbg(t) != n)
    throw BusError(name(), write, addr, n, tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

void Core::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  dmi_.erase(std::remove_if(dmi_.begin(), dmi_.end(),
                            [&](const tlm::tlm_dmi& d) {
                              return d.get_start_address() <= end && start <= d.get_end_address();
                            }),
             dmi_.end());
  hot_ = DmiHot{};
  if (on_invalidate_) on_invalidate_(start, end);
}

std::optional<tlm::tlm_dmi> Core::direct_memory(uint64_t addr, size_t n) {
  const uint64_t last = addr + (n ? n - 1 : 0);
  for (const auto& d : dmi_)
    if (addr >= d.get_start_address() && last <= d.get_end_address() && d.is_read_allowed() &&
        d.is_write_allowed())
      return d;
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(addr);
  t.set_data_length(static_cast<unsigned>(n ? n : 1));
  t.set_streaming_width(static_cast<unsigned>(n ? n : 1));
  tlm::tlm_dmi dmi;
  if (!bus->get_direct_mem_ptr(t, dmi) || dmi.get_dmi_ptr() == nullptr || !dmi.is_read_allowed() ||
      !dmi.is_write_allowed() || addr < dmi.get_start_address() || last > dmi.get_end_address())
    return std::nullopt;
  if (cfg_.use_dmi) dmi_.push_back(dmi);
  return dmi;
}

void Core::read(uint64_t addr, void* dst, size_t n) {
  if (n == 0) return;
  access(false, addr, dst, n);
  ++stats_.block_reads;
  stats_.bytes_read += n;
}

void Core::write(uint64_t addr, const void* src, size_t n) {
  if (n == 0) return;
  access(true, addr, const_cast<void*>(src), n);
  ++stats_.block_writes;
  stats_.bytes_written += n;
}

template <class Fn>
void Core::chunked(uint64_t addr, size_t n, size_t chunk, Fn&& fn) {
  for (size_t off = 0; off < n; off += chunk) fn(addr + off, off, std::min(chunk, n - off));
}

void Core::read_words(uint64_t addr, void* dst, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  chunked(addr, n, 4, [&](uint64_t a, size_t off, size_t len) { read(a, d + off, len); });
}
void Core::write_words(uint64_t addr, const void* src, size_t n) {
  const auto* s = static_cast<const uint8_t*>(src);
  chunked(addr, n, 4, [&](uint64_t a, size_t off, size_t len) { write(a, s + off, len); });
}
void Core::read_vectors(uint64_t addr, void* dst, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  chunked(addr, n, cfg_.vector_bytes,
          [&](uint64_t a, size_t off, size_t len) { read(a, d + off, len); });
}
void Core::write_vectors(uint64_t addr, const void* src, size_t n) {
  const auto* s = static_cast<const uint8_t*>(src);
  chunked(addr, n, cfg_.vector_bytes,
          [&](uint64_t a, size_t off, size_t len) { write(a, s + off, len); });
}

void Core::compute(uint64_t cycles) {
  if (cycles == 0) return;
  const uint64_t units = period_.value() * cycles;
  stats_.compute_cycles += cycles;
  compute_units_ += units;
  advance(units);
}

void Core::sync() {
  if (local_ > 0) {
    sc_core::wait(sc_core::sc_time::from_value(local_));
    stack_.resume();
  }
  local_ = 0;
  budget_ = quantum_ - sc_core::sc_time_stamp().value() % quantum_;
}

void Core::wait_for(const sc_core::sc_event& e) {
  sync();
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  if (activity_) activity_(false, t0);
  sc_core::wait(e);
  stack_.resume();
  stats_.wait_time += sc_core::sc_time_stamp() - t0;
  if (activity_) activity_(true, sc_core::sc_time_stamp());
  budget_ = quantum_ - sc_core::sc_time_stamp().value() % quantum_;
}

void Core::idle(const sc_core::sc_time& t) {
  sync();
  if (t == sc_core::SC_ZERO_TIME) return;
  if (activity_) activity_(false, sc_core::sc_time_stamp());
  sc_core::wait(t);
  stack_.resume();
  stats_.wait_time += t;
  if (activity_) activity_(true, sc_core::sc_time_stamp());
  budget_ = quantum_ - sc_core::sc_time_stamp().value() % quantum_;
}

const CoreStats& Core::stats() const {
  stats_.memory_time = sc_core::sc_time::from_value(memory_units_);
  stats_.compute_time = sc_core::sc_time::from_value(compute_units_);
  return stats_;
}

}  // namespace npusim::models
