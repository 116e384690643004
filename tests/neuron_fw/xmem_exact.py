"""The C xmem heap (firmware/neuron/src/xmem_heap.c, or a program's own) against the exact C++
model, op for op: an xmem op trace (the format `npusim heap replay` reads, docs/heap-replay.md)
becomes a C driver that performs the ops with the C heap on a simulated core and prints, per op,
the status, the address, the result and the manager's counters as `npusim heap replay` does;
the two outputs must be equal.

  xmem_exact.py NPUSIM WORKDIR OPS_FILE|random:SEED [--platform snitch-cluster] [--pool-base ADDR]
                [--pool-size N] [--blocks N] [--header after|none] [--xmem FILE.c]
                [--trace-base ADDR] [--align0 N]

With --allocator xmem (the default) the driver calls xmem directly. On snitch-cluster it runs
on the first core (`npusim run` of a scenario with `binary:`); the pool, header and manager lie
in L3, so the pool base must be an L3 address (default 0x90000000); `heap replay` gets the same
base and the same header and manager addresses. On neuron-gpsimd (--platform neuron-gpsimd)
the pool may lie in the dataram or the HBM window, and --allocator neuron-hbm|neuron-dataram|
neuron-libc drives the device library's wrappers on their default layout instead, compared with
`heap replay --allocator neuron-...` (xmem_status included); the program runs on the management
core. A trace written for another base (its `free` lines name absolute addresses) is
moved with --trace-base: every address in [trace-base, trace-base + 2^28) is moved to the pool
base. --align0 N replaces alignment 0 (a Neuron wrapper's trace, where 0 means 64) by N.
`random:SEED` is a seeded trace of mixed allocations (sizes 1..2 KiB, alignments 1..4096),
frees of live and dead pointers, free-space queries and re-initialisations, made in rounds
whose live addresses come from `heap replay`. Compared per op: op, status, addr, result, line and, while the heap is initialised,
free_bytes, allocated_bytes, unused_bytes, largest_free, descriptors_used and free_list.
"""
import argparse
import json
import os
import subprocess
import sys

