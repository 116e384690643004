#!/usr/bin/python3
"""The figures of docs/custom-ops.md, "Where a kernel's time goes": runs the shipped torch_op
scenarios on the default profile, reads each report's cycles by kind, and prints the tables the
page shows (between its kernel-time markers).

usage: kernel_time_table.py NPUSIM WORKDIR [--doc FILE]
  --doc FILE  exit 1 unless FILE holds the tables printed (between the kernel-time markers)

Run from the repository's top directory.
"""
import json
import os
import subprocess
import sys

KINDS = ("compute", "tcm_stack", "accessor_hbm", "dma_wait", "core_wait", "library")
RELU = (("relu_standard", "standard accessor", "torch_relu_standard"),
        ("relu_tcm", "TCM, 1024-float chunks", "torch_relu_tcm"),
        ("relu_multicore", "8 cores, core 0", "torch_relu_multicore"))
OTHERS = (("torch_gelu_tcm", "GELU in TCM chunks"),
          ("torch_row_sum_stream", "row sums through stream accessors"),
          ("torch_softmax_hbm_stack", "softmax on an HBM stack"))
BEGIN, END = "<!-- kernel time table: begin -->", "<!-- kernel time table: end -->"


def run(npusim, work, name):
    report = os.path.join(work, name + ".json")
    cmd = [npusim, "run", "scenarios/%s.yaml" % name, "--report", report]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: exit code %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    with open(report) as f:
        rep = json.load(f)
    if not rep["op"]["kernel_code"]["timed"]:
        sys.exit("%s: the kernel's own code was not timed" % name)
    return rep


def elements(rep):
    """The elements of the largest input ("float32[64,128]": 8192)."""
    n = 0
    for t in rep["op"]["inputs"]:
        dims = t["tensor"].split("[", 1)[1].rstrip("]")
        count = 1
        for d in dims.split(",") if dims else []:
            count *= int(d)
        n = max(n, count)
    return n


def core0(rep):
    return [c for c in rep["cores"] if c["core"] == 0][0]


def pct(part, whole):
    return "%.1f %%" % (100.0 * part / whole) if whole else "-"


def tables(npusim, work):
    lines = ["| kernel | compute | tcm_stack | accessor_hbm | dma_wait | core_wait | library | total | vs standard |",
             "|---|---|---|---|---|---|---|---|---|"]
    reps = {}
    for kernel, what, scenario in RELU:
        reps[kernel] = run(npusim, work, scenario)
    base = core0(reps["relu_standard"])["cycles"]
    for kernel, what, scenario in RELU:
        c = core0(reps[kernel])
        b = c["breakdown_cycles"]
        lines.append("| `%s` (%s) | %s | %s | %.1fx |" % (kernel, what, " | ".join(str(b[k]) for k in KINDS),
                                                         c["cycles"], base / c["cycles"]))
    lines.append("")
    # Where each kernel's time goes, as shares, and the per-access figures the prose quotes.
    std = core0(reps["relu_standard"])
    tcm = core0(reps["relu_tcm"])
    multi = reps["relu_multicore"]
    lines.append("| figure | value |")
    lines.append("|---|---|")
    lines.append("| `relu_standard`: accessor_hbm share of its cycles | %s |" %
                 pct(std["breakdown_cycles"]["accessor_hbm"], std["cycles"]))
    lines.append("| `relu_standard`: element accesses (`hbm_accesses`) | %d |" % std["hbm_accesses"])
    lines.append("| `relu_standard`: accessor_hbm cycles per element access | %.1f |" %
                 (std["breakdown_cycles"]["accessor_hbm"] / std["hbm_accesses"]))
    lines.append("| `relu_tcm`: dma_wait share of its cycles | %s |" % pct(tcm["breakdown_cycles"]["dma_wait"], tcm["cycles"]))
    lines.append("| `relu_tcm`: compute + tcm_stack share | %s |" %
                 pct(tcm["breakdown_cycles"]["compute"] + tcm["breakdown_cycles"]["tcm_stack"], tcm["cycles"]))
    lines.append("| `relu_tcm`: DMA transfers, bytes | %d, %d |" % (tcm["dma_transfers"], tcm["dma_bytes"]))
    lines.append("| `relu_multicore`: op cycles, cores | %d, %d |" % (multi["cycles"], len(multi["cores"])))
    lines.append("| `relu_multicore`: dma_wait share of core 0's cycles | %s |" %
                 pct(core0(multi)["breakdown_cycles"]["dma_wait"], core0(multi)["cycles"]))
    lines.append("")
    lines.append("| scenario | what | elements | cycles (core 0) | largest kind | its share | its cycles per element |")
    lines.append("|---|---|---|---|---|---|---|")
    for scenario, what in OTHERS:
        rep = run(npusim, work, scenario)
        c = core0(rep)
        b = c["breakdown_cycles"]
        top = max(KINDS, key=lambda k: b[k])
        n = elements(rep)
        lines.append("| `%s` | %s | %d | %d | %s | %s | %s |" % (scenario, what, n, c["cycles"], top, pct(b[top], c["cycles"]),
                                                               "%.1f" % (b[top] / n) if n else "-"))
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    npusim, work = args[0], args[1]
    doc = None
    rest = args[2:]
    while rest:
        a = rest.pop(0)
        if a == "--doc" and rest:
            doc = rest.pop(0)
        else:
            sys.exit("unknown argument %s\n%s" % (a, __doc__))
    os.makedirs(work, exist_ok=True)
    table = tables(npusim, work)
    print(table)
    status = 0
    if doc:
        with open(doc) as f:
            text = f.read()
        if BEGIN not in text or END not in text:
            print("FAILED: %s has no kernel-time table markers" % doc)
            status = 1
        else:
            have = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
            if have != table:
                print("FAILED: %s's kernel-time tables differ from this run's:\n%s" % (doc, have))
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
