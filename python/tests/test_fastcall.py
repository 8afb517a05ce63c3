"""The _fastcall extension (python/dslc/_fastcall.c, stable ABI): each bound
function calls the C address it was given with the arguments converted as
ctypes converts them for the C API's signature (checked through a ctypes
callback typed from dslc._capi.FUNCTIONS, itself checked against CApi.h),
returns the C status, and refuses bad arguments with TypeError /
OverflowError / ValueError before calling C; with the real runtime it gives
the same status and message as ctypes; the package's hot path passes the
tensor's values. No GPU, no torch.

ctest sets DSLC_EXPECT_FASTCALL=1 when the build made the extension: then a
missing extension fails instead of skipping."""

import ctypes
import os
import subprocess
import sys
import unittest

import _support
from dslc import _capi, _collectives, _locate
from dslc.errors import InvalidArgumentError

EXT = os.path.join(_support.build_dir(), "python", "dslc",
                   "_fastcall.abi3.so")
MAX64 = 2**64 - 1


def _extension():
    if not os.path.isfile(EXT):
        if os.environ.get("DSLC_EXPECT_FASTCALL") == "1":
            raise AssertionError(f"the build made no {EXT}")
        raise unittest.SkipTest(f"{EXT} not built (target dslc_fastcall; "
                                "needs python3-dev)")
    os.environ["DSLC_FASTCALL"] = EXT
    _capi._fastcall = None
    return _capi.fastcall()


class Recorder:
    """A C function with `name`'s C API signature (ctypes callback) that
    records its arguments and returns `status`."""

    def __init__(self, name, status=0):
        res, args = _capi.FUNCTIONS[name]
        self.calls, self.status = [], status
        self.cfunc = ctypes.CFUNCTYPE(res, *args)(self._record)
        self.address = ctypes.cast(self.cfunc, ctypes.c_void_p).value

    def _record(self, *args):
        self.calls.append(args)
        return self.status


class FastcallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.saved = os.environ.get("DSLC_FASTCALL")
        cls.ext = _extension()

    @classmethod
    def tearDownClass(cls):
        if cls.saved is None:
            os.environ.pop("DSLC_FASTCALL", None)
        else:
            os.environ["DSLC_FASTCALL"] = cls.saved
        _capi._fastcall = None

    def bound(self, name, status=0):
        rec = Recorder(name, status)
        return self.ext.bind(name, rec.address), rec

    def test_binds_the_hot_functions(self):
        self.assertEqual(tuple(self.ext.FUNCTIONS), _capi.HOT)
        for name in _capi.HOT:
            self.assertEqual(self.bound(name)[0].__name__, name)

    def test_reductions_pass_every_argument(self):
        for name in ("dslcAllReduce", "dslcReduceScatter"):
            f, rec = self.bound(name, status=7)
            self.assertEqual(f(0x1000, 3, 0x2000, 0x3000, 1024, b"bfloat16",
                               b"sum", 0x4000), 7)
            self.assertEqual(rec.calls, [(0x1000, 3, 0x2000, 0x3000, 1024,
                                          b"bfloat16", b"sum", 0x4000)])

    def test_limits_and_none_pass_as_ctypes_would(self):
        f, rec = self.bound("dslcAllReduce")
        self.assertEqual(f(MAX64, -2**31, None, 0, MAX64, None, b"max",
                           None), 0)
        # ctypes gives NULL pointers to a callback as None
        self.assertEqual(rec.calls, [(MAX64, -2**31, None, None, MAX64,
                                      None, b"max", None)])
        f(1, 2**31 - 1, True, 1, 0, b"", b"", 1)
        self.assertEqual(rec.calls[1][1], 2**31 - 1)

    def test_all_gather_and_launch(self):
        f, rec = self.bound("dslcAllGather", status=1)
        self.assertEqual(f(1, 0, 2, 3, 4, b"float32", 5), 1)
        self.assertEqual(rec.calls, [(1, 0, 2, 3, 4, b"float32", 5)])
        f, rec = self.bound("dslcKernelLaunch", status=4)
        self.assertEqual(f(0xdead, 1, 0xbeef, None), 4)
        self.assertEqual(rec.calls, [(0xdead, 1, 0xbeef, None)])

    def test_bad_arguments_raise_before_any_call(self):
        f, rec = self.bound("dslcAllReduce")
        good = [1, 0, 2, 3, 4, b"bfloat16", b"sum", 5]
        cases = [
            (0, "x", TypeError, r"argument 1 \(coll\) must be an int \(an "
             r"address\) or None, not str"),
            (0, -1, OverflowError, r"argument 1 \(coll\) is out of range"),
            (2, 2**64, OverflowError, r"argument 3 \(send\) is out of range"),
            (2, 1.5, TypeError, r"argument 3 \(send\).*not float"),
            (1, 2**31, OverflowError, r"argument 2 \(local\) is out of range "
             r"for a C int"),
            (1, -2**31 - 1, OverflowError, r"argument 2 \(local\)"),
            (1, None, TypeError, r"argument 2 \(local\) must be an int, not "
             r"NoneType"),
            (4, -1, OverflowError, r"argument 5 \(count\) is out of range for "
             r"a size_t"),
            (4, 2**64, OverflowError, r"argument 5 \(count\)"),
            (4, 4.0, TypeError, r"argument 5 \(count\) must be an int"),
            (5, "bfloat16", TypeError, r"argument 6 \(dtype\) must be bytes "
             r"or None, not str"),
            (6, b"s\0m", ValueError, r"argument 7 \(op\) contains a NUL byte"),
            (7, [], TypeError, r"argument 8 \(stream\).*not list"),
        ]
        for i, value, exc, msg in cases:
            args = list(good)
            args[i] = value
            with self.subTest(arg=i, value=value):
                with self.assertRaisesRegex(exc, r"^dslcAllReduce: " + msg):
                    f(*args)
        with self.assertRaisesRegex(TypeError, r"takes 8 arguments \(7 "):
            f(*good[:7])
        with self.assertRaisesRegex(TypeError, r"takes 8 arguments \(9 "):
            f(*good, 0)
        with self.assertRaisesRegex(TypeError, "keyword"):
            f(*good[:7], stream=5)
        self.assertEqual(rec.calls, [])

    def test_bind_refuses_bad_input(self):
        rec = Recorder("dslcAllReduce")
        with self.assertRaisesRegex(ValueError, "'dslcFoo' is not one of"):
            self.ext.bind("dslcFoo", rec.address)
        with self.assertRaisesRegex(ValueError, "NULL address"):
            self.ext.bind("dslcAllReduce", 0)
        with self.assertRaisesRegex(ValueError, "NULL address"):
            self.ext.bind("dslcAllReduce", None)
        with self.assertRaisesRegex(TypeError, r"argument 1 \(name\) must be "
                                    "a str, not bytes"):
            self.ext.bind(b"dslcAllReduce", rec.address)
        with self.assertRaisesRegex(OverflowError, "argument 2 .address."):
            self.ext.bind("dslcAllReduce", -5)
        with self.assertRaisesRegex(TypeError, r"takes 2 arguments"):
            self.ext.bind("dslcAllReduce")

    @unittest.skipUnless(_support.runtime_library(), "runtime not built")
    def test_runtime_gives_the_same_answer_as_ctypes(self):
        # A NULL handle: the runtime's own argument check, both ways.
        for name, args in (
                ("dslcAllReduce", (None, 0, 0, 0, 8, b"bfloat16", b"sum", None)),
                ("dslcReduceScatter", (None, 0, 0, 0, 8, b"bfloat16", b"sum",
                                       None)),
                ("dslcAllGather", (None, 0, 0, 0, 8, b"bfloat16", None)),
                ("dslcKernelLaunch", (None, 0, None, None))):
            fast, slow = _capi.hot(name), _capi.hot(name, fast=False)
            self.assertIsNot(fast, slow)
            self.assertIsInstance(slow, ctypes._CFuncPtr)
            rc = fast(*args)
            msg = _capi.last_error()
            self.assertEqual(rc, _capi.STATUS["DSLC_ERROR_INVALID_ARGUMENT"],
                             name)
            self.assertTrue(msg, name)
            self.assertEqual(slow(*args), rc, name)
            self.assertEqual(_capi.last_error(), msg, name)

    def test_package_hot_path_passes_the_tensor(self):
        rec = Recorder("dslcAllReduce")
        c = _collectives._Coll.__new__(_collectives._Coll)
        c.hv, c.device, c.comm, c.world = 0xc011, 3, None, 1
        c.stream = lambda dev: 0x5000 + dev
        c.all_reduce = self.ext.bind("dslcAllReduce", rec.address)
        dtype = object()
        saved = _collectives._coll
        _collectives._coll = c
        _collectives._dtype_bytes[dtype] = b"bfloat16"
        try:
            t = FakeTensor(dtype, device=3)
            self.assertIs(_collectives._eager_all_reduce(t, "max"), t)
            self.assertEqual(rec.calls, [(0xc011, 0, 0x7000, 0x7000, 1024,
                                          b"bfloat16", b"max", 0x5003)])
            with self.assertRaisesRegex(InvalidArgumentError,
                                        r"^dslc.all_reduce: tensor on cuda:1, "
                                        r"the communicator on cuda:3$"):
                _collectives._eager_all_reduce(FakeTensor(dtype, device=1))
            with self.assertRaisesRegex(InvalidArgumentError,
                                        "^dslc.all_reduce: the tensor is not "
                                        "contiguous$"):
                _collectives._eager_all_reduce(FakeTensor(dtype, 3, False))
            with self.assertRaisesRegex(InvalidArgumentError,
                                        r"^dslc.all_reduce: unknown op 'mean' "
                                        r"\(sum, prod, max, min, avg\)$"):
                _collectives._eager_all_reduce(t, "mean")
            self.assertEqual(len(rec.calls), 1)
        finally:
            _collectives._coll = saved
            del _collectives._dtype_bytes[dtype]


