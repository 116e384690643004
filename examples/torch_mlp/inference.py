# MLP inference with a custom ReLU operator, in the style of the Neuron custom C++ operator
# tutorial: the op library is built from relu.cpp and shape.cpp, the op is wrapped in a
# torch.autograd.Function used inside an nn.Module, and the model runs a few batches on the
# XLA device, checked against the same model with torch.relu on the CPU.
#
# On npusim (docs/python.md), from the repository's root after a build:
#   PYTHONPATH=build/python /usr/bin/python3 -m npusim run examples/torch_mlp/inference.py
# Two lines differ from the script for the device; each says what it is there.
import os
import sys

import torch
import torch.nn as nn
import torch_neuronx
from npusim import custom_op  # device: from torch_neuronx.xla_impl import custom_op
import torch_xla.core.xla_model as xm

HERE = os.path.dirname(os.path.abspath(__file__))
BATCHES = 3
BATCH_SIZE = 8

# Build librelu.so into the working directory (custom_op.load also loads it), then load it
# as a script that runs a library built before would.
custom_op.load(name='relu', compute_srcs=[os.path.join(HERE, 'relu.cpp')],
               shape_srcs=[os.path.join(HERE, 'shape.cpp')], build_directory=os.getcwd())
custom_op.load_library(os.path.join(os.getcwd(), 'librelu.so'))  # device: torch.ops.load_library(os.path.join(os.getcwd(), 'librelu.so'))


class Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.ops.my_ops.relu_forward(x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return torch.ops.my_ops.relu_backward(grad, x)


class MLP(nn.Module):
    def __init__(self, relu, input_size=28 * 28, layers=(128, 64), output_size=10):
        super().__init__()
        self.relu = relu
        self.fc1 = nn.Linear(input_size, layers[0])
        self.fc2 = nn.Linear(layers[0], layers[1])
        self.fc3 = nn.Linear(layers[1], output_size)

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=1)


def main():
    torch.manual_seed(0)
    device = 'xla'
    model = MLP(Relu.apply)
    reference = MLP(torch.relu)  # the same weights, torch's own ReLU, on the CPU
    reference.load_state_dict(model.state_dict())
    model = model.to(device)
    model.eval()
    reference.eval()
    equal = True
    with torch.no_grad():
        for step in range(BATCHES):
            batch = torch.rand(BATCH_SIZE, 28 * 28)
            output = model(batch.to(device))
            xm.mark_step()
            same = torch.equal(output.to('cpu'), reference(batch))
            equal = equal and same
            print(f'batch {step}: output {tuple(output.shape)}, equal to the model with torch.relu: {same}')
    return 0 if equal else 1


if __name__ == '__main__':
    sys.exit(main())
