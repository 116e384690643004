"""Libraries of custom C++ operators as torch ops: npusim.load_library registers each op of a
library's NEURON_LIBRARY(<library>, m) block as torch.ops.<library>.<op>, whose CPU tensors
go to the simulated device (_call.py)."""

import json
import keyword
import os
import re
import shutil
import threading

import torch

from . import _process
from ._config import check_overrides, executable, make_folder, settings
from ._errors import InputError, NpusimError

# C++ parameter types of a schema (npusim op list) -> torch schema types.
_TORCH_TYPES = {
    "torch::Tensor": "Tensor",
    "c10::Scalar": "Scalar",
    "double": "float",
    "float": "float",
    "int64_t": "int",
    "int": "int",
    "bool": "bool",
}

DEFAULT_PLATFORM = "neuron-gpsimd"


def _param_names(defined_at, op, n):
    """The parameter names of the op's shape function, read from the file of its m.def call
    (`defined_at`, FILE:LINE as compiled): the function named there, its first definition or
    declaration with n parameters. None when any cannot be read (no file, an unnamed or
    repeated parameter, a Python keyword): the schema then names them arg0, arg1, ..."""
    path, _, line = (defined_at or "").rpartition(":")
    if not path or not line.isdigit():
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    lines = text.split("\n")
    at = int(line) - 1
    near = "\n".join(lines[max(0, at - 3):at + 4])
    m = re.search(r'\.def\(\s*"%s"\s*,\s*&?\s*([\w:]+)' % re.escape(op), near)
    if not m:
        return None
    fn = m.group(1).split("::")[-1]
    for d in re.finditer(r"\b%s\s*\(([^()]*)\)" % re.escape(fn), text):
        body = d.group(1).strip()
        params = [p.split("=")[0].strip() for p in body.split(",")] if body and body != "void" else []
        if len(params) != n:
            continue
        names = []
        for p in params:
            pm = re.search(r"([A-Za-z_]\w*)\s*$", p)
            before = p[:pm.start()].rstrip() if pm else ""
            if not pm or not before or before.endswith("::") or before == "const":
                return None  # an unnamed parameter (its type alone)
            names.append(pm.group(1))
        if len(set(names)) != n or any(keyword.iskeyword(x) for x in names):
            return None
        return names
    return None


class Op:
    """An op of a loaded library: ``library`` (the NEURON_LIBRARY name), ``name``, ``kernel``
    and ``kernel_signature`` (the kernel function found for it), ``params`` ([(C++ type,
    "tensor" | "scalar")]), ``schema`` (its torch schema), ``multicore`` (the library was
    built with multicore=True), ``stack_size`` (-DSTACK_SIZE, or None), ``path`` (the library
    file), ``platform`` and ``overrides`` (what its calls run on)."""

    def __init__(self, j, path, platform, overrides):
        self.library = j["library"]
        self.name = j["name"]
        self.kernel = j["kernel"]
        self.kernel_signature = j.get("kernel_signature", self.kernel)
        self.params = [(p["type"], p["kind"]) for p in j["params"]]
        self.multicore = bool(j.get("multicore"))
        self.stack_size = j.get("stack_size")
        self.path = path
        self.platform = platform
        self.overrides = overrides
        # Keyword arguments take the shape function's parameter names.
        self.param_names = (_param_names(j.get("defined_at"), self.name, len(self.params))
                            or [f"arg{i}" for i in range(len(self.params))])
        args = []
        for i, (cpp, _) in enumerate(self.params):
            if cpp not in _TORCH_TYPES:
                raise NpusimError(f"{path}: op {self.qualified}: parameter {i} has the type {cpp}, "
                                  "which has no torch schema type")
            args.append(f"{_TORCH_TYPES[cpp]} {self.param_names[i]}")
        self.schema = f"{self.name}({', '.join(args)}) -> Tensor"

    @property
    def qualified(self):
        return f"{self.library}.{self.name}"

    def __repr__(self):
        return f"<torch.ops.{self.qualified}: {self.schema}, kernel {self.kernel_signature}, {self.path}>"


