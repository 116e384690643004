// printf and its family for npusim's Snitch runtime: the conversions of stdio.h, written to the
// host interface's PUTCHAR register (printf, vprintf) or to a buffer (sprintf, snprintf).
// 64-bit integers and doubles are taken apart with integer arithmetic and shifts, so the code
// needs no 64-bit conversion helpers; 32-bit values use 32-bit division only.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// Where the characters go: a buffer of `size` bytes, or PUTCHAR when buf is null. `len` counts
// every character, written or not (snprintf's return value).
typedef struct {
  char *buf;
  size_t size;
  size_t len;
} sink_t;

static void emit(sink_t *s, char c) {
  if (!s->buf)
    putchar(c);
  else if (s->len + 1 < s->size)
    s->buf[s->len] = c;
  s->len++;
}

static void emit_n(sink_t *s, char c, int n) {
  for (; n > 0; --n) emit(s, c);
}

typedef struct {
  int left;   // '-'
  int zero;   // '0'
  int plus;   // '+'
  int space;  // ' '
  int alt;    // '#'
  int width;
  int precision;  // -1: none
} spec_t;

// Digits of v in `base`, least significant first, into `out`; returns how many.
static int digits_of(uint64_t v, unsigned base, int upper, char *out) {
  const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  int n = 0;
  if ((v >> 32) == 0) {
    uint32_t w = (uint32_t)v;
    do {
      out[n++] = set[w % base];
      w /= base;
    } while (w);
  } else {
    do {
      out[n++] = set[(unsigned)(v % base)];
      v /= base;
    } while (v);
  }
  return n;
}

// One field: prefix (sign, 0x), `zeros` leading zeros, then the digits (reversed in rev) and
// `tail` (a string appended after the digits), padded to the width.
static void emit_field(sink_t *s, const spec_t *sp, const char *prefix, int zeros, const char *rev,
                       int ndigits, const char *tail, int ntail) {
  const int nprefix = (int)strlen(prefix);
  int len = nprefix + zeros + ndigits + ntail;
  int pad = sp->width > len ? sp->width - len : 0;
  if (!sp->left && !sp->zero) emit_n(s, ' ', pad);
  for (const char *p = prefix; *p; ++p) emit(s, *p);
  if (!sp->left && sp->zero) emit_n(s, '0', pad);
  emit_n(s, '0', zeros);
  while (ndigits > 0) emit(s, rev[--ndigits]);
  for (int i = 0; i < ntail; ++i) emit(s, tail[i]);
  if (sp->left) emit_n(s, ' ', pad);
}

static void format_integer(sink_t *s, spec_t sp, uint64_t magnitude, int negative, unsigned base,
                           int upper, const char *alt_prefix) {
  char rev[24];
  int n = digits_of(magnitude, base, upper, rev);
  if (sp.precision >= 0) {
    sp.zero = 0;
    if (sp.precision == 0 && magnitude == 0) n = 0;  // "%.0d" of 0 prints nothing
  }
  const int zeros = sp.precision > n ? sp.precision - n : 0;
  const char *prefix = negative ? "-" : sp.plus ? "+" : sp.space ? " " : "";
  if (alt_prefix && magnitude != 0) prefix = alt_prefix;
  emit_field(s, &sp, prefix, zeros, rev, n, "", 0);
}

// The bits of a double, with no conversion helper.
static uint64_t double_bits(double x) {
  union {
    double d;
    uint64_t u;
  } v;
  v.d = x;
  return v.u;
}
static double bits_double(uint64_t u) {
  union {
    double d;
    uint64_t u;
  } v;
  v.u = u;
  return v.d;
}

// The integer part of 0 <= x < 2^64.
static uint64_t to_u64(double x) {
  const uint64_t b = double_bits(x);
  const int e = (int)((b >> 52) & 0x7ff) - 1075;
  const uint64_t m = (b & ((1ull << 52) - 1)) | (1ull << 52);
  if (e >= 0) return m << e;
  return e <= -64 ? 0 : m >> -e;
}

