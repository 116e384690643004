#!/usr/bin/env python3
"""alloc_v2 as code against the exact C++ model, op for op, on every core.

    alloc_compare.py NPUSIM WORK ALLOC_TRACE_ELF NAME OPS...

Runs tests/programs/alloc_trace.c (built into ALLOC_TRACE_ELF) on all 9 cores of the
snitch-cluster platform with the ops as its arguments (alloc:SIZE[:ALIGN],
alloc_core_local:SIZE[:ALIGN], l3:SIZE[:ALIGN], update_next:ADDR, or @FILE for an ops file of
`npusim heap replay`), then replays the same ops on `npusim heap replay --allocator snitch-l1`
and `snitch-l3` for each core and compares every returned address and `next`. An op that
traps on the model must end the program's core with a trap (ecall) in that allocator call.
"""
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_ops(args):
    ops = []
    for a in args:
        if not a.startswith("@"):
            ops.append(a)
            continue
        with open(a[1:]) as f:
            for line in f:
                line = line.split("#")[0].split()
                if not line:
                    continue
                ops.append(":".join(line).replace("alloc_core_local:", "alloc_core_local:"))
    return ops


def main():
    npusim, work, elf, name = sys.argv[1:5]
    ops = read_ops(sys.argv[5:])
    os.makedirs(work, exist_ok=True)
    shutil.copy(elf, os.path.join(work, "alloc_trace.elf"))
    scenario = os.path.join(work, name + ".yaml")
    with open(scenario, "w") as f:
        f.write("name: alloc-%s\nplatform: snitch-cluster\nbinary:\n  elf: alloc_trace.elf\n  args: %s\n"
                % (name, json.dumps(ops)))
    report = os.path.join(work, name + ".report.json")
    run = subprocess.run([npusim, "run", scenario, "--report", report], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        fail("npusim run exited %d:\n%s%s" % (run.returncode, run.stdout, run.stderr))
    with open(report) as f:
        rep = json.load(f)
    cores = [c for c in rep["cores"] if c.get("program")]
    if len(cores) != 9:
        fail("expected 9 program cores, got %d" % len(cores))
    compared = 0
    for idx, core in enumerate(cores):
        prog = core["program"]
        lines = [json.loads(l) for l in prog["output"].splitlines() if l.startswith("{")]
        state = {l["op"]: l for l in lines if l["op"] in ("l1_state", "l3_state")}
        got = [l for l in lines if "line" in l]
        # The model: L1 ops and L3 ops, each replayed on its own allocator for this core.
        streams = {"snitch-l1": [], "snitch-l3": []}
        order = []  # (allocator, index in its stream) per op
        for op in ops:
            kind, _, rest = op.partition(":")
            args = rest.split(":") if rest else []
            alloc = "snitch-l3" if kind == "l3" else "snitch-l1"
            word = "alloc" if kind == "l3" else kind
            order.append((alloc, len(streams[alloc])))
            streams[alloc].append(" ".join([word] + args))
        model = {}
        for alloc, lst in streams.items():
            if not lst:
                model[alloc] = []
                continue
            path = os.path.join(work, "%s.core%d.%s.ops" % (name, idx, alloc))
            with open(path, "w") as f:
                f.write("\n".join(lst) + "\n")
            cmd = [npusim, "heap", "replay", "--allocator", alloc, "--core-idx", str(idx), path]
            if alloc == "snitch-l3":
                cmd += ["--base", str(state["l3_state"]["base"])]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode not in (0, 1):
                fail("%s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
            model[alloc] = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        for i, (alloc, k) in enumerate(order):
            m = model[alloc][k]
            if m.get("trap"):
                if i != len(got):
                    fail("%s op %d (%s): the model traps, the program printed %d results" % (
                        core["name"], i + 1, ops[i], len(got)))
                if prog["end"] != "trap":
                    fail("%s: the model traps on op %d (%s); the program's core ended '%s'" % (
                        core["name"], i + 1, ops[i], prog["end"]))
                if "alloc" not in prog["fault"]["function"]:
                    fail("%s: the trap is in %s, not an allocator call" % (core["name"], prog["fault"]["function"]))
                break
            if i >= len(got):
                fail("%s: the program stopped after %d ops (%s); the model went on" % (
                    core["name"], len(got), prog["end"]))
            p = got[i]
            if m.get("undefined"):
                compared += 1
                continue  # the DM core's compute-core-local result: undefined, not compared
            if p["addr"] != m["addr"] or p["next"] != m["next"]:
                fail("%s op %d (%s): program addr %s next %s, model addr %s next %s" % (
                    core["name"], i + 1, ops[i], p["addr"], p["next"], m["addr"], m["next"]))
            compared += 1
    print("%s: %d ops compared on 9 cores, all equal to the model" % (name, compared))


if __name__ == "__main__":
    main()