_ops = {}              # "library.op" -> Op (the latest load of it)
_torch_libraries = {}  # library -> torch.library.Library (kept: dropping it unregisters the ops)
_lock = threading.Lock()


def registered_ops():
    """Every op registered by load_library / custom_op.load in this process, as Op objects."""
    with _lock:
        return list(_ops.values())


def find(qualified):
    with _lock:
        return _ops[qualified]


def list_library(path):
    """The ops of a library file, as `npusim op list --json --plugin PATH` gives them."""
    folder = make_folder("npusim-list-")
    try:
        done = _process.run([executable(), "op", "list", "--json", "--plugin", path], folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.interrupted:
        raise KeyboardInterrupt
    if done.returncode != 0:
        msgs = _process.error_lines(done.stderr)
        msg = "\n".join(msgs) if msgs else done.stderr.strip() or f"npusim op list exited with {done.returncode}"
        if done.returncode < 0:
            msg = f"npusim op list ended by {_process.signal_name(done.returncode)}: {msg}"
        cls = InputError if done.returncode == 2 else NpusimError
        raise cls(msg, done.returncode, done.stderr)
    return json.loads(done.stdout)["ops"]


def load_library(path, *, platform=DEFAULT_PLATFORM, overrides=None):
    """Registers every op of a library built by `npusim op build` (or custom_op.load) as
    torch.ops.<library>.<op>, as the device flow's custom_op.load_library / 
    torch.ops.load_library do; returns the names ("library.op") registered.

    platform: the platform profile its calls run on (a built-in name or a YAML file).
    overrides: {"section.key": value} for its calls (``npusim run --set``).

    Loading a library again (rebuilt, or another file with the same ops) makes its ops run
    the new file; an op whose schema changed cannot be registered again in the same process
    (torch keeps an op's schema for the life of the process)."""
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        raise InputError(f"load_library: {path} is a folder, not a library file (lib<name>.so from "
                         "npusim op build)")
    overrides = check_overrides(overrides, "load_library(overrides=...)")
    listed = list_library(path)
    ops = [Op(j, path, platform, overrides) for j in listed]
    with _lock:
        for op in ops:
            old = _ops.get(op.qualified)
            if old is not None and old.schema != op.schema:
                raise NpusimError(f"{path}: op {op.qualified} has the schema {op.schema}, but torch.ops."
                                  f"{op.qualified} was registered with {old.schema} from {old.path}: "
                                  "torch cannot change an op's schema within a process")
        for op in ops:
            _register(op)
    return [op.qualified for op in ops]


def _register(op):
    if op.qualified in _ops:
        _ops[op.qualified] = op  # the torch op looks its Op up at every call
        return
    lib = _torch_libraries.get(op.library)
    if lib is None:
        try:
            lib = torch.library.Library(op.library, "DEF")
        except (RuntimeError, ValueError) as e:
            raise NpusimError(f"{op.path}: cannot register the library '{op.library}' as torch.ops."
                              f"{op.library}: {e}") from None
        _torch_libraries[op.library] = lib
    lib.define(op.schema)
    # CompositeImplicitAutograd: the call reaches npusim whatever the tensors' device and
    # autograd state, so that npusim, not the dispatcher, tells what it cannot take.
    lib.impl(op.name, _make_impl(op.qualified), "CompositeImplicitAutograd")
    _ops[op.qualified] = op


def _make_impl(qualified):
    def impl(*args, **kwargs):
        from ._call import call
        op = find(qualified)
        if kwargs:  # (by the schema's names: the dispatcher passes them positionally as a rule)
            args = tuple(args) + tuple(kwargs[n] for n in op.param_names[len(args):] if n in kwargs)
        return call(op, args)
    impl.__name__ = qualified.replace(".", "_")
    return impl
