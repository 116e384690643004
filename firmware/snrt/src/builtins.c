// The 64-bit integer division helpers clang calls on RV32 (it has no 64-bit divide
// instruction): shift-and-subtract long division, with no 64-bit `/` or `%` of their own.
#include <stdint.h>

uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

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
