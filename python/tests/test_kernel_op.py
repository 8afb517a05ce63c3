"""dslc::kernel_call's plumbing without torch: the registry keys and how a
call's values split into the op's arguments (python/dslc/_kernel_op.py)."""

import os
import unittest

import _support
import dslc
from dslc import _kernel_op

SMALL = os.path.join(_support.REPO, "examples", "rmsnorm.py")


class KernelOpTest(unittest.TestCase):
    def test_keys_are_stable_and_distinct(self):
        a = dslc.kernel(SMALL, "rmsnorm_kernel")
        b = dslc.kernel(SMALL, "rmsnorm_ref")
        self.assertEqual(_kernel_op.key_of(a), _kernel_op.key_of(a))
        self.assertNotEqual(_kernel_op.key_of(a), _kernel_op.key_of(b))
        self.assertTrue(_kernel_op.key_of(a).endswith(":rmsnorm_kernel"))
        self.assertIs(_kernel_op._kernels[_kernel_op.key_of(b)], b)

    def test_values_split_by_kind(self):
        parts = _kernel_op.split_values({"n": 3, "flag": True, "eps": 1e-6})
        self.assertEqual(parts, ([], [], ["n", "flag"], [3, 1], ["eps"],
                                 [1e-6]))
        self.assertEqual(_kernel_op._values(*parts),
                         {"n": 3, "flag": 1, "eps": 1e-6})
        # a tuple of copies or a handle cannot go through the op
        self.assertIsNone(_kernel_op.split_values({"t": (1, 2)}))
        self.assertIsNone(_kernel_op.split_values({"h": object()}))


if __name__ == "__main__":
    unittest.main()
