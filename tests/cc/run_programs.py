"""Runs programs built by `npusim cc` on the simulated snitch cluster (`npusim run` of a
scenario with `binary:`) and compares what they print with an independent reference:

  run_programs.py NPUSIM WORKDIR alloc
      tests/programs/alloc_trace.c replays allocation traces on all 9 cores; every address and
      every `next` must equal `npusim heap replay --allocator snitch-l1|snitch-l3 --core-idx N`
      (the exact C++ model, with the program's _edram as the L3 base), op for op, and an op
      the model traps on must stop every core with an ecall in the allocation function.
  run_programs.py NPUSIM WORKDIR expected PROGRAM
      tests/programs/PROGRAM.c: compute core 0's lines must equal tests/programs/PROGRAM.expected.
"""
import json
import os
import re
import struct
import subprocess
import sys

LINE = re.compile(r"^  \[(c0_(?:core\d+|dm))\] (.*)$")
CORES = [f"c0_core{i}" for i in range(8)] + ["c0_dm"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(cmd, ok=(0,)):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in ok:
        fail(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def build(npusim, workdir, name):
    os.makedirs(workdir, exist_ok=True)
    elf = os.path.join(workdir, name + ".elf")
    run([npusim, "cc", "-o", elf, f"tests/programs/{name}.c"])
    return elf


def symbol(elf, name):
    """The value of a symbol of a 32-bit little-endian ELF file."""
    d = open(elf, "rb").read()
    shoff, = struct.unpack_from("<I", d, 32)
    shentsize, shnum = struct.unpack_from("<HH", d, 46)
    secs = [struct.unpack_from("<IIIIIIIIII", d, shoff + i * shentsize) for i in range(shnum)]
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for off in range(s[4], s[4] + s[5], 16):
            n, value = struct.unpack_from("<II", d, off)
            if n and d[strtab[4] + n:d.index(b"\0", strtab[4] + n)].decode() == name:
                return value
    fail(f"{elf}: no symbol {name}")


def run_program(npusim, workdir, tag, elf, args):
    scenario = os.path.join(workdir, tag + ".yaml")
    with open(scenario, "w") as f:
        f.write("platform: snitch-cluster\nname: %s\nbinary: {elf: %s, args: %s}\n"
                % (tag, os.path.abspath(elf), json.dumps(args)))
    r = run([npusim, "run", scenario], ok=(0, 1))
    lines = {c: [] for c in CORES}
    for l in r.stdout.splitlines():
        m = LINE.match(l)
        if m:
            lines[m.group(1)].append(m.group(2))
    return r.stdout, lines


def replay(npusim, workdir, allocator, core, base, ops):
    path = os.path.join(workdir, f"{allocator}.ops")
    with open(path, "w") as f:
        f.write("\n".join(ops) + "\n")
    cmd = [npusim, "heap", "replay", "--allocator", allocator, "--core-idx", str(core)]
    if base is not None:
        cmd += ["--base", hex(base)]
    return [json.loads(l) for l in run(cmd + [path]).stdout.splitlines()]


def check_trace(npusim, workdir, elf, tag, args):
    """args: the program's ops (alloc:S[:A], alloc_core_local:S[:A], l3:S[:A], update_next:P)."""
    edram = symbol(elf, "_edram")
    out, lines = run_program(npusim, workdir, tag, elf, args)
    # The reference: each allocator's ops through the C++ model, in the program's order.
    l1_ops, l3_ops, order = [], [], []
    for a in args:
        kind, rest = a.split(":", 1)
        words = rest.replace(":", " ")
        if kind == "l3":
            l3_ops.append("alloc " + words)
            order.append(("l3", len(l3_ops) - 1))
        else:
            l1_ops.append(f"{kind} {words}")
            order.append(("l1", len(l1_ops) - 1))
    for core, name in enumerate(CORES):
        ref1 = replay(npusim, workdir, "snitch-l1", core, None, l1_ops) if l1_ops else []
        ref3 = replay(npusim, workdir, "snitch-l3", core, edram, l3_ops) if l3_ops else []
        got = [json.loads(l) for l in lines[name] if l.startswith("{") and '"line"' in l]
        for i, (level, k) in enumerate(order):
            ref = (ref1 if level == "l1" else ref3)[k]
            if ref["trap"]:
                fn = {"alloc": "snrt_l1_alloc_cluster_local", "alloc_core_local": "snrt_l1_alloc_compute_core_local"}
                want = "snrt_l3_alloc_v2" if level == "l3" else fn[ref["op"]]
                if len(got) != i:
                    fail(f"{tag}: {name}: op {i + 1} ({args[i]}) traps in the model, but the program printed "
                         f"{len(got)} results")
                if not re.search(rf"TRAP: trap on {name} at pc 0x[0-9a-f]+ in {want}: ecall", out):
                    fail(f"{tag}: {name}: op {i + 1} ({args[i]}): no ecall trap in {want}:\n{out[-2000:]}")
                break
            if i >= len(got):
                fail(f"{tag}: {name}: the program printed {len(got)} results, the model has op {i + 1}:\n{out[-2000:]}")
            g = got[i]
            if g["addr"] != ref["addr"] or g["next"] != ref["next"]:
                fail(f"{tag}: {name}: op {i + 1} ({args[i]}): program addr {g['addr']} next {g['next']}, "
                     f"model addr {ref['addr']} next {ref['next']}")
        else:
            if len(got) != len(order):
                fail(f"{tag}: {name}: {len(got)} results for {len(order)} ops")


def ops_file_args(path):
    """A heap replay ops file for snitch-l1 as alloc_trace arguments."""
    args = []
    for l in open(path):
        w = l.split("#", 1)[0].split()
        if w:
            args.append(w[0] + ":" + ":".join(w[1:]))
    return args


def main():
    npusim, workdir, mode = sys.argv[1:4]
    if mode == "alloc":
        elf = build(npusim, workdir, "alloc_trace")
        edram = symbol(elf, "_edram")
        l3_base = (edram + 7) // 8 * 8
        l1_first, l1_end = 0x1000_0004, 0x1001_DB40  # after the start-up's 4 bytes; snrt_l1_init's end
        traces = {
            # The program's own sequence: both levels, alignments 1, 3, 8, 64, 100, 4096, a rewind.
            "builtin": ["alloc:100", "alloc:64:64", "alloc_core_local:256:8", "alloc:24:3", "l3:1000",
                        "l3:4096:4096", "alloc_core_local:12", "update_next:0x10000068", "alloc:8:8",
                        "l3:7:100", "alloc:0x1000:0x100"],
            # The replay example of the repository: its last op overruns L1 and traps.
            "snitch_l1_ops": ops_file_args("scenarios/heap/snitch_l1.ops"),
            # L1: a block ending exactly at end fits (next > end traps), one byte more traps.
            "l1_exact_fit": [f"alloc:{l1_end - l1_first}", "alloc:1"],
            # L3: an exact fit already traps (next >= end).
            "l3_exact_fit": ["l3:8", f"l3:{(1 << 32) - l3_base - 8}"],
        }
        for tag, args in traces.items():
            check_trace(npusim, workdir, elf, tag, args)
        print(f"ok: {len(traces)} traces on 9 cores equal the C++ model")
    elif mode == "expected":
        name = sys.argv[4]
        elf = build(npusim, workdir, name)
        _, lines = run_program(npusim, workdir, name, elf, [])
        want = open(f"tests/programs/{name}.expected").read().splitlines()
        if lines["c0_core0"] != want:
            fail(f"{name}: core 0 printed\n" + "\n".join(lines["c0_core0"]) + "\n--- expected\n" + "\n".join(want))
        print(f"ok: {name}: {len(want)} lines as expected")
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
