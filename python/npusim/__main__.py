"""python3 -m npusim run SCRIPT [ARG...]: runs a Python script written for the device, with
npusim's stand-ins for torch_neuronx and torch_xla importable (docs/python.md, "Device
scripts"): the XLA device is the CPU and custom ops run on the simulated GPSIMD cores."""

import os
import runpy
import sys

USAGE = """usage: python3 -m npusim run SCRIPT [ARG...]

Runs SCRIPT as `python3 SCRIPT ARG...` would, with npusim's stand-ins for torch_neuronx and
torch_xla first on the import path: `import torch_neuronx`, `import torch_xla.core.xla_model
as xm`, moving tensors and models to the 'xla' device (the CPU here) and xm.mark_step() work,
and the ops of libraries loaded with npusim's custom_op run on the simulated device.
Documentation: docs/python.md."""


def standins_dir():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "standins")


def main(argv):
    if len(argv) < 2 or argv[0] != "run" or argv[1] in ("-h", "--help"):
        if argv[:1] in (["-h"], ["--help"]) or argv[1:2] in (["-h"], ["--help"]):
            print(USAGE)
            return 0
        print(USAGE, file=sys.stderr)
        return 2
    script = argv[1]
    # As `python3 SCRIPT` does: a file, or a folder (or zip file) with a __main__.py.
    if os.path.isdir(script):
        if not os.path.isfile(os.path.join(script, "__main__.py")):
            print(f"npusim: error: run {script}: a folder without a __main__.py (python3 runs a folder "
                  "by its __main__.py)", file=sys.stderr)
            return 2
    elif not os.path.exists(script):
        print(f"npusim: error: run {script}: no such file", file=sys.stderr)
        return 2
    elif not os.path.isfile(script):
        print(f"npusim: error: run {script}: not a regular file (a script, or a folder with a __main__.py)",
              file=sys.stderr)
        return 2
    sys.argv = [script] + argv[2:]
    # As `python3 SCRIPT` does: the script's folder (a folder: itself) first on the path; the
    # stand-ins next.
    sys.path[0] = (os.path.abspath(script) if os.path.isdir(script)
                   else os.path.dirname(os.path.abspath(script)))
    sys.path.insert(1, standins_dir())
    from ._results import record
    with record() as runs:
        try:
            runpy.run_path(script, run_name="__main__")
        finally:
            print(summary(runs), file=sys.stderr)
    return 0


def summary(runs):
    """One line per op: its calls and their simulated time (each call on a fresh device)."""
    if not runs:
        return "npusim: no op ran on the simulated device"
    per_op = {}
    for r in runs:
        calls, ns = per_op.get(r.op, (0, 0.0))
        per_op[r.op] = (calls + 1, ns + (r.time_ns or 0.0))
    total = sum(ns for _, ns in per_op.values())
    lines = [f"npusim: {len(runs)} op call(s) on the simulated device, {total / 1e3:.3f} us of simulated "
             "time in all (each call on a fresh device):"]
    for op, (calls, ns) in per_op.items():
        lines.append(f"  {op}: {calls} call(s), {ns / 1e3:.3f} us")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
