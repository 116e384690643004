"""The XLA device as the CPU, for device scripts run under `python3 -m npusim run` (the torch_xla
stand-in installs it): Tensor.to and Module.to map the device 'xla' / 'xla:N' to 'cpu'. Torch
without torch_xla cannot make tensors on an XLA device at all, so nothing else changes
behaviour."""

import threading

import torch

_installed = False
_lock = threading.Lock()


def _is_xla(d):
    if isinstance(d, str):
        return d == "xla" or d.startswith("xla:")
    return isinstance(d, torch.device) and d.type == "xla"


def _map(args, kwargs):
    args = tuple("cpu" if _is_xla(a) else a for a in args)
    if "device" in kwargs and _is_xla(kwargs["device"]):
        kwargs = dict(kwargs, device="cpu")
    return args, kwargs


def install():
    global _installed
    with _lock:
        if _installed:
            return
        tensor_to = torch.Tensor.to
        module_to = torch.nn.Module.to

        def to(self, *args, **kwargs):
            args, kwargs = _map(args, kwargs)
            return tensor_to(self, *args, **kwargs)

        def module_to_cpu(self, *args, **kwargs):
            args, kwargs = _map(args, kwargs)
            return module_to(self, *args, **kwargs)

        to.__doc__ = tensor_to.__doc__
        module_to_cpu.__doc__ = module_to.__doc__
        torch.Tensor.to = to
        torch.nn.Module.to = module_to_cpu
        _installed = True
