"""Shared by the Python tests (tests/python/CMakeLists.txt runs each test file as a ctest test):
where the repository and the prebuilt test libraries are, bit-exact comparisons.

`python3 support.py build DIR` builds the test libraries into DIR with custom_op.load (the
fixture every other test needs; CTest runs it first)."""

import concurrent.futures
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(ROOT, "tests", "python", "kernels")
EXAMPLE = os.path.join(ROOT, "examples", "torch_mlp")

# name -> (compute sources, shape sources, multicore)
LIBRARIES = {
    "tutorial": ([os.path.join(KERNELS, "tutorial.cpp")], [os.path.join(KERNELS, "tutorial_shape.cpp")], False),
    "tutorial_mc": ([os.path.join(KERNELS, "multicore.cpp")], [os.path.join(KERNELS, "multicore_shape.cpp")], True),
    "faulty": ([os.path.join(KERNELS, "faulty.cpp")], [os.path.join(KERNELS, "faulty_shape.cpp")], False),
    "relu": ([os.path.join(EXAMPLE, "relu.cpp")], [os.path.join(EXAMPLE, "shape.cpp")], False),
}


def libs_dir():
    d = os.environ.get("NPUSIM_PY_TEST_LIBS")
    if not d:
        raise unittest.SkipTest("NPUSIM_PY_TEST_LIBS is not set (ctest sets it)")
    return d


def library(name):
    return os.path.join(libs_dir(), f"lib{name}.so")


def load(*names):
    import npusim
    for n in names:
        npusim.load_library(library(n))


def build(dest):
    from npusim import custom_op
    from npusim._config import executable
    os.makedirs(dest, exist_ok=True)

    def one(name):
        compute, shape, multicore = LIBRARIES[name]
        lib = os.path.join(dest, f"lib{name}.so")
        # Up to date: newer than its sources and than the npusim that builds and runs it
        # (test_errors builds a library of its own every time).
        inputs = compute + shape + [executable()]
        if os.path.isfile(lib) and os.path.getmtime(lib) > max(os.path.getmtime(f) for f in inputs):
            return lib + " (up to date)"
        return custom_op.load(name=name, compute_srcs=compute, shape_srcs=shape, multicore=multicore,
                              build_directory=dest)

    # Two compilers at a time: CI has two cores.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for path in pool.map(one, LIBRARIES):
            print("built", path)


# torch is imported only where a test compares tensors: the tests that only start processes
# do without its two seconds of import.
def bits(t):
    """The tensor's bit patterns (floats as integers: -0.0 differs from 0.0, NaNs compare)."""
    import torch
    as_int = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}
    return t.view(as_int[t.dtype]) if t.dtype in as_int else t


class TorchTestCase(unittest.TestCase):
    def assertBitsEqual(self, got, want, what=""):
        import torch
        self.assertEqual(got.dtype, want.dtype, what)
        self.assertEqual(tuple(got.shape), tuple(want.shape), what)
        if not torch.equal(bits(got), bits(want)):
            diff = (bits(got) != bits(want)).nonzero()
            first = tuple(diff[0].tolist())
            self.fail(f"{what}: {len(diff)} elements differ, first at {first}: {got[first]} instead of {want[first]}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "build":
        sys.exit("usage: support.py build DIR")
    build(sys.argv[2])
