// Sizes of a torch_op's input tensors checked against the platform before any host memory is
// allocated for them: a shape of [2^30] is an error at load naming the input, not
// gigabytes of host memory and a fault "on core -1" a minute later.
#pragma once

#include "firmware/neuron_platform.h"
#include "sim/input/scenario.h"

namespace npusim::sim {

// Throws InputError at the first input whose shape overflows, whose bytes together with the
// inputs before it exceed the HBM tensor arena (gpsimd.tensor_arena_bytes), or exceed
// limits().host_bytes. An unknown dtype is left to the runner.
void check_torch_inputs(const TorchOpSpec& t, const fw::NeuronPlatformConfig& cfg);

}  // namespace npusim::sim
