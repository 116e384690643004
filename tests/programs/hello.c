// hello: every core prints a line; core 0 of each cluster also prints its arguments and
// returns 42, the others 0, so the program's exit code is 42 times the number of clusters.
// Build: npusim cc -o hello.elf tests/programs/hello.c
#include <snrt.h>

int main(int argc, char **argv) {
  const uint32_t core = snrt_cluster_core_idx();
  printf("hello from core %u of %u in cluster %u (%s)\n", core, snrt_cluster_core_num(),
         snrt_cluster_idx(), snrt_is_dm_core() ? "DM core" : "compute core");
  if (core != 0) return 0;
  printf("argc %d\n", argc);
  for (int i = 0; i < argc; ++i) printf("argv[%d] = \"%s\"\n", i, argv[i]);
  return 42;
}
