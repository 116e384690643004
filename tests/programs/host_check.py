#!/usr/bin/env python3
"""The matrix product of tests/programs/matmul.c checked on the host.

    host_check.py NPUSIM WORK

Computes C = A * B here, from the same element formulas as the program, writes a scenario whose
`memory:` check holds C at the program's symbol `matmul_c`, and runs it: npusim compares the
256 doubles the program left in L3 with these (exit 0 when all are equal).
"""
import os
import subprocess
import sys

N = 16


def a(i, j):
    return float((i + 2 * j) % 7 - 3)


def b(i, j):
    return float((3 * i + j) % 5 - 2)


def main():
    npusim, work = sys.argv[1:3]
    c = [sum(a(i, k) * b(k, j) for k in range(N)) for i in range(N) for j in range(N)]
    scenario = os.path.join(work, "matmul_host.yaml")
    with open(scenario, "w") as f:
        f.write("name: matmul-host-check\nplatform: snitch-cluster\nbinary: {elf: matmul.elf}\n")
        f.write("memory:\n  - at: matmul_c\n    f64: [%s]\n" % ", ".join(repr(v) for v in c))
        f.write("expect:\n  exit_code: 0\n")
    r = subprocess.run([npusim, "run", scenario], capture_output=True, text=True)
    sys.stdout.write(r.stdout + r.stderr)
    if r.returncode == 0 and "memory.mismatches: == 0 -> ok" not in r.stdout:
        print("FAIL: the memory check did not run")
        return 1
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
