#!/usr/bin/env python3
"""A user's kernel cannot take the simulator down; the op registry is strict.

    contain_test.py NPUSIM PLUGIN_DIR SOURCE_DIR CASE

Kernel cases run one hostile kernel (tests/contain/hostile_kernels.cpp, libhostile.so) with
--report, --trace and --vcd and check: the exit status (1, or 130/143 for a signal), the message,
the fault kind in the report (which parses), the diagnostic's core and backtrace, a trace that is
complete JSON holding the fault, a well-formed VCD, and no death by a signal. Registry and loader
cases load the plugins of tests/contain/reg_plugins.cpp (or build one with `npusim op build`) and
check the exit status and the message naming the library and both places.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import output_checks  # noqa: E402

TIMEOUT = 100  # s: only a hung process hits it


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def scenario(work, op, multicore=False, reference=None):
    path = os.path.join(work, f"{op}.yaml")
    with open(path, "w") as f:
        f.write(f"name: {op}\nplatform: neuron-gpsimd\ntorch_op:\n  op: {op}\n")
        f.write(f"  multicore: {'true' if multicore else 'false'}\n")
        f.write("  inputs:\n    - {shape: [1024], dtype: float, init: \"linspace(-2, 2)\"}\n")
        if reference:
            f.write(f"  reference: {reference}\n")
    return path


# A contained kernel fault abandons the kernel's frames: these runs have the leak check off.
ENV = output_checks.env_without_leak_check()


def run(args, work):
    p = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=TIMEOUT, env=ENV)
    return p.returncode, p.stdout + p.stderr


def load_json(path):
    return output_checks.load_json(path, fail)


def check_vcd(path):
    output_checks.check_vcd(path, fail)


def check_outputs(work, out, kind, core, status="fault", backtrace=None):
    """The report, trace and VCD of a run that ended in a kernel fault of `kind` on `core`."""
    report = load_json(os.path.join(work, "report.json"))
    o = report["outcome"]
    if o["status"] != status or (o.get("fault") or {}).get("kind") != kind:
        fail(f"report outcome {o}, expected status {status}, fault kind {kind!r}")
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    if not errors or errors[-1]["kind"] != kind or errors[-1]["core"] != core:
        fail(f"report diagnostics {errors}, expected an error of kind {kind!r} on core {core}")
    if report["metrics"]["faults"] != 1:
        fail(f"metrics.faults {report['metrics']['faults']}")
    if backtrace:
        bt = errors[-1].get("backtrace") or []
        if not bt or not re.search(backtrace, bt[0] + "\n" + "\n".join(bt)):
            fail(f"backtrace {bt} does not match {backtrace!r}")
        if o["fault"].get("backtrace") != bt:
            fail("outcome.fault.backtrace differs from the diagnostic's")
        if "kernel backtrace (innermost first):" not in out:
            fail("no backtrace in the summary")
    trace = load_json(os.path.join(work, "trace.json"))
    if not any(e.get("name") == kind for e in trace.get("traceEvents", [])):
        fail(f"no '{kind}' event in the trace")
    check_vcd(os.path.join(work, "waves.vcd"))
    if f"FAULT ({kind})" not in out:
        fail(f"summary has no FAULT ({kind}) line:\n{out[-2000:]}")
    return report


def kernel_case(npusim, plugins, work, op, kind, message, core=0, extra=(), backtrace=None,
                multicore=False, rc=1, lib="libhostile.so"):
    path = scenario(work, op, multicore)
    got, out = run([npusim, "run", "--plugin", os.path.join(plugins, lib), path,
                    "--report", "report.json", "--trace", "trace.json", "--vcd", "waves.vcd",
                    *extra], work)
    if got != rc:
        fail(f"exit {got}, expected {rc}:\n{out[-3000:]}")
    m = re.search(message, out)
    if not m:
        fail(f"output does not match {message!r}:\n{out[-3000:]}")
    check_outputs(work, out, kind, core, backtrace=backtrace)
    return m


def signal_when_spinning(npusim, plugins, work, op, marker, sig, settle=0.0):
    """Runs `op` with every output, waits for `marker` on its output (the user's code spinning),
    sends `sig` after `settle` seconds more; returns the exit code, the output and the seconds
    from the signal to the exit."""
    path = scenario(work, op)
    out_path = os.path.join(work, "stdout")
    with open(out_path, "w") as out_f:
        p = subprocess.Popen([npusim, "run", "--plugin", os.path.join(plugins, "libhostile.so"), path,
                              "--report", "report.json", "--trace", "trace.json", "--vcd", "waves.vcd"],
                             cwd=work, stdout=out_f, stderr=subprocess.STDOUT, env=ENV)
        deadline = time.monotonic() + TIMEOUT
        while marker not in open(out_path).read():
            if p.poll() is not None or time.monotonic() > deadline:
                p.kill()
                fail(f"no {marker!r}: {open(out_path).read()[-2000:]}")
            time.sleep(0.05)
        time.sleep(settle)
        t0 = time.monotonic()
        p.send_signal(sig)
        try:
            rc = p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("npusim did not stop after the signal")
    return rc, open(out_path).read(), time.monotonic() - t0


def spin_signal(npusim, plugins, work, sig):
    """A kernel spinning in its own code stops within a second of the signal."""
    rc, out, waited = signal_when_spinning(npusim, plugins, work, "hostile_spin", "hostile_spin: spinning", sig,
                                           settle=0.2)  # well inside the loop
    name = signal.Signals(sig).name
    if rc != 128 + sig:
        fail(f"exit {rc}, expected {128 + sig}:\n{out[-3000:]}")
    m = re.search(r"the kernel ran its own code in hostile_spin\(torch::Tensor const&\)\+0x[0-9a-f]+ "
                  r"\(libhostile\.so\) for ([0-9.]+) s after the request", out)
    if not m:
        fail(f"no message naming the spinning kernel:\n{out[-3000:]}")
    # The watchdog takes the kernel back within a second of the request (it saw it within one
    # 100 ms tick; the bound on the process leaves room for a loaded machine).
    if float(m.group(1)) >= 1.0 or waited > 10:
        fail(f"stopped {m.group(1)} s after the request seen, {waited:.2f} s after the signal")
    report = check_outputs(work, out, "interrupted", 0, status="interrupted")
    if report.get("interrupted") != name or f"result: INTERRUPTED ({name})" not in out:
        fail(f"report interrupted = {report.get('interrupted')!r}; summary {out[-600:]}")


def plugin_run(npusim, plugins, work, libs, extra=(), op="relu_tcm", reference=None):
    path = scenario(work, op, reference=reference)
    args = [npusim, "run"]
    for lib in libs:
        args += ["--plugin", os.path.join(plugins, f"lib{lib}.so")]
    return run(args + [path, "--report", "report.json", *extra], work)


def expect(got, out, rc, *patterns):
    if got != rc:
        fail(f"exit {got}, expected {rc}:\n{out[-3000:]}")
    for pat in patterns:
        if not re.search(pat, out):
            fail(f"output does not match {pat!r}:\n{out[-3000:]}")
    if "terminate called" in out or "Aborted" in out:
        fail(f"std::terminate or an abort:\n{out[-3000:]}")


def op_build(npusim, source_dir, work, define, shape=None):
    if shape is None:
        shape = "empty_shape.cpp"
        with open(os.path.join(work, shape), "w") as f:
            f.write("// the library's ops are in the compute source\n")
    lib = os.path.join(work, "libinit.so")
    return run([npusim, "op", "build", "--name", "init", "--compute",
                os.path.join(source_dir, "tests/contain/reg_plugins.cpp"), "--shape", shape,
                f"--extra-cflags=-D{define}", "-o", lib], work) + (lib,)


def no_host_address(work):
    """The report names no host address (a 64-bit address of the simulator's own memory or code)."""
    with open(os.path.join(work, "report.json")) as f:
        host = re.findall(r"0x[0-9a-f]{11,}", f.read())
    if host:
        fail(f"the report shows host addresses: {host[:3]}")


def tcm_bounds_build(npusim, source_dir, work, debug=True, flags=()):
    """tests/contain/tcm_bounds_kernels.cpp built as `npusim op build` builds it (the kernel-cost
    pass and its TCM bounds check), with -g or without, and `flags`; the library's file name."""
    empty = os.path.join(work, "empty_shape.cpp")
    with open(empty, "w") as f:
        f.write("// the library's ops are in the compute source\n")
    args = [npusim, "op", "build", "--name", "tcmbounds", "--compute",
            os.path.join(source_dir, "tests/contain/tcm_bounds_kernels.cpp"), "--shape", empty,
            "-o", os.path.join(work, "libtcmbounds.so")]
    if debug:
        args.append("--extra-cflags=-g")
    args += [f"--extra-cflags={f}" for f in flags]
    got, out = run(args, work)
    if got != 0:
        fail(f"op build: exit {got}:\n{out[-3000:]}")
    return "libtcmbounds.so"


def marker_line(source_dir, mark):
    """The line of tcm_bounds_kernels.cpp carrying `// MARK:<mark>`."""
    with open(os.path.join(source_dir, "tests/contain/tcm_bounds_kernels.cpp")) as f:
        for n, line in enumerate(f, 1):
            if f"// MARK:{mark}" in line:
                return n
    fail(f"no marker {mark}")


def tcm_case(npusim, source_dir, work, op, message, mark, debug=True, last_call="tcm_malloc", core=0):
    """A kernel of tcm_bounds_kernels.cpp whose access outside its block is a `tcm out of bounds`
    fault: the message names the op, the core, the access and the block (`message`, whose groups
    `acc` and `blk` are the access's and the block's TCM offsets, returned), and the source line
    with -g; the outputs are complete; the report shows no host address."""
    lib = tcm_bounds_build(npusim, source_dir, work, debug)
    where = (rf", at tcm_bounds_kernels\.cpp:{marker_line(source_dir, mark)}\n" if debug
             else r" \(build the kernel with -g for the source line\)\n")
    m = kernel_case(npusim=npusim, plugins=work, work=work, op=op, kind="tcm out of bounds", lib=lib,
                    core=core, multicore=core != 0,
                    message=rf"kernel {op} of op {op} on core {core}, last library call {last_call}: " + message + where)
    no_host_address(work)
    return int(m.group("acc"), 16), int(m.group("blk"), 16)


def op_list(npusim, plugins, work, libs):
    args = [npusim, "op", "list", "--json"]
    for lib in libs:
        args += ["--plugin", os.path.join(plugins, f"lib{lib}.so")]
    return run(args, work)


def main():
    npusim, plugins, source_dir, case = sys.argv[1:5]
    K = dict(npusim=npusim, plugins=plugins)
    with tempfile.TemporaryDirectory(prefix="npusim-contain-") as work:
        K["work"] = work
        before_any = r"kernel {0} of op {0} on core 0, before any library call: "
        if case == "segv":
            kernel_case(**K, op="hostile_null", kind="kernel crash",
                        message=before_any.format("hostile_null") +
                        r"segmentation fault \(SIGSEGV\) at address 0x0 \(not mapped\) in "
                        r"hostile_null\(torch::Tensor const&\)\+0x[0-9a-f]+ \(libhostile\.so\)",
                        backtrace=r"^hostile_null\(torch::Tensor const&\)")
        elif case == "segv_tcm_far":
            # Far past a tcm_malloc block: named against the TCM and the block, never the host address.
            kernel_case(**K, op="hostile_tcm_far", kind="kernel crash",
                        message=r"kernel hostile_tcm_far of op hostile_tcm_far on core 0, last library call tcm_malloc: "
                        r"segmentation fault \(SIGSEGV\) at TCM address 0x[0-9a-f]+ \(as the kernel's pointer gives it; "
                        r"[0-9]+ bytes past the end of the core's TCM \[0x[0-9a-f]+, 0x[0-9a-f]+\)\); nearest buffer: the "
                        r"tcm_malloc block at 0x[0-9a-f]+ of 4096 bytes, [0-9]+ bytes past its end \(offset [0-9]+ of the "
                        r"block\) \(not mapped\)",
                        backtrace=r"^hostile_tcm_far\(")
            no_host_address(work)
        elif case in ("tcm_overrun_write", "tcm_overrun_no_debug_info"):
            # A write 4 KiB past a 4 KiB block, inside the TCM: the block, the access, the line.
            acc, blk = tcm_case(npusim, source_dir, work, "tcm_overrun_write",
                                r"a write of 4 bytes at TCM offset 0x(?P<acc>[0-9a-f]+) \(address 0x[0-9a-f]+\) outside "
                                r"every live tcm_malloc block: the nearest block is the tcm_malloc block at TCM offset "
                                r"0x(?P<blk>[0-9a-f]+) of 4096 bytes; the access begins 4096 bytes past its end "
                                r"\(offset 8192 of the block\)", "overrun", debug=case == "tcm_overrun_write")
            if acc != blk + 8192:
                fail(f"access at TCM offset {acc:#x}, block at {blk:#x}: not 8192 bytes apart")
        elif case == "tcm_underrun_read":
            acc, blk = tcm_case(npusim, source_dir, work, "tcm_underrun_read",
                                r"a read of 4 bytes at TCM offset 0x(?P<acc>[0-9a-f]+) \(address 0x[0-9a-f]+\) outside "
                                r"every live tcm_malloc block: the nearest block is the tcm_malloc block at TCM offset "
                                r"0x(?P<blk>[0-9a-f]+) of 4096 bytes; the access ends 12 bytes before its start "
                                r"\(offset -16 of the block\)", "underrun")
            if acc != blk - 16:
                fail(f"access at TCM offset {acc:#x}, block at {blk:#x}: not 16 bytes before it")
        elif case == "tcm_after_free":
            acc, blk = tcm_case(npusim, source_dir, work, "tcm_after_free",
                                r"a read of 4 bytes at TCM offset 0x(?P<acc>[0-9a-f]+) \(address 0x[0-9a-f]+\) outside "
                                r"every live tcm_malloc block: it is inside the tcm_malloc block at TCM offset "
                                r"0x(?P<blk>[0-9a-f]+) of 4096 bytes, which tcm_free gave back \(offset 40 of the "
                                r"block\): a use after free", "after_free", last_call="tcm_free")
            if acc != blk + 40:
                fail(f"access at TCM offset {acc:#x}, block at {blk:#x}: not 40 bytes into it")
        elif case == "tcm_overrun_multicore":
            # Eight cores in bounds, their accesses interleaved with the others' DMA; core 3 overruns.
            acc, blk = tcm_case(npusim, source_dir, work, "tcm_overrun_core3",
                                r"a write of 4 bytes at TCM offset 0x(?P<acc>[0-9a-f]+) \(address 0x[0-9a-f]+\) outside "
                                r"every live tcm_malloc block: the nearest block is the tcm_malloc block at TCM offset "
                                r"0x(?P<blk>[0-9a-f]+) of 4096 bytes; the access begins 1024 bytes past its end "
                                r"\(offset 5120 of the block\)", "core3", last_call="tensor_to_tcm", core=3)
            if acc != blk + 5120:
                fail(f"access at TCM offset {acc:#x}, block at {blk:#x}: not 5120 bytes apart")
        elif case == "tcm_check_off":
            # -DNPUSIM_TCM_CHECK=0: the translation unit is not checked, the overrun passes as on the device.
            lib = tcm_bounds_build(npusim, source_dir, work, flags=["-DNPUSIM_TCM_CHECK=0"])
            got, out = run([npusim, "run", "--plugin", os.path.join(work, lib), scenario(work, "tcm_overrun_write"),
                            "--report", "report.json"], work)
            expect(got, out, 0, r"PASS")
            if "out of bounds" in out:
                fail(f"an unchecked kernel's access reported:\n{out[-3000:]}")
        elif case == "tcm_last_byte":
            # Up to the last byte of each block: no fault, and the run's outputs are complete.
            lib = tcm_bounds_build(npusim, source_dir, work)
            path = scenario(work, "tcm_last_byte")
            got, out = run([npusim, "run", "--plugin", os.path.join(work, lib), path, "--report", "report.json",
                            "--trace", "trace.json", "--vcd", "waves.vcd"], work)
            expect(got, out, 0, r"PASS")
            report = load_json(os.path.join(work, "report.json"))
            if report["metrics"]["faults"] != 0 or report["outcome"]["status"] != "ok":
                fail(f"outcome {report['outcome']}, faults {report['metrics']['faults']}")
            if "out of bounds" in out:
                fail(f"an in-bounds access reported:\n{out[-3000:]}")
            load_json(os.path.join(work, "trace.json"))
            check_vcd(os.path.join(work, "waves.vcd"))
        elif case == "segv_after_call":
            kernel_case(**K, op="hostile_null_after_call", kind="kernel crash",
                        message=r"on core 0, last library call tcm_free: segmentation fault \(SIGSEGV\)",
                        backtrace=r"^hostile_null_after_call\(")
        elif case == "segv_multicore":
            kernel_case(**K, op="hostile_null_core3", kind="kernel crash", core=3, multicore=True,
                        message=r"kernel hostile_null_core3 of op hostile_null_core3 on core 3, last "
                        r"library call tcm_free: segmentation fault \(SIGSEGV\)",
                        backtrace=r"^hostile_null_core3\(")
        elif case == "bus":
            kernel_case(**K, op="hostile_bus", kind="kernel crash",
                        message=r"bus error \(SIGBUS\) at an address outside every buffer of the device \(not a TCM pointer of "
                        r"this core\) in hostile_bus\(",
                        backtrace=r"hostile_bus\(")
        elif case == "fpe":
            kernel_case(**K, op="hostile_fpe", kind="kernel crash",
                        message=r"arithmetic exception \(SIGFPE\) in hostile_fpe\(",
                        backtrace=r"hostile_fpe\(")
            no_host_address(work)
        elif case == "ill":
            kernel_case(**K, op="hostile_trap", kind="kernel crash",
                        message=r"illegal instruction \(SIGILL\) in hostile_trap\(",
                        backtrace=r"hostile_trap\(")
            no_host_address(work)
        elif case == "abort":
            kernel_case(**K, op="hostile_abort", kind="abort",
                        message=before_any.format("hostile_abort") + r"the kernel called abort\(\) in "
                        r"hostile_abort\(torch::Tensor const&\)",
                        backtrace=r"\babort\b.*\n.*hostile_abort\(")
        elif case == "terminate":
            kernel_case(**K, op="hostile_terminate", kind="abort",
                        message=r"the kernel called abort\(\) by std::terminate with an exception of type "
                        r"std::logic_error in flight in hostile_terminate\(")
        elif case == "op_build_terminate":
            # The same kernel built as `npusim op build` builds it (clang): the kernel is named,
            # not the compiler's helper that calls std::terminate.
            empty = os.path.join(work, "empty_shape.cpp")
            with open(empty, "w") as f:
                f.write("// the library's ops are in the compute source\n")
            got, out = run([npusim, "op", "build", "--name", "hostile", "--compute",
                            os.path.join(source_dir, "tests/contain/hostile_kernels.cpp"), "--shape", empty,
                            "-o", os.path.join(work, "libhostile.so")], work)
            if got != 0:
                fail(f"op build: exit {got}:\n{out[-3000:]}")
            kernel_case(npusim=npusim, plugins=work, work=work, op="hostile_terminate", kind="abort",
                        message=r"the kernel called abort\(\) by std::terminate with an exception of type "
                        r"std::logic_error in flight in hostile_terminate\(")
        elif case == "exit":
            kernel_case(**K, op="hostile_exit", kind="exit",
                        message=before_any.format("hostile_exit") + r"the kernel called exit\(3\) in "
                        r"hostile_exit\(torch::Tensor const&\)\+0x[0-9a-f]+ \(libhostile\.so\): a kernel "
                        r"never ends the process", backtrace=r"^hostile_exit\(")
        elif case == "_exit":
            kernel_case(**K, op="hostile_quick_exit", kind="exit",
                        message=r"the kernel called _exit\(4\) in hostile_quick_exit\(")
        elif case == "throw_int":
            kernel_case(**K, op="hostile_throw_int", kind="uncaught exception",
                        message=before_any.format("hostile_throw_int") +
                        r"the kernel threw an exception of type int that it did not catch")
        elif case == "throw_struct":
            kernel_case(**K, op="hostile_throw_struct", kind="uncaught exception",
                        message=r"the kernel threw an exception of type \(anonymous namespace\)::Oops that it "
                        r"did not catch")
        elif case == "throw_runtime":
            kernel_case(**K, op="hostile_throw_runtime", kind="uncaught exception",
                        message=r"the kernel threw an exception of type std::runtime_error that it did not "
                        r"catch: the kernel gives up")
        elif case == "host_stack_overflow":
            kernel_case(**K, op="hostile_recurse", kind="host stack overflow",
                        message=before_any.format("hostile_recurse") + r"the kernel overflowed its core "
                        r"thread's host stack of 8388608 bytes \(gpsimd.host_stack_bytes\)",
                        backtrace=r"\(x\d+\)")
        elif case == "host_stack_big_locals":
            # Locals of 32 MiB: a frame far below the stack and its guards is still the kernel's.
            kernel_case(**K, op="hostile_big_locals", kind="host stack overflow",
                        message=before_any.format("hostile_big_locals") + r"the kernel overflowed its core "
                        r"thread's host stack of 8388608 bytes \(gpsimd.host_stack_bytes\)")
        elif case == "stack_overrun_empty":
            # A recursion with a torch::empty per level: the library's stack check sees it first.
            kernel_case(**K, op="hostile_recurse_empty", kind="stack overflow",
                        message=r"kernel hostile_recurse_empty on core 0, call empty: stack overrun: the "
                        r"kernel's stack reached at least \d+ bytes, more than the declared 14336")
        elif case == "spin_wall_budget":
            kernel_case(**K, op="hostile_spin", kind="wall-clock budget exceeded",
                        extra=["--set", "gpsimd.wall_budget_s=1"],
                        message=r"the op run took more than its wall-clock budget of 1 s "
                        r"\(gpsimd.wall_budget_s\); the kernel was running its own code in hostile_spin\(",
                        backtrace=r"^hostile_spin\(")
        elif case == "calls_cycle_budget":
            kernel_case(**K, op="hostile_calls_forever", kind="cycle budget exceeded",
                        extra=["--set", "gpsimd.cycle_budget=100000"],
                        message=r"the kernel ran more than its cycle budget of 100000 cycles on its core "
                        r"\(gpsimd.cycle_budget\)")
        elif case == "bad_shape":
            kernel_case(**K, op="hostile_bad_shape", kind="result mismatch",
                        message=r"last library call kernel return: the kernel returned int32\[7\], but its "
                        r"shape function hostile_same\(torch::Tensor const&\) promises float32\[1024\]")
        elif case == "short_result":
            kernel_case(**K, op="hostile_short_result", kind="result mismatch",
                        message=r"the kernel returned float32\[512\], but its shape function "
                        r"hostile_same\(torch::Tensor const&\) promises float32\[1024\]")
        elif case == "shape_crash":
            # The shape function runs before the simulation: its crash is bad input of the op.
            path = scenario(work, "hostile_shape_crash")
            got, out = run([npusim, "run", "--plugin", os.path.join(plugins, "libhostile.so"), path,
                            "--report", "report.json"], work)
            expect(got, out, 2, r"op 'hostile_shape_crash': the shape function hostile_shape_crashes\(torch::Tensor "
                   r"const&\) crashed: segmentation fault \(SIGSEGV\) at address 0x0 \(not mapped\) in "
                   r"hostile_shape_crashes\(")
        elif case == "shape_spin_sigint":
            # Ctrl-C while the shape function runs, before the simulation: the run ends
            # interrupted (exit 130) with every output complete, not with an internal error.
            rc, out, _ = signal_when_spinning(npusim, plugins, work, "hostile_shape_spin",
                                              "hostile_shape_spin: spinning", signal.SIGINT)
            if rc != 130:
                fail(f"exit {rc}, expected 130:\n{out[-3000:]}")
            if not re.search(r"op 'hostile_shape_spin': the shape function hostile_shape_spins\(", out):
                fail(f"no message naming the shape function:\n{out[-3000:]}")
            o = load_json(os.path.join(work, "report.json"))["outcome"]
            if o["status"] != "interrupted" or (o.get("fault") or {}).get("kind") != "interrupted":
                fail(f"report outcome {o}")
            load_json(os.path.join(work, "trace.json"))
            check_vcd(os.path.join(work, "waves.vcd"))
        elif case == "spin_sigint":
            spin_signal(npusim, plugins, work, signal.SIGINT)
        elif case == "spin_sigterm":
            spin_signal(npusim, plugins, work, signal.SIGTERM)
        elif case == "reg_dup_one":
            expect(*plugin_run(npusim, plugins, work, ["reg_dup_one"]), 2,
                   r"--plugin \S+libreg_dup_one\.so: op 'dup_op' is registered twice: by library reg_dup_one at "
                   r"\S*reg_plugins\.cpp:\d+ in \S+libreg_dup_one\.so and by library reg_dup_one at "
                   r"\S*reg_plugins\.cpp:\d+ in \S+libreg_dup_one\.so")
        elif case == "reg_two_files":
            expect(*plugin_run(npusim, plugins, work, ["reg_two_files"]), 2,
                   r"op 'twofile_op' is registered twice: by library reg_two_files at \S*reg_plugins\.cpp:\d+ "
                   r"in \S+ and by library reg_two_files at \S*reg_two_files_b\.cpp:\d+")
        elif case == "reg_two_plugins":
            expect(*plugin_run(npusim, plugins, work, ["reg_shared_a", "reg_shared_b"]), 2,
                   r"--plugin \S+libreg_shared_b\.so: op 'shared_op' is registered twice: by library "
                   r"reg_shared_a at \S*reg_plugins\.cpp:\d+ in \S+libreg_shared_a\.so and by library "
                   r"reg_shared_b at \S*reg_plugins\.cpp:\d+ in \S+libreg_shared_b\.so")
        elif case == "reg_shadow":
            expect(*plugin_run(npusim, plugins, work, ["reg_shadow"]), 2,
                   r"op 'relu_tcm' \(library reg_shadow at \S*reg_plugins\.cpp:\d+ in \S+libreg_shadow\.so\) "
                   r"has the name of a built-in op \(library npusim_examples at \S+:\d+ in "
                   r"\S+\); to replace the built-in op, run with --allow-shadowing")
        elif case == "reg_shadow_allowed":
            got, out = plugin_run(npusim, plugins, work, ["reg_shadow"], ["--allow-shadowing"], reference="negate")
            expect(got, out, 0, r"warning: --plugin \S+libreg_shadow\.so: op 'relu_tcm' \(library reg_shadow "
                   r"at [^)]+\) shadows the built-in op of that name \(library npusim_examples",
                   r"reference +negate: equal \(1024 elements\)")
        elif case == "reg_kernel_name_clash":
            # The plugin's relu_forward_tcm negates; npusim's own (the built-in relu_tcm's) would not.
            got, out = plugin_run(npusim, plugins, work, ["reg_kernel_name_clash"], op="clash_op", reference="negate")
            expect(got, out, 0, r"op +clash_op \(kernel relu_forward_tcm\)", r"reference +negate: equal \(1024 elements\)")
        elif case == "reg_empty":
            expect(*plugin_run(npusim, plugins, work, ["reg_empty"]), 2,
                   r"--plugin \S+libreg_empty\.so: the library registers no op")
        elif case == "reg_library_throws":
            expect(*plugin_run(npusim, plugins, work, ["reg_library_throws"]), 2,
                   r"--plugin \S+libreg_library_throws\.so: NEURON_LIBRARY\(reg_library_throws\) at "
                   r"\S*reg_plugins\.cpp:\d+ threw std::runtime_error: cannot register today")
        elif case == "reg_loaded_twice":
            expect(*plugin_run(npusim, plugins, work, ["reg_shared_a", "reg_shared_a"]), 2,
                   r"--plugin \S+libreg_shared_a\.so: the library is already loaded")
        elif case == "init_throws":
            expect(*plugin_run(npusim, plugins, work, ["reg_init_throws"]), 2,
                   r"--plugin \S+libreg_init_throws\.so: a static initialiser of the library threw an exception "
                   r"of type std::runtime_error: no configuration found; it printed:\nreg_init: starting")
        elif case == "init_crashes":
            expect(*plugin_run(npusim, plugins, work, ["reg_init_crashes"]), 2,
                   r"--plugin \S+libreg_init_crashes\.so: a static initialiser of the library crashed with a "
                   r"segmentation fault \(SIGSEGV\) at address \S+")
        elif case == "init_exits":
            expect(*plugin_run(npusim, plugins, work, ["reg_init_exits"]), 2,
                   r"--plugin \S+libreg_init_exits\.so: a static initialiser of the library called exit\(5\), "
                   r"which would end npusim")
        elif case == "op_build_init_throws":
            got, out, lib = op_build(npusim, source_dir, work, "REG_INIT_THROWS")
            expect(got, out, 1, re.escape(lib) + r": built, but it does not load: a static initialiser of the "
                   r"library threw an exception of type std::runtime_error: no configuration found")
        elif case == "op_build_init_crashes":
            got, out, lib = op_build(npusim, source_dir, work, "REG_INIT_CRASHES")
            expect(got, out, 1, re.escape(lib) + r": built, but it does not load: a static initialiser of the "
                   r"library crashed with a segmentation fault \(SIGSEGV\)")
        elif case == "op_build_init_exits":
            got, out, lib = op_build(npusim, source_dir, work, "REG_INIT_EXITS")
            expect(got, out, 1, re.escape(lib) + r": built, but it does not load: a static initialiser of the "
                   r"library called exit\(5\), which would end npusim")
        elif case == "op_build_two_shape_files":
            # The user's route to two shape files registering one op: op build --shape a.cpp b.cpp.
            got, out, lib = op_build(npusim, source_dir, work, "REG_TWO_FILES",
                                     shape=os.path.join(source_dir, "tests/contain/reg_two_files_b.cpp"))
            expect(got, out, 1, re.escape(lib) + r": built, but it does not load: op 'twofile_op' is registered "
                   r"twice: by library reg_two_files at \S*reg_plugins\.cpp:\d+ in \S+ and by library "
                   r"reg_two_files at \S*reg_two_files_b\.cpp:\d+")
        elif case == "op_list_init_crashes":
            got, out = op_list(npusim, plugins, work, ["reg_init_crashes"])
            expect(got, out, 2, r"npusim: error: op list: --plugin \S+libreg_init_crashes\.so: a static initialiser "
                   r"of the library crashed with a segmentation fault \(SIGSEGV\)")
        elif case == "op_list_two_plugins":
            got, out = op_list(npusim, plugins, work, ["reg_shared_a", "reg_shared_b"])
            expect(got, out, 2, r"npusim: error: op list: --plugin \S+libreg_shared_b\.so: op 'shared_op' is "
                   r"registered twice: by library reg_shared_a at \S*reg_plugins\.cpp:\d+ in \S+libreg_shared_a\.so "
                   r"and by library reg_shared_b")
        elif case == "op_list_empty":
            got, out = op_list(npusim, plugins, work, ["reg_empty"])
            expect(got, out, 2, r"npusim: error: op list: --plugin \S+libreg_empty\.so: the library registers no op")
        else:
            fail(f"unknown case {case}")
    print("PASS: contain", case)


if __name__ == "__main__":
    main()
