// printf_formats: compute core 0 prints one line per case; the lines must equal
// printf_formats.expected, which glibc's printf gives for the same calls.
#include <snrt.h>

int main(void) {
  if (snrt_cluster_core_idx() != 0) return 0;
  printf("%d|%i|%u", -42, 17, 4000000000u);
  putchar('\n');
  printf("[%5d][%-5d][%05d][%+d][% d]", 42, 42, 42, 42, 42);
  putchar('\n');
  printf("[%x][%X][%#x][%#o][%o][%08x]", 0xbeefu, 0xbeefu, 255u, 8u, 0u, 0x1234u);
  putchar('\n');
  printf("[%lld][%llu][%llx]", -1234567890123LL, 18446744073709551615ULL, 0x123456789abcdefULL);
  putchar('\n');
  printf("[%ld][%lu][%zu][%hd][%hhu]", -5L, 7UL, (size_t)99, (short)-3, (unsigned char)200);
  putchar('\n');
  printf("[%s][%10s][%-10s][%.3s][%c][%%]", "abc", "right", "left", "truncate", 'z');
  putchar('\n');
  printf("[%.0d][%.3d][%5.3d][%-8.4x]", 0, 7, -7, 0xabu);
  putchar('\n');
  printf("[%f][%.2f][%10.3f][%-10.1f][%+.1f]", 3.14159, 2.005, -1.5, 0.25, 2.0);
  putchar('\n');
  printf("[%.0f][%.0f][%f][%.9f]", 0.5, 1.5, 1e10, 0.1);
  putchar('\n');
  printf("[%f][%f][%05.1f]", 123456789.125, -0.0, 9.96);
  putchar('\n');
  printf("[%*d][%-*d][%.*s]", 6, 1, 6, 2, 2, "abcdef");
  putchar('\n');
  return 0;
}
