#!/usr/bin/env python3
"""npusim cc's cache of runtime objects: a second build of the same program takes every runtime
object from the cache (no compiler run for them) and gives the same ELF; a runtime file that
changes, or NPUSIM_CC_CACHE=off, means compiling again.

usage: cache_check.py NPUSIM WORKDIR SOURCE [npusim cc args]
"""
import os
import shutil
import subprocess
import sys


def build(npusim, env, out, source, extra):
    p = subprocess.run([npusim, "cc", "-v", "-o", out, source] + extra, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"npusim cc exited {p.returncode}:\n{p.stdout}")
    compiled = [l for l in p.stdout.splitlines() if " -c " in l and "/src/" in l]
    cached = [l for l in p.stdout.splitlines() if l.endswith("(compiled before)")]
    return compiled, cached, open(out, "rb").read()


def main():
    npusim, work, source = sys.argv[1:4]
    extra = sys.argv[4:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, NPUSIM_CC_CACHE=os.path.join(work, "cache"))
    c1, h1, elf1 = build(npusim, env, os.path.join(work, "a.elf"), source, extra)
    c2, h2, elf2 = build(npusim, env, os.path.join(work, "b.elf"), source, extra)
    problems = []
    if not c1 or h1:
        problems.append(f"first build: {len(c1)} runtime sources compiled, {len(h1)} from the cache")
    if c2 or len(h2) != len(c1):
        problems.append(f"second build: {len(c2)} runtime sources compiled, {len(h2)} from the cache "
                        f"(expected 0 and {len(c1)})")
    if elf1 != elf2:
        problems.append("the second build's ELF differs from the first's")
    off = dict(env, NPUSIM_CC_CACHE="off")
    c3, h3, _ = build(npusim, off, os.path.join(work, "c.elf"), source, extra)
    if h3 or len(c3) != len(c1):
        problems.append(f"NPUSIM_CC_CACHE=off: {len(h3)} runtime objects taken from a cache")
    # Another optimisation level is another object.
    c4, h4, _ = build(npusim, env, os.path.join(work, "d.elf"), source, extra + ["-O0"])
    if len(c4) != len(c1) or h4:
        problems.append(f"-O0 after -O2: {len(h4)} objects from the cache of the -O2 build")
    # A runtime file that changes (here a comment added to a copy of the runtime) is compiled again.
    snrt = os.environ.get("NPUSIM_SNRT_SOURCE")
    if snrt:
        copy = os.path.join(work, "snrt")
        shutil.copytree(snrt, copy)
        moved = dict(env, NPUSIM_SNRT_DIR=copy)
        c5, _, _ = build(npusim, moved, os.path.join(work, "e.elf"), source, extra)
        with open(os.path.join(copy, "include", "snrt.h"), "a") as f:
            f.write("// changed\n")
        c6, h6, _ = build(npusim, moved, os.path.join(work, "f.elf"), source, extra)
        if not c5 or len(c6) != len(c5) or h6:
            problems.append(f"after a runtime header changed: {len(c6)} compiled, {len(h6)} from the cache")
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print(f"ok: {len(c1)} runtime objects compiled once, then taken from the cache")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
