"""A kernel's repeated positional calls (Kernel._fast_key and
_Instance.launch_bound): a call like an earlier one (tensors of the same
dtypes, shapes, strides and device; the same constexprs) skips the argument
checks and only rebinds new addresses; any other call takes the full path.
Without a GPU: a stand-in torch and runtime."""

import types
import unittest
from unittest import mock

import _support
import dslc
from dslc import _comm, _instance, _torch

SOURCE = """
import torch
import helion
import helion.language as hl

@helion.kernel()
def scale(x: torch.Tensor[torch.float32, 1], s: float, n: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * s
    return out
"""


assert _support.PYTHON_DIR  # the package on the path


class FakeTensor:
    def __init__(self, ptr, shape=(8,), dtype="f32", stride=(1,),
                 device="cuda:0", requires_grad=False):
        self.ptr, self.shape, self.dtype = ptr, shape, dtype
        self._stride, self.device = stride, device
        self.requires_grad = requires_grad

    def stride(self):
        return self._stride

    def data_ptr(self):
        return self.ptr


class FakeInstance:
    def __init__(self):
        self.handle, self.calls = 1, []

    def launch(self, values, made=False):
        self.calls.append(("launch", dict(values)))
        return "full"

    def launch_bound(self, values):
        self.calls.append(("bound", dict(values)))
        return "fast"


class FastKeyTest(unittest.TestCase):
    def setUp(self):
        patches = [
            mock.patch.object(_torch, "_torch",
                              types.SimpleNamespace(Tensor=FakeTensor)),
            mock.patch.object(_comm, "_default", object()),
        ]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        self.k = dslc.kernel(source=SOURCE, name="scale")

    def test_keys_follow_what_the_instance_depends_on(self):
        def key(args, **kwargs):
            return self.k._fast_key(args, kwargs)
        base = key((FakeTensor(1), 2.0, 4))
        self.assertIsNotNone(base)
        # other addresses and another runtime scalar: the same instance
        self.assertEqual(base, key((FakeTensor(2), 3.5, 4)))
        # another dtype, shape, strides, device or constexpr: another key
        for other in [(FakeTensor(1, dtype="f16"), 2.0, 4),
                      (FakeTensor(1, shape=(9,)), 2.0, 4),
                      (FakeTensor(1, stride=(2,)), 2.0, 4),
                      (FakeTensor(1, device="cuda:1"), 2.0, 4),
                      (FakeTensor(1), 2.0, 8),
                      (FakeTensor(1), 2, 4)]:
            self.assertNotEqual(base, key(other), other)
        # the full path's cases: grad, other objects, too many arguments
        self.assertIsNone(key((FakeTensor(1, requires_grad=True), 2.0, 4)))
        self.assertIsNone(key(([1.0], 2.0, 4)))
        self.assertIsNone(key((FakeTensor(1), 2.0, 4, 5)))
        with mock.patch.object(_comm, "_default", None):
            self.assertIsNone(key((FakeTensor(1), 2.0, 4)))
        # keywords: by name, in any order; an output passed by name, or a
        # parameter given twice, takes the full path
        by_name = key((FakeTensor(1),), s=2.0, n=4)
        self.assertIsNotNone(by_name)
        self.assertEqual(by_name, key((FakeTensor(5),), n=4, s=7.0))
        self.assertNotEqual(by_name, key((FakeTensor(1),), s=2.0, n=8))
        self.assertIsNone(key((FakeTensor(1), 2.0), out=FakeTensor(9)))
        self.assertIsNone(key((FakeTensor(1), 2.0), s=2.0))

    def test_a_repeated_call_skips_the_full_path(self):
        inst = FakeInstance()
        with mock.patch.object(self.k, "_instance_for",
                               return_value=inst) as full:
            self.assertEqual(self.k._call(FakeTensor(1), 2.0, 4), "full")
            self.assertEqual(self.k._call(FakeTensor(2), 3.0, 4), "fast")
            self.assertEqual(full.call_count, 1)
            self.assertEqual(inst.calls[1][1]["s"], 3.0)
            # a keyword call: its first time full, then fast, with the
            # keyword's value bound
            self.assertEqual(self.k._call(FakeTensor(1), s=2.0, n=4), "full")
            self.assertEqual(self.k._call(FakeTensor(2), n=4, s=5.0), "fast")
            self.assertEqual(inst.calls[-1][1]["s"], 5.0)
            # a new shape, a released instance: the full path
            self.k._call(FakeTensor(1, shape=(16,)), 2.0, 4)
            self.assertEqual(full.call_count, 3)
            inst.handle = None
            self.assertEqual(self.k._call(FakeTensor(3), 2.0, 4), "full")
            self.assertEqual(full.call_count, 4)


    def test_the_fast_keys_are_bounded(self):
        from dslc import _kernel
        with mock.patch.object(self.k, "_instance_for",
                               return_value=FakeInstance()), \
                mock.patch.object(_kernel, "_MAX_FAST_KEYS", 2):
            for n in range(5):
                self.k._call(FakeTensor(1), 2.0, n)
                self.assertLessEqual(len(self.k._fast), 2)


    def test_the_full_path_still_checks_the_arguments(self):
        from dslc.errors import InvalidArgumentError
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "parameter 's' given twice"):
            self.k._map_args((FakeTensor(1), 2.0), {"s": 3.0})
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "has no parameter 'nope'"):
            self.k._map_args((FakeTensor(1),), {"nope": 3.0})
        self.assertEqual(
            self.k._map_args((FakeTensor(1), None), {"n": 4}).keys(),
            {"x", "n"})


class LaunchBoundTest(unittest.TestCase):
    def test_plain_tensors_are_rebound_by_address_only(self):
        inst = object.__new__(_instance._Instance)
        inst.plain = {"x"}
        inst.margs = {"x": None, "s": None}
        inst.last = {"x": (0x100, (8,), None, "float32")}
        set_tensor, bind, run = mock.Mock(), mock.Mock(), mock.Mock()
        inst._set_tensor, inst._bind_value, inst._run = set_tensor, bind, run
        inst.launch_bound({"x": FakeTensor(0x100), "s": 2.0})
        set_tensor.assert_not_called()          # same address: nothing
        bind.assert_called_once_with("s", 2.0)  # scalars as launch binds
        inst.launch_bound({"x": FakeTensor(0x200), "s": 2.0})
        set_tensor.assert_called_once_with("x", 0x200, "float32", (8,), None)
        self.assertEqual(inst.last["x"][0], 0x200)
        self.assertEqual(run.call_count, 2)


if __name__ == "__main__":
    unittest.main()
