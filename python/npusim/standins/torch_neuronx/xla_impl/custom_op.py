"""npusim's stand-in for torch_neuronx.xla_impl.custom_op: npusim.custom_op's load and
load_library."""
from npusim.custom_op import load, load_library  # noqa: F401
