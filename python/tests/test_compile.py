"""Compiling through the package without a GPU: the disk cache (hits, keys,
stale compilers, a cache carried to a machine without dslc), the three ways
to name a kernel, compile errors with the user's file:line:col, and argument
errors."""

import json
import os
import tempfile
import unittest
from unittest import mock

import _support
import dslc
from dslc import _compile, _locate
from dslc.errors import CompileError, InvalidArgumentError

EXAMPLE = os.path.join(_support.REPO, "examples", "one_shot_all_reduce.py")
BF16 = dslc.TensorSpec("bfloat16", (4096,))

SMALL = '''
import torch
import helion
import helion.language as hl

@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def scale(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] + x[t]
    return out
'''


class CacheTest(unittest.TestCase):
    def setUp(self):
        if _support.compiler() is None:
            self.skipTest("SKIPPED: the dslc compiler is not built")
        self.tmp = tempfile.TemporaryDirectory()
        self.env = mock.patch.dict(os.environ, {
            "DSLC_CACHE_DIR": self.tmp.name,
            "DSLC_BUILD_DIR": _support.build_dir()})
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def test_compile_then_hit(self):
        k = dslc.kernel(EXAMPLE)
        self.assertEqual(k.name, "one_shot_all_reduce_kernel")
        cubin = k.compile(rank=1, world_size=2, a_shared=BF16)
        self.assertTrue(cubin.startswith(os.path.join(self.tmp.name,
                                                      "kernels")))
        with open(cubin + ".json") as f:
            md = json.load(f)
        self.assertEqual((md["rank"], md["world_size"]), (1, 2))
        with open(os.path.join(os.path.dirname(cubin), "key.json")) as f:
            key = json.load(f)
        self.assertEqual(key["source_sha256"], md["source"]["sha256"])
        self.assertEqual(key["signature"], {"a_shared": "bfloat16[1]"})
        self.assertEqual(key["shapes"], {"a_shared": [4096]})
        self.assertRegex(key["compiler"], "^sha256 [0-9a-f]{16}$")
        self.assertIn("dslc version", key["compiler_version"])
        mtime = os.stat(cubin).st_mtime_ns
        again = dslc.kernel(EXAMPLE).compile(rank=1, world_size=2,
                                             a_shared=BF16)
        self.assertEqual(again, cubin)
        self.assertEqual(os.stat(cubin).st_mtime_ns, mtime)  # not rebuilt

    def test_key_separates_rank_dtype_shape_config(self):
        k = dslc.kernel(EXAMPLE)
        paths = {k.compile(rank=0, world_size=2, a_shared=BF16),
                 k.compile(rank=1, world_size=2, a_shared=BF16),
                 k.compile(rank=0, world_size=2,
                           a_shared=dslc.TensorSpec("float32", (4096,))),
                 k.compile(rank=0, world_size=2,
                           a_shared=dslc.TensorSpec("bfloat16", (8192,))),
                 dslc.kernel(EXAMPLE, config={"block_sizes": [1024],
                                              "num_warps": 8})
                 .compile(rank=0, world_size=2, a_shared=BF16)}
        self.assertEqual(len(paths), 5)
        with open(k.compile(rank=0, world_size=2, a_shared=dslc.TensorSpec(
                "float32", (4096,))) + ".json") as f:
            md = json.load(f)
        dtypes = {p["name"]: p.get("dtype") for p in md["params"]}
        self.assertEqual(dtypes["a_shared"], "float32")
        self.assertEqual(md["outputs"][0]["dtype"], "float32")

    def test_stale_compiler_rebuilds(self):
        k = dslc.kernel(EXAMPLE)
        cubin = k.compile(rank=0, world_size=2, a_shared=BF16)
        keyfile = os.path.join(os.path.dirname(cubin), "key.json")
        with open(keyfile) as f:
            key = json.load(f)
        key["compiler"] = "sha256 0000000000000000"
        with open(keyfile, "w") as f:
            json.dump(key, f)
        k.compile(rank=0, world_size=2, a_shared=BF16)
        with open(keyfile) as f:
            self.assertNotEqual(json.load(f)["compiler"], "sha256 0000000000000000")

    def test_carried_cache_without_compiler(self):
        k = dslc.kernel(EXAMPLE)
        cubin = k.compile(rank=0, world_size=2, a_shared=BF16)
        with mock.patch.object(_locate, "compiler", lambda: None):
            self.assertEqual(k.compile(rank=0, world_size=2, a_shared=BF16),
                             cubin)
            with self.assertRaisesRegex(dslc.RuntimeNotFoundError,
                                        "is not in the cache .* no dslc "
                                        "compiler was found"):
                k.compile(rank=1, world_size=2, a_shared=BF16)

    def test_source_string(self):
        k = dslc.kernel(source=SMALL, name="scale")
        cubin = k.compile(rank=0, world_size=1,
                          x=dslc.TensorSpec("float32", (1000,)))
        with open(cubin + ".json") as f:
            md = json.load(f)
        self.assertEqual([p["name"] for p in md["params"]], ["x"])
        # the text is kept once in the cache, under its hash
        self.assertTrue(k.source.path.startswith(
            os.path.join(self.tmp.name, "sources")))
        edited = dslc.kernel(source=SMALL.replace("x[t] + x[t]", "x[t] * x[t]"),
                             name="scale")
        self.assertNotEqual(edited.source.sha256, k.source.sha256)
        self.assertNotEqual(
            edited.compile(rank=0, world_size=1,
                           x=dslc.TensorSpec("float32", (1000,))),
            cubin)

    def test_decorated_function_keeps_file_and_lines(self):
        from _decorated import BAD_LINE, bad_kernel, good_kernel
        cubin = good_kernel.compile(rank=0, world_size=1,
                                    x=dslc.TensorSpec("float32", (64,)))
        self.assertTrue(os.path.isfile(cubin))
        self.assertNotIn("dslc.kernel(", good_kernel.source.text)
        self.assertIn("@dslc.kernel\n", good_kernel.source.text)
        self.assertIn("import dslc", good_kernel.source.text)  # the imports
        self.assertEqual(good_kernel.source.text.splitlines()[11],
                         "def good_kernel(x: torch.Tensor[torch.float32, 1])"
                         " -> torch.Tensor:  # noqa: F821")
        with self.assertRaises(CompileError) as cm:
            bad_kernel.compile(rank=0, world_size=1,
                               x=dslc.TensorSpec("float32", (64,)))
        origin = os.path.join(_support.HERE, "_decorated.py")
        self.assertTrue(cm.exception.diagnostics, str(cm.exception))
        f, line, col, msg = cm.exception.diagnostics[0]
        self.assertEqual((f, line), (origin, BAD_LINE), str(cm.exception))
        self.assertIn(f"{origin}:{BAD_LINE}:", str(cm.exception))
        self.assertNotIn(os.path.join(self.tmp.name, "sources"),
                         str(cm.exception))

    def test_tuning_cache_lookup(self):
        k = dslc.kernel(EXAMPLE)
        src = k.source
        self.assertFalse(_compile.is_tuned(src, "all_reduce", 2, "bfloat16",
                                           4096))
        entry = {"key": {"collective": "all_reduce",
                         "kernel": f"{src.sha256}:{src.name}",
                         "device": "NVIDIA H200", "driver": "cuda",
                         "world_size": 2, "dtype": "bfloat16",
                         "bucket": _compile.size_bucket(5000)}, "value": {}}
        with open(os.path.join(self.tmp.name, "tuning.json"), "w") as f:
            json.dump({"format": "dslc-tuning-cache", "version": 1,
                       "entries": [entry]}, f)
        self.assertTrue(_compile.is_tuned(src, "all_reduce", 2, "bfloat16",
                                          4096))   # same bucket (2^12)
        self.assertFalse(_compile.is_tuned(src, "all_reduce", 2, "bfloat16",
                                           8192))
        self.assertFalse(_compile.is_tuned(src, "all_reduce", 4, "bfloat16",
                                           4096))


