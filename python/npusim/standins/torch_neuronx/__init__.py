"""npusim's stand-in for torch_neuronx (`python3 -m npusim run SCRIPT`): importing it works, so a
script written for the device runs; torch_neuronx.xla_impl.custom_op is npusim.custom_op.
Nothing else of torch-neuronx exists here (docs/python.md, "Device scripts")."""


def __getattr__(name):
    raise AttributeError(f"torch_neuronx.{name} does not exist under npusim: its stand-in offers only "
                         "torch_neuronx.xla_impl.custom_op (docs/python.md)")
