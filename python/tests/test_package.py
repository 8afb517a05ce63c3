"""The package without a GPU (and, here, without torch): it imports, finds
its pieces, and the paths that need a GPU or torch fail with messages that
say what is missing."""

import importlib
import os
import subprocess
import sys
import unittest
from unittest import mock

import _support
import dslc
from dslc import _capi, _locate


class ImportTest(unittest.TestCase):
    def test_import_does_not_import_torch(self):
        code = ("import sys, dslc; print('torch' in sys.modules); "
                "print(dslc.__version__)")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                           text=True, cwd=_support.PYTHON_DIR)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), ["False", dslc.__version__])

    def test_multicast_stays_off(self):
        self.assertEqual(os.environ["NCCL_NVLS_ENABLE"], "0")
        self.assertEqual(os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"], "1")
        self.assertEqual(os.environ["NVSHMEM_DISABLE_NVLS"], "1")

    def test_public_names_exist(self):
        for name in dslc.__all__:
            self.assertTrue(hasattr(dslc, name), name)


class LocateTest(unittest.TestCase):
    def test_cache_dir_rule(self):
        env = {"HOME": "/home/u"}
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(_locate.cache_dir(), "/home/u/.cache/dslc")
        with mock.patch.dict(os.environ, dict(env, XDG_CACHE_HOME="/x"),
                             clear=True):
            self.assertEqual(_locate.cache_dir(), "/x/dslc")
        with mock.patch.dict(os.environ, dict(env, XDG_CACHE_HOME="/x",
                                              DSLC_CACHE_DIR="/c"),
                             clear=True):
            self.assertEqual(_locate.cache_dir(), "/c")
        # The runtime's (the contract's) rule: no guess without a variable.
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(dslc.errors.DslcError,
                                        "no cache directory: none of "
                                        "DSLC_CACHE_DIR, XDG_CACHE_HOME and "
                                        "HOME is set"):
                _locate.cache_dir()
        self.assertEqual(_capi.size_bucket(2047), 10)
        self.assertEqual(_capi.size_bucket(1), 0)

    def test_missing_library_is_named(self):
        with mock.patch.dict(os.environ, {"DSLC_LIBRARY": "/nonexistent/x.so"}):
            with self.assertRaisesRegex(dslc.RuntimeNotFoundError,
                                        "cannot load the runtime "
                                        "/nonexistent/x.so"):
                _capi.load("/nonexistent/x.so")

    def test_bad_nccl_override_is_named(self):
        with mock.patch.dict(os.environ,
                             {"DSLC_NCCL_LIBRARY": "/nonexistent/libnccl.so.2"}):
            with self.assertRaisesRegex(dslc.RuntimeNotFoundError,
                                        "DSLC_NCCL_LIBRARY=/nonexistent"):
                _capi._prepare_nccl()


@unittest.skipIf(_support.torch_available(),
                 "torch is installed: the no-torch messages are not reachable")
class NoTorchTest(unittest.TestCase):
    def test_torch_functions_say_torch_is_needed(self):
        from dslc import _torch
        with self.assertRaisesRegex(dslc.NeedsTorchError,
                                    "dslc.empty needs PyTorch"):
            _torch.torch("dslc.empty")
        with self.assertRaisesRegex(dslc.NeedsTorchError, "needs PyTorch"):
            dslc.synchronize()


@unittest.skipIf(_support.runtime_library() is None,
                 "SKIPPED: libdslc_runtime.so not built")
class NoGpuTest(unittest.TestCase):
    def setUp(self):
        _capi.load(_support.runtime_library())
        if dslc.device_count() > 0:
            self.skipTest("a GPU is visible: the no-GPU path is not "
                          "exercised here")

    def test_init_reports_no_device(self):
        with mock.patch.dict(os.environ):
            for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
                os.environ.pop(k, None)
            with self.assertRaises(dslc.NoDeviceError) as cm:
                dslc.init()
        self.assertIn("dslc.init", str(cm.exception))
        self.assertIn("cudaGetDeviceCount", str(cm.exception))
        self.assertFalse(dslc.initialized())

    def test_runtime_info_without_gpu(self):
        info = dslc.runtime_info()
        self.assertEqual(info["devices"], 0)
        self.assertIn("libnccl", os.path.basename(info["nccl_library"]))
        self.assertEqual(len(info["nccl_files_mapped"]), 1)
        self.assertRegex(info["nccl_version"], r"^2\.\d+\.\d+$")

    def test_cli_info(self):
        env = dict(os.environ, DSLC_BUILD_DIR=_support.build_dir())
        p = subprocess.run([sys.executable, "-m", "dslc", "info"],
                           capture_output=True, text=True, env=env,
                           cwd=_support.PYTHON_DIR)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"nccl_library: .*libnccl")
        self.assertIn("devices: 0", p.stdout)


if __name__ == "__main__":
    unittest.main()


class ReadmeExampleTest(unittest.TestCase):
    """The README's PyTorch example (run on GPUs by tests/gpu/run.sh) is
    valid Python and uses only what the package exports."""

    def test_readme_example(self):
        import ast
        import re
        with open(os.path.join(_support.REPO, "README.md")) as f:
            text = f.read()
        m = re.search(r"readme-torch-example.*?\n```python\n(.*?)\n```",
                      text, re.S)
        self.assertIsNotNone(m, "README.md lost its marked PyTorch example")
        code = m.group(1)
        self.assertLessEqual(len(code.splitlines()), 15)
        tree = ast.parse(code)
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == "dslc"}
        self.assertTrue(used >= {"init", "empty", "kernel", "all_reduce"})
        for name in used:
            self.assertTrue(hasattr(dslc, name), f"dslc.{name}")
        for path in re.findall(r'"(examples/[^"]+\.py)"', code):
            self.assertTrue(os.path.isfile(os.path.join(_support.REPO, path)))
