"""The tutorial and SDK-guide kernels called as torch ops, bit for bit against torch: ReLU
(standard accessor, TCM, 8 cores), negate (standard accessor, TCM), stream add, the library's
neg on every dtype, scalar arguments; shapes not divisible by 8, 0-element and 0-dimensional
tensors; many ops, shapes and dtypes in one process."""

import unittest

import torch

import npusim
import support

# Random normal values plus the extremes: all finite or infinite, none NaN or -0.0 (where the
# tutorial kernels' x > 0 ? x : 0 and -1 * x differ from torch: test_semantics).
def sample(shape, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 4
    flat = x.view(-1)
    if flat.numel() >= 4:
        flat[:4] = torch.tensor([float("inf"), -float("inf"), 1e-45, -3.4e38])
    return x


ANY_SHAPES = [(1,), (7,), (8,), (1000,), (1025,), (3, 5), (2, 3, 7), (4, 0), (0,), ()]


class TutorialKernels(support.TorchTestCase):
    @classmethod
    def setUpClass(cls):
        support.load("tutorial", "tutorial_mc")

    def check(self, op, ref, shapes, n_inputs=1):
        for i, shape in enumerate(shapes):
            xs = [sample(shape, 10 * i + k) for k in range(n_inputs)]
            got = op(*xs)
            self.assertBitsEqual(got, ref(*xs), f"{op} on {shape}")
            run = npusim.last_run()
            self.assertEqual(run.status, "ok")
            self.assertGreater(run.time_ns, 0)

    def test_relu_standard_accessor(self):
        self.check(torch.ops.tutorial.relu_std2d, torch.relu, [(1, 1), (3, 5), (7, 13), (0, 4), (4, 0)])

    def test_relu_tcm(self):
        self.check(torch.ops.tutorial.relu_tcm_chunked, torch.relu, ANY_SHAPES)

    def test_result_takes_the_shape_functions_shape(self):
        self.check(torch.ops.tutorial.relu_tcm_flat, torch.relu, [(3, 5), (2, 3, 7), (4, 0), ()])
        self.assertEqual(npusim.last_run().output, "float32[1]")  # what the kernel returned
        self.assertEqual(npusim.last_run().report["op"]["shape_function"], "float32[]")

    def test_relu_multicore(self):
        # Fewer elements than cores, a share that is not a whole chunk, more than 8 chunks.
        self.check(torch.ops.tutorial_mc.relu_mc, torch.relu, [(5,), (8,), (1001,), (9, 1025), (0,), (2, 3)])
        run = npusim.last_run()
        self.assertTrue(run.multicore)
        self.assertEqual(len(run.cores), 8)

    def test_negate_guide(self):
        # The guide's kernel uses a 1-D accessor and returns numel elements: 1-D inputs.
        self.check(torch.ops.tutorial.negate_guide, torch.neg, [(1,), (13,), (1001,), (0,)])

    def test_negate_tcm(self):
        self.check(torch.ops.tutorial.negate_tcm, torch.neg, ANY_SHAPES)

    def test_add_stream(self):
        # Three 4 KiB stream buffers: with the documented dataram layout (seed) the third
        # overlaps the heap header (test_errors: a device fault); the guides' layout fits four.
        npusim.configure(overrides={"heaps.layout": "guides"})
        try:
            self.check(torch.ops.tutorial.add_stream, torch.add, ANY_SHAPES, n_inputs=2)
        finally:
            npusim.configure(overrides={})

    def test_every_dtype(self):
        for i, dtype in enumerate([torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int16,
                                   torch.int8, torch.uint8, torch.int64]):
            x = (sample((3, 11), i) * 25).clamp(-100, 100).to(dtype)
            self.assertBitsEqual(torch.ops.tutorial.neg_any(x), torch.neg(x), str(dtype))
            self.assertEqual(npusim.last_run().inputs, [f"{str(dtype)[6:]}[3,11]"])

    def test_scalar_arguments(self):
        x = sample((6, 7), 3)
        self.assertBitsEqual(torch.ops.tutorial.clamp_tcm(x, -0.5, 0.25), torch.clamp(x, -0.5, 0.25))
        self.assertBitsEqual(torch.ops.tutorial.clamp_tcm(x, -1, 2), torch.clamp(x, -1, 2))  # ints as double
        self.assertBitsEqual(torch.ops.tutorial.mul_int(x, 3), x * 3)
        i = torch.arange(-20, 20, dtype=torch.int32)
        self.assertBitsEqual(torch.ops.tutorial.mul_int(i, -7), i * -7)

    def test_keyword_arguments_by_the_shape_functions_names(self):
        # clamp_shape(torch::Tensor t_in, double lo, double hi): the schema has its names.
        x = sample((5, 9), 4)
        op = [o for o in npusim.registered_ops() if o.qualified == "tutorial.clamp_tcm"][0]
        self.assertEqual(op.schema, "clamp_tcm(Tensor t_in, float lo, float hi) -> Tensor")
        want = torch.clamp(x, -0.5, 0.25)
        self.assertBitsEqual(torch.ops.tutorial.clamp_tcm(x, lo=-0.5, hi=0.25), want)
        self.assertBitsEqual(torch.ops.tutorial.clamp_tcm(x, hi=0.25, lo=-0.5), want)
        self.assertBitsEqual(torch.ops.tutorial.clamp_tcm(t_in=x, lo=-0.5, hi=0.25), want)
        with self.assertRaisesRegex(RuntimeError, "'hi'"):  # torch names the missing one
            torch.ops.tutorial.clamp_tcm(x, lo=-0.5)

    def test_transcendental_within_tolerance(self):
        # GELU (tanh form): the kernel's float formula with the host's tanhf against torch's
        # vectorised one. Where tanh is within an ulp of -1 one rounds to -1 and the other not:
        # up to 2.4e-7 apart (docs/python.md, "Bit for bit").
        x = sample((4100,), 6)[4:]  # finite values only
        got = torch.ops.tutorial.gelu_tcm(x)
        torch.testing.assert_close(got, torch.nn.functional.gelu(x, approximate="tanh"), rtol=1e-5, atol=1e-6)

    def test_views_are_copied_in_row_major_order(self):
        x = sample((6, 10), 4)
        for view in (x.t(), x[:, ::3], x[2:5], x.expand(3, 6, 10)):
            self.assertFalse(view.is_contiguous() and view.storage_offset() == 0)
            self.assertBitsEqual(torch.ops.tutorial.relu_tcm_chunked(view), torch.relu(view), "a view")
        self.assertEqual(tuple(x.t().shape), tuple(torch.ops.tutorial.relu_tcm_chunked(x.t()).shape))

    def test_requires_grad_inputs(self):
        x = sample((4, 4), 5).requires_grad_()
        y = torch.ops.tutorial.relu_tcm_chunked(x)
        self.assertBitsEqual(y, torch.relu(x.detach()))
        self.assertFalse(y.requires_grad)  # the op has no derivative: wrap it in an autograd.Function

    def test_semantics(self):
        # What the tutorial kernels do where torch differs (docs/python.md): ReLU of -0.0 and of
        # NaN is +0.0 (torch: -0.0 and NaN).
        x = torch.tensor([-0.0, float("nan"), 2.0])
        got = torch.ops.tutorial.relu_tcm_chunked(x)
        self.assertEqual(support.bits(got).tolist(), support.bits(torch.tensor([0.0, 0.0, 2.0])).tolist())
        self.assertNotEqual(support.bits(torch.relu(x))[0].item(), 0)


class Timing(support.TorchTestCase):
    @classmethod
    def setUpClass(cls):
        support.load("tutorial", "tutorial_mc")

    def test_time_follows_the_kernels(self):
        # The same ReLU three ways: the standard accessor pays an HBM round trip per element,
        # TCM stages chunks by DMA, eight cores split the work (docs/custom-ops.md).
        x = sample((64, 64), 9)
        times = {}
        for name, op in [("std", torch.ops.tutorial.relu_std2d), ("tcm", torch.ops.tutorial.relu_tcm_chunked),
                         ("mc", torch.ops.tutorial_mc.relu_mc)]:
            op(x)
            times[name] = npusim.last_run().time_ns
        self.assertGreater(times["std"], 5 * times["tcm"])
        self.assertGreater(times["tcm"], 2 * times["mc"])

    def test_run_info(self):
        x = sample((16, 16), 1)
        torch.ops.tutorial.relu_std2d(x)
        run = npusim.last_run()
        self.assertEqual(run.op, "tutorial.relu_std2d")
        self.assertEqual(run.kernel, "relu_std2d")
        self.assertEqual(run.status, "ok")
        self.assertEqual(run.exit_code, 0)
        self.assertIsNone(run.fault)
        self.assertEqual(run.diagnostics, [])
        self.assertEqual(run.inputs, ["float32[16,16]"])
        self.assertEqual(len(run.cores), 1)
        core = run.cores[0]
        self.assertEqual(core.by_kind, run.report["cores"][0]["breakdown_cycles"])
        self.assertTrue(core.by_kind and all(isinstance(v, int) and v >= 0 for v in core.by_kind.values()))
        self.assertGreater(sum(core.by_kind.values()), 0)
        self.assertLessEqual(max(core.by_kind.values()), core.cycles)
        self.assertEqual(run.cycles_by_kind, core.by_kind)
        # Summed over the cores of a multicore run.
        torch.ops.tutorial_mc.relu_mc(x)
        mc = npusim.last_run()
        self.assertEqual(len(mc.cores), 8)
        self.assertEqual(mc.cycles_by_kind, {k: sum(c.by_kind[k] for c in mc.cores) for k in mc.cores[0].by_kind})
        self.assertAlmostEqual(run.cycles / run.time_ns, run.clock_ghz)
        self.assertEqual(run.cycles, round(run.time_ns * run.clock_ghz))
        self.assertIsNone(run.report_path)
        self.assertIn("simulated time", run.summary)
        self.assertEqual(run.report["op"]["shape_function"], "float32[16,16]")

    def test_each_call_is_a_fresh_device(self):
        x = sample((32, 32), 2)
        with npusim.record() as runs:
            for _ in range(3):
                torch.ops.tutorial.relu_tcm_chunked(x)
        self.assertEqual(len(runs), 3)
        self.assertEqual(len({r.time_ns for r in runs}), 1)  # no state carries over between calls
        self.assertIs(runs[-1], npusim.last_run())


if __name__ == "__main__":
    unittest.main()