// x with its fraction removed (toward zero).
static double truncate(double x) {
  uint64_t b = double_bits(x);
  const int e = (int)((b >> 52) & 0x7ff) - 1023;
  if (e < 0) return bits_double(b & (1ull << 63));
  if (e >= 52) return x;
  b &= ~((1ull << (52 - e)) - 1);
  return bits_double(b);
}

static void format_double(sink_t *s, spec_t sp, double x) {
  const uint64_t b = double_bits(x);
  const int negative = (int)(b >> 63);
  const char *sign = negative ? "-" : sp.plus ? "+" : sp.space ? " " : "";
  if (((b >> 52) & 0x7ff) == 0x7ff) {  // inf or nan: no zero padding
    sp.zero = 0;
    const char *word = (b & ((1ull << 52) - 1)) ? "nan" : "inf";
    emit_field(s, &sp, sign, 0, "", 0, word, 3);
    return;
  }
  if (negative) x = -x;
  int precision = sp.precision < 0 ? 6 : sp.precision;
  const int shown = precision > 17 ? 17 : precision;  // digits beyond 17 print as 0
  // Scale a value beyond 2^64 down; the integer part then ends in `scale` zeros.
  int scale = 0;
  while (x >= 1e19) {
    x /= 10.0;
    ++scale;
  }
  static const double kPow10[18] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                    1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
  uint64_t ip = to_u64(truncate(x));
  const double frac = x - truncate(x);
  // Round to `shown` digits, a tie (exact in binary: 0.5, 0.25, ...) to even, as glibc does.
  const double scaled = frac * kPow10[shown];
  uint64_t fp = to_u64(truncate(scaled));
  const double rest = scaled - truncate(scaled);
  if (rest > 0.5 || (rest == 0.5 && (shown > 0 ? (fp & 1) : (ip & 1)))) ++fp;
  const uint64_t one = to_u64(kPow10[shown]);
  if (fp >= one) {  // the fraction rounded up to 1
    fp -= one;
    ++ip;
  }
  char irev[20], frev[20];
  const int ni = digits_of(ip, 10, 0, irev);
  const int nf = shown > 0 ? digits_of(fp, 10, 0, frev) : 0;
  const int dot = precision > 0 || sp.alt;
  const int nsign = (int)strlen(sign);
  const int len = nsign + ni + scale + dot + precision;
  const int pad = sp.width > len ? sp.width - len : 0;
  if (!sp.left && !sp.zero) emit_n(s, ' ', pad);
  for (const char *p = sign; *p; ++p) emit(s, *p);
  if (!sp.left && sp.zero) emit_n(s, '0', pad);
  for (int i = ni; i > 0;) emit(s, irev[--i]);
  emit_n(s, '0', scale);
  if (dot) emit(s, '.');
  emit_n(s, '0', shown - nf);  // the fraction's leading zeros
  for (int i = nf; i > 0;) emit(s, frev[--i]);
  emit_n(s, '0', precision - shown);
  if (sp.left) emit_n(s, ' ', pad);
}

