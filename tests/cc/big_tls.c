// 64 bytes of thread-local data: with the runtime's 48-byte allocator state this exceeds the
// default runtime.tls_size (64), and links with --set runtime.tls_size=128.
#include <snrt.h>

__thread char per_core[64];

int main(void) {
  per_core[snrt_cluster_core_idx()] = 1;
  return per_core[0];
}
