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


class StaticShapes(unittest.TestCase):
    """Helion's static_shapes (True unless the decorator or
    HELION_STATIC_SHAPES says otherwise) decides --specialize-shapes."""

    def test_default_and_environment(self):
        self.assertTrue(hx.static_shapes_setting({}, environ={}))
        self.assertTrue(hx.static_shapes_setting(
            {}, environ={"HELION_STATIC_SHAPES": " Yes "}))
        self.assertFalse(hx.static_shapes_setting(
            {}, environ={"HELION_STATIC_SHAPES": "0"}))

    def test_decorator_wins(self):
        self.assertFalse(hx.static_shapes_setting(
            {"static_shapes": False}, environ={"HELION_STATIC_SHAPES": "1"}))
        self.assertTrue(hx.static_shapes_setting(
            {"static_shapes": True}, environ={"HELION_STATIC_SHAPES": "off"}))

    def test_bad_environment(self):
        with self.assertRaisesRegex(ValueError, "HELION_STATIC_SHAPES.*'2'"):
            hx.static_shapes_setting({}, environ={"HELION_STATIC_SHAPES": "2"})


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


_MM = '''from typing import Callable
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def mm(x: torch.Tensor, y: torch.Tensor,
       epilogue: Callable = lambda acc, tile: acc) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n))
    return out
'''

_CALLER = '''def make(bias, scale, name):
    def relu_bias(acc, tile):
        """a docstring is not a statement that counts"""
        return torch.relu(acc + bias[tile[1]]) * scale
    def two(acc, tile):
        v = acc + 1
        return v
    pair = (lambda acc, tile: acc + 1, lambda acc, tile: acc + 2)
    return (relu_bias, lambda acc, tile: acc + bias[tile[0], tile[1]],
            two, lambda acc, tile: acc * len(name), pair[0])
'''


class RunTimeCallables(unittest.TestCase):
    """matmul.py's check() passes epilogues that capture a bias: the
    stand-in compiles the kernel for each (helion_callables)."""

    class Tensor:
        pass

    def setUp(self):
        import sys
        import tempfile
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "caller_mod.py"), "w") as f:
            f.write(_CALLER)
        sys.path.insert(0, self.dir)
        spec = importlib.util.spec_from_file_location(
            "caller_mod", os.path.join(self.dir, "caller_mod.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        self.fns = mod.make(self.Tensor(), 2.0, "ab")
        self.hc = hx.helion_callables

    def inline(self, fn):
        return self.hc.inline_callables(_MM, "mm", {"epilogue": fn},
                                        lambda v: isinstance(v, self.Tensor))

    def test_def_and_lambda(self):
        src, lifted = self.inline(self.fns[0])
        self.assertEqual(list(lifted), ["bias"])
        self.assertIn("y: torch.Tensor, bias: torch.Tensor, epilogue", src)
        self.assertIn("out[tile_m, tile_n] = torch.relu(acc + "
                      "bias[(tile_m, tile_n)[1]]) * 2.0", src)
        self.assertTrue(src.startswith("from typing import Callable"))
        src2, _ = self.inline(self.fns[1])
        self.assertIn("acc + bias[(tile_m, tile_n)[0], (tile_m, tile_n)[1]]",
                      src2)
        dslc = os.path.join(os.environ.get("DSLC_BUILD_DIR", ""), "bin",
                            "dslc")
        if not os.path.exists(dslc):
            return
        import subprocess
        for text, bias in ((src, "f16[1]"), (src2, "f16[2]")):
            path = os.path.join(self.dir, "variant.py")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([dslc, path, "-k", "mm", "--signature",
                                f"x=f16[2],y=f16[2],bias={bias}",
                                "--emit=tile", "-o", os.devnull],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_refused(self):
        with self.assertRaisesRegex(self.hc.NotInlinable,
                                    "more than one `return"):
            self.inline(self.fns[2])
        with self.assertRaisesRegex(self.hc.NotInlinable,
                                    "captures 'name', a str"):
            self.inline(self.fns[3])
        # Two lambdas of the same parameters on one line: which one ran
        # is not in the function object.
        with self.assertRaisesRegex(self.hc.NotInlinable,
                                    "2 functions of its parameters"):
            self.inline(self.fns[4])
