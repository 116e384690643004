"""examples/torch_mlp/inference.py, a script written as the device tutorial describes, runs under
`python3 -m npusim run` with the stand-ins for torch_neuronx and torch_xla; it differs from its
device version in exactly two lines (the custom_op import and the load_library call)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import support

SCRIPT = os.path.join(support.EXAMPLE, "inference.py")


def device_version(text):
    """The script as it is for the device: each line marked `# device: ...` replaced by that."""
    lines, changed = [], 0
    for line in text.splitlines():
        m = re.match(r"^(\s*)(\S.*?)\s+# device: (.*)$", line)
        if m:
            lines.append(m.group(1) + m.group(3))
            changed += 1
        else:
            lines.append(line)
    return "\n".join(lines) + "\n", changed


class TutorialScript(unittest.TestCase):
    def test_two_lines_differ_from_the_device_script(self):
        with open(SCRIPT) as f:
            text = f.read()
        device, changed = device_version(text)
        self.assertEqual(changed, 2)
        self.assertIn("\nfrom torch_neuronx.xla_impl import custom_op\n", device)
        self.assertIn("\ntorch.ops.load_library(os.path.join(os.getcwd(), 'librelu.so'))\n", device)
        self.assertNotIn("npusim", device.split("\n\n", 1)[1])  # beyond the header comment
        for device_only in ("import torch_neuronx\n", "import torch_xla.core.xla_model as xm\n",
                            "device = 'xla'", "model.to(device)", "xm.mark_step()", ".to(device)"):
            self.assertIn(device_only, text)

    def test_runs_on_npusim(self):
        # The command docs/python.md gives, from a folder where `examples` and `build` lead to the
        # repository's and this build's (docs.page.python runs it too, and checks only its exit
        # status).
        with open(os.path.join(support.ROOT, "docs", "python.md")) as f:
            command = [line for line in f.read().splitlines() if line.endswith(" run examples/torch_mlp/inference.py")]
        self.assertEqual(len(command), 1)
        with tempfile.TemporaryDirectory(prefix="npusim-pytest-") as cwd:
            os.symlink(os.path.join(support.ROOT, "examples"), os.path.join(cwd, "examples"))
            os.symlink(os.environ["NPUSIM_BINARY_DIR"], os.path.join(cwd, "build"))
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", command[0]], cwd=cwd, capture_output=True,
                                  text=True, timeout=600)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertTrue(os.path.isfile(os.path.join(cwd, "librelu.so")))  # built into the working dir
        for step in range(3):
            self.assertIn(f"batch {step}: output (8, 10), equal to the model with torch.relu: True", done.stdout)
        # The runner's summary: the simulated time of the custom ops.
        self.assertRegex(done.stderr, r"npusim: 6 op call\(s\) on the simulated device, [0-9.]+ us of simulated time")
        self.assertRegex(done.stderr, r"my_ops.relu_forward: 6 call\(s\), [0-9.]+ us")

    def test_runner_usage(self):
        import contextlib
        import io
        from npusim.__main__ import main
        for argv, rc, text in ([[], 2, "usage: python3 -m npusim run SCRIPT"],
                               [["run", "no_such_script.py"], 2, "npusim: error: run no_such_script.py: no such file"],
                               [["--help"], 0, "usage: python3 -m npusim run SCRIPT"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.assertEqual(main(argv), rc)
            self.assertIn(text, out.getvalue() + err.getvalue())

    def test_standins(self):
        code = ("import torch, torch_neuronx, torch_xla.core.xla_model as xm\n"
                "from torch_neuronx.xla_impl import custom_op\n"
                "import npusim.custom_op\n"
                "assert custom_op.load is npusim.custom_op.load\n"
                "assert xm.xla_device() == torch.device('cpu')\n"
                "t = torch.ones(2).to('xla'); assert t.device.type == 'cpu'\n"
                "t = torch.ones(2).to(device='xla:0', dtype=torch.float16); assert t.dtype == torch.float16\n"
                "m = torch.nn.Linear(2, 2).to(torch.device('xla')); assert m.weight.device.type == 'cpu'\n"
                "xm.mark_step()\n"
                "try:\n    xm.all_reduce\nexcept AttributeError as e:\n    print(e)\n")
        with tempfile.TemporaryDirectory(prefix="npusim-pytest-") as cwd:
            script = os.path.join(cwd, "s.py")
            with open(script, "w") as f:
                f.write(code)
            done = subprocess.run([sys.executable, "-m", "npusim", "run", script], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("torch_xla.core.xla_model.all_reduce is not in npusim's stand-in", done.stdout)
        self.assertIn("npusim: no op ran on the simulated device", done.stderr)


if __name__ == "__main__":
    unittest.main()
