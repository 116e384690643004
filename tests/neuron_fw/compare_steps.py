#!/usr/bin/env python3
"""A Neuron scenario's step version against the same scenario written as a firmware program.

usage: compare_steps.py NPUSIM WORKDIR STEP_SCENARIO PROGRAM_SCENARIO

Runs both with --report and --trace and checks that they agree on what the firmware did:
every heap block allocated and freed (heap, base, size, pointer, in order), the heaps'
counters, every DMA window violation (descriptor, rule, side, bound), the faults (kind, and
the function named for a stack overflow) and the HBM stack's high-water mark (the program's
is the step version's plus its real frames' saved registers and the live stack moved at the
switch: at least the step's, at most 1 KiB more, or after an overflow at most the stack's size). Timing differs and is printed, not checked.
Exit 0 when they agree; 1 with each difference named.
"""
import json
import os
import subprocess
import sys


def run(npusim, workdir, scenario, tag):
    report = os.path.join(workdir, tag + ".report.json")
    trace = os.path.join(workdir, tag + ".trace.json")
    p = subprocess.run([npusim, "run", scenario, "--report", report, "--trace", trace],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{scenario}: npusim run exited {p.returncode}:\n{p.stdout}")
    with open(report) as f:
        r = json.load(f)
    with open(trace) as f:
        t = json.load(f)
    events = t["traceEvents"] if isinstance(t, dict) else t
    blocks = [(e["name"], e["args"].get("heap"), e["args"].get("base"), e["args"].get("size"), e["args"].get("ptr"))
              for e in events if e.get("ph") in ("i", "I") and e.get("name") in ("alloc", "free")]
    return r, blocks, p.stdout


def main():
    npusim, workdir, steps, program = sys.argv[1:5]
    os.makedirs(workdir, exist_ok=True)
    rs, bs, _ = run(npusim, workdir, steps, "steps")
    rp, bp, out = run(npusim, workdir, program, "program")
    problems = []
    if bs != bp:
        for i, (a, b) in enumerate(zip(bs, bp)):
            if a != b:
                problems.append(f"heap block event {i + 1}: steps {a}, program {b}")
                break
        if len(bs) != len(bp):
            problems.append(f"{len(bs)} heap block events in the step version, {len(bp)} in the program")
    for heap in sorted(set(rs["heaps"]) | set(rp["heaps"])):
        hs, hp = rs["heaps"].get(heap), rp["heaps"].get(heap)
        if hs is None or hp is None:
            problems.append(f"heap {heap}: initialised in only one version")
            continue
        for k in ("allocations", "alloc_failures", "frees", "free_errors", "peak_used", "descriptors_peak",
                  "exhaustion_events", "free_bytes", "largest_free"):
            if hs.get(k) != hp.get(k):
                problems.append(f"heap {heap} {k}: steps {hs.get(k)}, program {hp.get(k)}")

    def violation(v):
        d = v["descriptor"]
        return (v["kind"], d["src"], d["dst"], d["len"], v.get("rule"), v.get("side"), v.get("bound"))

    vs, vp = [violation(v) for v in rs["violations"]], [violation(v) for v in rp["violations"]]
    if vs != vp:
        problems.append(f"violations: steps {vs}, program {vp}")
    fs, fp = rs["outcome"]["fault"], rp["outcome"]["fault"]
    if (fs is None) != (fp is None) or (fs and fs["kind"] != fp["kind"]):
        problems.append(f"fault: steps {fs and fs['kind']}, program {fp and fp['kind']}")
    if fs and fs["kind"] == "stack overflow":
        frame = fs["message"].split("frame '")[1].split("'")[0]
        if f"stack overflow in {frame} " not in fp["message"]:
            problems.append(f"the step version's overflow is in {frame}; the program's: {fp['message']}")
        if "call chain:" not in fp["message"]:
            problems.append(f"the program's overflow names no call chain: {fp['message']}")
    ss, sp = rs["stack"]["hbm_high_water"], rp["stack"]["hbm_high_water"]
    # After an overflow the program's mark may hold part of the overflowing frame (a large frame
    # moves sp in two steps, the first of which still fits): up to the stack's size.
    top = rp["stack"]["hbm_stack_size"] if fs and fs["kind"] == "stack overflow" else ss + 1024
    if not (ss <= sp <= top):
        problems.append(f"stack.hbm_high_water: steps {ss}, program {sp} (expected between {ss} and {top})")
    prog = rp["cores"][0].get("program", {})
    print(f"{os.path.basename(program)}: {len(bp)} heap block events, {len(vp)} violations, "
          f"fault {fp and fp['kind']}, hbm stack high-water {sp} B (steps {ss} B)")
    print(f"  time: steps {rs['duration_ns']:.1f} ns, program {rp['duration_ns']:.1f} ns "
          f"({prog.get('instructions')} instructions, {prog.get('cycles')} cycles)")
    for p in problems:
        print("DIFFERENT: " + p)
    if problems:
        print(out)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
