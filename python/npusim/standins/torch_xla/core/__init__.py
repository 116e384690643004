"""npusim's stand-in for torch_xla.core: xla_model only."""
