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
from dslc import _capi, _compile, _locate
from dslc.errors import CompileError, InvalidArgumentError

EXAMPLE = os.path.join(_support.REPO, "examples", "one_shot_all_reduce.py")
BF16 = dslc.TensorSpec("bfloat16", (4096,))
TUPLE_KERNELS = os.path.join(_support.REPO, "tests", "compiler", "MLIRGen",
                             "Inputs", "helion_spelling.py")

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
        self.assertEqual(key["signature"], {})   # the annotations say it
        self.assertEqual(key["shapes"], {"a_shared": [4096]})  # as given
        # the pad's columns and the table's length are the world size; no
        # size of a_shared is compiled in
        self.assertEqual(key["specialized"], [["local_signal_pad", 1, 2],
                                              ["signal_pad_addrs", 0, 2]])
        self.assertRegex(key["compiler"], "^sha256 [0-9a-f]{16}$")
        self.assertIn("dslc version", key["compiler_version"])
        mtime = os.stat(cubin).st_mtime_ns
        again = dslc.kernel(EXAMPLE).compile(rank=1, world_size=2,
                                             a_shared=BF16)
        self.assertEqual(again, cubin)
        self.assertEqual(os.stat(cubin).st_mtime_ns, mtime)  # not rebuilt

    def test_key_separates_rank_dtype_config(self):
        k = dslc.kernel(EXAMPLE)
        paths = {k.compile(rank=0, world_size=2, a_shared=BF16),
                 k.compile(rank=1, world_size=2, a_shared=BF16),
                 k.compile(rank=0, world_size=2,
                           a_shared=dslc.TensorSpec("float32", (4096,))),
                 dslc.kernel(EXAMPLE, config={"block_sizes": [1024],
                                              "num_warps": 8})
                 .compile(rank=0, world_size=2, a_shared=BF16)}
        self.assertEqual(len(paths), 4)
        with open(k.compile(rank=0, world_size=2, a_shared=dslc.TensorSpec(
                "float32", (4096,))) + ".json") as f:
            md = json.load(f)
        dtypes = {p["name"]: p.get("dtype") for p in md["params"]}
        self.assertEqual(dtypes["a_shared"], "float32")
        self.assertEqual(md["outputs"][0]["dtype"], "float32")

    def test_shapes_key_only_what_the_kernel_specializes(self):
        """A shape-generic kernel is compiled once for every shape; the
        key is the family (no shapes) plus the sizes the metadata says the
        cubin is specialized for."""
        k = dslc.kernel(source=SMALL, name="scale")
        first = k.compile(rank=0, world_size=1,
                          x=dslc.TensorSpec("float32", (1000,)))
        mtime = os.stat(first).st_mtime_ns
        self.assertEqual(os.path.basename(os.path.dirname(first)), "any")
        with open(os.path.join(os.path.dirname(first), "key.json")) as f:
            key = json.load(f)
        self.assertEqual(key["specialized"], [])
        for n in (5, 4096, 1 << 20):
            self.assertEqual(k.compile(rank=0, world_size=1, x=dslc.TensorSpec(
                "float32", (n,))), first)
        self.assertEqual(os.stat(first).st_mtime_ns, mtime)  # not rebuilt
        # passing a tensor its annotation already types (or leaving it to
        # the package) keeps the family: no --signature entry for it
        one = dslc.kernel(EXAMPLE)
        a = one.compile(rank=0, world_size=2, a_shared=BF16)
        b = one.compile(dslc.TensorSpec("int64", (2,)),
                        dslc.TensorSpec("int32", (1, 2)), BF16,
                        rank=0, world_size=2)
        self.assertEqual(a, b)

    def test_size_fixed_by_the_source_is_the_second_level(self):
        src = SMALL.replace("    out = torch.empty_like(x)",
                            "    assert x.size(0) == 1000\n"
                            "    out = torch.empty_like(x)")
        k = dslc.kernel(source=src, name="scale")
        cubin = k.compile(rank=0, world_size=1,
                          x=dslc.TensorSpec("float32", (1000,)))
        folder = os.path.dirname(cubin)
        self.assertTrue(os.path.basename(folder).startswith("s-"))
        with open(os.path.join(folder, "key.json")) as f:
            self.assertEqual(json.load(f)["specialized"], [["x", 0, 1000]])
        self.assertEqual(_capi.specialized_sizes(cubin + ".json"),
                         [("x", 0, 1000)])
        self.assertEqual(k.compile(rank=0, world_size=1, x=dslc.TensorSpec(
            "float32", (1000,))), cubin)
        # another size: dslc with --shape reports the assert at its line,
        # an older dslc compiles it in and the package names the mismatch
        with self.assertRaisesRegex(CompileError,
                                    "x.size\\(0\\) == 1000") as cm:
            k.compile(rank=0, world_size=1,
                      x=dslc.TensorSpec("float32", (999,)))
        self.assertIn("999", str(cm.exception))

    def test_hl_specialize_with_shape_option(self):
        if not _compile.compiler_has_shape_option(_support.compiler()):
            self.skipTest("SKIPPED: this dslc has no --shape option")
        src = SMALL.replace("    out = torch.empty_like(x)",
                            "    n = hl.specialize(x.size(0))\n"
                            "    out = torch.empty_like(x)")
        k = dslc.kernel(source=src, name="scale")
        spec = lambda n: dslc.TensorSpec("float32", (n,))  # noqa: E731
        a = k.compile(rank=0, world_size=1, x=spec(1000))
        b = k.compile(rank=0, world_size=1, x=spec(2000))
        self.assertNotEqual(a, b)
        self.assertEqual(os.path.dirname(os.path.dirname(a)),
                         os.path.dirname(os.path.dirname(b)))  # one family
        self.assertEqual(k.compile(rank=0, world_size=1, x=spec(1000)), a)
        self.assertEqual(_capi.specialized_sizes(b + ".json"),
                         [("x", 0, 2000)])

    def test_specialized_shapes_one_cubin_per_shape(self):
        """dslc_args=("--specialize-shapes",) (what the stand-in helion
        passes for Helion's static_shapes=True): every size of the call is
        compiled in, so each shape gets its cubin, all in one family, and
        a call at a compiled shape reuses it."""
        if not _compile.compiler_has_shape_option(_support.compiler()):
            self.skipTest("SKIPPED: this dslc has no --shape option")
        k = dslc.kernel(source=SMALL, name="scale",
                        dslc_args=("--specialize-shapes",))
        spec = lambda n: dslc.TensorSpec("float32", (n,))  # noqa: E731
        a = k.compile(rank=0, world_size=1, x=spec(1000))
        b = k.compile(rank=0, world_size=1, x=spec(4096))
        self.assertNotEqual(a, b)
        self.assertEqual(os.path.dirname(os.path.dirname(a)),
                         os.path.dirname(os.path.dirname(b)))
        self.assertEqual(_capi.specialized_sizes(a + ".json"),
                         [("x", 0, 1000)])
        self.assertEqual(_capi.specialized_sizes(b + ".json"),
                         [("x", 0, 4096)])
        self.assertEqual(k.compile(rank=0, world_size=1, x=spec(1000)), a)

    def test_tuple_parameter_signature_from_the_copies(self):
        """A `tuple[torch.Tensor, ...]` parameter (every rank's copy, as
        torch.ops.symm_mem.get_remote_tensors gives them) is typed by
        --signature from the call's tensors; the count must be the world
        size."""
        k = dslc.kernel(TUPLE_KERNELS, "tuple_all_reduce")
        self.assertEqual(k.params[2].kind, "tuple")
        copies = tuple(dslc.TensorSpec("bfloat16", (3000,)) for _ in range(2))
        args = (dslc.TensorSpec("uint64", (2,)),
                dslc.TensorSpec("int32", (3, 2)), copies)
        cubin = k.compile(*args, rank=1, world_size=2)
        with open(os.path.join(os.path.dirname(cubin), "key.json")) as f:
            key = json.load(f)
        self.assertEqual(key["signature"], {
            "pad": "int32[2]", "pad_ptrs": "uint64[1]",
            "shared": "bfloat16[1]"})
        self.assertEqual(key["shapes"]["shared"], [3000])
        with open(cubin + ".json") as f:
            md = json.load(f)
        shared = next(p for p in md["params"] if p["name"] == "shared")
        self.assertTrue(shared["symmetric"])
        self.assertEqual(shared["dtype"], "bfloat16")
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "'shared' is a tuple of every rank's "
                                    "copy; 3 tensors given for a world of 2"):
            k.compile(args[0], args[1], copies + copies[:1], rank=1,
                      world_size=2)

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
            # another size, and the Helion-style call with torch's pad
            # (more rows): the same cubin, found without a compiler
            self.assertEqual(k.compile(rank=0, world_size=2,
                                       a_shared=dslc.TensorSpec(
                                           "bfloat16", (12345,))), cubin)
            self.assertEqual(k.compile(dslc.TensorSpec("uint64", (2,)),
                                       dslc.TensorSpec("int32", (8192, 2)),
                                       BF16, rank=0, world_size=2), cubin)
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
        """is_tuned asks the runtime (dslcTuningCacheHas): an entry whose
        per_kernel list has this kernel name and source sha256, for the
        world size, dtype and bucket: what dslc --config-from-cache reads."""
        k = dslc.kernel(EXAMPLE)
        src = k.source
        self.assertFalse(_compile.is_tuned(src, 2, "bfloat16", 4096))
        choice = {"kernel": src.name, "file": EXAMPLE, "sha256": src.sha256,
                  "cubin": "k.r{rank}.cubin",
                  "config": {"block_sizes": [1024], "num_warps": 4},
                  "us": 3.0, "eager_us": 8.0}
        entry = {"key": {"collective": "all_reduce",
                         "kernel": f"set:{src.name}",
                         "device": "NVIDIA H200", "driver": "cuda",
                         "world_size": 2, "dtype": "bfloat16",
                         "bucket": _compile.size_bucket(5000)},
                 "value": {"pick": choice, "per_kernel": [choice],
                           "nccl_us": 7.5, "nccl_eager_us": 11.0,
                           "size": 5000, "date": "2026-12-01T00:00:00Z",
                           "candidates": self.tmp.name}}
        path = os.path.join(self.tmp.name, "tuning.json")
        with open(path, "w") as f:
            json.dump({"format": "dslc-tuning-cache", "version": 1,
                       "entries": [entry]}, f)
        self.assertTrue(_compile.is_tuned(src, 2, "bfloat16", 4096))  # 2^12
        self.assertFalse(_compile.is_tuned(src, 2, "bfloat16", 8192))
        self.assertFalse(_compile.is_tuned(src, 4, "bfloat16", 4096))
        self.assertFalse(_compile.is_tuned(src, 2, "float32", 4096))
        other = dslc.kernel(source=SMALL, name="scale").source
        self.assertFalse(_compile.is_tuned(other, 2, "bfloat16", 4096))
        # Tuned per shape (the tuner's --shape problems): only the entry of
        # the call's shapes (their extents' buckets) counts; a 0-d tensor is
        # [1], as the tuner's problems hold it.
        entry["key"]["shape"] = "a=b12,s=b0"
        with open(path, "w") as f:
            json.dump({"format": "dslc-tuning-cache", "version": 1,
                       "entries": [entry]}, f)
        self.assertTrue(_compile.is_tuned(src, 2, "bfloat16", 4096,
                                          {"a": (5000,), "s": ()}))
        self.assertFalse(_compile.is_tuned(src, 2, "bfloat16", 4096,
                                           {"a": (64, 64), "s": ()}))
        self.assertTrue(_compile.is_tuned(src, 2, "bfloat16", 4096))
        req = _compile.CompileRequest(src, 0, 2, {}, {"a": (5000,)}, {},
                                      config_from_cache_size=5000,
                                      config_from_cache_shapes={"a": (5000,),
                                                                "s": ()})
        argv = req.argv("dslc", "out.cubin", False)
        self.assertIn("a=5000", argv)
        self.assertIn("s=1", argv)
        self.assertEqual(req.key()["config"]["shape_buckets"],
                         {"a": [12], "s": [0]})
        with open(path, "w") as f:
            f.write("{damaged")
        self.assertFalse(_compile.is_tuned(src, 2, "bfloat16", 4096))


