#!/usr/bin/env python3
"""Interrupted runs: SIGINT/SIGTERM stop every runner at its next step or request,
its outputs are complete and the exit code is 128 + the signal; a second signal ends at once.

    signal_test.py NPUSIM CASE

Each case starts npusim on work made long by a loop count (never by a timing guess), waits
until the run has visibly started (a progress line on stderr with --progress, or an output
file that the command opens once its handler is installed), sends the signal and checks exit
code, the "interrupted" marker, that trace and report parse as JSON and the VCD is well formed.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import output_checks  # noqa: E402


def being_written(folder, name):
    """An output exists or is being written: npusim writes `name` to a temporary file beside it,
    `.NAME.npusim-XXXXXX`, and renames it into place when it is complete."""
    try:
        return any(f == name or f.startswith(f".{name}.npusim-") for f in os.listdir(folder))
    except FileNotFoundError:
        return False

NEURON_LONG = """name: neuron-long
platform: neuron-gpsimd
program:
  - init: [hbm, dataram]
  - alloc: {heap: dataram, size: 8KiB, as: tile}
  - loop:
      count: 4000000
      body:
        - compute: 100
        - transfer: {method: dma, src: tile, dst: tile, bytes: 64}
"""

SNITCH_LONG = """name: snitch-long
platform: snitch-cluster
program:
  - l1_alloc: {size: 4KiB, align: 64, as: buf}
  - loop:
      count: 100000000
      body:
        - stream: {load: buf, store: buf, count: 16, compute: 2}
        - barrier
"""

# One step that is long by itself: the stream stops between its elements.
SNITCH_LONG_STREAM = """name: snitch-long-stream
platform: snitch-cluster
program:
  - l1_alloc: {size: 4KiB, align: 64, as: buf}
  - stream: {load: buf, store: buf, count: 100000000, stride: 0, compute: 1}
"""

# A torch op whose kernel is one long element loop of the standard accessor (16 MiB of floats).
TORCH_LONG = """name: torch-long
platform: neuron-gpsimd
torch_op:
  op: relu_standard
  inputs:
    - {shape: [4194304], dtype: float, init: "linspace(-4, 4)"}
  reference: relu
"""

TIMEOUT = 120  # s: only a hung process hits it


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(args, work, env=None):
    out = open(os.path.join(work, "stdout"), "w")
    err = open(os.path.join(work, "stderr"), "w")
    return subprocess.Popen(args, stdout=out, stderr=err, cwd=work, env=env)


# A kernel that has not reached a safe point 250 ms after the signal (a long library call, on a
# loaded machine or in the sanitizer build) is taken back to its entry by the watchdog: the torch
# case runs with the leak check off, as the contain tests do.
NO_LEAK_CHECK = output_checks.env_without_leak_check()


def waits_for_fifo_writer(pid):
    """The process sleeps in the open of a FIFO that has no writer (Linux: fs/pipe.c's
    wait_for_partner), which npusim traffic reaches only with its signal handlers installed."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip()
        with open(f"/proc/{pid}/syscall") as f:
            call = f.read().split()
    except OSError:
        return False
    return wchan == "wait_for_partner" or (wchan in ("", "0") and call[:1] in (["2"], ["257"]))


def wait_for(proc, cond, what):
    deadline = time.monotonic() + TIMEOUT
    while not cond():
        if proc.poll() is not None:
            fail(f"npusim ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            proc.kill()
            fail(f"no {what} within {TIMEOUT} s")
        time.sleep(0.05)


def text(work, name):
    with open(os.path.join(work, name), errors="replace") as f:
        return f.read()


def stderr_has(work, needle):
    return lambda: needle in text(work, "stderr")


def finish(proc, expect_rc):
    try:
        rc = proc.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"npusim did not stop within {TIMEOUT} s of the signal")
    if rc != expect_rc:
        fail(f"exit {rc}, expected {expect_rc}")


def load_json(path):
    return output_checks.load_json(path, fail)


def check_vcd(path):
    output_checks.check_vcd(path, fail)


