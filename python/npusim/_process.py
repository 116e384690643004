"""Runs npusim as a child process. Every op call is its own process: SystemC elaborates one
simulation per process, and a kernel that brings its process down cannot take the Python
interpreter with it.

Ctrl-C: the child runs in its own process group, so a Ctrl-C at the terminal reaches only
Python; on KeyboardInterrupt the child gets one SIGINT (npusim then stops the run and writes
its summary, report, trace and HTML page complete) and Python waits for it. A second Ctrl-C
sends a second SIGINT, which ends npusim at once, as on the command line."""

import ctypes
import os
import signal
import subprocess
import threading

from ._config import child_env

_PR_SET_PDEATHSIG = 1
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover - every Linux libc loads
    _libc = None


def _child_setup():
    # Own process group (terminal signals go to Python, which forwards them), and a SIGTERM
    # when the Python process dies, so that no simulation outlives it.
    os.setpgrp()
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Finished:
    """How a child ended: ``returncode`` (negative: killed by that signal), ``stdout`` and
    ``stderr`` as text, ``interrupted``: how many SIGINTs Python forwarded to it."""

    def __init__(self, returncode, stdout, stderr, interrupted):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.interrupted = interrupted


def run(argv, folder, cwd=None):
    """Runs argv with its stdout and stderr in files of `folder` (no pipe can fill up, and the
    wait can be resumed after a Ctrl-C); returns a Finished."""
    out_path = os.path.join(folder, "stdout.txt")
    err_path = os.path.join(folder, "stderr.txt")
    # While the child is being started a KeyboardInterrupt would lose it (Popen does not
    # return it): in the main thread, a SIGINT then is only noted, and forwarded once it runs.
    pending = []
    prev = None
    if threading.current_thread() is threading.main_thread():
        current = signal.getsignal(signal.SIGINT)
        if current is not None:  # None: a handler not installed from Python, left alone
            prev = current
            signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                                    env=child_env(), preexec_fn=_child_setup)
    except BaseException:
        if prev is not None:
            signal.signal(signal.SIGINT, prev)
        raise
    interrupted = 0
    try:
        while True:
            try:
                if prev is not None:
                    handler, prev = prev, None
                    signal.signal(signal.SIGINT, handler)
                    if pending:
                        interrupted += 1
                        proc.send_signal(signal.SIGINT)
                # A SIGINT may reach another thread of the process (torch's workers), which
                # does not interrupt a blocking wait: wake up often enough to see it.
                returncode = proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                continue
            except KeyboardInterrupt:
                interrupted += 1
                proc.send_signal(signal.SIGINT)  # nothing if it has ended already
    except BaseException:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    with open(out_path, "rb") as f:
        stdout = f.read().decode("utf-8", "replace")
    with open(err_path, "rb") as f:
        stderr = f.read().decode("utf-8", "replace")
    return Finished(returncode, stdout, stderr, interrupted)


def error_lines(stderr):
    """npusim's own messages on stderr ("npusim: error: ..."), without the prefix."""
    out = []
    for line in stderr.splitlines():
        if line.startswith("npusim: error: "):
            out.append(line[len("npusim: error: "):])
    return out


def signal_name(returncode):
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"