class DimOrderTest(unittest.TestCase):
    """A tensor whose strides permute a row-major layout's (a transposed
    weight, Helion's fp8_gemm's y.T.contiguous().T) is compiled and bound
    as stored; any other non-contiguous layout is refused."""

    def test_order_from_strides(self):
        from dslc._kernel import dim_order
        self.assertIsNone(dim_order((4, 3), (3, 1)))          # row-major
        self.assertEqual(dim_order((4, 3), (1, 4)), (1, 0))   # x.T
        # [2, 3, 4] row-major seen as permute(0, 2, 1)
        self.assertEqual(dim_order((2, 4, 3), (12, 1, 4)), (0, 2, 1))
        # permute(2, 0, 1): stored [4, 2, 3]
        self.assertEqual(dim_order((2, 3, 4), (3, 1, 6)), (2, 0, 1))
        self.assertFalse(dim_order((4, 3), (6, 1)))    # a gap (x[:, ::2])
        self.assertFalse(dim_order((4, 3), (0, 1)))    # expand: overlaps
        self.assertFalse(dim_order((4, 3), (1, 8)))    # x.T with a gap
        # size-1 dimensions: any stride, their place kept
        self.assertIsNone(dim_order((1, 5), (1, 1)))
        self.assertIsNone(dim_order((5, 1), (1, 7)))
        self.assertEqual(dim_order((3, 1, 2), (1, 9, 3)), (2, 1, 0))
        self.assertIsNone(dim_order((0, 3), (1, 0)))   # no elements

    def test_tensor_spec_order(self):
        S = dslc.TensorSpec
        self.assertEqual(S("bfloat16", (4, 3), (1, 0)).dim_order, (1, 0))
        self.assertIsNone(S("bfloat16", (4, 3), (0, 1)).dim_order)
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "not a permutation of the 2"):
            S("bfloat16", (4, 3), (1, 1))

    def test_transposed_argument_compiles_for_its_stored_layout(self):
        if _support.compiler() is None:
            self.skipTest("SKIPPED: the dslc compiler is not built")
        src = os.path.join(_support.REPO, "tests", "compiler", "MLIRGen",
                           "Inputs", "dim_order.py")
        S = dslc.TensorSpec
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(
                os.environ, {"DSLC_CACHE_DIR": tmp,
                             "DSLC_BUILD_DIR": _support.build_dir()}):
            k = dslc.kernel(src, "matmul_kn")
            x = S("bfloat16", (64, 96))
            t = k.compile(x, S("bfloat16", (96, 128), (1, 0)), rank=0,
                          world_size=1)
            r = k.compile(x, S("bfloat16", (96, 128)), rank=0, world_size=1)
            self.assertNotEqual(os.path.dirname(os.path.dirname(t)),
                                os.path.dirname(os.path.dirname(r)))
            for cubin, want in ((t, [1, 0]), (r, None)):
                with open(cubin + ".json") as f:
                    params = {p["name"]: p for p in json.load(f)["params"]}
                self.assertEqual(params["y"].get("dim_order"), want)
            with open(os.path.join(os.path.dirname(t), "key.json")) as f:
                self.assertIn("y=1x0", json.dumps(json.load(f)))


