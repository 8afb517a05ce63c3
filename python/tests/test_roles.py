"""How the package fills in the arguments a caller leaves out, on the
metadata dslc writes for every example (and on hand-written metadata for
every role, and metadata of an older dslc without roles)."""

import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import _support
import dslc
from dslc import _capi, _roles
from dslc.errors import InvalidArgumentError


NEEDS_RUNTIME = unittest.skipIf(
    _support.runtime_library() is None,
    "SKIPPED: the dslc runtime (whose dslcBindingPlan plans) is not built")


def example_metadata(name, world=2, rank=0, **specs):
    md, _ = example_with_path(name, world, rank, **specs)
    return md


def example_with_path(name, world=2, rank=0, **specs):
    k = dslc.kernel(os.path.join(_support.REPO, "examples", f"{name}.py"))
    cubin = k.compile(rank=rank, world_size=world, **specs)
    with open(cubin + ".json") as f:
        return json.load(f), cubin + ".json"


def contract(path, world, tiles):
    """The contract's pad and scratch shapes (the runtime's
    dslcMetadataFillShape), as the package passes them."""
    return lambda name: _capi.fill_shape(path, name, world, tiles)


def fixed(shape):
    return lambda name: shape


def by_name(fills):
    return {f.name: f for f in fills}


@unittest.skipIf(_support.compiler() is None or
                 _support.runtime_library() is None,
                 "SKIPPED: the dslc compiler or runtime is not built")
class ExampleRolesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.env = mock.patch.dict(os.environ, {
            "DSLC_CACHE_DIR": cls.tmp.name,
            "DSLC_BUILD_DIR": _support.build_dir()})
        cls.env.start()

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        cls.tmp.cleanup()

    def test_one_shot_pad_table_output(self):
        n = 20000
        md, path = example_with_path(
            "one_shot_all_reduce", a_shared=dslc.TensorSpec("bfloat16", (n,)))
        roles = {a.name: a.role for a in _roles.bindable_args(md)}
        self.assertEqual(roles, {"signal_pad_addrs": "peer_table",
                                 "local_signal_pad": "signal_pad",
                                 "a_shared": "input", "out": "output"})
        # before the tile count is known the pad is left for later
        f = by_name(_roles.plan_fills(md, 2, {"a_shared": (n,)}))
        self.assertNotIn("local_signal_pad", f)
        self.assertEqual(f["out"].shape, (n,))
        self.assertTrue(f["out"].per_call)
        self.assertFalse(f["out"].symmetric)
        tiles = -(-n // 8192)
        f = by_name(_roles.plan_fills(md, 2, {"a_shared": (n,)},
                                      contract(path, 2, tiles)))
        pad = f["local_signal_pad"]
        self.assertEqual(pad.shape, (tiles, 2))
        self.assertTrue(pad.symmetric and pad.zero)
        self.assertEqual(f["signal_pad_addrs"].table_of, "local_signal_pad")

    def test_ll_scratch_sized_by_the_contract(self):
        n = 65539
        md, path = example_with_path("ll_one_shot_all_reduce",
                                     a=dslc.TensorSpec("bfloat16", (n,)))
        tiles = 64
        f = by_name(_roles.plan_fills(md, 2, {"a": (n,)},
                                      contract(path, 2, tiles)))
        s = f["scratch"]
        self.assertEqual(s.arg.role, "scratch")
        packets = next(p for p in md["params"]
                       if p["name"] == "scratch")["packets"]
        # contract/Sizing.h llScratchBytes: 2 parities x puts x world x
        # tiles x tile bytes, in int64 elements
        want = 2 * packets["puts"] * 2 * tiles * packets["tile_bytes"]
        self.assertEqual(s.shape, (-(-want // 16) * 16 // 8,))
        self.assertTrue(s.symmetric and s.zero)
        with self.assertRaisesRegex(dslc.InvalidArgumentError,
                                    "'a' is a input, not a signal pad"):
            _capi.fill_shape(path, "a", 2, tiles)
        with self.assertRaisesRegex(dslc.InvalidArgumentError,
                                    "no argument 'nope'"):
            _capi.fill_shape(path, "nope", 2, tiles)

    def test_specialized_sizes_come_from_the_metadata(self):
        _, path = example_with_path("ll_one_shot_all_reduce",
                                    a=dslc.TensorSpec("bfloat16", (4096,)))
        self.assertEqual(_capi.specialized_sizes(path), [])
        md = {"format": "dslc-kernel"}
        with open(path) as f:
            md = json.load(f)
        md.setdefault("constraints", []).extend([
            {"param": "a", "dim": 0, "op": "==", "value": 4096},
            {"param": "a", "dim": 0, "op": ">=", "value": 1}])
        with tempfile.TemporaryDirectory() as d:
            other = os.path.join(d, "k.cubin.json")
            with open(other, "w") as f:
                json.dump(md, f)
            self.assertEqual(_capi.specialized_sizes(other), [("a", 0, 4096)])
        with self.assertRaises(dslc.DslcError):
            _capi.specialized_sizes(os.path.join(self.tmp.name, "none.json"))

    def test_two_shot_output_needs_the_collective(self):
        n = 4096
        md = example_metadata("two_shot_all_reduce",
                              a_shared=dslc.TensorSpec("float32", (n,)))
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'out' is an output whose "
                                    "shape the metadata does not give"):
            _roles.plan_fills(md, 2, {"a_shared": (n,)}, fixed((1, 2)))
        f = by_name(_roles.plan_fills(md, 2, {"a_shared": (n,)}, fixed((1, 2)),
                                      collective="all_reduce"))
        self.assertEqual(f["out"].shape, (n,))
        self.assertTrue(f["out"].symmetric)  # marked symmetric by dslc
        self.assertEqual(f["out"].arg.dtype, "float32")

    def test_multicast_workspace_is_symmetric(self):
        n = 5000
        md, path = example_with_path("multicast_one_shot_all_reduce",
                                     a=dslc.TensorSpec("bfloat16", (n,)))
        f = by_name(_roles.plan_fills(md, 2, {"a": (n,)}, contract(path, 2,
                                                                   2)))
        self.assertEqual(f["staging"].arg.role, "workspace")
        self.assertEqual(f["staging"].shape, (2, n))
        self.assertTrue(f["staging"].symmetric)
        self.assertEqual(f["staging_ptrs"].table_of, "staging")
        self.assertEqual(f["signal_pad_ptrs"].table_of, "signal_pad")
        self.assertEqual(f["signal_pad"].shape, (2, 2))

    def test_all_gather_output_shape(self):
        n = 1000
        md = example_metadata("all_gather", x=dslc.TensorSpec("float16", (n,)))
        f = by_name(_roles.plan_fills(md, 2, {"x": (n,)}, fixed((1, 2)),
                                      collective="all_gather"))
        self.assertEqual(f["out"].shape, (2 * n,))
        md = example_metadata("reduce_scatter",
                              a_shared=dslc.TensorSpec("float16", (n,)))
        f = by_name(_roles.plan_fills(md, 2, {"a_shared": (n,)}, fixed((1, 2)),
                                      collective="reduce_scatter"))
        self.assertEqual(f["out"].shape, (n // 2,))
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "size 1001 is not a multiple"):
            _roles.plan_fills(md, 2, {"a_shared": (1001,)}, fixed((1, 2)),
                              collective="reduce_scatter")

    def test_matmul_output_from_two_tensors(self):
        # out = torch.empty([m, n]) with m = x.size(0), n = y.size(1): the
        # metadata has no "like" for it, but its tiles tie out's dims to
        # x's and y's (same_sizes), which fix its shape.
        S = dslc.TensorSpec
        k = dslc.kernel(os.path.join(_support.REPO, "examples", "matmul.py"),
                        "matmul")
        cubin = k.compile(rank=0, world_size=1, x=S("bfloat16", (100, 64)),
                          y=S("bfloat16", (64, 30)))
        with open(cubin + ".json") as fh:
            md = json.load(fh)
        self.assertEqual(md["outputs"][0]["like"], "")
        f = by_name(_roles.plan_fills(md, 1, {"x": (100, 64), "y": (64, 30)}))
        self.assertEqual(f["out"].shape, (100, 30))
        self.assertTrue(f["out"].per_call)

    def test_missing_input_is_named(self):
        md = example_metadata("one_shot_all_reduce",
                              a_shared=dslc.TensorSpec("bfloat16", (64,)))
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'a_shared' \\(the kernel's "
                                    "input\\) was not passed"):
            _roles.plan_fills(md, 2, {}, fixed((1, 2)))


def abi_of(args):
    """The ABI slots dslc writes for these parameters and outputs: a value,
    or an address, its sizes and (symmetric) its peers, then the hidden
    slots."""
    abi = []
    for a in args:
        name, role = a.get("name"), a.get("role", "output")
        if role == "constexpr":
            continue
        if role == "scalar":
            abi.append({"name": name, "kind": "scalar", "param": name,
                        "type": "i64" if a.get("dtype") == "int64" else "f32"})
            continue
        abi.append({"name": name, "type": "ptr", "kind": "data",
                    "param": name})
        abi += [{"name": f"{name}.size{d}", "type": "i64", "kind": "size",
                 "param": name, "dim": d} for d in range(a.get("rank", 0))]
        if a.get("symmetric"):
            abi.append({"name": f"{name}.peers", "type": "ptr",
                        "kind": "peers", "param": name})
    return abi + [{"name": "__dslc_timeout_ns", "type": "i64",
                   "kind": "timeout"},
                  {"name": "__dslc_error", "type": "ptr", "kind": "error"},
                  {"name": "__dslc_state", "type": "ptr", "kind": "state"}]


def handmade(params, outputs=()):
    """Metadata as dslc writes it (the contract's reader takes it whole)
    for these parameters and outputs."""
    return {"format": "dslc-kernel", "version": 2, "kernel": "k",
            "entry": "k", "num_warps": 8,
            "grid": {"tiles": [{"extent": {"const": 1}, "block": 256}]},
            "params": params, "outputs": list(outputs),
            "abi": abi_of(list(params) + list(outputs))}


class ReturnsTest(unittest.TestCase):
    """What a call returns (_roles.returned): the kernel's `return`."""

    def test_the_return_statement_decides(self):
        made = {"parts": "P", "out": "O"}
        md = {"outputs": [{"name": "parts"}, {"name": "out"}],
              "returns": {"values": ["out"], "tuple": False}}
        self.assertEqual(_roles.returned(md, made, {}), "O")
        md["returns"] = {"values": ["out"], "tuple": True}
        self.assertEqual(_roles.returned(md, made, {}), ("O",))
        # a parameter, None for a host value, an output passed by name
        md["returns"] = {"values": ["x", None, "parts"], "tuple": True}
        self.assertEqual(_roles.returned(md, {"out": "O"},
                                         {"x": "X", "parts": "Q"}),
                         ("X", None, "Q"))

    def test_returned_views_take_their_sizes(self):
        class T:
            def __init__(self, shape):
                self.shape = shape

            def view(self, *shape):
                return ("viewed", shape)
        md = {"outputs": [{"name": "out"}, {"name": "inv"}],
              "returns": {"values": ["out", "inv"], "tuple": True,
                          "views": [[{"param": "q", "dim": 0},
                                     {"param": "q", "dim": 1, "add": 1,
                                      "div": 2}, {"const": 3}],
                                    [{"infer": True}, {"const": 1}]]}}
        self.assertEqual(
            _roles.returned(md, {"out": T((24,)), "inv": T((8,))},
                            {"q": T((2, 7))}),
            (("viewed", (2, 4, 3)), ("viewed", (-1, 1))))

    def test_without_a_return_every_output_in_order(self):
        md = {"outputs": [{"name": "parts"}, {"name": "out"}]}
        self.assertEqual(_roles.returned(md, {"parts": "P", "out": "O"}, {}),
                         ("P", "O"))
        self.assertEqual(_roles.returned(md, {"out": "O"}, {}), "O")
        self.assertIsNone(_roles.returned({"outputs": []}, {}, {}))
        # an output parameter the package allocated comes after them
        md["params"] = [{"name": "x", "role": "input"},
                        {"name": "y", "role": "output"}]
        self.assertEqual(_roles.returned(md, {"out": "O", "y": "Y"},
                                         {"x": "X"}), ("O", "Y"))
        self.assertEqual(_roles.returned(md, {"out": "O"},
                                         {"x": "X", "y": "Y"}), "O")

    @unittest.skipIf(_support.compiler() is None,
                     "SKIPPED: the dslc compiler is not built")
    def test_compiled_kernel_returns_what_it_says(self):
        # split_sum makes `parts` (scratch for its two loops) and `out`,
        # and returns `out` alone, as Helion's call does
        path = os.path.join(_support.REPO, "tests", "compiler", "Simulator",
                            "Inputs", "grid-barrier.py")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "k.ptx")
            subprocess.run([_support.compiler(), path, "-k", "split_sum",
                            "--emit=ptx", "-o", out], check=True)
            with open(out + ".json") as f:
                md = json.load(f)
        self.assertEqual([o["name"] for o in md["outputs"]], ["parts", "out"])
        self.assertEqual(md["returns"], {"values": ["out"], "tuple": False})

    @unittest.skipIf(_support.compiler() is None,
                     "SKIPPED: the dslc compiler is not built")
    def test_compiled_views_of_helions_rms_norm(self):
        # `return out, inv_rms.reshape(-1, 1)` (Helion's rms_norm_fwd):
        # inv_rms viewed as [-1, 1], as Helion's call returns it
        path = os.path.join(_support.HERE, "Inputs", "returns.py")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "k.ptx")
            subprocess.run([_support.compiler(), path, "-k", "viewed",
                            "--shape", "x=8x16", "--emit=ptx", "-o", out],
                           check=True, capture_output=True)
            with open(out + ".json") as f:
                md = json.load(f)
        self.assertEqual(md["returns"], {
            "values": ["out", "inv", "out"], "tuple": True,
            "views": [None, [{"infer": True}, {"const": 1}],
                      [{"param": "x", "dim": 1}, {"param": "x", "dim": 0}]]})


class HandMadeRolesTest(unittest.TestCase):
    def test_plan_fills_follow_the_plans_fill(self):
        # without the runtime: the plan as dslcBindingPlan words it
        md = handmade([{"name": "x", "role": "input", "dtype": "float32",
                        "rank": 1, "access": "read"}],
                      [{"name": "out", "dtype": "float32", "rank": 1,
                        "like": "x", "zeroed": True},
                       {"name": "out1", "dtype": "float32", "rank": 1,
                        "like": "x"}])
        plan = {"problems": [], "args": [
            {"name": "x", "fill": "seeded", "shape": [8],
             "symmetric": False, "table_of": None},
            {"name": "out", "fill": "zero", "shape": [8],
             "symmetric": False, "table_of": None},
            {"name": "out1", "fill": "poison", "shape": [8],
             "symmetric": False, "table_of": None}]}
        with mock.patch.object(_capi, "binding_plan", return_value=plan):
            f = by_name(_roles.plan_fills(md, 1, {"x": (8,)}))
        self.assertTrue(f["out"].zero and f["out"].per_call)
        self.assertFalse(f["out1"].zero)
        self.assertTrue(f["out1"].per_call)

    @NEEDS_RUNTIME
    def test_roles_come_from_the_metadata(self):
        md = handmade([
            {"name": "buf", "dtype": "float32", "rank": 1,
             "access": "read", "role": "input"},
            {"name": "flags", "dtype": "int32", "rank": 1,
             "access": "readwrite", "role": "signal_pad"},
            {"name": "ws", "dtype": "int64", "rank": 1,
             "access": "readwrite", "role": "scratch", "symmetric": True,
             "packets": {"puts": 1, "tile_bytes": 256}},
            {"name": "stage", "dtype": "float32", "rank": 1,
             "access": "readwrite", "role": "inout"},
            {"name": "n", "dtype": "int64", "role": "scalar"},
            {"name": "alpha", "dtype": "float32", "role": "scalar"},
            {"name": "c", "role": "constexpr", "value": 3}])
        args = {a.name: a for a in _roles.bindable_args(md)}
        self.assertEqual({n: a.role for n, a in args.items()},
                         {"buf": "input", "flags": "signal_pad",
                          "ws": "scratch", "stage": "workspace",
                          "n": "scalar", "alpha": "scalar"})
        self.assertEqual(args["n"].kind, "int")
        self.assertEqual(args["alpha"].kind, "float")
        f = by_name(_roles.plan_fills(md, 2, {"buf": (100,), "n": (),
                                              "alpha": ()}, fixed((6,))))
        self.assertEqual(f["flags"].shape, (6,))  # the contract's, passed in
        self.assertEqual(f["ws"].shape, (6,))
        self.assertTrue(f["ws"].symmetric and f["ws"].zero)
        self.assertEqual(f["stage"].shape, (200,))

    @NEEDS_RUNTIME
    def test_scalar_defaults_from_the_metadata(self):
        """Issue 25: a scalar the caller leaves out takes the source's
        default (metadata "value"); without one it is an error."""
        md = handmade([
            {"name": "buf", "dtype": "float32", "rank": 1,
             "access": "read", "role": "input"},
            {"name": "eps", "dtype": "float32", "role": "scalar",
             "value": 1e-05},
            {"name": "n", "dtype": "int64", "role": "scalar"}])
        args = {a.name: a for a in _roles.bindable_args(md)}
        self.assertEqual(args["eps"].default, 1e-05)
        self.assertIsNone(args["n"].default)
        self.assertEqual(_roles.plan_fills(md, 1, {"buf": (8,), "n": ()}),
                         [])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'n' \\(an int scalar\\) was "
                                    "not passed and has no default"):
            _roles.plan_fills(md, 1, {"buf": (8,)})

    def test_unknown_role_is_an_error(self):
        md = handmade([{"name": "x", "dtype": "float32", "rank": 1,
                        "role": "mystery"}])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'x': unknown role 'mystery'"):
            _roles.bindable_args(md)

    def test_metadata_without_roles_is_an_error(self):
        # An older dslc's metadata ("kind" and "access", no "role"): no
        # guessing from dtypes and ranks.
        md = handmade([
            {"name": "tbl", "kind": "tensor", "dtype": "uint64", "rank": 1},
            {"name": "pad", "kind": "tensor", "dtype": "int32", "rank": 2}])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'tbl' has no role: the "
                                    "metadata is an older dslc's"):
            _roles.bindable_args(md)

    def test_table_of_unknown_argument(self):
        md = handmade([{"name": "t", "role": "peer_table", "dtype": "uint64",
                        "rank": 1, "access": "read",
                        "peer_table_for": "nope"}])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "'t' is the peer table of 'nope'"):
            _roles.bindable_args(md)

    @NEEDS_RUNTIME
    def test_inputs_and_scalars_must_be_passed(self):
        md = handmade([
            {"name": "x", "role": "input", "dtype": "float32", "rank": 1,
             "access": "read"},
            {"name": "idx", "role": "input", "dtype": "int64", "rank": 1,
             "access": "read"},
            {"name": "n", "role": "scalar", "dtype": "int64"}])
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'idx' \\(the kernel's "
                                    "input\\) was not passed"):
            _roles.plan_fills(md, 2, {"x": (8,), "n": ()}, fixed((1,)))
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 'n' \\(an int scalar\\) was "
                                    "not passed"):
            _roles.plan_fills(md, 2, {"x": (8,), "idx": (8,)}, fixed((1,)))