KEYS = ["op", "status", "addr", "result", "line"]
HEAP_KEYS = ["free_bytes", "allocated_bytes", "unused_bytes", "largest_free", "descriptors_used", "free_list"]
U32 = 0xFFFFFFFF


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(cmd, ok=(0,)):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in ok:
        fail(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def remap(path, out, trace_base, pool_base, align0):
    """The trace with its addresses moved from trace_base to pool_base, line numbers kept."""
    lines = []
    for l in open(path):
        w = l.split("#", 1)[0].split()
        if w and w[0] == "free" and trace_base is not None:
            addr = int(w[1], 0)
            if trace_base <= addr < trace_base + (1 << 28):
                w[1] = hex(addr - trace_base + pool_base)
        if w and w[0] == "alloc" and align0 is not None and int(w[2], 0) == 0:
            w[2] = str(align0)
        lines.append(" ".join(w))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def replay_cmd(a, header, mgr, path):
    if a.allocator != "xmem":
        return [a.npusim, "heap", "replay", "--allocator", a.allocator, path]
    return [a.npusim, "heap", "replay", "--allocator", "xmem", "--pool-base", hex(a.pool_base),
            "--pool-size", hex(a.pool_size), "--blocks", str(a.blocks), "--header", a.header,
            "--header-base", hex(header), "--mgr-base", hex(mgr), path]


def random_trace(a, seed, out, header, mgr):
    """A seeded trace made in rounds: allocations, then frees of what the model says is live."""
    import random
    rnd = random.Random(seed)
    ops, live = [], []
    for rnd_no in range(12):
        for _ in range(rnd.randint(6, 20)):
            size = rnd.choice([1, 3, 4, 5, 8, 15, 16, 17, 60, 64, 100, 255, 256, 1000, 2048])
            if rnd.random() < 0.05:
                size = rnd.choice([0, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFF0])  # invalid, too big, wraps
            align = rnd.choice([1, 1, 2, 4, 8, 16, 64, 256, 4096] + ([0, 3, 12] if rnd.random() < 0.1 else []))
            ops.append(f"alloc {size} {align}")
        with open(out, "w") as f:
            f.write("\n".join(ops) + "\n")
        res = [json.loads(l) for l in run(replay_cmd(a, header, mgr, out)).stdout.splitlines()]
        live = set()
        for o, r in zip(ops, res):
            if o.startswith("init"):
                live = set()
            elif r["op"] == "alloc" and r["status"] == 0:
                live.add(r["addr"])
            elif r["op"] == "free" and r["status"] == 0:
                live.discard(r["addr"])
        for p in sorted(live):
            if rnd.random() < 0.6:
                ops.append(f"free {p:#x}")
        if live and rnd.random() < 0.5:
            ops.append(f"free {min(live):#x}")  # a double free or a free of a dead pointer: -97
        ops.append(f"free {a.pool_base + rnd.randint(0, a.pool_size):#x}")  # mostly not allocated
        for q in ("max", "start", "end"):
            ops.append(f"free_space {rnd.choice([1, 2, 8, 64, 100, 4096])} {q}")
        if rnd_no in (5, 9):
            ops.append(f"init {a.pool_size:#x} {rnd.choice([1, 2, 8, a.blocks])}")
        if a.allocator != "xmem" and rnd.random() < 0.5:
            ops.append(f"alloc {rnd.choice([16, 100, 1000])} 0")  # the wrappers' default alignment
    with open(out, "w") as f:
        f.write("\n".join(ops) + "\n")


def parse_ops(path):
    """(kind, a, b, line) per op; the replay has already accepted the file."""
    ops = []
    for n, l in enumerate(open(path), 1):
        w = l.split("#", 1)[0].split()
        if not w:
            continue
        if w[0] == "free_space":
            ops.append(("free_space", int(w[1], 0), {"max": 0, "start": 1, "end": 2}[w[2]], n))
        elif w[0] == "free":
            ops.append(("free", int(w[1], 0), 0, n))
        else:
            ops.append((w[0], int(w[1], 0), int(w[2], 0), n))
    return ops


# The heap's state after an op (one JSON fragment), shared by both drivers; user_address() is
# the driver's (an HBM wrapper shows 64-bit device addresses).
SNAPSHOT = r"""static void snapshot(void) {
  const xmem_heap_mgr_struct_t *m = (const xmem_heap_mgr_struct_t *)(const void *)MGR;
  uint32_t used = 0;
  for (uint32_t i = 0; i < m->_num_blocks; ++i) used += ((m->_block_free_bitvec[i >> 5] >> (i & 31)) & 1u) ^ 1u;
  printf(",\"free_bytes\":%%u,\"allocated_bytes\":%%u,\"unused_bytes\":%%u,\"largest_free\":%%u,"
         "\"descriptors_used\":%%u,\"free_list\":[",
         (unsigned)m->_free_bytes, (unsigned)m->_allocated_bytes, (unsigned)m->_unused_bytes,
         (unsigned)xmem_heap_get_free_space(MGR, 1, XMEM_HEAP_FREE_SPACE_MAX, NULL, NULL, NULL), (unsigned)used);
  const char *sep = "";
  for (const xmem_heap_block_t *b = m->_free_list_head._next_block; b != &m->_free_list_tail; b = b->_next_block) {
    printf("%%s[%%llu,%%u]", sep, user_address((uint32_t)(uintptr_t)b->_buffer), (unsigned)b->_block_size);
    sep = ",";
  }
  printf("]");
}
"""

DRIVER = r"""// Generated by tests/neuron_fw/xmem_exact.py from %(ops_file)s: performs the trace's ops with
// the C xmem heap and prints one JSON line per op, as `npusim heap replay` does.
#include <stdint.h>
#include <stdio.h>
#include <xmem.h>
#include <xmem_mgr.h>

enum { OP_INIT, OP_ALLOC, OP_FREE, OP_FREE_SPACE };
typedef struct {
  uint32_t kind, a, b, line;
} op_t;
static const op_t ops[] = {
%(ops)s
};
#define POOL ((void *)(uintptr_t)%(pool)#xu)
#define HEADER ((void *)(uintptr_t)%(header)#xu)
#define MGR ((xmem_heap_mgr_t *)(uintptr_t)%(mgr)#xu)

// What the user sees of a buffer: its address.
static unsigned long long user_address(uint32_t buf) { return buf; }

""" + SNAPSHOT + r"""
int main(void) {
#ifdef SNRT_CLUSTER_NUM
  if (snrt_global_core_idx() != 0) return 0;
#endif
  int initialised = xmem_heap_init(MGR, POOL, %(pool_size)#xu, %(blocks)uu, %(header_arg)s) == XMEM_OK;
  for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
    const op_t *o = &ops[i];
    xmem_status_t st = XMEM_OK;
    switch (o->kind) {
      case OP_INIT:
        st = xmem_heap_init(MGR, POOL, o->a, o->b, %(header_arg)s);
        initialised = st == XMEM_OK;
        printf("{\"op\":\"init\",\"status\":%%d,\"addr\":null,\"result\":null", (int)st);
        break;
      case OP_ALLOC: {
        void *p = xmem_heap_alloc(MGR, o->a, o->b, &st);
        if (st == XMEM_OK)
          printf("{\"op\":\"alloc\",\"status\":0,\"addr\":%%u,\"result\":null", (unsigned)(uintptr_t)p);
        else
          printf("{\"op\":\"alloc\",\"status\":%%d,\"addr\":null,\"result\":null", (int)st);
        break;
      }
      case OP_FREE:
        st = xmem_heap_free(MGR, (void *)(uintptr_t)o->a);
        printf("{\"op\":\"free\",\"status\":%%d,\"addr\":%%u,\"result\":null", (int)st, (unsigned)o->a);
        break;
      default: {
        const xmem_heap_free_space_qual_t q[] = {XMEM_HEAP_FREE_SPACE_MAX, XMEM_HEAP_FREE_SPACE_START,
                                                 XMEM_HEAP_FREE_SPACE_END};
        const size_t r = xmem_heap_get_free_space(MGR, o->a, q[o->b], NULL, NULL, &st);
        printf("{\"op\":\"free_space\",\"status\":%%d,\"addr\":null,\"result\":%%u", (int)st, (unsigned)r);
        break;
      }
    }
    printf(",\"line\":%%u", (unsigned)o->line);
    if (initialised) snapshot();
    printf("}\n");
  }
  return 0;
}
"""


WRAPPER_DRIVER = r"""// Generated by tests/neuron_fw/xmem_exact.py from %(ops_file)s: performs the trace's ops with
// the Neuron device library's %(heap)s wrapper and prints one JSON line per op, as
// `npusim heap replay --allocator neuron-%(heap)s` does.
#include <neuron_device.h>
#include <stdint.h>
#include <stdio.h>
#include <xmem_mgr.h>

enum { OP_INIT, OP_ALLOC, OP_FREE, OP_FREE_SPACE };
typedef struct {
  uint32_t kind;
  unsigned long long a;
  uint32_t b, line;
} op_t;
static const op_t ops[] = {
%(ops)s
};
#define HEAP_%(HEAP)s 1
extern char __allocator_bss_start[];
#if HEAP_HBM
#define MGR_OFFSET 0x14
#define POOL (NPUSIM_HBM_WINDOW + NPUSIM_HBM_POOL_OFFSET)
#define HEADER (NPUSIM_DATA_SCRATCH + NPUSIM_HBM_HEADER_OFFSET)
#elif HEAP_DATARAM
#define MGR_OFFSET 0x70
#define POOL (NPUSIM_DATA_SCRATCH + NPUSIM_DATARAM_POOL_OFFSET)
#define HEADER (NPUSIM_DATA_SCRATCH + NPUSIM_DATARAM_HEADER_OFFSET)
#else
#define MGR_OFFSET 0xcc
#define POOL (NPUSIM_DATA_SCRATCH + NPUSIM_LIBC_POOL_OFFSET)
#define HEADER (NPUSIM_DATA_SCRATCH + NPUSIM_LIBC_HEADER_OFFSET)
#endif
#define MGR ((xmem_heap_mgr_t *)(void *)(__allocator_bss_start + MGR_OFFSET))

// What the user sees of a buffer: for HBM its 64-bit device address.
static unsigned long long user_address(uint32_t buf) {
#if HEAP_HBM
  return NPUSIM_HBM_SCRATCH + (buf - NPUSIM_HBM_WINDOW);
#else
  return buf;
#endif
}

""" + SNAPSHOT + r"""
int main(void) {
#if HEAP_HBM
  int r = init_neuron_hbm_allocator();
#elif HEAP_DATARAM
  int r = init_neuron_dataram_allocator();
#else
  int r = _init_libc_heap_allocator();
#endif
  int initialised = r == 0;
  for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
    const op_t *o = &ops[i];
    int st = 0;
    switch (o->kind) {
      case OP_INIT: {
#if HEAP_HBM
        st = init_neuron_hbm_allocator();
        if (st == 0) st = xmem_heap_init(MGR, (void *)(uintptr_t)POOL, (uint32_t)o->a, o->b, (void *)(uintptr_t)HEADER);
#else
        st = xmem_heap_init(MGR, (void *)(uintptr_t)POOL, (uint32_t)o->a, o->b, (void *)(uintptr_t)HEADER);
#endif
        initialised = st == 0;
        printf("{\"op\":\"init\",\"status\":%%d,\"addr\":null,\"result\":null,\"line\":%%u,\"xmem_status\":%%d",
               st == 0 ? 0 : -1, (unsigned)o->line, st);
        break;
      }
      case OP_ALLOC: {
        unsigned long long addr = 0;
#if HEAP_HBM
        r = neuron_hbm_allocate((uint32_t)o->a, &addr, o->b);
#elif HEAP_DATARAM
        void *p = NULL;
        r = neuron_dataram_allocate((uint32_t)o->a, &p, o->b);
        addr = (uint32_t)(uintptr_t)p;
#else
        void *p = _libc_heap_allocate((uint32_t)o->a, o->b);
        r = neuron_last_xmem_status() == XMEM_OK ? 0 : -1;
        addr = (uint32_t)(uintptr_t)p;
#endif
        if (r == 0)
          printf("{\"op\":\"alloc\",\"status\":0,\"addr\":%%llu,\"result\":null", addr);
        else
          printf("{\"op\":\"alloc\",\"status\":%%d,\"addr\":null,\"result\":null", r);
        printf(",\"line\":%%u,\"xmem_status\":%%d", (unsigned)o->line, (int)neuron_last_xmem_status());
        break;
      }
      case OP_FREE: {
        int xs;
#if HEAP_HBM
        r = neuron_hbm_deallocate(o->a);
        xs = (int)neuron_last_xmem_status();
#else
        if (o->a > 0xffffffffull) {
          r = -1;
          xs = XMEM_ERR_PTR_OUT_OF_BOUNDS;
        } else {
#if HEAP_DATARAM
          r = neuron_dataram_deallocate((void *)(uintptr_t)o->a);
#else
          r = _libc_heap_deallocate((void *)(uintptr_t)o->a);
#endif
          xs = (int)neuron_last_xmem_status();
        }
#endif
        printf("{\"op\":\"free\",\"status\":%%d,\"addr\":%%llu,\"result\":null,\"line\":%%u,\"xmem_status\":%%d", r,
               o->a, (unsigned)o->line, xs);
        break;
      }
      default: {
        const xmem_heap_free_space_qual_t q[] = {XMEM_HEAP_FREE_SPACE_MAX, XMEM_HEAP_FREE_SPACE_START,
                                                 XMEM_HEAP_FREE_SPACE_END};
        xmem_status_t xst = XMEM_OK;
        const size_t res = xmem_heap_get_free_space(MGR, (uint32_t)o->a, q[o->b], NULL, NULL, &xst);
        printf("{\"op\":\"free_space\",\"status\":%%d,\"addr\":null,\"result\":%%u,\"line\":%%u", (int)xst,
               (unsigned)res, (unsigned)o->line);
        break;
      }
    }
    (void)st;
    if (initialised) snapshot();
    printf("}\n");
  }
  return 0;
}
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("npusim")
    p.add_argument("workdir")
    p.add_argument("ops_file")
    p.add_argument("--platform", default="snitch-cluster")
    p.add_argument("--pool-base", type=lambda s: int(s, 0), default=0x9000_0000)
    p.add_argument("--pool-size", type=lambda s: int(s, 0), default=0x10000)
    p.add_argument("--blocks", type=lambda s: int(s, 0), default=32)
    p.add_argument("--header", choices=["after", "none"], default="after")
    p.add_argument("--xmem", default=None, help="the xmem_heap.c to check (default: the library's)")
    p.add_argument("--trace-base", type=lambda s: int(s, 0), default=None)
    p.add_argument("--align0", type=lambda s: int(s, 0), default=None)
    p.add_argument("--allocator", choices=["xmem", "neuron-hbm", "neuron-dataram", "neuron-libc"], default="xmem")
    a = p.parse_args()
    if a.allocator != "xmem":
        if a.platform == "snitch-cluster":
            fail("the Neuron wrappers run on the neuron-gpsimd platform: add --platform neuron-gpsimd")
        # The heap's pool on the default layout (for the random traces' stray frees and inits).
        a.pool_base, a.pool_size = {"neuron-hbm": (0x1_0000_0228, 0x400000),
                                    "neuron-dataram": (0x8042C, 0x4000),
                                    "neuron-libc": (0x84500, 0x8000)}[a.allocator]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    xmem = a.xmem or os.path.join(root, "firmware", "neuron", "src", "xmem_heap.c")
    os.makedirs(a.workdir, exist_ok=True)
    trace = os.path.join(a.workdir, "trace.ops")
    none = a.header == "none"
    if a.ops_file.startswith("random:"):
        # Random traces keep to the command-line pool and descriptor count (their inits too).
        hdr_bytes = 0 if none else 16 * a.blocks + (a.blocks + 31) // 32 * 4
        header = (a.pool_base + a.pool_size + 63) & ~63
        mgr = (header + hdr_bytes + 63) & ~63
        random_trace(a, int(a.ops_file.split(":", 1)[1]), trace, header, mgr)
    else:
        remap(a.ops_file, trace, a.trace_base, a.pool_base, a.align0)
    ops = parse_ops(trace)

    # The layout of `heap replay --header after`, given to both sides explicitly.
    max_pool = max([a.pool_size] + [o[1] for o in ops if o[0] == "init"])
    max_blocks = max([a.blocks] + [o[2] for o in ops if o[0] == "init"])
    hdr_bytes = 0 if none else 16 * max(max_blocks, 1) + (max(max_blocks, 1) + 31) // 32 * 4
    header = (a.pool_base + max_pool + 63) & ~63
    mgr = (header + hdr_bytes + 63) & ~63

    replay = run(replay_cmd(a, header, mgr, trace))
    want = [json.loads(l) for l in replay.stdout.splitlines()]
    if len(want) != len(ops):
        fail(f"heap replay gave {len(want)} lines for {len(ops)} ops")

    kinds = {"init": "OP_INIT", "alloc": "OP_ALLOC", "free": "OP_FREE", "free_space": "OP_FREE_SPACE"}
    src = os.path.join(a.workdir, "xmem_driver.c")
    if a.allocator == "xmem":
        body = ",\n".join(f"    {{{kinds[k]}, {x:#x}u, {y:#x}u, {n}u}}" for k, x, y, n in ops)
        text = DRIVER % dict(ops_file=os.path.basename(a.ops_file), ops=body, pool=a.pool_base, header=header,
                             mgr=mgr, pool_size=a.pool_size, blocks=a.blocks, header_arg="NULL" if none else "HEADER")
    else:
        body = ",\n".join(f"    {{{kinds[k]}, {x:#x}ull, {y:#x}u, {n}u}}" for k, x, y, n in ops)
        heap = a.allocator.split("-", 1)[1]
        text = WRAPPER_DRIVER % dict(ops_file=os.path.basename(a.ops_file), ops=body, heap=heap, HEAP=heap.upper())
    with open(src, "w") as f:
        f.write(text)
    if a.platform == "snitch-cluster":
        with open(src) as f:
            text = f.read()
        with open(src, "w") as f:
            f.write(text.replace("#include <stdint.h>\n", "#include <snrt.h>\n#include <stdint.h>\n", 1))
    elf = os.path.join(a.workdir, "xmem_driver.elf")
    # The heap is built by its own standard (as the library is), the generated driver too.
    cc = [a.npusim, "cc", "--platform", a.platform, "-O2", "-Wall", "-Wextra", "-Werror", "-o", elf, src]
    if a.platform == "snitch-cluster":
        cc += ["-I", os.path.join(root, "firmware", "neuron", "include"), xmem]
    elif a.xmem:
        cc.append(a.xmem)  # a source named xmem_heap.c replaces the library's
    run(cc)
    scenario = os.path.join(a.workdir, "xmem_driver.yaml")
    with open(scenario, "w") as f:
        f.write(f"platform: {a.platform}\nname: xmem-exact\nbinary: {{elf: {os.path.abspath(elf)}}}\n")
    report = os.path.join(a.workdir, "report.json")
    r = run([a.npusim, "run", scenario, "--report", report])
    # What the first core printed (the report keeps all of it; the summary shortens it).
    with open(report) as f:
        output = json.load(f)["cores"][0]["program"]["output"]
    got = [json.loads(l) for l in output.splitlines() if l.startswith("{")]
    if len(got) != len(want):
        fail(f"the program printed {len(got)} results for {len(want)} ops:\n{r.stdout[-3000:]}")
    for g, w in zip(got, want):
        for k in KEYS + (["xmem_status"] if "xmem_status" in w else []) + (HEAP_KEYS if "free_bytes" in w else []):
            if g.get(k) != w.get(k):
                fail(f"{a.ops_file}:{w['line']}: {k}: the C heap gives {g.get(k)!r}, the exact model "
                     f"{w.get(k)!r}\n  C:     {json.dumps(g)}\n  model: {json.dumps(w)}")
        if ("free_bytes" in g) != ("free_bytes" in w):
            fail(f"{a.ops_file}:{w['line']}: the heap is initialised on one side only")
    print(f"ok: {a.ops_file}: {len(want)} ops, the C heap equals the exact model")


if __name__ == "__main__":
    main()