class _Stored:
    """A row-major float32 tensor as the call path reads one (dtype, shape,
    strides, address), without torch."""

    def __init__(self, *shape):
        self.shape, self.dtype = shape, "float32"

    def is_contiguous(self):
        return True

    def data_ptr(self):
        return 0x1000


class OutputByNameTest(unittest.TestCase):
    """k(x, y, out=buf): the kernel is compiled for its parameters (dslc
    sizes its outputs itself and refuses --shape for a name that is no
    parameter), the output bound as passed."""

    def test_output_passed_by_name_compiles_and_binds(self):
        if _support.compiler() is None:
            self.skipTest("SKIPPED: the dslc compiler is not built")
        src = os.path.join(_support.REPO, "tests", "compiler", "Simulator",
                           "Inputs", "readback.py")
        made = []

        class Instance:
            def __init__(self, kernel, comm, cubin, values, shapes):
                made.append((cubin, sorted(values), shapes))

            def launch(self, values, made_outputs=False):
                return "launched"

        from dslc import _kernel
        comm = mock.Mock(rank=0, world_size=1)
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(
                os.environ, {"DSLC_CACHE_DIR": tmp,
                             "DSLC_BUILD_DIR": _support.build_dir()}), \
                mock.patch.object(_kernel._comm, "default",
                                  return_value=comm), \
                mock.patch.object(_kernel._torch, "capturing",
                                  return_value=False), \
                mock.patch.object(_kernel, "_Instance", Instance):
            k = dslc.kernel(src, "outer")
            x, y = _Stored(70), _Stored(45)
            self.assertEqual(k(x, y, out=_Stored(70, 45)), "launched")
            cubin, names, shapes = made[-1]
            self.assertEqual(names, ["out", "x", "y"])
            self.assertEqual(shapes, {"x": (70,), "y": (45,),
                                      "out": (70, 45)})
            with open(os.path.join(os.path.dirname(cubin), "key.json")) as f:
                self.assertNotIn("out", json.load(f)["shapes"])
            # the same call again: the instance is reused
            k(x, y, out=_Stored(70, 45))
            self.assertEqual(len(made), 1)
            # an output the kernel does not make is named, with its outputs
            with self.assertRaisesRegex(InvalidArgumentError,
                                        "no parameter or output 'res'.*"
                                        "its outputs: out"):
                k(x, y, res=_Stored(70, 45))


