// The C library subset of npusim's Snitch runtime: ending the program.
#ifndef NPUSIM_SNRT_STDLIB_H
#define NPUSIM_SNRT_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

#ifdef __cplusplus
extern "C" {
#endif

// Stops this core with `code` as its exit code (the program's exit code is the sum of its
// cores' codes). The other cores go on.
__attribute__((noreturn)) void exit(int code);
// Stops this core with a device fault (ebreak).
__attribute__((noreturn)) void abort(void);
int abs(int v);
long labs(long v);
long long llabs(long long v);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_SNRT_STDLIB_H
