"""One op call on the simulated device: the tensors go into a temporary folder as raw files, a
scenario names the op and the files, `npusim run --plugin LIB SCENARIO --report ...` runs it
(one process per call, a fresh device each time), and the output comes back as a tensor with
the shape function's shape and dtype (docs/python.md)."""

import itertools
import json
import math
import os
import shutil
import sys
import threading

import torch

from . import _process
from ._config import settings, lock as settings_lock, executable, make_folder
from ._errors import DeviceFault, InputError, NpusimError, SimulatorError, TensorArgumentError
from ._results import RunInfo, set_last_run

# torch dtype <-> npusim dtype name (the device's dtypes: Custom Operators API Reference).
DTYPES = {
    torch.float32: "float32",
    torch.bfloat16: "bfloat16",
    torch.float16: "float16",
    torch.int32: "int32",
    torch.int16: "int16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.int64: "int64",
}
_BY_NAME = {v: k for k, v in DTYPES.items()}

_counter = itertools.count(1)
_counter_lock = threading.Lock()


def _next_number():
    with _counter_lock:
        return next(_counter)


def tensor_bytes(t):
    """The tensor's elements in row-major order, little-endian, as the device holds them."""
    flat = t.reshape(-1)
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).numpy().tobytes()


def _prepare(op, index, value):
    if not isinstance(value, torch.Tensor):
        raise TensorArgumentError(f"op {op.qualified}: argument {index} is a {type(value).__name__}, not a tensor")
    if value.device.type != "cpu":
        raise TensorArgumentError(
            f"op {op.qualified}: argument {index} is on the device '{value.device}'; npusim takes CPU "
            "tensors (under `python3 -m npusim run` the XLA device is the CPU: docs/python.md)")
    if value.dtype not in DTYPES:
        raise TensorArgumentError(
            f"op {op.qualified}: argument {index} has the dtype {value.dtype}, which the device does not "
            f"have (it has {', '.join(str(d) for d in DTYPES)})")
    if value.is_sparse or value.layout != torch.strided:
        raise TensorArgumentError(f"op {op.qualified}: argument {index} is not a dense (strided) tensor")
    # A view with other strides is copied into row-major order: the kernel sees the elements
    # as on the device, where every tensor is dense.
    return value.detach().contiguous()


def _yaml_number(x):
    if isinstance(x, bool):
        return "1" if x else "0"
    x = float(x)
    if math.isnan(x):
        return ".nan"
    if math.isinf(x):
        return ".inf" if x > 0 else "-.inf"
    return repr(x)


def _expand(pattern, op, n):
    if pattern is None:
        return None
    try:
        return pattern.format_map({"op": op.qualified, "n": n})
    except (KeyError, IndexError, ValueError) as e:
        raise ValueError(f"configure(): the path pattern '{pattern}' has a placeholder other than "
                         f"{{op}} and {{n}} ({e})") from None


def parse_tensor_text(text):
    """'float32[3,5]' -> (torch.float32, [3, 5])."""
    name, _, rest = text.partition("[")
    dims = rest.rstrip("]")
    return _BY_NAME.get(name), [int(d) for d in dims.split(",")] if dims else []


