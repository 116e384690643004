#!/usr/bin/python3
"""The neuron-gpsimd profile against the public custom-op MLP performance tutorial
(docs/kernel-accuracy.md): builds the tutorial's three ReLU kernels (scenarios/kernels/tutorial)
with `npusim op build`, runs each on the two activations of one inference iteration ([32,4096]
then [32,2048]) on the default profile, and prints the published differences beside npusim's.

usage: calibrate_gpsimd.py NPUSIM WORKDIR [--set KEY=VALUE]... [--check] [--doc FILE]
  --check     exit 1 unless every figure is within its tolerance
  --doc FILE  exit 1 unless FILE holds the table printed (between the calibration markers)

Run from the repository's top directory.
"""
import json
import os
import shutil
import subprocess
import sys

SIZES = ([32, 4096], [32, 2048])  # the MLP's two ReLUs: after fc1 (4096) and fc2 (2048), batch 32
# Published throughputs (iterations/s) on trn1, public Neuron custom-op MLP performance tutorial.
PUBLISHED_IT_S = {"standard": 8.098649744235592, "tcm": 220.73800131604054, "multicore": 269.936119707143}
TOLERANCE = {"standard - tcm": 0.15, "tcm - multicore": 0.20}
BEGIN, END = "<!-- calibration table: begin -->", "<!-- calibration table: end -->"


def fail(message, code=2):
    """Ends with one line naming what is wrong (exit 2: a bad argument or an unusable program)."""
    print("calibrate_gpsimd.py: error: " + message, file=sys.stderr)
    sys.exit(code)


def start(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        fail("NPUSIM %s: cannot be run: %s" % (cmd[0], e.strerror or e))


def ms_per_iteration(kind):
    return 1000.0 / PUBLISHED_IT_S[kind]


def build(npusim, work, kind):
    lib = os.path.join(work, "librelu_%s.so" % kind)
    cmd = [npusim, "op", "build", "--name", "my_ops", "--compute", "scenarios/kernels/tutorial/relu_%s.cpp" % kind,
           "--shape", "scenarios/kernels/tutorial/shape.cpp", "-o", lib]
    if kind == "multicore":
        cmd.append("--multicore")
    p = start(cmd)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return lib


def run(npusim, work, kind, lib, size, sets):
    name = "relu_%s_%dx%d" % (kind, size[0], size[1])
    scenario = os.path.join(work, name + ".yaml")
    report = os.path.join(work, name + ".json")
    with open(scenario, "w") as f:
        f.write("name: %s\nplatform: neuron-gpsimd\ntorch_op:\n  op: relu_forward\n" % name)
        if kind == "multicore":
            f.write("  multicore: true\n")
        # Activations after a linear layer: half of them negative.
        f.write("  inputs:\n    - {shape: [%d, %d], dtype: float, init: \"linspace(-1, 1)\"}\n" % tuple(size))
        f.write("  reference: relu\nexpect:\n  faults: 0\n  mismatches: 0\n")
    cmd = [npusim, "run", "--plugin", lib, scenario, "--report", report]
    for s in sets:
        cmd += ["--set", s]
    p = start(cmd)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    try:
        with open(report) as f:
            rep = json.load(f)
        timed = rep["op"]["kernel_code"]["timed"]
        duration = float(rep["duration_ns"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("NPUSIM %s: its report %s is not a torch-op report of npusim run (%s: %s): is it npusim?"
             % (npusim, report, type(e).__name__, e))
    if not timed:
        sys.exit("%s: the kernel's own code was not timed" % lib)
    return duration / 1e6


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail("NPUSIM and WORKDIR are required\n" + __doc__)
    npusim, work = args[0], args[1]
    sets, check, doc = [], False, None
    rest = args[2:]
    while rest:
        a = rest.pop(0)
        if a == "--set" and rest:
            sets.append(rest.pop(0))
        elif a == "--check":
            check = True
        elif a == "--doc" and rest:
            doc = rest.pop(0)
        else:
            fail("unknown argument or missing value: %s\n%s" % (a, __doc__))
    if os.sep not in npusim and shutil.which(npusim):  # a name on PATH, as subprocess finds it
        npusim = shutil.which(npusim)
    if not (os.path.isfile(npusim) and os.access(npusim, os.X_OK)):
        fail("NPUSIM %s: %s" % (npusim, "not an executable file" if os.path.exists(npusim) else "no such file"))
    if doc is not None and not os.path.isfile(doc):
        fail("--doc %s: %s" % (doc, "not a file" if os.path.exists(doc) else "no such file"))
    try:
        os.makedirs(work, exist_ok=True)
    except OSError as e:
        fail("WORKDIR %s: cannot be made: %s" % (work, e.strerror or e))
    if not os.access(work, os.W_OK | os.X_OK):
        fail("WORKDIR %s: not writable" % work)
    sim = {}
    for kind in ("standard", "tcm", "multicore"):
        lib = build(npusim, work, kind)
        sim[kind] = [run(npusim, work, kind, lib, s, sets) for s in SIZES]
    total = {k: sum(v) for k, v in sim.items()}
    hw = {k: ms_per_iteration(k) for k in PUBLISHED_IT_S}
    rows = []

    def row(name, published, npusim_ms, tol):
        err = (npusim_ms - published) / published
        ok = tol is None or abs(err) <= tol
        rows.append((name, published, npusim_ms, err, tol, ok))

    row("standard - tcm", hw["standard"] - hw["tcm"], total["standard"] - total["tcm"], TOLERANCE["standard - tcm"])
    row("tcm - multicore", hw["tcm"] - hw["multicore"], total["tcm"] - total["multicore"], TOLERANCE["tcm - multicore"])
    lines = ["| figure (ms per iteration) | trn1, published | npusim | error | tolerance |",
             "|---|---|---|---|---|"]
    for name, pub, got, err, tol, ok in rows:
        lines.append("| %s | %.3f | %.3f | %+.1f %% | %s |" % (name, pub, got, 100 * err,
                                                            "±%d %%" % round(100 * tol) if tol else "-"))
    lines.append("")
    lines.append("| kernel | [32,4096] | [32,2048] | both (one iteration) |")
    lines.append("|---|---|---|---|")
    for kind in ("standard", "tcm", "multicore"):
        lines.append("| %s | %.4f ms | %.4f ms | %.4f ms |" % (kind, sim[kind][0], sim[kind][1], total[kind]))
    table = "\n".join(lines)
    print(table)
    failed = [r[0] for r in rows if not r[5]]
    order = 0 < total["multicore"] < total["tcm"] <= hw["tcm"] and total["tcm"] < total["standard"]
    print("\nordering 0 < multicore < tcm <= %.3f ms (the TCM iteration) and tcm < standard: %s" %
          (hw["tcm"], "yes" if order else "NO"))
    status = 0
    if check and (failed or not order):
        print("FAILED: outside the tolerance: %s" % (", ".join(failed) if failed else "the ordering"))
        status = 1
    if doc:
        try:
            with open(doc, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            fail("--doc %s: cannot be read: %s" % (doc, e.strerror or e))
        if BEGIN not in text or END not in text:
            print("FAILED: %s has no calibration table markers" % doc)
            status = 1
        else:
            have = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
            if have != table:
                print("FAILED: %s's calibration table differs from this run's:\n%s" % (doc, have))
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
