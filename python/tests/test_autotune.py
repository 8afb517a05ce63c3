"""autotune=True for any kernel (issue 25): a kernel that is no collective
is tuned against the DSL reference the caller names, at the call's shapes,
through the tuner's any-kernel mode. No GPU here: the tuner's command line
is checked, the tuner itself is stood in for."""

import os
import subprocess
import tempfile
import unittest
from unittest import mock

import _support
import dslc
from dslc import _compile, _locate
from dslc.errors import CompileError, InvalidArgumentError

FUSED = os.path.join(_support.REPO, "tests", "examples", "Inputs",
                     "all_reduce_bias_silu.py")


class AutotuneAnyKernelTest(unittest.TestCase):
    def test_needs_a_collective_or_a_reference(self):
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "autotune=True needs collective=.* or "
                                    "reference='FILE.py:NAME'"):
            dslc.kernel(FUSED, "all_reduce_bias_silu_kernel", autotune=True)

    def test_reference_resolution(self):
        k = dslc.kernel(FUSED, "all_reduce_bias_silu_kernel", autotune=True,
                        reference="all_reduce_bias_silu.py:"
                                  "all_reduce_bias_silu_ref")
        self.assertEqual(k.reference,
                         FUSED + ":all_reduce_bias_silu_ref")
        # A bare NAME is a kernel of the same file.
        k = dslc.kernel(FUSED, "all_reduce_bias_silu_kernel", autotune=True,
                        reference="all_reduce_bias_silu_ref")
        self.assertTrue(k.reference.endswith(":all_reduce_bias_silu_ref"))
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "reference 'nope.py:ref': no file"):
            dslc.kernel(FUSED, "all_reduce_bias_silu_kernel", autotune=True,
                        reference="nope.py:ref")
        with self.assertRaisesRegex(InvalidArgumentError,
                                    "reference= is 'FILE.py:NAME'"):
            dslc.kernel(FUSED, "all_reduce_bias_silu_kernel", autotune=True,
                        reference="")

    def test_tuner_command_line(self):
        source = dslc.kernel(FUSED, "all_reduce_bias_silu_kernel").source
        calls = []

        def run(argv, **kw):
            calls.append(argv)
            return subprocess.CompletedProcess(argv, 0, "", "")

        with tempfile.TemporaryDirectory() as cache, \
                mock.patch.object(_compile, "is_tuned", return_value=False), \
                mock.patch.object(_locate, "tuner", return_value="/t/tuner"), \
                mock.patch.object(_locate, "compiler", return_value="/t/dslc"), \
                mock.patch.object(_locate, "cache_dir", return_value=cache), \
                mock.patch.object(subprocess, "run", side_effect=run):
            _compile.autotune_with_reference(
                source, FUSED + ":all_reduce_bias_silu_ref", 1, "bfloat16",
                7 * 2048, shapes={"x": (7, 2048), "bias": (2048,)},
                signature={"x": "float16[2]"}, defines={"H": 2048},
                scalars={"alpha": 0.5}, extra_args=("--timeout-ms", "100"))
        self.assertEqual(len(calls), 1)
        argv = calls[0]
        self.assertEqual(argv[:3], ["/t/tuner", "-k", source.path +
                                    ":all_reduce_bias_silu_kernel"])
        joined = " ".join(argv)
        self.assertIn("--reference " + FUSED + ":all_reduce_bias_silu_ref",
                      joined)
        self.assertIn("--world-size 1", joined)
        self.assertIn("--shape bias=2048,x=7x2048", joined)
        self.assertIn("--scalar alpha=0.5", joined)
        # Constexprs reach kernel and reference; dtypes and extra flags
        # only the candidates (the reference keeps its annotations).
        self.assertIn("--dslc-arg=-D --dslc-arg=H=2048", joined)
        self.assertIn("--kernel-arg=--signature --kernel-arg=x=float16[2]",
                      joined)
        self.assertIn("--kernel-arg=--timeout-ms --kernel-arg=100", joined)

    def test_a_tuned_size_is_not_tuned_again(self):
        source = dslc.kernel(FUSED, "all_reduce_bias_silu_kernel").source
        with mock.patch.object(_compile, "is_tuned", return_value=True), \
                mock.patch.object(subprocess, "run") as run:
            _compile.autotune_with_reference(
                source, FUSED + ":all_reduce_bias_silu_ref", 1, "bfloat16",
                4096, shapes={}, signature={}, defines={}, scalars={})
        run.assert_not_called()

    def test_a_failed_tuning_is_an_error_with_the_tuner_output(self):
        source = dslc.kernel(FUSED, "all_reduce_bias_silu_kernel").source

        def run(argv, **kw):
            return subprocess.CompletedProcess(argv, 1, "",
                                               "tuner: error: boom")

        with mock.patch.object(_compile, "is_tuned", return_value=False), \
                mock.patch.object(_locate, "tuner", return_value="/t/tuner"), \
                mock.patch.object(_locate, "compiler", return_value="/t/dslc"), \
                mock.patch.object(subprocess, "run", side_effect=run):
            with self.assertRaisesRegex(CompileError,
                                        "tuning all_reduce_bias_silu_kernel "
                                        "at its call's shapes failed "
                                        "\\(exit 1\\):\\ntuner: error: boom"):
                _compile.autotune_with_reference(
                    source, FUSED + ":all_reduce_bias_silu_ref", 1,
                    "bfloat16", 4096, shapes={}, signature={}, defines={},
                    scalars={})


if __name__ == "__main__":
    unittest.main()
