"""npusim's stand-in for torch_xla (`python3 -m npusim run SCRIPT`): the XLA device is the CPU.
Importing it makes Tensor.to and Module.to treat the device 'xla' (or 'xla:N') as 'cpu', so a
script that moves its model and tensors to the XLA device runs unchanged; the custom ops then
run on npusim, everything else on the CPU (docs/python.md, "Device scripts")."""

from npusim import _xla

_xla.install()


def __getattr__(name):
    raise AttributeError(f"torch_xla.{name} does not exist under npusim: its stand-in offers "
                         "torch_xla.core.xla_model (docs/python.md)")
