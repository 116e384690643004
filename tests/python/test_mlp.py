"""A small MLP in the tutorial's style, whose ReLU is the custom op (examples/torch_mlp/relu.cpp
in a torch.autograd.Function): its inferences equal the same MLP with torch.relu bit for bit,
and so do its gradients through relu_backward."""

import unittest

import torch
import torch.nn as nn

import npusim
import support


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
    def __init__(self, relu):
        super().__init__()
        self.relu = relu
        self.fc1 = nn.Linear(100, 48)
        self.fc2 = nn.Linear(48, 20)
        self.fc3 = nn.Linear(20, 10)

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=1)


class MlpWithCustomRelu(support.TorchTestCase):
    @classmethod
    def setUpClass(cls):
        support.load("relu")

    def models(self):
        torch.manual_seed(1)
        model = MLP(Relu.apply)
        reference = MLP(torch.relu)
        reference.load_state_dict(model.state_dict())
        return model, reference

    def test_inferences_equal_torch(self):
        model, reference = self.models()
        with torch.no_grad(), npusim.record() as runs:
            for step in range(3):
                batch = torch.rand(5, 100) * 2 - 1
                self.assertBitsEqual(model(batch), reference(batch), f"inference {step}")
        self.assertEqual([r.op for r in runs], ["my_ops.relu_forward"] * 6)
        self.assertTrue(all(r.status == "ok" and r.time_ns > 0 for r in runs))
        self.assertEqual(runs[0].inputs, ["float32[5,48]"])
        self.assertEqual(runs[1].inputs, ["float32[5,20]"])

    def test_gradients_equal_torch(self):
        model, reference = self.models()
        batch = torch.rand(4, 100) * 2 - 1
        target = torch.tensor([1, 3, 5, 7])
        for m in (model, reference):
            nn.functional.nll_loss(m(batch), target).backward()
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            self.assertBitsEqual(p.grad, q.grad, f"gradient of {name}")
        self.assertEqual(npusim.last_run().op, "my_ops.relu_backward")


if __name__ == "__main__":
    unittest.main()