def check_run(work, sig, name):
    """The outputs of an interrupted `npusim run`."""
    report = load_json(os.path.join(work, "report.json"))
    if report.get("interrupted") != name:
        fail(f"report interrupted = {report.get('interrupted')!r}, expected {name}")
    if report["outcome"]["status"] != "interrupted" or report["outcome"]["exit_code"] != 128 + sig:
        fail(f"report outcome {report['outcome']}")
    trace = load_json(os.path.join(work, "trace.json"))
    if "otherData" not in trace or not trace.get("traceEvents"):
        fail("the trace has no events or no otherData")
    check_vcd(os.path.join(work, "waves.vcd"))
    out = text(work, "stdout")
    if f"result: INTERRUPTED ({name})" not in out:
        fail(f"summary: {out[-600:]}")
    if "Simulation stopped by user" in out:
        fail("SystemC's stop message on stdout")
    return report


def run_case(npusim, scenario_text, sig, work):
    name = signal.Signals(sig).name
    path = os.path.join(work, "long.yaml")
    with open(path, "w") as f:
        f.write(scenario_text)
    p = start([npusim, "run", path, "--progress", "--trace", "trace.json", "--vcd", "waves.vcd",
               "--report", "report.json"], work)
    wait_for(p, stderr_has(work, " steps"), "progress line")
    p.send_signal(sig)
    finish(p, 128 + sig)
    return check_run(work, sig, name)