class SpecializationRuleTest(unittest.TestCase):
    def test_matching(self):
        m = _compile.specialization_matches
        self.assertTrue(m([], {"x": (5, 7)}))
        self.assertTrue(m([("x", 1, 7)], {"x": (5, 7)}))
        self.assertFalse(m([("x", 1, 8)], {"x": (5, 7)}))
        self.assertFalse(m([("x", 2, 7)], {"x": (5, 7)}))   # no such dim
        # sizes of arguments the package fills in are not compared
        self.assertTrue(m([("pad", 1, 2)], {"x": (5, 7)}))
        self.assertEqual(_compile.specialization_name([]), "any")
        self.assertEqual(
            _compile.specialization_name([("x", 1, 7), ("w", 0, 7)]),
            _compile.specialization_name([("w", 0, 7), ("x", 1, 7)]))
        self.assertNotEqual(_compile.specialization_name([("x", 1, 7)]),
                            _compile.specialization_name([("x", 1, 8)]))


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

    def test_mixed_dtypes_are_refused(self):
        """Issue 25: the data's dtype retypes every parameter annotated
        with it; passing them in different dtypes would compile a kernel
        that mixes types the source never mixes."""
        k = dslc.kernel(os.path.join(_support.REPO, "examples",
                                     "rmsnorm.py"), "rmsnorm_kernel")
        rows = lambda dt: dslc.TensorSpec(dt, (4, 256))  # noqa: E731
        with self.assertRaisesRegex(
                InvalidArgumentError,
                "parameters 'x' and 'weight' are both annotated bfloat16, "
                "but 'x' was given as float16 and 'weight' as bfloat16"):
            k.compile(rows("float16"), rows("float16"),
                      dslc.TensorSpec("bfloat16", (256,)), rank=0,
                      world_size=1)
        with self.assertRaisesRegex(
                InvalidArgumentError,
                "parameter 'x' is annotated bfloat16, but a int32 tensor "
                "was given"):
            k.compile(x=rows("int32"), rank=0, world_size=1)

    def test_fp8_tensors(self):
        """fp8 tensors (float8_e4m3fn, float8_e5m2) pass from Python: the
        scaled fp8 matmul of examples/matmul.py compiles for them (they
        were refused as unknown dtypes)."""
        self.assertEqual(dslc.TensorSpec("float8_e5m2", (4,)).dtype_name,
                         "float8_e5m2")
        k = dslc.kernel(os.path.join(_support.REPO, "examples", "matmul.py"),
                        "matmul_fp8", dslc_args=("-D", "scale_x.size(1)=1",
                                                 "-D", "scale_y.size(0)=1"))
        S = dslc.TensorSpec
        cubin = k.compile(S("float8_e4m3fn", (64, 128)),
                          S("float8_e4m3fn", (128, 64)),
                          S("float32", (64, 1)), S("float32", (1, 64)),
                          rank=0, world_size=1)
        self.assertTrue(os.path.exists(str(cubin)), cubin)

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
