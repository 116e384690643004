"""What one op call did on the simulated device: npusim.last_run() and npusim.record()."""

import contextlib
import threading

_local = threading.local()
_recorders = []
_recorders_lock = threading.Lock()


class CoreRun:
    """One GPSIMD core's part of a call: ``core`` (its number), ``cycles`` (from its kernel
    start to its end), ``start_ns``, ``end_ns`` and ``by_kind``, its cycles split by kind, as
    the report's ``breakdown_cycles`` (docs/report.md)."""

    def __init__(self, j):
        self.core = j.get("core")
        self.cycles = j.get("cycles")
        self.start_ns = j.get("start_ns")
        self.end_ns = j.get("end_ns")
        self.by_kind = dict(j.get("breakdown_cycles") or {})
        self.raw = j

    def __repr__(self):
        kinds = ", ".join(f"{k} {v}" for k, v in self.by_kind.items())
        return f"<core {self.core}: {self.cycles} cycles ({kinds})>"


class RunInfo:
    """One op call on npusim (docs/python.md, "What a call did").

    op: "<library>.<op>"; kernel: the kernel function; library: the library file; multicore:
    whether every core ran the kernel; status: "ok", "fault" or "interrupted"; exit_code:
    npusim's; time_ns: the op's simulated time (from the kernel start, the inputs being in
    HBM, to the last core's end; each call starts a fresh device at time 0); cycles: time_ns
    in core cycles; clock_ghz; cores: a CoreRun per core that ran; cycles_by_kind: the cores'
    cycles summed by kind; host_copies: the copies of the inputs into HBM and of the output
    back (not in time_ns); fault: None or {"kind", "message", "core"}; diagnostics: the
    report's diagnostics (dicts: severity, kind, kernel, core, call, address, message);
    warnings: the warnings' messages; inputs, output: tensors as "float32[4,5]"; report_path,
    trace_path, html_path: the files written when configure() asked for them, else None;
    report: the JSON report as a dict; summary: npusim's summary text; kernel_output: what
    the kernel printed; stderr: npusim's standard error."""

    def __init__(self, op, library, report, stdout, stderr, exit_code, paths):
        self.op = op
        self.library = library
        self.report = report or {}
        self.exit_code = exit_code
        self.stderr = stderr
        rep = self.report
        opj = rep.get("op") or {}
        outcome = rep.get("outcome") or {}
        self.kernel = opj.get("kernel")
        self.multicore = bool(opj.get("multicore"))
        self.inputs = [i.get("tensor") for i in opj.get("inputs") or []]
        self.output = (rep.get("output") or {}).get("tensor")
        status = outcome.get("status")
        if rep.get("interrupted") or (outcome.get("fault") or {}).get("kind") == "interrupted":
            status = "interrupted"
        self.status = status
        self.time_ns = rep.get("duration_ns")
        self.cycles = rep.get("cycles")
        self.clock_ghz = (self.cycles / self.time_ns) if self.time_ns and self.cycles else None
        self.cores = [CoreRun(c) for c in rep.get("cores") or []]
        self.host_copies = rep.get("host_copies")
        self.diagnostics = list(rep.get("diagnostics") or [])
        self.warnings = [d.get("message") for d in self.diagnostics if d.get("severity") == "warning"]
        fault = outcome.get("fault")
        self.fault = None
        if fault:
            self.fault = {"kind": fault.get("kind"), "message": fault.get("message"),
                          "core": fault_core(fault, self.diagnostics)}
        self.report_path, self.trace_path, self.html_path = paths
        # The summary starts at "npusim run:"; anything before it the kernel printed.
        at = stdout.find("npusim run: ")
        self.kernel_output = stdout[:at] if at >= 0 else stdout
        self.summary = stdout[at:] if at >= 0 else ""

    @property
    def cycles_by_kind(self):
        total = {}
        for c in self.cores:
            for k, v in c.by_kind.items():
                total[k] = total.get(k, 0) + v
        return total

    def __repr__(self):
        t = f"{self.time_ns / 1e3:.3f} us" if self.time_ns is not None else "no time"
        return (f"<npusim run of {self.op}: {self.status}, {t} = {self.cycles} cycles on "
                f"{len(self.cores)} core(s)>")


def fault_core(fault, diagnostics):
    """The core of a fault: the core of the error diagnostic that carries its message (else
    the first error's)."""
    errors = [d for d in diagnostics if d.get("severity") == "error"]
    for d in errors:
        if d.get("message") == fault.get("message"):
            return d.get("core")
    return errors[0].get("core") if errors else None


def last_run():
    """The RunInfo of the last op call this thread made (None before the first)."""
    return getattr(_local, "run", None)


def set_last_run(run):
    _local.run = run
    with _recorders_lock:
        for r in _recorders:
            r.append(run)


@contextlib.contextmanager
def record():
    """``with npusim.record() as runs:`` collects the RunInfo of every op call made inside the
    block (any thread), in the order they finished: sum(r.time_ns for r in runs) is the
    simulated time of the custom ops of, e.g., one model inference."""
    runs = []
    with _recorders_lock:
        _recorders.append(runs)
    try:
        yield runs
    finally:
        with _recorders_lock:
            # By identity: two recorders with equal lists are still two.
            _recorders[:] = [r for r in _recorders if r is not runs]
