"""The plain-Python parts of benchmarks/helion_same_source.py (the GPU
benchmark of one Helion source through Helion and through dslc): the dslc
search space drawn from a kernel's tunables, the derived columns, and the
plan (--dry-run, which needs no torch)."""

import importlib.util
import io
import os
import unittest
from contextlib import redirect_stdout

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                     "helion_same_source.py")
_spec = importlib.util.spec_from_file_location("helion_same_source", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

_ROW_TUNABLES = [
    {"kind": "block_size", "index": 0, "value": 32, "min": 1,
     "max": 1048576},
    {"kind": "num_warps", "value": 4, "min": 1, "max": 32},
]


class Candidates(unittest.TestCase):
    def test_compiled_config_first_then_budget(self):
        got = bench.dslc_candidates(_ROW_TUNABLES, 10)
        self.assertEqual(got[0], {"block_sizes": [32], "num_warps": 4})
        self.assertEqual(len(got), 10)
        self.assertEqual(len({str(c) for c in got}), 10)  # no repeats

    def test_block_sizes_powers_of_two_within_16x(self):
        got = bench.dslc_candidates(_ROW_TUNABLES, 1000)
        blocks = sorted({c["block_sizes"][0] for c in got})
        self.assertEqual(blocks, [2, 4, 8, 16, 32, 64, 128, 256, 512])
        warps = sorted({c["num_warps"] for c in got})
        self.assertEqual(warps, [1, 2, 4, 8, 16, 32])
        # every (block, warps) pair once: 9 x 6
        self.assertEqual(len(got), 54)

    def test_limits_respected(self):
        tunables = [{"kind": "block_size", "value": 1, "min": 1, "max": 4},
                    {"kind": "num_warps", "value": 16, "min": 8, "max": 16}]
        got = bench.dslc_candidates(tunables, 1000)
        self.assertEqual(got[0], {"block_sizes": [1], "num_warps": 16})
        self.assertTrue(all(c["block_sizes"][0] in (1, 2, 4) for c in got))
        self.assertTrue(all(c["num_warps"] in (8, 16) for c in got))

    def test_same_sample_every_run(self):
        self.assertEqual(bench.dslc_candidates(_ROW_TUNABLES, 8),
                         bench.dslc_candidates(_ROW_TUNABLES, 8))


class Derived(unittest.TestCase):
    def test_bandwidth_and_ratios(self):
        rows = [
            {"case": "c", "T": 1, "H": 2, "impl": "copy", "us": 100,
             "bytes": 400e6},
            {"case": "c", "T": 1, "H": 2, "impl": "helion", "us": 120,
             "bytes": 400e6},
            {"case": "c", "T": 1, "H": 2, "impl": "eager", "us": 150,
             "bytes": 400e6},
            {"case": "c", "T": 1, "H": 2, "impl": "dslc", "us": 100,
             "bytes": 400e6},
            {"case": "c", "T": 1, "H": 2, "impl": "compile",
             "error": "status 1: boom"},
        ]
        bench.derive(rows)
        dslc = rows[3]
        self.assertEqual(dslc["GB/s"], "4000")
        self.assertEqual(dslc["pct_hbm"], "83.3")
        self.assertEqual(dslc["pct_copy"], "100.0")
        self.assertEqual(dslc["vs_helion"], "1.200")
        self.assertEqual(dslc["vs_eager"], "1.500")
        self.assertNotIn("vs_helion", rows[1])   # not against itself
        self.assertNotIn("GB/s", rows[4])        # a failed row stays so


class Plan(unittest.TestCase):
    def test_dry_run_without_torch(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = bench.main(["--dry-run", "--cases", "rms_norm,add_rms_norm",
                             "--tokens", "1,8K", "--hidden", "4096"])
        self.assertEqual(rc, 0)
        lines = out.getvalue().split("\n")
        self.assertIn("rms_norm 8192 4096 helion", lines)
        # a dslc example has no Helion twin
        self.assertNotIn("add_rms_norm 1 4096 helion", lines)
        self.assertIn("add_rms_norm 1 4096 dslc", lines)
        self.assertEqual(len([l for l in lines if l]), 2 * 5 + 2 * 4)

    def test_unknown_case_is_an_error(self):
        with self.assertRaises(SystemExit) as e:
            bench.main(["--dry-run", "--cases", "nope"])
        self.assertIn("unknown case 'nope'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
