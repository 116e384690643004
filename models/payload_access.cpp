#include "models/payload_access.h"

#include <algorithm>

namespace npusim::models {

tlm::tlm_response_status access_store_masked(SparseStore& store, tlm::tlm_generic_payload& trans,
                                             uint64_t offset) {
  const uint64_t len = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  const uint8_t* be = trans.get_byte_enable_ptr();
  const unsigned be_len = trans.get_byte_enable_length();
  if (be_len == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  switch (trans.get_command()) {
    case tlm::TLM_READ_COMMAND: store.read_masked(offset, data, len, be, be_len); break;
    case tlm::TLM_WRITE_COMMAND: store.write_masked(offset, data, len, be, be_len); break;
    case tlm::TLM_IGNORE_COMMAND: break;
  }
  return tlm::TLM_OK_RESPONSE;
}

unsigned debug_access(SparseStore& store, tlm::tlm_generic_payload& trans, uint64_t offset) {
  if (offset >= store.size() || trans.get_data_ptr() == nullptr) return 0;
  const uint64_t n = std::min<uint64_t>(trans.get_data_length(), store.size() - offset);
  if (trans.is_read()) store.read(offset, trans.get_data_ptr(), n);
  else if (trans.is_write()) store.write(offset, trans.get_data_ptr(), n);
  else return 0;
  return static_cast<unsigned>(n);
}

}  // namespace npusim::models