static int format(sink_t *s, const char *f, va_list ap) {
  for (; *f; ++f) {
    if (*f != '%') {
      emit(s, *f);
      continue;
    }
    const char *start = f++;
    spec_t sp = {0, 0, 0, 0, 0, 0, -1};
    for (;; ++f) {
      if (*f == '-')
        sp.left = 1;
      else if (*f == '0')
        sp.zero = 1;
      else if (*f == '+')
        sp.plus = 1;
      else if (*f == ' ')
        sp.space = 1;
      else if (*f == '#')
        sp.alt = 1;
      else
        break;
    }
    if (*f == '*') {
      sp.width = va_arg(ap, int);
      if (sp.width < 0) {
        sp.left = 1;
        sp.width = -sp.width;
      }
      ++f;
    } else {
      while (*f >= '0' && *f <= '9') sp.width = sp.width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
      ++f;
      sp.precision = 0;
      if (*f == '*') {
        sp.precision = va_arg(ap, int);
        if (sp.precision < 0) sp.precision = -1;
        ++f;
      } else {
        while (*f >= '0' && *f <= '9') sp.precision = sp.precision * 10 + (*f++ - '0');
      }
    }
    if (sp.left) sp.zero = 0;
    int size = 0;  // 0 int, 1 long, 2 long long / intmax_t, -1 short, -2 char
    for (;; ++f) {
      if (*f == 'l')
        size = size == 1 ? 2 : 1;
      else if (*f == 'h')
        size = size == -1 ? -2 : -1;
      else if (*f == 'j')
        size = 2;
      else if (*f == 'z' || *f == 't')
        size = sizeof(size_t) == 8 ? 2 : 1;
      else if (*f == 'L')
        size = 0;
      else
        break;
    }
    switch (*f) {
      case 'd':
      case 'i': {
        int64_t v;
        if (size == 2)
          v = va_arg(ap, long long);
        else if (size == 1)
          v = va_arg(ap, long);
        else
          v = va_arg(ap, int);
        if (size == -1) v = (short)v;
        if (size == -2) v = (signed char)v;
        format_integer(s, sp, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, 10, 0, 0);
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        uint64_t v;
        if (size == 2)
          v = va_arg(ap, unsigned long long);
        else if (size == 1)
          v = va_arg(ap, unsigned long);
        else
          v = va_arg(ap, unsigned);
        if (size == -1) v = (unsigned short)v;
        if (size == -2) v = (unsigned char)v;
        sp.plus = sp.space = 0;
        const unsigned base = *f == 'o' ? 8 : *f == 'u' ? 10 : 16;
        const char *alt = !sp.alt ? 0 : *f == 'x' ? "0x" : *f == 'X' ? "0X" : *f == 'o' ? "0" : 0;
        format_integer(s, sp, v, 0, base, *f == 'X', alt);
        break;
      }
      case 'p': {
        const uintptr_t v = (uintptr_t)va_arg(ap, void *);
        sp.plus = sp.space = 0;
        char rev[24];
        const int n = digits_of(v, 16, 0, rev);
        emit_field(s, &sp, "0x", 0, rev, n, "", 0);
        break;
      }
      case 'c': {
        const char c = (char)va_arg(ap, int);
        sp.zero = 0;
        emit_field(s, &sp, "", 0, "", 0, &c, 1);
        break;
      }
      case 's': {
        const char *str = va_arg(ap, const char *);
        if (!str) str = "(null)";
        int n = 0;
        while (str[n] && (sp.precision < 0 || n < sp.precision)) ++n;
        sp.zero = 0;
        emit_field(s, &sp, "", 0, "", 0, str, n);
        break;
      }
      case 'f':
      case 'F':
        format_double(s, sp, va_arg(ap, double));
        break;
      case '%':
        emit(s, '%');
        break;
      default:  // unknown conversion (or the format's end): printed as written
        for (const char *p = start; p <= f && *p; ++p) emit(s, *p);
        if (!*f) return (int)s->len;
        break;
    }
  }
  return (int)s->len;
}

int vprintf(const char *fmt, va_list ap) {
  sink_t s = {0, 0, 0};
  return format(&s, fmt, ap);
}

int printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vprintf(fmt, ap);
  va_end(ap);
  return n;
}

int vsnprintf(char *out, size_t size, const char *fmt, va_list ap) {
  sink_t s = {out, size, 0};
  const int n = format(&s, fmt, ap);
  if (size > 0) out[s.len < size ? s.len : size - 1] = '\0';
  return n;
}

int snprintf(char *out, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(out, size, fmt, ap);
  va_end(ap);
  return n;
}

int sprintf(char *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(out, (size_t)-1 / 2, fmt, ap);
  va_end(ap);
  return n;
}
