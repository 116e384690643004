// The helpers clang calls on RV32 for 64-bit integers: division (shift-and-subtract long
// division, with no 64-bit `/` or `%` of its own) and conversion from and to floating point.
#include <stdint.h>

uint64_t __ashldi3(uint64_t a, int b);
uint64_t __lshrdi3(uint64_t a, int b);
int64_t __ashrdi3(int64_t a, int b);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

// 64-bit shifts (clang calls them at -Oz), on the 32-bit halves only.
typedef union {
  uint64_t u;
  struct {
    uint32_t lo, hi;
  } w;
} halves_t;

uint64_t __ashldi3(uint64_t a, int b) {
  halves_t x, r;
  x.u = a;
  if (b == 0) return a;
  if (b >= 32) {
    r.w.lo = 0;
    r.w.hi = x.w.lo << (b - 32);
  } else {
    r.w.lo = x.w.lo << b;
    r.w.hi = (x.w.hi << b) | (x.w.lo >> (32 - b));
  }
  return r.u;
}

uint64_t __lshrdi3(uint64_t a, int b) {
  halves_t x, r;
  x.u = a;
  if (b == 0) return a;
  if (b >= 32) {
    r.w.hi = 0;
    r.w.lo = x.w.hi >> (b - 32);
  } else {
    r.w.hi = x.w.hi >> b;
    r.w.lo = (x.w.lo >> b) | (x.w.hi << (32 - b));
  }
  return r.u;
}

int64_t __ashrdi3(int64_t a, int b) {
  halves_t x, r;
  x.u = (uint64_t)a;
  const int32_t hi = (int32_t)x.w.hi;
  if (b == 0) return a;
  if (b >= 32) {
    r.w.hi = (uint32_t)(hi >> 31);
    r.w.lo = (uint32_t)(hi >> (b - 32));
  } else {
    r.w.hi = (uint32_t)(hi >> b);
    r.w.lo = (x.w.lo >> b) | (x.w.hi << (32 - b));
  }
  return (int64_t)r.u;
}

// n / d with the remainder in *rem. Division by zero gives all ones and rem = n (as the
// RISC-V divu/remu instructions do).
static uint64_t udivmod64(uint64_t n, uint64_t d, uint64_t *rem) {
  if (d == 0) {
    *rem = n;
    return ~(uint64_t)0;
  }
  if ((n >> 32) == 0 && (d >> 32) == 0) {  // both fit a 32-bit divu
    const uint32_t n32 = (uint32_t)n, d32 = (uint32_t)d;
    *rem = n32 % d32;
    return n32 / d32;
  }
  uint64_t q = 0, r = 0;
  for (int i = 63; i >= 0; --i) {
    const uint64_t carry = r >> 63;  // r << 1 would drop it: then r certainly exceeds d
    r = (r << 1) | ((n >> i) & 1u);
    if (carry || r >= d) {
      r -= d;
      q |= (uint64_t)1 << i;
    }
  }
  *rem = r;
  return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d) {
  uint64_t r;
  return udivmod64(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d) {
  uint64_t r;
  udivmod64(n, d, &r);
  return r;
}

static uint64_t magnitude(int64_t v) { return v < 0 ? 0 - (uint64_t)v : (uint64_t)v; }

int64_t __divdi3(int64_t n, int64_t d) {
  uint64_t r;
  const uint64_t q = udivmod64(magnitude(n), magnitude(d), &r);
  return (int64_t)(((n < 0) != (d < 0)) ? 0 - q : q);
}

int64_t __moddi3(int64_t n, int64_t d) {
  uint64_t r;
  udivmod64(magnitude(n), magnitude(d), &r);
  return (int64_t)(n < 0 ? 0 - r : r);
}

// The 64-bit integer <-> floating-point conversions RV32 has no instruction for.
double __floatdidf(int64_t v);
double __floatundidf(uint64_t v);
float __floatdisf(int64_t v);
float __floatundisf(uint64_t v);
int64_t __fixdfdi(double x);
uint64_t __fixunsdfdi(double x);
int64_t __fixsfdi(float x);
uint64_t __fixunssfdi(float x);

// hi * 2^32 and lo are both exact doubles: their sum is rounded once, to nearest even.
double __floatdidf(int64_t v) {
  return (double)(int32_t)(uint32_t)((uint64_t)v >> 32) * 4294967296.0 + (double)(uint32_t)v;
}
double __floatundidf(uint64_t v) { return (double)(uint32_t)(v >> 32) * 4294967296.0 + (double)(uint32_t)v; }

// To float through double: exact below 2^53; above, the bits shifted out are kept as a sticky
// bit, so that the one rounding to float sees whether the value lay above the halfway point.
static float u64_to_float(uint64_t m) {
  int shift = 0;
  while ((m >> shift) >= (1ull << 53)) ++shift;
  if (shift == 0) return (float)__floatundidf(m);
  const uint64_t kept = (m >> shift) | ((m & ((1ull << shift) - 1)) != 0);
  double d = __floatundidf(kept);
  for (int i = 0; i < shift; ++i) d *= 2.0;
  return (float)d;
}
float __floatundisf(uint64_t v) { return u64_to_float(v); }
float __floatdisf(int64_t v) {
  return v < 0 ? -u64_to_float(0 - (uint64_t)v) : u64_to_float((uint64_t)v);
}

// Toward zero; out of range (and NaN) saturates as the RISC-V fcvt instructions do.
uint64_t __fixunsdfdi(double x) {
  if (x != x) return ~(uint64_t)0;
  if (x <= -1.0) return 0;
  if (x >= 18446744073709551616.0) return ~(uint64_t)0;
  const uint32_t hi = (uint32_t)(x / 4294967296.0);
  const double rest = x - (double)hi * 4294967296.0;
  return (uint64_t)hi << 32 | (uint32_t)rest;
}
int64_t __fixdfdi(double x) {
  if (x != x) return INT64_MAX;
  if (x >= 9223372036854775808.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return x < 0 ? -(int64_t)__fixunsdfdi(-x) : (int64_t)__fixunsdfdi(x);
}
uint64_t __fixunssfdi(float x) { return __fixunsdfdi((double)x); }
int64_t __fixsfdi(float x) { return __fixdfdi((double)x); }
