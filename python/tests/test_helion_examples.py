"""The plain-Python parts of python/tests/gpu/helion_examples.py (the GPU
program that runs Helion's examples with dslc): how a kernel's host code is
split around its loop, how its parameters are taken, and that without torch
it says it skipped."""

import ast
import importlib.util
import io
import os
import unittest
from contextlib import redirect_stdout

_PATH = os.path.join(os.path.dirname(__file__), "gpu", "helion_examples.py")
_spec = importlib.util.spec_from_file_location("helion_examples", _PATH)
hx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hx)

_KERNEL = '''
@helion.kernel()
def rms(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5,
        mode: str = "a", flag: bool = False, bias: torch.Tensor | None = None,
        chunk: int = 4, fn: Callable = lambda v: v):
    """doc"""
    m, n = x.size()
    chunk = hl.specialize(chunk)
    block = hl.register_block_size(m)
    out = torch.empty_like(x)
    rstd = x.new_empty([m], dtype=torch.float32)
    for t in hl.tile(m, block_size=block):
        out[t, :] = x[t, :] * eps
    return out, rstd.reshape(-1, 1)
'''


class HostSplit(unittest.TestCase):
    def test_host_function(self):
        src = hx.host_function_source(_KERNEL, "rms")
        tree = ast.parse(src)
        fdef = tree.body[0]
        self.assertEqual([a.arg for a in fdef.args.kwonlyargs], ["__dslc_ctx__"])
        self.assertEqual(fdef.decorator_list, [])
        self.assertIn("__dslc_args__ = dict(locals())", src)
        self.assertIn("__dslc_ctx__.made(torch.empty_like(x))", src)
        self.assertIn("__dslc_ctx__.made(x.new_empty([m], dtype=torch.float32))",
                      src)
        self.assertIn("block = __dslc_ctx__.block_size(m)", src)
        self.assertIn("__dslc_ctx__.launch(__dslc_args__)", src)
        self.assertIn("return (out, rstd.reshape(-1, 1))", src)
        self.assertNotIn("hl.tile", src)
        self.assertNotIn('"""doc"""', src)
        # The launch comes after the outputs are made and before the return.
        self.assertLess(src.index(".made(torch.empty_like"), src.index(".launch("))
        self.assertLess(src.index(".launch("), src.index("return"))

    def test_no_loop(self):
        with self.assertRaises(ValueError):
            hx.host_function_source(
                "def k(x):\n    for i in range(3):\n        pass\n", "k")

    def test_loops_with_a_barrier(self):
        # split_k_barrier.py: two top-level loops with hl.barrier() between
        # them are one kernel, so one launch; the host statement between
        # them runs before it; what follows the last loop runs after.
        src = (
            "@helion.kernel()\n"
            "def k(a: torch.Tensor) -> torch.Tensor:\n"
            "    m, n = a.shape\n"
            "    tmp = torch.zeros((m, n), dtype=a.dtype)\n"
            "    for tm, tn in hl.tile([m, n]):\n"
            "        tmp[tm, tn] = a[tm, tn]\n"
            "    hl.barrier()\n"
            "    out = torch.empty((m,), dtype=a.dtype)\n"
            "    for tm in hl.tile(m):\n"
            "        out[tm] = torch.sum(tmp[tm, :], dim=-1)\n"
            "    return out\n")
        host = hx.host_function_source(src, "k")
        self.assertNotIn("hl.", host)
        self.assertEqual(host.count(".launch("), 1)
        self.assertEqual(host.count(".made("), 2)
        self.assertLess(host.index("torch.empty((m,)"), host.index(".launch("))
        self.assertLess(host.index(".launch("), host.index("return out"))

    def test_parameter_kinds(self):
        kinds = hx.parameter_kinds(_KERNEL, "rms")
        self.assertEqual(kinds, {"x": "value", "weight": "value",
                                 "eps": "value", "mode": "define",
                                 "flag": "define", "bias": "optional",
                                 "chunk": "define", "fn": "callable"})

    def test_define_text(self):
        self.assertEqual(hx.define_text(True), "True")
        self.assertEqual(hx.define_text("batchmean"), "'batchmean'")
        self.assertEqual(hx.define_text([4096]), "[4096]")
        self.assertEqual(hx.define_text(None), "None")
        with self.assertRaises(hx.Skip):
            hx.define_text(object())

    def test_atomics_and_rand(self):
        # Issue 26's constructs: an output an hl.atomic_add accumulates
        # into is made (zeroed) by the host code and passed to the kernel;
        # hl.rand's seed and p are run-time scalars; slices before the loop
        # stay in the kernel (a window), not in the host code.
        src = (
            "@helion.kernel()\n"
            "def k(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:\n"
            "    m, n = x.size()\n"
            "    xs = x[:, :-1]\n"
            "    out = torch.zeros([m, n], dtype=torch.float32)\n"
            "    for tm, tn in hl.tile([m, n - 1]):\n"
            "        r = hl.rand([tm, tn], seed=seed)\n"
            "        hl.atomic_add(out, [tm, tn], xs[tm, tn] * (r > p))\n"
            "    return out\n")
        host = hx.host_function_source(src, "k")
        self.assertIn("__dslc_ctx__.made(torch.zeros([m, n]", host)
        self.assertNotIn("hl.rand", host)
        self.assertNotIn("atomic_add", host)
        self.assertEqual(hx.parameter_kinds(src, "k"),
                         {"x": "value", "p": "value", "seed": "value"})

    def test_register_tunable(self):
        # matmul_split_k's host code divides by its tunable: it gets the
        # default dslc compiled (GenHost.cpp), not a stand-in object.
        self.assertEqual(hx.register_tunable(
            "split_k", hx.Fragment(1, 256)), 1)
        self.assertEqual(hx.register_tunable(
            "split_k", hx.Fragment(16, 512, 64)), 64)
        self.assertEqual(hx.Fragment(1, 8, default_val=32).default, 8)


class WithoutTorch(unittest.TestCase):
    def test_skips(self):
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed here")
        except ImportError:
            pass
        out = io.StringIO()
        with redirect_stdout(out):
            rc = hx.main(["nothing.py"])
        self.assertEqual(rc, hx.SKIP_EXIT)
        self.assertIn("SKIPPED: PyTorch is not installed", out.getvalue())


if __name__ == "__main__":
    unittest.main()


class Verdicts(unittest.TestCase):
    def test_verdict(self):
        r = hx.Report()
        r.add("k", "PASS", "default epilogue: max abs error 0")
        r.add("k", "SKIP", "'epilogue' is a function passed at run time")
        status, detail = r.verdict("k")
        self.assertEqual(status, "PASS")
        self.assertIn("1 call(s) skipped", detail)
        r.add("k", "FAIL", "mismatch")
        self.assertEqual(r.verdict("k"), ("FAIL", "mismatch"))
        r.add("s", "SKIP", "why")
        self.assertEqual(r.verdict("s"), ("SKIP", "why"))
        self.assertEqual(r.verdict("none"), ("SKIP", "never called"))