# The metadata dslc writes for a table passed to Helion's symm_mem_sync: the
# local pad is a parameter the compiler adds ("implicit"), listed by it.
def implicit_pad_metadata():
    return handmade([
        {"name": "tbl", "role": "peer_table", "dtype": "uint64", "rank": 1,
         "access": "read", "peer_table_for": "tbl.pad"},
        {"name": "tbl.pad", "role": "signal_pad", "dtype": "int32",
         "rank": 2, "implicit": True, "access": "readwrite"},
        {"name": "x", "role": "input", "dtype": "float32", "rank": 1,
         "access": "read"}],
        [{"name": "out", "dtype": "float32", "rank": 1, "like": "x"}])


SYNC_SOURCE = """
import torch
import helion
import helion.language as hl
from helion.runtime.triton.dist_utils import symm_mem_sync

@helion.kernel()
def k(tbl: torch.Tensor[torch.uint64, 1], x: torch.Tensor[torch.float32, 1],
      rank: hl.constexpr, world_size: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0), block_size=256):
        hl.triton_kernel(symm_mem_sync, args=(tbl, None, rank, world_size,
                                              False, True), output_like=None)
        out[t] = x[t]
    return out
"""


class FakeHandle:
    """What the package reads of a torch symmetric-memory handle."""

    def __init__(self, rank=0):
        self.rank = rank
        self.buffer_ptrs_dev = 0x1000
        self.signal_pad_ptrs_dev = 0x2000


