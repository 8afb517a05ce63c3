"""benchmarks/same_config.py's checks of its arguments, which come before
it needs torch or a GPU."""

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import unittest

_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")
_spec = importlib.util.spec_from_file_location(
    "same_config", os.path.join(_DIR, "same_config.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


class Arguments(unittest.TestCase):
    def run_main(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), \
                self.assertRaises(SystemExit) as cm:
            bench.main(["helion"] + list(argv))
        return str(cm.exception.code) + err.getvalue()

    def test_unknown_case_lists_the_cases(self):
        text = self.run_main("--case", "softmaks", "--impl", "dslc")
        self.assertIn("unknown case 'softmaks'", text)
        self.assertIn("softmax_two_pass", text)

    def test_config_must_be_a_json_object(self):
        self.assertIn("--config is not JSON",
                      self.run_main("--case", "softmax", "--impl", "dslc",
                                    "--config", "{block_sizes: [1]}"))
        self.assertIn("--config must be a JSON object",
                      self.run_main("--case", "softmax", "--impl", "helion",
                                    "--config", "[1, 4096]"))

    def test_torch_is_not_needed_to_reject_them(self):
        self.run_main("--case", "nope", "--impl", "dslc")
        self.assertNotIn("torch", sys.modules)


class ProfileScript(unittest.TestCase):
    """benchmarks/profile_same_config.sh and scripts/device-env.sh refuse
    to start without what they need, before any GPU work."""

    SCRIPT = os.path.join(_DIR, "profile_same_config.sh")
    ENV = os.path.join(_DIR, "..", "scripts", "device-env.sh")

    def run_script(self, *args, env=None):
        full = {k: v for k, v in os.environ.items()
                if k not in ("DSLC_HELION", "OUT", "PY")}
        full.update(env or {})
        return subprocess.run(["bash", self.SCRIPT, *args], env=full,
                              capture_output=True, text=True, timeout=60)

    def test_too_few_arguments_print_the_usage(self):
        r = self.run_script("softmax", "8192")
        self.assertEqual(r.returncode, 2)
        self.assertIn("Usage: benchmarks/profile_same_config.sh", r.stderr)

    def test_needs_the_device_environment(self):
        r = self.run_script("softmax", "8192", "4096", "", "")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("source scripts/device-env.sh", r.stderr)

    def test_device_env_needs_a_tools_archive(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run(
                ["bash", "-c", f'source "{self.ENV}" "{d}/missing.tar.gz"'],
                capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: source scripts/device-env.sh", r.stderr)


if __name__ == "__main__":
    unittest.main()
