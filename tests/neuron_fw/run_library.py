"""The Neuron device library running: tests/neuron_fw/library_cases.c, one case per build, on
the neuron-gpsimd management core (npusim run), checked against the semantics of fw::Firmware:

  run_library.py NPUSIM WORKDIR CASE [npusim cc args...]
    stack      the stack migrates onto the HBM stack and back: the caller's locals come along,
               STACK_LO/STACK_HI name [window address, +STACK_SIZE rounded down to 16) then
               the local stack, every later frame's sp lies in HBM
    overflow   deep recursion on a 1 KiB HBM stack: sp goes below STACK_LO
    transfer   C_MEMCPY, VEC_MEMCPY and DMA move the right bytes; DMA descriptors as fw::Firmware's
    stream:single|stream:double  tensor_stream_copy's DMA descriptors with one bounce buffer, or
               two on two channels (firmware.double_buffer with more than one DMA channel)
    heap       malloc's lazy libc heap init, the wrappers' out-parameters and statuses
    fatal:N:TEXT  case N ends with abort() after printing one line that starts with TEXT
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {"stack": 1, "overflow": 2, "transfer": 3, "heap": 4, "stream": 10}
HBM, WINDOW = 0x1_0000_0000, 0x8000_0000
LOCAL_LO, LOCAL_HI = 0x8C800, 0x90000


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(npusim, workdir, case, args):
    """Builds case CASE, runs it on the management core (npusim run) and returns what it did:
    end (exit, abort, overflow or the fault's kind), exit_code, output, stacks ([lo, hi, lowest
    sp] per stack switched to: the HBM stack's lowest sp from its high-water mark), dma
    ([src, dst, len, channel] per descriptor, in order)."""
    os.makedirs(workdir, exist_ok=True)
    elf = os.path.join(workdir, f"case{case}.elf")
    cmd = [npusim, "cc", "--platform", "neuron-gpsimd", f"-DCASE={case}", "-Wall", "-Wextra", "-Werror", "-o", elf,
           os.path.join(HERE, "library_cases.c")] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    sets = [a for i, a in enumerate(args) if a == "--set" or (i > 0 and args[i - 1] == "--set")]
    scenario, report, trace = (os.path.join(workdir, f"case{case}.{x}") for x in ("yaml", "report.json", "trace.json"))
    with open(scenario, "w") as f:
        f.write(f"name: library-case-{case}\nplatform: neuron-gpsimd\npolicies: {{dma_window: record}}\n"
                f"binary: {{elf: {os.path.abspath(elf)}, max_cycles: 50000000}}\n")
    r = subprocess.run([npusim, "run", scenario, "--report", report, "--trace", trace] + sets,
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        fail(f"npusim run {scenario}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    with open(report) as f:
        rep = json.load(f)
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    p = rep["cores"][0]["program"]
    kind = (p.get("fault") or {}).get("kind", "")
    end = {"exited": "exit"}.get(p["end"]) or {"ebreak": "abort", "stack overflow": "overflow"}.get(kind, kind)
    stacks = []
    for e in events:
        if e.get("name") in ("stack switch to HBM", "stack switch to local"):
            lo, hi = e["args"]["lo"], e["args"]["hi"]
            hbm = e["name"].endswith("HBM")
            low = hi - rep["stack"]["hbm_high_water"] if hbm else None
            stacks.append([lo, hi, low])
    dma = [[d["src"], d["dst"], d["len"], d["channel"]] for d in p["dma_descriptors"]]
    return {"end": end, "exit_code": p["exit_code"], "output": p["output"], "stacks": stacks, "dma": dma}


def expect_exit(res, lines):
    if res["end"] != "exit" or res["exit_code"] != 0:
        fail(f"the program ended with {res['end']} (exit code {res['exit_code']}):\n{res['output']}")
    if res["output"].splitlines() != lines:
        fail(f"the program printed\n{res['output']}--- expected\n" + "\n".join(lines))


def main():
    npusim, workdir, case = sys.argv[1:4]
    args = sys.argv[4:]
    if case.startswith("fatal:"):
        _, n, text = case.split(":", 2)
        res = run(npusim, workdir, int(n), args)
        if res["end"] != "abort" or not res["output"].startswith(text) or res["output"].count("\n") != 1:
            fail(f"case {n}: ended with {res['end']}, printed {res['output']!r}; expected abort after {text!r}")
        print(f"ok: case {n} aborts with its message")
        return
    mode = None
    if case.startswith("stream:"):
        case, mode = case.split(":")
    res = run(npusim, workdir, CASES[case], args)
    if case == "stack":
        expect_exit(res, ["ok on hbm", "ok back on the local stack", "ok end"])
        if len(res["stacks"]) != 2:
            fail(f"expected two stack switches, got {res['stacks']}")
        (lo, hi, low), (llo, lhi, _) = res["stacks"]
        if not (WINDOW <= lo and hi == (lo + 4196) & ~15 and lo % 64 == 0 and lo < low < hi):
            fail(f"the HBM stack [{lo:#x}, {hi:#x}) with lowest sp {low:#x}: expected a 64-aligned window "
                 f"address, STACK_SIZE 4196 rounded down to 16 bytes, and frames inside it")
        if (llo, lhi) != (LOCAL_LO, LOCAL_HI):
            fail(f"switchStackBack named [{llo:#x}, {lhi:#x}), expected the local stack")
    elif case == "overflow":
        if res["end"] != "overflow" or res["output"] != "ok switched\n":
            fail(f"expected a stack overflow after the switch, got {res['end']}: {res['output']!r}")
        lo, hi, _ = res["stacks"][0]
        if hi - lo != 1024:
            fail(f"the HBM stack [{lo:#x}, {hi:#x}) is not the 1024 bytes asked for")
    elif case == "transfer":
        expect_exit(res, ["ok method 0", "ok method 1", "ok method 2", "ok end"])
        d = res["dma"]
        if len(d) != 6:
            fail(f"expected 6 DMA descriptors (the DMA method only), got {d}")
        hbm, tile = d[0][0] - 1, d[0][1] - 3
        bounce = d[2][1]
        want = [[hbm + 1, tile + 3, 4141, 0], [tile + 3, hbm + 8192, 4141, 0], [hbm, bounce, 4096, 0],
                [bounce, hbm + 4096, 4096, 0], [hbm + 4096, bounce, 50, 0], [bounce, hbm + 8192, 50, 0]]
        if d != want or hbm < HBM or not 0x80000 <= tile < 0x90000:
            fail(f"DMA descriptors {d}, expected {want}")
    elif case == "stream":
        expect_exit(res, ["ok end"])
        dbl = mode == "double"
        src, dst = HBM + 0x1000, HBM + 0x10000
        b = [res["dma"][0][1], res["dma"][2][1]] if res["dma"] else [0, 0]
        lens = [4096, 4096, 100]
        want = []
        for i, n in enumerate(lens):
            buf = b[i % 2] if dbl else b[0]
            want += [[src + 4096 * i, buf, n, 0], [buf, dst + 4096 * i, n, 1 if dbl else 0]]
        if res["dma"] != want or (dbl and b[0] == b[1]) or (not dbl and b[0] != b[1]):
            fail(f"DMA descriptors {res['dma']}, expected {want}")
    elif case == "heap":
        expect_exit(res, ["ok malloc max free 32768", "ok wrappers", "ok end"])
    print(f"ok: {case}")


if __name__ == "__main__":
    main()
