// alloc_trace: replays an allocation sequence with alloc_v2 on every core and prints, for
// each call, one JSON line with the address returned and the allocator's next afterwards, in
// the shape of `npusim heap replay --allocator snitch-l1|snitch-l3` (docs/snitch-allocator.md):
//   {"core":C,"line":N,"op":"alloc","addr":A,"next":X}
// The first lines give each allocator's state after start-up ("op":"l1_state" / "l3_state").
//
// The sequence: the arguments, one call each, or (no arguments) the built-in sequence below.
//   alloc:SIZE[:ALIGN]             snrt_l1_alloc_cluster_local
//   alloc_core_local:SIZE[:ALIGN]  snrt_l1_alloc_compute_core_local
//   l3:SIZE[:ALIGN]                snrt_l3_alloc_v2
//   update_next:ADDR               snrt_l1_update_next_v2
// Numbers are decimal or 0x-hex. An allocation past the end executes `ecall` (the core stops
// with a trap), as the runtime does.
#include <snrt.h>

static const char *const kBuiltIn[] = {
    "alloc:100",           "alloc:64:64",      "alloc_core_local:256:8", "alloc:24:3",
    "l3:1000",             "l3:4096:4096",     "alloc_core_local:12",    "update_next:0x10000068",
    "alloc:8:8",           "l3:7:100",         "alloc:0x1000:0x100",
};

static int parse_number(const char *s, const char **end, uint32_t *out) {
  uint32_t v = 0, base = 10;
  int digits = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  for (;; ++s, ++digits) {
    uint32_t d;
    if (*s >= '0' && *s <= '9')
      d = (uint32_t)(*s - '0');
    else if (base == 16 && *s >= 'a' && *s <= 'f')
      d = (uint32_t)(*s - 'a' + 10);
    else if (base == 16 && *s >= 'A' && *s <= 'F')
      d = (uint32_t)(*s - 'A' + 10);
    else
      break;
    v = v * base + d;
  }
  *end = s;
  *out = v;
  return digits > 0;
}

static int starts_with(const char *s, const char *prefix, const char **rest) {
  const size_t n = strlen(prefix);
  if (strncmp(s, prefix, n) != 0) return 0;
  *rest = s + n;
  return 1;
}

// Runs one op; returns 0 if it is malformed.
static int run_op(uint32_t core, int line, const char *op) {
  const char *p;
  uint32_t size = 0, align = 1;
  int kind;  // 0 alloc, 1 core-local, 2 l3, 3 update_next
  if (starts_with(op, "alloc_core_local:", &p))
    kind = 1;
  else if (starts_with(op, "alloc:", &p))
    kind = 0;
  else if (starts_with(op, "l3:", &p))
    kind = 2;
  else if (starts_with(op, "update_next:", &p))
    kind = 3;
  else
    return 0;
  if (!parse_number(p, &p, &size)) return 0;
  if (*p == ':' && kind != 3) {
    if (!parse_number(p + 1, &p, &align) || align == 0) return 0;
  }
  if (*p != '\0') return 0;
  void *addr = 0;
  uint64_t next;
  const char *name;
  if (kind == 0) {
    addr = snrt_l1_alloc_cluster_local(size, align);
    next = snrt_l1_allocator_v2()->next;
    name = "alloc";
  } else if (kind == 1) {
    addr = snrt_l1_alloc_compute_core_local(size, align);
    next = snrt_l1_allocator_v2()->next;
    name = "alloc_core_local";
  } else if (kind == 2) {
    addr = snrt_l3_alloc_v2(size, align);
    next = snrt_l3_allocator_v2()->next;
    name = "l3_alloc";
  } else {
    snrt_l1_update_next_v2((void *)(uintptr_t)size);
    next = snrt_l1_allocator_v2()->next;
    printf("{\"core\":%u,\"line\":%d,\"op\":\"update_next\",\"addr\":null,\"next\":%llu}\n", core, line,
           (unsigned long long)next);
    return 1;
  }
  printf("{\"core\":%u,\"line\":%d,\"op\":\"%s\",\"addr\":%u,\"next\":%llu}\n", core, line, name,
         (unsigned)(uintptr_t)addr, (unsigned long long)next);
  return 1;
}

static void print_state(uint32_t core, const char *name, const snrt_allocator_t *a) {
  printf("{\"core\":%u,\"op\":\"%s\",\"base\":%llu,\"end\":%llu,\"next\":%llu}\n", core, name,
         (unsigned long long)a->base, (unsigned long long)a->end, (unsigned long long)a->next);
}

int main(int argc, char **argv) {
  const uint32_t core = snrt_cluster_core_idx();
  print_state(core, "l1_state", snrt_l1_allocator_v2());
  print_state(core, "l3_state", snrt_l3_allocator_v2());
  const int n = argc > 1 ? argc - 1 : (int)(sizeof kBuiltIn / sizeof kBuiltIn[0]);
  for (int i = 0; i < n; ++i) {
    const char *op = argc > 1 ? argv[i + 1] : kBuiltIn[i];
    if (!run_op(core, i + 1, op)) {
      printf("alloc_trace: op %d '%s': expected alloc:SIZE[:ALIGN], alloc_core_local:SIZE[:ALIGN], "
             "l3:SIZE[:ALIGN] or update_next:ADDR\n",
             i + 1, op);
      return 1;
    }
  }
  return 0;
}
