"""Ctrl-C during a long kernel: the Python process gets KeyboardInterrupt after npusim stopped
the run and wrote its report and trace complete; the interpreter goes on."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import support

CHILD = textwrap.dedent("""
    import sys, torch, npusim, support
    support.load("faulty", "tutorial")
    npusim.configure(report=sys.argv[1], trace=sys.argv[2])
    print("calling", flush=True)
    try:
        torch.ops.faulty.slow_copy(torch.randn(4096), 250)
        print("completed")
    except KeyboardInterrupt as e:
        print("KeyboardInterrupt:", e)
    run = npusim.last_run()
    print("status", run.status if run else None)
    npusim.configure(report=None, trace=None)
    x = torch.randn(9)
    print("alive", torch.equal(torch.ops.tutorial.relu_tcm_chunked(x), torch.relu(x)), flush=True)
""")


def npusim_children(pid):
    """The pids of the npusim processes whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if int(fields[1]) == pid and comm == "npusim":
            found.append(int(entry))
    return found


def catches_sigint(pid):
    """Whether the process has a handler for SIGINT (/proc/PID/status, SigCgt)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except OSError:
        pass
    return False


class CtrlC(unittest.TestCase):
    def test_ctrl_c_during_a_kernel(self):
        support.libs_dir()
        with tempfile.TemporaryDirectory(prefix="npusim-pytest-") as tmp:
            report, trace = os.path.join(tmp, "r.json"), os.path.join(tmp, "t.json")
            child = subprocess.Popen([sys.executable, "-c", CHILD, report, trace], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            try:
                self.assertEqual(child.stdout.readline().strip(), "calling")
                # Wait until npusim catches SIGINT (it does once its run starts), then a little.
                deadline = time.time() + 120
                while not any(catches_sigint(pid) for pid in npusim_children(child.pid)):
                    self.assertLess(time.time(), deadline, "npusim never started its run")
                    time.sleep(0.05)
                time.sleep(0.3)  # inside the kernel by now
                os.kill(child.pid, signal.SIGINT)  # what a Ctrl-C at the terminal sends Python
                out, err = child.communicate(timeout=300)
            finally:
                if child.poll() is None:
                    child.kill()
            self.assertEqual(child.returncode, 0, err)
            self.assertIn("KeyboardInterrupt: op faulty.slow_copy interrupted", out)
            self.assertIn("status interrupted", out)
            self.assertIn("alive True", out)
            with open(report) as f:
                rep = json.load(f)
            self.assertEqual(rep["interrupted"], "SIGINT")
            self.assertEqual(rep["outcome"]["status"], "interrupted")
            with open(trace) as f:
                self.assertIn("traceEvents", json.load(f))


if __name__ == "__main__":
    unittest.main()
