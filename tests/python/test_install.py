"""`cmake --install` into a fresh prefix: the installed package (in the prefix's site-packages)
runs the installed npusim and builds with the installed torch API headers."""

import os
import subprocess
import sys
import tempfile
import unittest

import support

CHECK = """
import os, sys, torch, npusim
from npusim import _location, custom_op
prefix = sys.argv[1]
assert _location.EXECUTABLE == os.path.join(prefix, "bin", "npusim"), _location.EXECUTABLE
assert _location.TORCH_INCLUDE == os.path.join(prefix, "include", "npusim"), _location.TORCH_INCLUDE
custom_op.load(name="relu", compute_srcs=[sys.argv[2] + "/relu.cpp"], shape_srcs=[sys.argv[2] + "/shape.cpp"],
               verbose=True)
x = torch.randn(10, 10)
assert torch.equal(torch.ops.my_ops.relu_forward(x), torch.relu(x))
print("installed package ok")
"""


class Install(unittest.TestCase):
    def test_installed_package(self):
        build, dest = os.environ["NPUSIM_BINARY_DIR"], os.environ["NPUSIM_PYTHON_DEST"]
        with tempfile.TemporaryDirectory(prefix="npusim-pyinstall-") as tmp:
            prefix = os.path.join(tmp, "prefix")
            done = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            site = os.path.join(prefix, dest)
            self.assertTrue(os.path.isfile(os.path.join(site, "npusim", "standins", "torch_xla", "core", "xla_model.py")))
            env = dict(os.environ, PYTHONPATH=site)  # not the build tree's copy
            env.pop("NPUSIM_EXECUTABLE", None)
            env.pop("NPUSIM_TORCH_INCLUDE", None)
            done = subprocess.run([sys.executable, "-c", CHECK, prefix, support.EXAMPLE], cwd=tmp, env=env,
                                  capture_output=True, text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertIn("installed package ok", done.stdout)
            # The compiler got the installed headers, not the source tree's.
            self.assertIn(f"-I{prefix}/include/npusim ", done.stderr)


if __name__ == "__main__":
    unittest.main()
