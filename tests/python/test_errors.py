"""Bad input and device faults from Python: each raises an exception with npusim's message, the
interpreter goes on, and the next call works."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch

import npusim
from npusim import custom_op
import support

RELU_TCM = os.path.join(support.KERNELS, "tutorial.cpp")
SHAPE = os.path.join(support.KERNELS, "tutorial_shape.cpp")


class Interpreter(unittest.TestCase):
    def test_an_interpreter_without_torch_is_named(self):
        # As a python3 without torch would see it: the import of torch fails.
        p = subprocess.run([sys.executable, "-c", "import sys; sys.modules['torch'] = None; import npusim"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertNotEqual(p.returncode, 0)
        last = p.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("ModuleNotFoundError: npusim needs torch"), p.stderr)
        self.assertIn("this Python (%s)" % sys.executable, last)
        self.assertIn("/usr/bin/python3", last)
        self.assertIn("python3-torch", last)


class BuildErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="npusim-pytest-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_source_that_does_not_compile(self):
        bad = self.write("bad.cpp", "#include <torch/torch.h>\n\ntorch::Tensor k(const torch::Tensor& t) {\n"
                                    "  return t.no_such_member();\n}\n")
        with self.assertRaises(npusim.BuildError) as cm:
            custom_op.load(name="bad", compute_srcs=[bad], shape_srcs=[SHAPE], build_directory=self.dir)
        e = cm.exception
        self.assertIn("library bad: the compiler", str(e))
        self.assertIn("failed (exit status 1)", str(e))
        # The compiler's first error, with its file and line, in the message.
        self.assertRegex(e.compiler_error, r"bad\.cpp:4:\d+: error: .*no_such_member")
        self.assertIn("first compiler error: " + e.compiler_error, str(e))
        self.assertEqual(e.exit_code, 1)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "libbad.so")))

    def test_missing_shape_file(self):
        nope = os.path.join(self.dir, "nope_shape.cpp")
        with self.assertRaises(npusim.InputError) as cm:
            custom_op.load(name="x", compute_srcs=[RELU_TCM], shape_srcs=[nope], build_directory=self.dir)
        self.assertEqual(str(cm.exception), f"op build: --shape: does not exist (at '{nope}')")
        self.assertEqual(cm.exception.exit_code, 2)

    def test_bad_library_name(self):
        with self.assertRaisesRegex(npusim.InputError, "--name 'builtin': reserved"):
            custom_op.load(name="builtin", compute_srcs=[RELU_TCM], shape_srcs=[SHAPE], build_directory=self.dir)
        with self.assertRaisesRegex(npusim.InputError, "a library name is a C identifier"):
            custom_op.load(name="my-ops", compute_srcs=[RELU_TCM], shape_srcs=[SHAPE], build_directory=self.dir)

    def test_missing_build_directory(self):
        where = os.path.join(self.dir, "no", "such")
        with self.assertRaisesRegex(npusim.InputError, f"the directory {where} does not exist"):
            custom_op.load(name="x", compute_srcs=[RELU_TCM], shape_srcs=[SHAPE], build_directory=where)

    def test_kernel_missing_from_the_sources(self):
        shape = self.write("shape.cpp", '#include <torch/torch.h>\n#include "torchneuron/register.h"\n'
                                        "torch::Tensor s(torch::Tensor t) { return torch::zeros(t.sizes(), torch::kFloat); }\n"
                                        'NEURON_LIBRARY(lonely, m) { m.def("op", &s, "no_such_kernel"); }\n')
        with self.assertRaisesRegex(npusim.BuildError, "no kernel function 'no_such_kernel'"):
            custom_op.load(name="lonely", compute_srcs=[RELU_TCM], shape_srcs=[shape], build_directory=self.dir)

    def test_a_library_that_is_not_one(self):
        with self.assertRaisesRegex(npusim.InputError, r"--plugin .*nope\.so: no such file"):
            npusim.load_library(os.path.join(self.dir, "nope.so"))
        junk = self.write("libjunk.so", "not an ELF file")
        with self.assertRaisesRegex(npusim.InputError, r"--plugin .*libjunk\.so: .*(invalid ELF header|too short)"):
            npusim.load_library(junk)

    def test_build_then_call(self):
        # custom_op.load builds, registers and the op runs: a library of one op of its own. The
        # op has the name of one of npusim's built-in example ops (a ReLU); the call runs this
        # library's kernel, as on the device, which has no such built-in op.
        kernel = self.write("twice.cpp", "#include <torch/torch.h>\n"
                                         "torch::Tensor twice(const torch::Tensor& t) { return torch::mul(t, 2); }\n")
        shape = self.write("twice_shape.cpp", '#include <torch/torch.h>\n#include "torchneuron/register.h"\n'
                                              "torch::Tensor s(torch::Tensor t) { return torch::zeros(t.sizes(), torch::kFloat); }\n"
                                              'NEURON_LIBRARY(pyerr_twice, m) { m.def("relu_tcm", &s, "twice"); }\n')
        path = custom_op.load(name="twice", compute_srcs=kernel, shape_srcs=shape, build_directory=self.dir)
        self.assertEqual(path, os.path.join(self.dir, "libtwice.so"))
        x = torch.randn(9)
        self.assertTrue(torch.equal(torch.ops.pyerr_twice.relu_tcm(x), x * 2))
        self.assertEqual(npusim.last_run().kernel, "twice")
        self.assertIn("pyerr_twice.relu_tcm", [o.qualified for o in npusim.registered_ops()])


class CallErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.load("tutorial", "faulty")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="npusim-pytest-")

    def tearDown(self):
        npusim.configure(report=None, trace=None, html=None, overrides={})
        self.tmp.cleanup()

    def test_unknown_op(self):
        with self.assertRaises(AttributeError):
            torch.ops.tutorial.no_such_op(torch.randn(3))

    def test_op_gone_from_the_library_file(self):
        # The file loaded was replaced by a library without the op: npusim's own message.
        import shutil
        path = os.path.join(self.tmp.name, "libswap.so")
        shutil.copy(support.library("faulty"), path)
        npusim.load_library(path)
        shutil.copy(support.library("tutorial"), path)
        try:
            with self.assertRaisesRegex(npusim.InputError, r"^op faulty.tcm_exhausted: no torch op 'tcm_exhausted' "
                                                           r"\(registered: .*relu_tcm_chunked"):
                torch.ops.faulty.tcm_exhausted(torch.randn(3))
        finally:
            npusim.load_library(support.library("faulty"))

    def test_wrong_dtype(self):
        with self.assertRaises(npusim.TensorArgumentError) as cm:
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(4, dtype=torch.float64))
        self.assertIsInstance(cm.exception, TypeError)
        self.assertIn("op tutorial.relu_tcm_chunked: argument 0 has the dtype torch.float64, which the device "
                      "does not have", str(cm.exception))
        with self.assertRaisesRegex(npusim.TensorArgumentError, "torch.bool"):
            torch.ops.tutorial.relu_tcm_chunked(torch.ones(4, dtype=torch.bool))

    def test_wrong_device(self):
        with self.assertRaisesRegex(npusim.TensorArgumentError, "argument 0 is on the device 'meta'; npusim takes CPU tensors"):
            torch.ops.tutorial.relu_tcm_chunked(torch.empty(4, device="meta"))

    def test_wrong_arguments(self):
        with self.assertRaises(RuntimeError):  # torch checks the schema
            torch.ops.tutorial.add_stream(torch.randn(3))
        with self.assertRaises(RuntimeError):
            torch.ops.tutorial.clamp_tcm(torch.randn(3), "low", 1.0)

    def test_kernel_that_rejects_the_dtype(self):
        # relu_tcm_chunked reads floats: an int tensor is a device fault, as on the device.
        with self.assertRaises(npusim.DeviceFault):
            torch.ops.tutorial.relu_tcm_chunked(torch.arange(4, dtype=torch.int16))

    def test_device_fault_names_op_core_and_fault(self):
        report = os.path.join(self.tmp.name, "fault-{n}.json")
        trace = os.path.join(self.tmp.name, "fault.trace.json")
        npusim.configure(report=report, trace=trace)
        with self.assertRaises(npusim.DeviceFault) as cm:
            torch.ops.faulty.read_past_end(torch.randn(10))
        e = cm.exception
        self.assertEqual(e.op, "faulty.read_past_end")
        self.assertEqual(e.core, 0)
        self.assertEqual(e.kind, "bad address")
        self.assertIn("index 10 of dimension 0 is outside the tensor", e.fault)
        self.assertTrue(str(e).startswith("op faulty.read_past_end (kernel read_past_end) on core 0: bad address: "))
        # The report and trace are written, complete, and named in the message.
        run = npusim.last_run()
        self.assertIs(e.run, run)
        self.assertEqual(run.status, "fault")
        self.assertIn(run.report_path, str(e))
        with open(run.report_path) as f:
            rep = json.load(f)
        self.assertEqual(rep["outcome"]["status"], "fault")
        with open(trace) as f:
            self.assertIn("traceEvents", json.load(f))
        # The interpreter goes on: the next call works.
        x = torch.randn(5, 5)
        self.assertTrue(torch.equal(torch.ops.tutorial.relu_tcm_chunked(x), torch.relu(x)))

    def test_dma_window_violation(self):
        # A platform whose DMA window ends below the TCM pool: the kernel's first tensor_to_tcm
        # moves data outside it (the torch API keeps every transfer inside a tcm_malloc block,
        # so only a narrower window makes one violate it).
        npusim.configure(overrides={"windows.0.hi": "0x80400"})
        with self.assertRaises(npusim.DeviceFault) as cm:
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(100))
        e = cm.exception
        self.assertEqual((e.op, e.core, e.kind), ("tutorial.relu_tcm_chunked", 0, "dma fault"))
        self.assertRegex(e.fault, r"DMA window violation .* from tensor_to_tcm: dst \[0x[0-9a-f]+, 0x[0-9a-f]+\) "
                                  r"violates dataram_window .* upper bound 0x80400")

    def test_tcm_exhausted(self):
        with self.assertRaisesRegex(npusim.DeviceFault, r"on core 0: allocation failure: .*tcm_malloc\(65536\) failed"):
            torch.ops.faulty.tcm_exhausted(torch.randn(3))

    def test_accessor_of_the_wrong_rank(self):
        with self.assertRaisesRegex(npusim.DeviceFault, r"accessor<T,1> on a tensor of 2 dimensions"):
            torch.ops.tutorial.negate_guide(torch.randn(3, 4))

    def test_stream_buffer_over_the_heap_header(self):
        # The guide's stream add on the documented (seed) dataram layout: its third 4 KiB stream
        # buffer overlaps the heap header (a warning), and the corrupted heap faults at close.
        with self.assertRaises(npusim.DeviceFault) as cm:
            torch.ops.tutorial.add_stream(torch.randn(1000), torch.randn(1000))
        self.assertEqual(cm.exception.kind, "bus error")
        warnings = [d for d in cm.exception.run.diagnostics if d["severity"] == "warning"]
        self.assertTrue(any("overlaps the dataram heap header" in d["message"] for d in warnings))

    def test_crash_of_the_kernel_code(self):
        # A kernel writing through a null pointer: npusim contains the crash and reports it as
        # the kernel's fault; Python goes on. Under the sanitizer build the abandoned kernel's
        # frames leave its tensor handles allocated, so LeakSanitizer is off for this run (as in
        # the containment tests; docs/architecture.md).
        saved = os.environ.get("ASAN_OPTIONS")
        os.environ["ASAN_OPTIONS"] = (saved or "") + ":detect_leaks=0"
        try:
            with self.assertRaises(npusim.DeviceFault) as cm:
                torch.ops.faulty.write_null(torch.randn(3))
        finally:
            if saved is None:
                del os.environ["ASAN_OPTIONS"]
            else:
                os.environ["ASAN_OPTIONS"] = saved
        e = cm.exception
        self.assertEqual((e.op, e.core, e.kind), ("faulty.write_null", 0, "kernel crash"))
        self.assertIn("segmentation fault (SIGSEGV) at address 0x0", e.fault)
        x = torch.randn(7)
        self.assertTrue(torch.equal(torch.ops.tutorial.relu_tcm_chunked(x), torch.relu(x)))

    def test_unwritable_report(self):
        npusim.configure(report=os.path.join(self.tmp.name, "no", "such", "dir", "r.json"))
        with self.assertRaisesRegex(npusim.InputError, r"--report: cannot be written"):
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(3))

    def test_bad_override(self):
        npusim.configure(overrides={"gpsimd.warp_speed": 9})
        with self.assertRaisesRegex(npusim.InputError, "gpsimd.warp_speed"):
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(3))

    def test_bad_path_pattern(self):
        npusim.configure(report=os.path.join(self.tmp.name, "{core}.json"))
        with self.assertRaisesRegex(ValueError, r"placeholder other than \{op\} and \{n\}"):
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(3))

    def test_too_large_for_the_device(self):
        npusim.configure(overrides={"gpsimd.tensor_arena_bytes": 4096})
        with self.assertRaisesRegex(npusim.InputError,
                                    r"op tutorial.relu_tcm_chunked, tensor input 0 \(float32\[2048\]\): the inputs need 8192 bytes"):
            torch.ops.tutorial.relu_tcm_chunked(torch.randn(2048))



class ArgumentErrors(unittest.TestCase):
    """Arguments the package checks itself: a documented exception naming the parameter, not
    an error from inside the package or the compiler."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="npusim-pytest-")
        self.dir = self.tmp.name

    def tearDown(self):
        npusim.configure(tmpdir=None)
        self.tmp.cleanup()

    def test_tmpdir_missing_a_file_or_unwritable(self):
        nope = os.path.join(self.dir, "nope")
        with self.assertRaisesRegex(npusim.InputError, r"configure\(tmpdir=...\): the folder .*nope does not exist"):
            npusim.configure(tmpdir=nope)
        f = os.path.join(self.dir, "file")
        open(f, "w").close()
        with self.assertRaisesRegex(npusim.InputError, r"configure\(tmpdir=...\): .*file is not a folder"):
            npusim.configure(tmpdir=f)
        if os.geteuid() != 0:  # root writes anywhere
            ro = os.path.join(self.dir, "ro")
            os.mkdir(ro, 0o500)
            with self.assertRaisesRegex(npusim.InputError, r"configure\(tmpdir=...\): the folder .*ro is not writable"):
                npusim.configure(tmpdir=ro)
        # Gone after configure: the call names the folder.
        gone = os.path.join(self.dir, "gone")
        os.mkdir(gone)
        npusim.configure(tmpdir=gone)
        os.rmdir(gone)
        with self.assertRaisesRegex(npusim.InputError, r"configure\(tmpdir=...\): the folder .*gone: cannot make"):
            custom_op.load(name="x", compute_srcs=[RELU_TCM], shape_srcs=[SHAPE])

    def test_extra_cflags_a_string(self):
        for bad in ("-O1", 3, ["-O1", 2]):
            with self.assertRaisesRegex(TypeError, r"custom_op.load\(extra_cflags=...\): a list of strings"):
                custom_op.load(name="x", compute_srcs=[RELU_TCM], shape_srcs=[SHAPE], build_directory=self.dir,
                               extra_cflags=bad)

    def test_load_library_on_a_folder(self):
        with self.assertRaisesRegex(npusim.InputError, r"load_library: .* is a folder, not a library file"):
            npusim.load_library(self.dir)

    def test_run_a_folder(self):
        import subprocess
        import sys
        with open(os.path.join(self.dir, "__main__.py"), "w") as f:
            f.write("print('main of the folder ran')\n")
        p = subprocess.run([sys.executable, "-m", "npusim", "run", self.dir], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("main of the folder ran", p.stdout)
        empty = os.path.join(self.dir, "empty")
        os.mkdir(empty)
        p = subprocess.run([sys.executable, "-m", "npusim", "run", empty], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, r"^npusim: error: run .*empty: a folder without a __main__.py")


if __name__ == "__main__":
    unittest.main()
