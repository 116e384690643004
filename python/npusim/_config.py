"""Settings of the package (npusim.configure) and the npusim program it runs."""

import os
import shutil
import threading

from ._errors import NpusimError

_UNSET = object()


class _Settings:
    def __init__(self):
        self.executable = None  # None: NPUSIM_EXECUTABLE, the build or install it came with, PATH
        self.report = None      # path patterns of the outputs of every op call ({op}, {n})
        self.trace = None
        self.html = None
        self.platform = None    # overrides the libraries' platform
        self.overrides = {}     # section.key -> value, on top of the libraries' own
        self.kernel_output = True  # print what kernels print (printf) on sys.stdout
        self.tmpdir = None      # where the per-call folders go (None: the system's temp dir)


settings = _Settings()
lock = threading.Lock()


def configure(*, report=_UNSET, trace=_UNSET, html=_UNSET, platform=_UNSET, overrides=_UNSET,
              executable=_UNSET, kernel_output=_UNSET, tmpdir=_UNSET):
    """Sets what every following op call does (docs/python.md, "Reports, traces, HTML").

    report, trace, html: a path for the JSON report, the Chrome trace and the HTML page of each
        call, or None (the default: none kept). ``{op}`` in the path becomes the op's name
        (``my_ops.relu_forward``) and ``{n}`` the call's number in this process (1, 2, ...),
        so that several calls keep their files; without them each call overwrites the last.
    platform: a platform profile (a built-in name or a YAML file) for every call, instead of
        the one the library was loaded with.
    overrides: {"section.key": value} applied to every call after the library's own
        (``npusim run --set``).
    executable: the npusim program to run.
    kernel_output: print what kernels print (printf) on sys.stdout after each call (default
        True); it is in ``last_run().kernel_output`` either way.
    tmpdir: an existing, writable folder where each call's temporary folder is made (default:
        the system's temp dir); another value is an InputError.

    Arguments not given keep their value."""
    with lock:
        if report is not _UNSET:
            settings.report = _path_or_none(report, "report")
        if trace is not _UNSET:
            settings.trace = _path_or_none(trace, "trace")
        if html is not _UNSET:
            settings.html = _path_or_none(html, "html")
        if platform is not _UNSET:
            settings.platform = None if platform is None else str(platform)
        if overrides is not _UNSET:
            settings.overrides = check_overrides(overrides, "configure(overrides=...)")
        if executable is not _UNSET:
            settings.executable = None if executable is None else os.fspath(executable)
        if kernel_output is not _UNSET:
            settings.kernel_output = bool(kernel_output)
        if tmpdir is not _UNSET:
            settings.tmpdir = None if tmpdir is None else _folder(tmpdir, "tmpdir")


def _path_or_none(value, name):
    if value is None:
        return None
    try:
        return os.fspath(value)
    except TypeError:
        raise TypeError(f"configure({name}=...): a path or None, not {type(value).__name__}") from None


def _folder(value, name):
    """A folder npusim makes its per-call folders in: it must exist and be writable."""
    path = _path_or_none(value, name)
    from ._errors import InputError
    if not os.path.exists(path):
        raise InputError(f"configure({name}=...): the folder {path} does not exist")
    if not os.path.isdir(path):
        raise InputError(f"configure({name}=...): {path} is not a folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"configure({name}=...): the folder {path} is not writable")
    return path


def make_folder(prefix, tmpdir=_UNSET):
    """A fresh folder for one call in `tmpdir` (default: configure(tmpdir=...), else the
    system's temp dir); an InputError naming the folder when it cannot be made."""
    import tempfile
    from ._errors import InputError
    if tmpdir is _UNSET:
        tmpdir = settings.tmpdir
    try:
        return tempfile.mkdtemp(prefix=prefix, dir=tmpdir)
    except OSError as e:
        where = (f"configure(tmpdir=...): the folder {tmpdir}" if tmpdir
                 else f"the temporary folder {tempfile.gettempdir()}")
        raise InputError(f"{where}: cannot make a folder in it: {e.strerror or e}") from None


def check_overrides(overrides, where):
    if overrides is None:
        return {}
    if not isinstance(overrides, dict):
        raise TypeError(f"{where}: a dict of 'section.key': value, not {type(overrides).__name__}")
    out = {}
    for k, v in overrides.items():
        if not isinstance(k, str) or "." not in k or "=" in k:
            raise ValueError(f"{where}: '{k}' is not a 'section.key' name (e.g. 'gpsimd.cores')")
        out[k] = v
    return out


def _located():
    """The npusim program and torch include folder this copy of the package was made with
    (_location.py, written by CMake into the build tree and the install), or (None, None)."""
    try:
        from . import _location
    except ImportError:
        return None, None
    return getattr(_location, "EXECUTABLE", None), getattr(_location, "TORCH_INCLUDE", None)


def executable():
    """The npusim program: configure(executable=), $NPUSIM_EXECUTABLE, the one of the build or
    install this package belongs to, or `npusim` on PATH."""
    exe = settings.executable or os.environ.get("NPUSIM_EXECUTABLE") or _located()[0]
    if exe:
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            raise NpusimError(f"the npusim program {exe} does not exist or cannot be run "
                              "(build it: cmake --build build --target npusim)")
        return exe
    found = shutil.which("npusim")
    if found:
        return found
    raise NpusimError("cannot find the npusim program: use the package of a build tree "
                      "(PYTHONPATH=build/python) or an install (cmake --install build), or set "
                      "NPUSIM_EXECUTABLE or npusim.configure(executable=...)")


def child_env():
    """The environment of npusim child processes: an installed package tells `npusim op build`
    where the installed torch API headers are."""
    env = dict(os.environ)
    include = _located()[1]
    if include and "NPUSIM_TORCH_INCLUDE" not in env:
        env["NPUSIM_TORCH_INCLUDE"] = include
    return env
