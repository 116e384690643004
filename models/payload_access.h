// Shared by the memory targets: checks a generic payload against a store and moves its data.
#pragma once

#include <tlm>

#include "models/sparse_store.h"

namespace npusim::models {

// Checks the payload (address range, streaming width, command) and performs the read or
// write on `store` at `offset` (already translated to the memory's own address). Returns the
// response status to set; the data moves only on TLM_OK_RESPONSE. IGNORE is OK and moves
// nothing.
tlm::tlm_response_status access_store(SparseStore& store, tlm::tlm_generic_payload& trans,
                                      uint64_t offset);

// Debug transport: as much of the access as lies inside the store, no timing. Returns the
// number of bytes moved.
unsigned debug_access(SparseStore& store, tlm::tlm_generic_payload& trans, uint64_t offset);

}  // namespace npusim::models
