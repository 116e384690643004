"""npusim from Python: Neuron custom C++ operators on npusim's simulated GPSIMD cores, called
as torch ops on CPU tensors (docs/python.md).

    from npusim import custom_op
    custom_op.load(name="relu", compute_srcs=["relu.cpp"], shape_srcs=["shape.cpp"])
    y = torch.ops.my_ops.relu_forward(x)        # runs the kernel on the simulated device
    npusim.last_run().time_ns                   # its simulated time

Each op call runs the npusim program as a child process on a fresh simulated device: a
kernel that faults raises npusim.DeviceFault, and nothing a kernel does can end the Python
process."""

import sys as _sys

try:
    import torch as _torch  # noqa: F401  (every part of npusim works on torch tensors)
except ModuleNotFoundError as _e:
    if _e.name != "torch":
        raise
    raise ModuleNotFoundError(
        f"npusim needs torch, and this Python ({_sys.executable}) has no module named 'torch': run "
        "it with /usr/bin/python3 (Debian's python3, which has torch from the python3-torch "
        "package), or install torch for this interpreter", name="torch") from None

from . import custom_op
from ._config import configure
from ._errors import (BuildError, DeviceFault, InputError, NpusimError, SimulatorError,
                      TensorArgumentError)
from ._library import load_library, registered_ops
from ._results import CoreRun, RunInfo, last_run, record

__all__ = [
    "custom_op", "load_library", "registered_ops", "configure", "last_run", "record", "RunInfo",
    "CoreRun", "NpusimError", "InputError", "TensorArgumentError", "BuildError", "DeviceFault",
    "SimulatorError",
]