def main():
    npusim, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="npusim-signal-") as work:
        if case == "neuron_int":
            r = run_case(npusim, NEURON_LONG, signal.SIGINT, work)
            if r["outcome"]["fault"]["kind"] != "interrupted":
                fail(f"fault {r['outcome']['fault']}")
        elif case == "neuron_term":
            run_case(npusim, NEURON_LONG, signal.SIGTERM, work)
        elif case in ("snitch_int", "snitch_term"):
            sig = signal.SIGINT if case == "snitch_int" else signal.SIGTERM
            r = run_case(npusim, SNITCH_LONG, sig, work)
            st = {c["status"] for c in r["cores"]}
            if st != {"interrupted"}:  # no core "hung" at a barrier its stopped peers left
                fail(f"core status {st}")
        elif case == "torch_int":
            # The kernel stops at its next accessor element or API call: the op ends in an
            # "interrupted" fault, not with its whole output.
            path = os.path.join(work, "long.yaml")
            with open(path, "w") as f:
                f.write(TORCH_LONG)
            p = start([npusim, "run", path, "--trace", "trace.json", "--vcd", "waves.vcd",
                       "--report", "report.json"], work, NO_LEAK_CHECK)
            wait_for(p, lambda: being_written(work, "trace.json"), "the trace file")
            p.send_signal(signal.SIGINT)
            finish(p, 130)
            r = check_run(work, signal.SIGINT, "SIGINT")
            if (r["outcome"].get("fault") or {}).get("kind") != "interrupted":
                fail(f"fault {r['outcome'].get('fault')}")
        elif case == "program_int":
            # An RV32 program that never ends (`j .` on one core): Ctrl-C ends it between quanta.
            code = struct.pack("<I", 0x0000006F)
            ehdr = b"\x7fELF\x01\x01\x01" + bytes(9) + struct.pack(
                "<HHIIIIIHHHHHH", 2, 243, 1, 0x80000000, 52, 0, 0x4, 52, 32, 1, 0, 0, 0)
            phdr = struct.pack("<IIIIIIII", 1, 84, 0x80000000, 0x80000000, len(code), len(code), 5, 4)
            with open(os.path.join(work, "spin.elf"), "wb") as f:
                f.write(ehdr + phdr + code)
            path = os.path.join(work, "long.yaml")
            with open(path, "w") as f:
                f.write("name: spin\nplatform: snitch-cluster\n"
                        "binary: {elf: spin.elf, on: c0_core0, max_cycles: 1000000000000}\n")
            p = start([npusim, "run", path, "--trace", "trace.json", "--vcd", "waves.vcd",
                       "--report", "report.json"], work)
            time.sleep(1.5)
            p.send_signal(signal.SIGINT)
            finish(p, 130)
            r = check_run(work, signal.SIGINT, "SIGINT")
            ends = {c["program"]["end"] for c in r["cores"] if c.get("program")}
            if ends != {"interrupted"} or r["metrics"]["instructions"] < 1000:
                fail(f"program ends {ends}, {r['metrics']['instructions']} instructions")
        elif case == "firmware_int":
            # A firmware program that never ends, on the Neuron management core: Ctrl-C ends it.
            with open(os.path.join(work, "spin.c"), "w") as f:
                f.write("#include <neuron_device.h>\nint main(void) {\n  init_neuron_dataram_allocator();\n"
                        "  for (volatile int i = 0;; ++i) {\n  }\n}\n")
            b = subprocess.run([npusim, "cc", "--platform", "neuron-gpsimd", "-o", "spin.elf", "spin.c"], cwd=work,
                               capture_output=True, text=True)
            if b.returncode != 0:
                fail(f"npusim cc: exit {b.returncode}\n{b.stdout}{b.stderr}")
            path = os.path.join(work, "long.yaml")
            with open(path, "w") as f:
                f.write("name: spin\nplatform: neuron-gpsimd\nbinary: {elf: spin.elf, max_cycles: 1000000000000}\n")
            p = start([npusim, "run", path, "--trace", "trace.json", "--vcd", "waves.vcd",
                       "--report", "report.json"], work)
            time.sleep(1.5)
            p.send_signal(signal.SIGINT)
            finish(p, 130)
            r = check_run(work, signal.SIGINT, "SIGINT")
            end = r["cores"][0]["program"]["end"]
            if end != "interrupted" or r["metrics"]["instructions"] < 1000 or "dataram" not in r["heaps"]:
                fail(f"program end {end}, {r['metrics']['instructions']} instructions, heaps {list(r['heaps'])}")
        elif case == "snitch_stream":
            r = run_case(npusim, SNITCH_LONG_STREAM, signal.SIGINT, work)
            if r["metrics"]["core_accesses"] >= 9 * 2 * 100000000:
                fail("the stream ran to its end")
        elif case in ("traffic_int", "traffic_term"):
            sig = signal.SIGINT if case == "traffic_int" else signal.SIGTERM
            p = start([npusim, "traffic", "--requests", "4000000000", "--json", "--progress"], work)
            wait_for(p, stderr_has(work, " requests)"), "progress line")
            p.send_signal(sig)
            finish(p, 128 + sig)
            j = json.loads(text(work, "stdout"))
            if j.get("interrupted") != signal.Signals(sig).name or not 0 < j["requests"] < 4000000000:
                fail(f"traffic result {j}")
            if j["requests_planned"] != 4000000000 or j["bytes"] != 64 * j["requests"]:
                fail(f"traffic counts {j}")
        elif case == "traffic_fifo_term":
            # A trace that is a FIFO nobody writes: the read waits, and SIGTERM ends it (143, one
            # message), with no --write-trace left behind.
            fifo = os.path.join(work, "in.trace")
            os.mkfifo(fifo)
            p = start([npusim, "traffic", "--trace", fifo, "--write-trace", "out.trace"], work)
            wait_for(p, lambda: waits_for_fifo_writer(p.pid), "the open of the FIFO")
            p.send_signal(signal.SIGTERM)
            finish(p, 143)
            err = text(work, "stderr")
            if "npusim: error: --trace: stopped by SIGTERM while the trace was read" not in err:
                fail(f"message: {err}")
            if [f for f in os.listdir(work) if f.startswith("out.trace") or ".npusim-" in f]:
                fail(f"--write-trace left: {os.listdir(work)}")
        elif case == "traffic_write_trace_two":
            # Two signals at once (as `timeout` sends them) while --write-trace is written: the
            # process ends at once and leaves no torn trace (its temporary file is removed).
            p = start([npusim, "traffic", "--requests", "4000000000", "--progress", "--issue-width", "4",
                       "--write-trace", "out.trace"], work)
            wait_for(p, stderr_has(work, " requests)"), "progress line")
            p.send_signal(signal.SIGTERM)
            p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                p.kill()
                fail("npusim did not end after the second signal")
            if rc != -signal.SIGTERM and rc != 143:
                fail(f"exit {rc}, expected death by SIGTERM or 143")
            left = [f for f in os.listdir(work) if ".npusim-" in f]
            if left:
                fail(f"temporary files left: {left}")
            if os.path.exists(os.path.join(work, "out.trace")):
                # Only when the first signal's stop was quicker than the second: then complete.
                if rc != 143:
                    fail("a trace after death by the second signal")
                data = open(os.path.join(work, "out.trace")).read()
                if data and not data.endswith("\n"):
                    fail("the trace ends mid-line")
        elif case == "replay_term":
            ops = os.path.join(work, "ops.txt")
            with open(ops, "w") as f:
                f.write("init 0x10000 32\n")
                f.write("alloc 64 8\nfree 0x10000000\n" * 2000000)
            p = start([npusim, "heap", "replay", ops, "--progress"], work)
            wait_for(p, stderr_has(work, " ops)"), "progress line")
            p.send_signal(signal.SIGTERM)
            finish(p, 143)
            lines = text(work, "stdout").splitlines()
            rows = [json.loads(line) for line in lines]  # every line is whole JSON
            last = rows[-1]
            if last.get("interrupted") != "SIGTERM" or last["ops"] != len(rows) - 1 or last["of"] != 4000001:
                fail(f"last line {last}, {len(rows)} lines")
        elif case == "second_signal":
            path = os.path.join(work, "long.yaml")
            with open(path, "w") as f:
                f.write(NEURON_LONG)
            p = start([npusim, "run", path, "--progress", "--trace", "trace.json", "--report", "report.json"], work)
            wait_for(p, stderr_has(work, " steps"), "progress line")
            p.send_signal(signal.SIGINT)
            p.send_signal(signal.SIGTERM)  # before the outputs of many MB can be written
            try:
                rc = p.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                p.kill()
                fail("npusim did not end after the second signal")
            # Ended by the second signal itself (whichever of the two the kernel handed over second).
            if rc not in (-signal.SIGINT, -signal.SIGTERM):
                fail(f"exit {rc}, expected death by SIGINT or SIGTERM")
            if os.path.exists(os.path.join(work, "report.json")):
                fail("a report after the second signal: the process did not end at once")
            left = [f for f in os.listdir(work) if ".npusim-" in f or f == "trace.json"]
            if left:
                fail(f"files left after the second signal: {left} (its temporary files are removed)")
        elif case == "sweep":
            # The sweep sends its signal to the running point, which stops and writes a report
            # marked interrupted; the sweep records it and stops (143); a rerun runs it again.
            with open(os.path.join(work, "long.yaml"), "w") as f:
                f.write(NEURON_LONG)
            with open(os.path.join(work, "s.yaml"), "w") as f:
                f.write("name: long\nscenario: long.yaml\nrepeat: 3\noutputs: [report, trace, vcd]\n")
            p = start([npusim, "sweep", "s.yaml", "-j", "1", "-q", "-o", "out"], work)
            pdir = os.path.join(work, "out", "points", "00000")
            wait_for(p, lambda: being_written(pdir, "trace.json"), "the first point's trace file")
            p.send_signal(signal.SIGTERM)
            finish(p, 143)
            status = load_json(os.path.join(pdir, "status.json"))
            if status["exit_code"] != 143:
                fail(f"point status {status}")
            r = load_json(os.path.join(pdir, "report.json"))
            load_json(os.path.join(pdir, "trace.json"))
            check_vcd(os.path.join(pdir, "waves.vcd"))
            if r.get("interrupted") != "SIGTERM":
                fail("the point's report is not marked interrupted")
            csv = text(work, "out/results.csv").splitlines()
            if ",interrupted,143," not in csv[1] or ",not_run," not in csv[2]:
                fail(f"results {csv[1][:120]} / {csv[2][:120]}")
            if "3 not run" not in text(work, "stdout"):
                fail(f"summary {text(work, 'stdout')}")
        else:
            fail(f"unknown case {case}")
    print("PASS: signal", case)


if __name__ == "__main__":
    main()
