#include "xmem_heap.h"

namespace npusim::alloc::xmem {

const char* status_name(int32_t status) {
  switch (status) {
    case kOk: return "XMEM_OK";
    case kErrAllocFailed: return "XMEM_ERR_ALLOC_FAILED";
    case kErrIllegalAlign: return "XMEM_ERR_ILLEGAL_ALIGN";
    case kErrInvalidArgs: return "XMEM_ERR_INVALID_ARGS";
    case kErrPtrOutOfBounds: return "XMEM_ERR_PTR_OUT_OF_BOUNDS";
    case kErrPoolSize: return "XMEM_ERR_POOL_SIZE";
    default: return "XMEM_ERR_UNKNOWN";
  }
}

}  // namespace npusim::alloc::xmem
