// int64_conversions: the 64-bit integer <-> floating-point conversions RV32 has no instruction
// for (the runtime's __floatdidf, __fixdfdi & co.). Compute core 0 prints the bits of each
// result; the lines must equal int64_conversions.expected, which gcc on x86-64 gives for the
// same conversions (the values include ties and sticky bits of the rounding).
#include <snrt.h>

static unsigned long long bits(double d) {
  union {
    double d;
    unsigned long long u;
  } x;
  x.d = d;
  return x.u;
}

static unsigned bits_f(float f) {
  union {
    float f;
    unsigned u;
  } x;
  x.f = f;
  return x.u;
}

static volatile int64_t si[] = {0,          1,           -1,       123456789012345LL, -987654321098765LL,
                                9007199254740993LL, -9007199254740995LL, INT64_MAX, INT64_MIN,
                                0x7fffffffffffff01LL, 16777217, 33554435};
static volatile uint64_t ui[] = {0,         1,           0xffffffffffffffffULL, 0x8000000000000001ULL,
                                 9007199254740993ULL, 0x123456789abcdef0ULL, 4294967296ULL, 16777217,
                                 0xfffffe0000000001ULL};
static volatile double dd[] = {0.0,  -0.5,   0.9,    1.5,    -1.5,  4294967296.5, -4294967297.9,
                               1e18, -1e18, 1.8e19, 9.3e18, -9.3e18, 123456789.987};

int main(void) {
  if (snrt_cluster_core_idx() != 0) return 0;
  for (unsigned i = 0; i < sizeof si / sizeof si[0]; ++i)
    printf("sd %llx sf %x\n", bits((double)si[i]), bits_f((float)si[i]));
  for (unsigned i = 0; i < sizeof ui / sizeof ui[0]; ++i)
    printf("ud %llx uf %x\n", bits((double)ui[i]), bits_f((float)ui[i]));
  for (unsigned i = 0; i < sizeof dd / sizeof dd[0]; ++i) {
    const double x = dd[i];
    const long long s = (x < 9.2e18 && x > -9.2e18) ? (long long)x : 0;
    const unsigned long long u = (x >= 0 && x < 1.8e19) ? (unsigned long long)x : 0;
    const long long sf = ((float)x < 9.2e18f && (float)x > -9.2e18f) ? (long long)(float)x : 0;
    printf("fx %lld %llu %lld\n", s, u, sf);
  }
  return 0;
}
