// Shared by the memory targets: checks a generic payload against a store and moves its data.
#pragma once

#include <tlm>

#include "models/sparse_store.h"

namespace npusim::models {

// access_store() with byte enables (checked: range, streaming width).
tlm::tlm_response_status access_store_masked(SparseStore& store, tlm::tlm_generic_payload& trans,
                                             uint64_t offset);

// Checks the payload (address range, streaming width, command) and performs the read or
// write on `store` at `offset` (already translated to the memory's own address). Returns the
// response status to set; the data moves only on TLM_OK_RESPONSE. IGNORE is OK and moves
// nothing.
// Inline: it is on the path of every HBM and dataram access.
inline tlm::tlm_response_status access_store(SparseStore& store, tlm::tlm_generic_payload& trans,
                                             uint64_t offset) {
  const uint64_t len = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  if (len == 0 || data == nullptr) return tlm::TLM_GENERIC_ERROR_RESPONSE;
  if (offset >= store.size() || len > store.size() - offset) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (trans.get_streaming_width() < len) return tlm::TLM_BURST_ERROR_RESPONSE;
  const uint8_t* be = trans.get_byte_enable_ptr();
  if (be != nullptr) return access_store_masked(store, trans, offset);
  switch (trans.get_command()) {
    case tlm::TLM_READ_COMMAND: store.read(offset, data, len); break;
    case tlm::TLM_WRITE_COMMAND: store.write(offset, data, len); break;
    case tlm::TLM_IGNORE_COMMAND: break;
  }
  return tlm::TLM_OK_RESPONSE;
}

// Debug transport: as much of the access as lies inside the store, no timing. Returns the
// number of bytes moved.
unsigned debug_access(SparseStore& store, tlm::tlm_generic_payload& trans, uint64_t offset);

}  // namespace npusim::models