class ForgetTest(unittest.TestCase):
    def test_destroyed_communicator_drops_the_hot_handle(self):
        # Communicator.destroy calls forget before dslcCollectivesDestroy:
        # the next call must make new collectives, not use the freed ones.
        saved = _collectives._coll
        try:
            c = _collectives._Coll.__new__(_collectives._Coll)
            c.comm = mine = object()
            _collectives._coll = c
            _collectives.forget(object())
            self.assertIs(_collectives._coll, c)
            _collectives.forget(mine)
            self.assertIsNone(_collectives._coll)
        finally:
            _collectives._coll = saved


class FakeTensor:
    """What the hot path reads of a torch.Tensor."""

    def __init__(self, dtype, device, contiguous=True):
        self.dtype, self._dev, self._contig = dtype, device, contiguous
        self.device = f"cuda:{device}"

    def get_device(self):
        return self._dev

    def is_contiguous(self):
        return self._contig

    def data_ptr(self):
        return 0x7000

    def numel(self):
        return 1024


class SwitchTest(unittest.TestCase):
    def run_python(self, code, **env):
        e = dict(os.environ, PYTHONPATH=_support.PYTHON_DIR, **env)
        return subprocess.run([sys.executable, "-c", code], env=e,
                              capture_output=True, text=True, timeout=60)

    def test_off_means_ctypes(self):
        r = self.run_python("from dslc import _capi; print(_capi.fastcall())",
                            DSLC_FASTCALL="0")
        self.assertEqual(r.stdout.strip(), "None", r.stderr)

    def test_unloadable_file_is_an_error_naming_it(self):
        r = self.run_python("from dslc import _capi; _capi.fastcall()",
                            DSLC_FASTCALL="/nonexistent/_fastcall.abi3.so")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("RuntimeNotFoundError: dslc: cannot load the fast-call "
                      "extension /nonexistent/_fastcall.abi3.so", r.stderr)
        self.assertIn("DSLC_FASTCALL=0", r.stderr)

    def test_found_in_the_build(self):
        if not os.path.isfile(EXT):
            self.skipTest(f"{EXT} not built")
        r = self.run_python(
            "from dslc import _locate; print(_locate.fastcall_extension())",
            DSLC_BUILD_DIR=_support.build_dir(), DSLC_FASTCALL="")
        self.assertEqual(r.stdout.strip(), EXT, r.stderr)


if __name__ == "__main__":
    unittest.main()