class ArgumentErrorTest(unittest.TestCase):
    def test_bad_arguments_are_named(self):
        k = dslc.kernel(EXAMPLE)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "has no parameter 'b_shared'"):
            k.compile(rank=0, world_size=2, b_shared=BF16)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "my_rank=1 given, but this process is "
                                    "rank 0 of 2"):
            k.compile(rank=0, world_size=2, a_shared=BF16, my_rank=1)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "takes 5 parameters"):
            k.compile(1, 2, 3, 4, 5, 6, rank=0, world_size=2)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "'a_shared' got a list"):
            k.compile(rank=0, world_size=2, a_shared=[1, 2])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "autotune=True needs collective="):
            dslc.kernel(EXAMPLE, autotune=True)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "no kernel named 'nope' .*its functions: "
                                    "one_shot_all_reduce_kernel"):
            dslc.kernel(EXAMPLE, "nope")
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "cannot read kernel source"):
            dslc.kernel("/nonexistent/k.py")
        with self.assertRaisesRegex(ValueError, "unknown dtype 'bf17'"):
            dslc.TensorSpec("bf17", (4,))

    def test_parameters_from_annotations(self):
        k = dslc.kernel(EXAMPLE)
        got = [(p.name, p.kind, p.dtype, p.rank) for p in k.params]
        self.assertEqual(got, [
            ("signal_pad_addrs", "tensor", "uint64", 1),
            ("local_signal_pad", "tensor", "int32", 2),
            ("a_shared", "tensor", "bfloat16", 1),
            ("my_rank", "constexpr", None, None),
            ("group_name", "constexpr", None, None)])


if __name__ == "__main__":
    unittest.main()
