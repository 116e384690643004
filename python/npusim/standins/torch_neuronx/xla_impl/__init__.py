"""npusim's stand-in for torch_neuronx.xla_impl: only custom_op (npusim.custom_op)."""
