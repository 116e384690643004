"""npusim's stand-in for torch_xla.core.xla_model: the calls a single-device script makes,
each with its meaning on npusim, where the XLA device is the CPU and every custom op runs at
once on the simulated device (there is no graph to collect). Any other name raises
AttributeError naming it (docs/python.md, "Device scripts")."""

import torch

from npusim._xla import install as _install

_install()


def xla_device(n=None, devkind=None):
    """The device tensors and models move to: the CPU."""
    return torch.device("cpu")


def get_xla_supported_devices(devkind=None, max_devices=None):
    return ["cpu"]


def mark_step(wait=False):
    """No-op: on the device it compiles and runs the graph collected so far; under npusim every
    op has already run when it returns."""


def wait_device_ops(devices=None):
    """No-op: nothing runs asynchronously."""


def optimizer_step(optimizer, barrier=False, optimizer_args=None, groups=None, pin_layout=True):
    """optimizer.step(**optimizer_args): one device, nothing to reduce."""
    return optimizer.step(**(optimizer_args or {}))


def save(data, file_or_path, master_only=True, global_master=False):
    """torch.save: the tensors are already on the CPU."""
    torch.save(data, file_or_path)


def xrt_world_size(defval=1):
    return 1


def get_ordinal(defval=0):
    return 0


def get_local_ordinal(defval=0):
    return 0


def is_master_ordinal(local=True):
    return True


def master_print(*args, fd=None, **kwargs):
    print(*args, **kwargs)


def rendezvous(tag, payload=b"", replicas=None):
    """One process: nothing to wait for."""
    return [payload]


def __getattr__(name):
    raise AttributeError(f"torch_xla.core.xla_model.{name} is not in npusim's stand-in (docs/python.md "
                         "lists what is)")
