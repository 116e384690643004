"""The device flow's ``torch_neuronx.xla_impl.custom_op`` on npusim: ``load`` builds a library
of custom C++ operators exactly as ``npusim op build`` does and registers its ops as
torch.ops.<library>.<op>; ``load_library`` registers a library built before. A script written
for the device changes ``from torch_neuronx.xla_impl import custom_op`` into ``from npusim
import custom_op`` (docs/python.md)."""

import atexit
import os
import re
import shutil
import sys

from . import _process
from ._config import executable, make_folder
from ._errors import BuildError, InputError, NpusimError
from ._library import DEFAULT_PLATFORM, load_library

__all__ = ["load", "load_library"]

_temp_build_dirs = []


def _remove_temp_build_dirs():
    for d in _temp_build_dirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_remove_temp_build_dirs)


def _paths(value, what):
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    try:
        # (absolute: the m.def calls' file names, as compiled, lead back to the shape functions'
        # parameter names)
        out = [os.path.abspath(os.fspath(v)) for v in value]
    except TypeError:
        raise TypeError(f"custom_op.load({what}=...): a list of source files") from None
    if not out:
        raise InputError(f"custom_op.load({what}=...): no source file given")
    return out


def _flags(extra_cflags):
    """extra_cflags as a list of strings: a single string would be split into its characters."""
    if extra_cflags is None:
        return []
    bad = isinstance(extra_cflags, (str, bytes, os.PathLike))
    if not bad:
        try:
            flags = list(extra_cflags)
        except TypeError:
            bad = True
    if bad or not all(isinstance(f, str) for f in flags):
        raise TypeError("custom_op.load(extra_cflags=...): a list of strings, one flag each "
                        f"(e.g. [\"-DSTACK_SIZE=20000\"]), not {extra_cflags!r}")
    return flags


_COMPILER_ERROR = re.compile(r"(^|:\s)(fatal )?error:")


def first_compiler_error(text):
    """The compiler's first error line (gcc and clang: 'file:line:col: error: ...')."""
    for line in text.splitlines():
        if line.startswith("npusim: "):
            continue
        if _COMPILER_ERROR.search(line):
            return line.strip()
    return None


def load(name, compute_srcs, shape_srcs, build_directory=None, multicore=False, verbose=False,
         extra_cflags=None, *, platform=DEFAULT_PLATFORM, overrides=None, cxx=None):
    """Builds lib<name>.so from the kernel sources (compute_srcs) and the shape sources with
    their NEURON_LIBRARY block (shape_srcs), as ``npusim op build --name NAME --compute ...
    --shape ... [--multicore] [--extra-cflags=...] -o BUILD_DIRECTORY/libNAME.so`` does (same
    checks, same errors), and registers its ops as torch.ops.<library>.<op>. Returns the
    library's path.

    build_directory: where lib<name>.so goes (default: a temporary folder removed when Python
        exits); it must exist.
    multicore: every op of the library runs on all GPSIMD cores (get_dst_tensor()).
    verbose: print the compiler command and npusim's build output.
    extra_cflags: compiler flags, e.g. ["-DSTACK_SIZE=20000"].
    platform, overrides, cxx (npusim's own): the platform profile and {"section.key": value}
        overrides the ops run on, and the C++ compiler (default: npusim op build's)."""
    if not isinstance(name, str):
        raise TypeError("custom_op.load(name=...): a string, the library's name")
    compute = _paths(compute_srcs, "compute_srcs")
    shape = _paths(shape_srcs, "shape_srcs")
    flags = _flags(extra_cflags)
    if build_directory is None:
        build_directory = make_folder("npusim-build-")
        _temp_build_dirs.append(build_directory)
    out = os.path.join(os.path.abspath(os.fspath(build_directory)), f"lib{name}.so")
    argv = [executable(), "op", "build", "--name", name, "--compute", *compute, "--shape", *shape, "-o", out]
    if multicore:
        argv.append("--multicore")
    for flag in flags:
        argv.append(f"--extra-cflags={flag}")
    if cxx:
        argv += ["--cxx", os.fspath(cxx)]
    if verbose:
        argv.append("-v")
    folder = make_folder("npusim-build-log-")
    try:
        done = _process.run(argv, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if verbose:
        sys.stderr.write(done.stderr)
        sys.stdout.write(done.stdout)
    if done.interrupted:
        raise KeyboardInterrupt("custom_op.load: the build was interrupted")
    if done.returncode != 0:
        msgs = _process.error_lines(done.stderr)
        msg = "\n".join(msgs) or done.stderr.strip()
        if done.returncode < 0:
            raise NpusimError(f"npusim op build ended by {_process.signal_name(done.returncode)}: {msg}",
                              done.returncode, done.stderr)
        if done.returncode == 2:
            raise InputError(msg, done.returncode, done.stderr)
        first = first_compiler_error(done.stderr)
        if first:
            msg += f"\nfirst compiler error: {first}"
        raise BuildError(msg, done.returncode, done.stderr, compiler_error=first, compiler_output=done.stderr)
    load_library(out, platform=platform, overrides=overrides)
    return out