def call(op, args):
    if len(args) != len(op.params):
        raise TypeError(f"op {op.qualified} takes {len(op.params)} arguments ({op.schema}), got {len(args)}")
    tensors, scalars = [], []
    for i, ((_, kind), a) in enumerate(zip(op.params, args)):
        if kind == "tensor":
            tensors.append(_prepare(op, i, a))
        else:
            scalars.append(a)
    with settings_lock:
        s = (settings.report, settings.trace, settings.html, settings.platform, dict(settings.overrides),
             settings.kernel_output, settings.tmpdir)
    report_pat, trace_pat, html_pat, platform, overrides, kernel_output, tmpdir = s
    n = _next_number()
    paths = (_expand(report_pat, op, n), _expand(trace_pat, op, n), _expand(html_pat, op, n))
    sets = dict(op.overrides)
    sets.update(overrides)
    folder = make_folder("npusim-call-", tmpdir)
    try:
        return _run(op, tensors, scalars, folder, paths, platform or op.platform, sets, kernel_output)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(op, tensors, scalars, folder, paths, platform, sets, kernel_output):
    scenario = os.path.join(folder, "call.yaml")
    out_file = os.path.join(folder, "output.bin")
    report = paths[0] or os.path.join(folder, "report.json")
    lines = [f"name: {json.dumps(op.qualified)}", "torch_op:", f"  op: {json.dumps(op.name)}", "  inputs:"]
    where = {}  # scenario line -> what it describes, for npusim's messages
    for i, t in enumerate(tensors):
        f = os.path.join(folder, f"input{i}.bin")
        with open(f, "wb") as fh:
            fh.write(tensor_bytes(t))
        shape = ", ".join(str(d) for d in t.shape)
        lines.append(f"    - {{shape: [{shape}], dtype: {DTYPES[t.dtype]}, file: {json.dumps(f)}}}")
        where[len(lines)] = f"tensor input {i} ({DTYPES[t.dtype]}[{shape}])"
    if scalars:
        lines.append(f"  scalars: [{', '.join(_yaml_number(x) for x in scalars)}]")
        where[len(lines)] = "scalar arguments"
    lines.append(f"  output: {json.dumps(out_file)}")
    with open(scenario, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    # The call names the op's library (torch.ops.<library>.<op>), so an op of a loaded library
    # that has a built-in op's name (the tutorial's) is the one meant: npusim runs it and warns
    # on stderr (RunInfo.stderr).
    argv = [executable(), "run", scenario, "--plugin", op.path, "--allow-shadowing", "--report", report,
            "--platform", platform]
    for k, v in sets.items():
        v = ("true" if v else "false") if isinstance(v, bool) else v
        argv += ["--set", f"{k}={v}"]
    if paths[1]:
        argv += ["--trace", paths[1]]
    if paths[2]:
        argv += ["--html", paths[2]]
    before = [_identity(p) for p in (report,) + paths[1:]]
    done = _process.run(argv, folder)
    rc = done.returncode
    # Only files this run wrote count (a path may hold an older call's file).
    fresh = [p if p and _identity(p) not in (None, b) else None for p, b in zip((report,) + paths[1:], before)]
    report = fresh[0]
    if rc == 2:
        msgs = [_relocate(m, scenario, op, where) for m in _process.error_lines(done.stderr)]
        raise InputError("\n".join(msgs) or done.stderr.strip(), rc, done.stderr)
    rep = None
    if report:
        try:
            with open(report, encoding="utf-8") as fh:
                rep = json.load(fh)
        except ValueError:  # cut short: npusim was ended at once (a second Ctrl-C)
            rep = None
    if rc < 0 or rep is None:
        tail = "\n".join(done.stderr.strip().splitlines()[-20:])
        how = (f"ended by {_process.signal_name(rc)} (the kernel or npusim crashed)" if rc < 0
               else f"exited with status {rc}")
        if done.interrupted:
            raise KeyboardInterrupt(f"op {op.qualified} interrupted before npusim had a run to stop: no report")
        raise SimulatorError(f"op {op.qualified}: npusim {how} and wrote no report; the Python process goes on"
                             + (f"\n{tail}" if tail else ""), rc, done.stderr)
    run = RunInfo(op.qualified, op.path, rep, done.stdout, done.stderr, rc,
                  (report if paths[0] else None, fresh[1], fresh[2]))
    set_last_run(run)
    if kernel_output and run.kernel_output:
        sys.stdout.write(run.kernel_output)
        sys.stdout.flush()
    if done.interrupted or run.status == "interrupted":
        raise KeyboardInterrupt(f"op {op.qualified} interrupted (npusim stopped the run; its outputs are "
                                "complete: npusim.last_run())")
    if rc == 1 and run.fault:
        f = run.fault
        core = "" if f["core"] is None else f" on core {f['core']}"
        written = [p for p in (run.report_path, run.trace_path, run.html_path) if p]
        msg = f"op {op.qualified} (kernel {run.kernel}){core}: {f['kind']}: {f['message']}"
        if written:
            msg += f" (written: {', '.join(written)})"
        raise DeviceFault(msg, op.qualified, f["core"], f["kind"], f["message"], run, rc, done.stderr)
    if rc != 0:
        msgs = _process.error_lines(done.stderr)
        raise SimulatorError(f"op {op.qualified}: npusim exited with status {rc}: "
                             + ("\n".join(msgs) or done.stderr.strip()), rc, done.stderr)
    return _output(op, rep, out_file)


def _identity(path):
    """What tells one version of a file from another: None if there is none."""
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _relocate(msg, scenario, op, where):
    """npusim names the generated scenario's file, line and column; say which argument."""
    if not msg.startswith(scenario + ":"):
        return msg.replace(scenario, f"op {op.qualified}")
    rest = msg[len(scenario) + 1:]
    parts = rest.split(":", 2)
    if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
        what = where.get(int(parts[0]))
        return f"op {op.qualified}{', ' + what if what else ''}:{parts[2]}"
    return f"op {op.qualified}: {rest.lstrip()}"


def _output(op, rep, out_file):
    out = rep.get("output")
    if not out or not os.path.isfile(out_file):
        raise NpusimError(f"op {op.qualified}: the kernel returned no tensor")
    got_dtype, got_shape = parse_tensor_text(out["tensor"])
    want = (rep.get("op") or {}).get("shape_function")
    want_dtype, want_shape = parse_tensor_text(want) if want else (got_dtype, got_shape)
    if got_dtype is None:
        raise NpusimError(f"op {op.qualified}: the kernel returned a {out['tensor']} tensor, a dtype torch has not")
    if got_dtype != want_dtype or math.prod(got_shape) != math.prod(want_shape):
        raise NpusimError(f"op {op.qualified}: the kernel returned {out['tensor']}, but the shape function "
                          f"says {want}: the output must have the shape function's dtype and number of elements")
    with open(out_file, "rb") as fh:
        data = fh.read()
    itemsize = torch.empty((), dtype=got_dtype).element_size()
    if len(data) != math.prod(got_shape) * itemsize:
        raise NpusimError(f"op {op.qualified}: the output file holds {len(data)} bytes; {out['tensor']} needs "
                          f"{math.prod(got_shape) * itemsize}")
    if not data:
        return torch.empty(want_shape, dtype=got_dtype)
    return torch.frombuffer(bytearray(data), dtype=got_dtype).reshape(want_shape)