class FakeTensor:
    def __init__(self, shape=(2,)):
        self.shape, self.dtype = shape, "uint64"

    def data_ptr(self):
        return 0x3000


class FakeComm:
    world_size, rank, device = 2, 0, 0


def instance_for(md):
    """A kernel instance bound to `md` without a GPU: the runtime's argument
    setter is a mock."""
    from dslc import _kernel
    inst = object.__new__(_kernel._Instance)
    inst.kernel = mock.Mock()
    inst.kernel.name = md["kernel"]
    inst.comm = FakeComm()
    inst.lib = mock.Mock()
    inst.lib.dslcArgsSetTensor.return_value = 0
    inst.args = None
    inst.last = {}
    inst.c_args = {}
    inst.margs = {a.name: a for a in _roles.bindable_args(md)}
    return inst


class ImplicitPadTest(unittest.TestCase):
    @NEEDS_RUNTIME
    def test_implicit_pad_is_filled_with_its_table(self):
        md = implicit_pad_metadata()
        args = {a.name: a for a in _roles.bindable_args(md)}
        self.assertTrue(args["tbl.pad"].implicit)
        self.assertFalse(args["tbl"].implicit)
        self.assertEqual(args["tbl"].table_of, "tbl.pad")
        self.assertTrue(args["tbl.pad"].needs_symmetric)
        f = by_name(_roles.plan_fills(md, 2, {"x": (300,)}, fixed((2, 2))))
        self.assertEqual(f["tbl.pad"].shape, (2, 2))
        self.assertTrue(f["tbl.pad"].symmetric and f["tbl.pad"].zero)
        self.assertEqual(f["tbl"].table_of, "tbl.pad")

    def test_raw_table_for_an_implicit_pad_is_refused(self):
        inst = instance_for(implicit_pad_metadata())
        with self.assertRaisesRegex(
                InvalidArgumentError,
                "parameter 'tbl' is the table of symm_mem_sync's signal "
                "pads, whose local pad \\('tbl.pad'\\) dslc binds with it: "
                "pass the symmetric-memory handle .* or nothing \\(dslc "
                "allocates both\\)"):
            inst._bind_value("tbl", FakeTensor())
        inst.lib.dslcArgsSetTensor.assert_not_called()

    def test_implicit_pad_is_never_an_argument(self):
        inst = instance_for(implicit_pad_metadata())
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "'tbl.pad' is a signal pad dslc adds for "
                                    "symm_mem_sync, not an argument"):
            inst._bind_value("tbl.pad", FakeTensor((2, 2)))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.py")
            with open(path, "w") as f:
                f.write(SYNC_SOURCE)
            k = dslc.kernel(path, "k")
            with self.assertRaisesRegex(InvalidArgumentError,
                                        "'tbl.pad' is a parameter dslc "
                                        "adds"):
                k._map_args((), {"tbl.pad": FakeTensor((2, 2))})

    def test_handle_for_the_table_binds_its_own_signal_pad(self):
        inst = instance_for(implicit_pad_metadata())
        h = FakeHandle()
        inst._bind_value("tbl", h)
        # the table is the handle's table of signal pads ...
        name, _, ptr = inst.lib.dslcArgsSetTensor.call_args[0][1:4]
        self.assertEqual((name, ptr), (b"tbl", h.signal_pad_ptrs_dev))
        # ... and the implicit pad is bound from the same handle's pad
        self.assertIs(inst.handle_pads["tbl.pad"], h)

    @unittest.skipIf(_support.compiler() is None or
                     _support.runtime_library() is None,
                     "SKIPPED: the dslc compiler or runtime is not built")
    def test_compiled_symm_mem_sync_has_an_implicit_pad(self):
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(
                os.environ, {"DSLC_CACHE_DIR": tmp,
                             "DSLC_BUILD_DIR": _support.build_dir()}):
            path = os.path.join(tmp, "k.py")
            with open(path, "w") as f:
                f.write(SYNC_SOURCE)
            k = dslc.kernel(path, "k")
            cubin = k.compile(x=dslc.TensorSpec("float32", (1000,)), rank=0,
                              world_size=2)
            with open(cubin + ".json") as f:
                md = json.load(f)
            args = {a.name: a for a in _roles.bindable_args(md)}
            self.assertEqual([a for a in args], ["tbl", "tbl.pad", "x", "out"])
            self.assertTrue(args["tbl.pad"].implicit)
            self.assertEqual(args["tbl.pad"].role, "signal_pad")
            self.assertEqual(args["tbl"].table_of, "tbl.pad")
            tiles = -(-1000 // 256)
            f = by_name(_roles.plan_fills(md, 2, {"x": (1000,)},
                                          contract(cubin + ".json", 2,
                                                   tiles)))
            self.assertEqual(f["tbl.pad"].shape, (tiles, 2))
            self.assertEqual(f["tbl"].table_of, "tbl.pad")


@NEEDS_RUNTIME
class BindingPlanTest(unittest.TestCase):
    """The one C API call the package plans by (dslcBindingPlan)."""

    def metadata(self):
        return implicit_pad_metadata()

    def test_plan_of_every_argument(self):
        plan = _capi.binding_plan(self.metadata(), {
            "world": 2, "shapes": {"x": [300]}, "from_data": True})
        args = {a["name"]: a for a in plan["args"]}
        self.assertEqual(list(args), ["tbl", "tbl.pad", "x", "out"])
        self.assertEqual(plan["problems"], [])
        self.assertEqual(plan["tiles"], 1)
        self.assertEqual(args["tbl"]["table_of"], "tbl.pad")
        self.assertEqual(args["tbl"]["fill"], "peer_table")
        self.assertTrue(args["tbl.pad"]["symmetric"])
        self.assertEqual(args["x"]["fill"], "seeded")
        self.assertEqual(args["out"]["shape"], [300])   # like x
        self.assertEqual(args["out"]["fill"], "poison")
        # every role the contract names is one the package knows
        for a in plan["args"]:
            self.assertIn(a["role"], _roles._ROLES)

    def test_zeroed_output_is_zeroed_per_call(self):
        # a torch.zeros output: the metadata says "zeroed", the plan fills
        # it with zeros before each call ("zero"), and the package allocates
        # it per call with torch.zeros (Fill.zero and Fill.per_call)
        md = self.metadata()
        md["outputs"][0]["zeroed"] = True
        plan = _capi.binding_plan(md, {
            "world": 2, "shapes": {"x": [300]}, "from_data": True})
        args = {a["name"]: a for a in plan["args"]}
        self.assertEqual(args["out"]["fill"], "zero")
        f = by_name(_roles.plan_fills(md, 2, {"x": (300,)}))
        self.assertTrue(f["out"].zero and f["out"].per_call)

    def test_problems_name_the_argument(self):
        plan = _capi.binding_plan(json.dumps(self.metadata()), {"world": 2})
        self.assertEqual([(p["kind"], p["arg"]) for p in plan["problems"]],
                         [("no_size", "x")])     # out: like x
        self.assertIn("input 'x' (float32, rank 1) has no size",
                      plan["problems"][0]["text"])
        plan = _capi.binding_plan(self.metadata(),
                                  {"world": 2, "bound": ["x"]})
        self.assertEqual([(p["kind"], p["arg"]) for p in plan["problems"]],
                         [("like_missing", "out")])

    def test_bad_metadata_and_requests_fail(self):
        with self.assertRaisesRegex(dslc.DslcError, "missing field 'format'"):
            _capi.binding_plan({"kernel": "k"}, {"world": 2})
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "unknown collective 'bcast'"):
            _capi.binding_plan(self.metadata(), {"collective": "bcast"})


if __name__ == "__main__":
    unittest.main()
