// The C library subset of npusim's Snitch runtime: formatted output to the run's log (the
// host interface's PUTCHAR register), one line per '\n', prefixed with the core's name.
#ifndef NPUSIM_SNRT_STDIO_H
#define NPUSIM_SNRT_STDIO_H

#include <stdarg.h>
#include <stddef.h>

#define EOF (-1)

#ifdef __cplusplus
extern "C" {
#endif

// Conversions: %d %i %u %x %X %o %p %s %c %f %% with the flags '-' '0' '+' ' ', a width and a
// precision (either may be '*'), and the length modifiers hh h l ll z j t.
int printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *format, va_list args) __attribute__((format(printf, 1, 0)));
int sprintf(char *out, const char *format, ...) __attribute__((format(printf, 2, 3)));
int snprintf(char *out, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int vsnprintf(char *out, size_t size, const char *format, va_list args)
    __attribute__((format(printf, 3, 0)));
int putchar(int c);
int puts(const char *s);

#ifdef __cplusplus
}
#endif

#endif  // NPUSIM_SNRT_STDIO_H
