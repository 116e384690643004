// The C library subset of npusim's Snitch runtime (shared with the Neuron device library): output through the host interface, exit,
// and the memory and string functions the compiler may call.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npusim_host.h"

int putchar(int c) {
  *NPUSIM_HOST_PUTCHAR = (uint32_t)(unsigned char)c;
  return (unsigned char)c;
}

int puts(const char *s) {
  while (*s) putchar(*s++);
  putchar('\n');
  return 0;
}

void exit(int code) {
  *NPUSIM_HOST_EXIT = (uint32_t)code;
  for (;;) {
  }
}

void abort(void) {
  for (;;) __asm__ volatile("ebreak");
}

int abs(int v) { return v < 0 ? -v : v; }
long labs(long v) { return v < 0 ? -v : v; }
long long llabs(long long v) { return v < 0 ? -v : v; }

// Word copies when both pointers are word aligned, bytes otherwise.
void *memcpy(void *dst, const void *src, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
    for (; n >= 4; n -= 4, d += 4, s += 4) *(uint32_t *)d = *(const uint32_t *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  while (n--) d[n] = s[n];
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char b = (unsigned char)c;
  if (((uintptr_t)d & 3u) == 0) {
    const uint32_t w = b * 0x01010101u;
    for (; n >= 4; n -= 4, d += 4) *(uint32_t *)d = w;
  }
  while (n--) *d++ = b;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n; --n, ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

size_t strlen(const char *s) {
  const char *p = s;
  while (*p) ++p;
  return (size_t)(p - s);
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) ++a, ++b;
  return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n) {
  for (; n; --n, ++a, ++b) {
    if (*a != *b) return (unsigned char)*a - (unsigned char)*b;
    if (!*a) break;
  }
  return 0;
}

char *strcpy(char *dst, const char *src) {
  char *d = dst;
  while ((*d++ = *src++) != 0) {
  }
  return dst;
}

char *strchr(const char *s, int c) {
  for (;; ++s) {
    if (*s == (char)c) return (char *)s;
    if (!*s) return 0;
  }
}

// C++ support: destructors of global objects are registered but never run (a core stops at
// the end of main); a pure virtual call is a fault.
void *__dso_handle = 0;
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
  (void)fn;
  (void)arg;
  (void)dso;
  return 0;
}
int atexit(void (*fn)(void));
int atexit(void (*fn)(void)) {
  (void)fn;
  return 0;
}
void __cxa_pure_virtual(void);
void __cxa_pure_virtual(void) { abort(); }
