// The C library subset of npusim's Snitch runtime: memory and string functions.
#ifndef NPUSIM_SNRT_STRING_H
#define NPUSIM_SNRT_STRING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *dst, const char *src);
char *strchr(const char *s, int c);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_SNRT_STRING_H
