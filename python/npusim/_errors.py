"""The exceptions of the npusim package (docs/python.md, "Errors")."""


class NpusimError(RuntimeError):
    """Base of every npusim error. ``message`` is npusim's message (what the command line
    prints after ``npusim: error:``), ``exit_code`` the exit status of the npusim process that
    reported it (None when the package found the problem itself), ``stderr`` that process's
    standard error."""

    def __init__(self, message, exit_code=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr


class InputError(NpusimError, ValueError):
    """Bad input, found before anything ran: a missing source or shape file, a bad library
    name, an unknown op, an output path that cannot be written, an impossible size (npusim's
    exit status 2)."""


class TensorArgumentError(InputError, TypeError):
    """A tensor argument the simulated device cannot take: a dtype it does not have, a tensor
    on another device."""


class BuildError(NpusimError):
    """``npusim op build`` failed: the compiler failed (``compiler_error`` is its first error,
    ``compiler_output`` all it printed), or the library does not load, or an op has no kernel
    or an ambiguous one."""

    def __init__(self, message, exit_code=None, stderr="", compiler_error=None, compiler_output=""):
        super().__init__(message, exit_code, stderr)
        self.compiler_error = compiler_error
        self.compiler_output = compiler_output


class DeviceFault(NpusimError):
    """The kernel faulted on the simulated device (an out-of-range access, a DMA window
    violation, TCM exhausted, a stack overflow, ...). ``op`` is the op, ``core`` the GPSIMD
    core that faulted (None if the fault belongs to no core), ``kind`` and ``fault`` the fault's
    kind and message as the report gives them, ``run`` the :class:`npusim.RunInfo` of the call
    (its report, trace and HTML page are written when they were asked for)."""

    def __init__(self, message, op, core, kind, fault, run, exit_code=1, stderr=""):
        super().__init__(message, exit_code, stderr)
        self.op = op
        self.core = core
        self.kind = kind
        self.fault = fault
        self.run = run


class SimulatorError(NpusimError):
    """npusim itself ended abnormally (an internal error, or killed by a signal). The Python
    process is not affected; the message holds the end of npusim's standard error."""
