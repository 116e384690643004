#!/usr/bin/python3
"""The kernel-cost model responds to a kernel's code: each case runs test kernels (kernels.cpp,
built with the kernel-cost pass into a plugin) on npusim and checks what their own code cost.

usage: response.py CASE NPUSIM PLUGIN WORKDIR
"""
import json
import os
import subprocess
import sys

N = 4096  # elements: four 1024-float chunks


def run(ctx, op, init="linspace(-4, 4)", shape=(N,), scalars=None, sets=(), output=None, name=None):
    npusim, plugin, work = ctx
    name = name or op
    scenario = os.path.join(work, name + ".yaml")
    report = os.path.join(work, name + ".json")
    lines = ["name: " + name, "platform: neuron-gpsimd", "torch_op:", "  op: " + op, "  inputs:",
             "    - {shape: [%s], dtype: float, init: \"%s\"}" % (", ".join(map(str, shape)), init)]
    if scalars:
        lines.append("  scalars: [%s]" % ", ".join(map(str, scalars)))
    if output:
        lines.append("  output: " + output)
    with open(scenario, "w") as f:
        f.write("\n".join(lines) + "\n")
    cmd = [npusim, "run", "--plugin", plugin, scenario, "--report", report]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    with open(report) as f:
        rep = json.load(f)
    rep["summary_text"] = p.stdout
    return rep


def own(rep):
    """The kernel's cycles of compute and of TCM/stack access (its own code, plus the frame's
    library calls, equal in kernels with the same frame)."""
    return sum(c["breakdown_cycles"]["compute"] + c["breakdown_cycles"]["tcm_stack"] for c in rep["cores"])


def check(cond, msg):
    if not cond:
        sys.exit("FAILED: " + msg)
    print("ok: " + msg)


def case_timed(ctx):
    """An annotated kernel is timed, and computes what the unannotated one computes."""
    work = ctx[2]
    a = run(ctx, "kc_poly4", output=os.path.join(work, "annotated.bin"))
    b = run(ctx, "kc_plain", output=os.path.join(work, "plain.bin"))
    check(a["op"]["kernel_code"]["timed"] is True, "kc_poly4 is reported as timed")
    check(b["op"]["kernel_code"]["timed"] is False, "kc_plain (plain compiler) is reported as not timed")
    with open(os.path.join(work, "annotated.bin"), "rb") as f1, open(os.path.join(work, "plain.bin"), "rb") as f2:
        check(f1.read() == f2.read(), "annotated and plain kernels give the same bytes")
    check(own(a) > own(b), "the annotated kernel's own code costs cycles (%d > %d)" % (own(a), own(b)))


def case_arithmetic(ctx):
    """Twice the arithmetic per element costs clearly more: four more multiply-adds per element
    cost four vector multiply-adds per 16 elements."""
    base, p4, p8 = (own(run(ctx, k)) for k in ("kc_copy", "kc_poly4", "kc_poly8"))
    d4, d8 = p4 - base, p8 - base
    check(d8 > 1.25 * d4, "8 multiply-adds per element cost more than 4 (%d vs %d cycles)" % (d8, d4))
    extra = d8 - d4
    want = 4 * N / 16  # fp_fma: 1 cycle per 512-bit vector
    check(abs(extra - want) <= 0.1 * want, "4 multiply-adds x %d vectors = %d cycles (model: %d)" % (N // 16, extra, want))
    # The same compiled kernel answers to the profile: fp_fma at 3 cycles.
    p8_slow = own(run(ctx, "kc_poly8", sets=["kernel_cost.cycles.fp_fma=3"], name="kc_poly8_slow"))
    check(abs((p8_slow - p8) - 2 * 8 * N / 16) <= 0.1 * 2 * 8 * N / 16,
          "kernel_cost.cycles.fp_fma=3 adds 2 x 8 x %d cycles (%d)" % (N // 16, p8_slow - p8))


def case_vector(ctx):
    """A vectorisable loop costs several times less per element than the same loop made serial
    by a loop-carried dependency, at most the 16 fp32 lanes' worth."""
    base, vec, ser = (own(run(ctx, k)) for k in ("kc_copy", "kc_scale", "kc_recurrence"))
    ratio = (ser - base) / (vec - base)
    check(3 <= ratio <= 16, "serial / vectorised per element = %.2f, in [3, 16]" % ratio)


def case_branch(ctx):
    """A data-dependent branch is charged on the path taken: an exp per positive element."""
    neg = own(run(ctx, "kc_branch", init="constant(-1)", name="kc_branch_neg"))
    pos = own(run(ctx, "kc_branch", init="constant(1)", name="kc_branch_pos"))
    per = (pos - neg) / N
    check(20 <= per <= 24, "the taken path costs %.2f more cycles per element (exp: 20, and its store)" % per)


def case_opt_level(ctx):
    """The same kernel built at -O0 and at -O2 costs the same: its cost comes from its code as
    optimised at the device's level."""
    o0, o2 = run(ctx, "kc_opt_o0"), run(ctx, "kc_opt_o2")
    check(o0["cycles"] == o2["cycles"], "-O0 and -O2: %d and %d cycles" % (o0["cycles"], o2["cycles"]))
    check(own(o0) == own(o2), "-O0 and -O2: own code %d and %d cycles" % (own(o0), own(o2)))


def case_compute_only(ctx):
    """A kernel that never reaches an accessor still takes time, in proportion to its work."""
    a = run(ctx, "kc_compute_only", shape=(1,), scalars=[100000], name="kc_compute_1")
    b = run(ctx, "kc_compute_only", shape=(1,), scalars=[200000], name="kc_compute_2")
    check(a["metrics"]["hbm_accesses"] == 0 and a["metrics"]["dma.bytes"] == 0, "no accessor, no DMA")
    check(a["cycles"] > 100000, "100000 steps take %d cycles" % a["cycles"])
    check(abs(b["cycles"] / a["cycles"] - 2) < 0.05, "twice the steps, %.3f x the cycles" % (b["cycles"] / a["cycles"]))


def main():
    case, npusim, plugin, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    globals()["case_" + case]((npusim, plugin, work))


if __name__ == "__main__":
    main()
