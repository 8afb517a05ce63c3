"""The plain-Python parts of benchmarks/helion_same_source.py (the GPU
benchmark of one Helion source through Helion and through dslc): dslc
tuned by the tuner, the derived columns, and the plan (--dry-run, which
needs no torch)."""

import importlib.util
import io
import os
import unittest
from contextlib import redirect_stderr, redirect_stdout

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                     "helion_same_source.py")
_spec = importlib.util.spec_from_file_location("helion_same_source", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

class Search(unittest.TestCase):
    def test_budget_is_the_tuners_seconds(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = bench.main(["--dry-run", "--cases", "rms_norm", "--tokens",
                             "1", "--hidden", "4096", "--budget-s", "12"])
        self.assertEqual(rc, 0)


class Csv(unittest.TestCase):
    def test_rows_reach_the_csv_as_they_finish(self):
        # A run killed after its second row (a device call's time limit)
        # leaves both rows, with their derived columns, beside the CSV's
        # earlier ones.
        import tempfile
        fake = iter([{"us": 10.0, "bytes": 1e6}, {"us": 20.0, "bytes": 1e6}])

        def run_one(opts, case, T, H, impl):
            row = next(fake, None)
            if row is None:
                raise KeyboardInterrupt
            return dict(row, case=case, T=T, H=H, impl=impl)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ss.csv")
            bench.write_csv(path, [{"case": "rms_norm", "T": 1, "H": 4096,
                                    "impl": "eager", "us": "5"}])
            saved, bench.run_one = bench.run_one, run_one
            try:
                with redirect_stdout(io.StringIO()):
                    with self.assertRaises(KeyboardInterrupt):
                        bench.main(["--cases", "rms_norm", "--tokens", "8192",
                                    "--hidden", "4096", "--impls",
                                    "copy,dslc,eager", "--csv", path])
            finally:
                bench.run_one = saved
            with open(path) as f:
                rows = list(bench.csv.DictReader(f))
        self.assertEqual([r["impl"] for r in rows], ["eager", "copy", "dslc"])
        self.assertEqual(rows[2]["pct_copy"], "50.0")
        self.assertEqual(rows[2]["GB/s"], "50")


class Workers(unittest.TestCase):
    def test_worker_arguments_parse(self):
        # Each row runs in a worker process started with worker_args: its
        # arguments must be main's own (a --checkout flag was not).
        opts = bench.parser().parse_args(
            ["/snap/helion", "--budget-s", "7", "--reps", "3"])
        argv = bench.worker_args(opts, "rms_norm", 8192, 4096, "dslc")
        w = bench.parser().parse_args(argv)
        self.assertEqual((w.worker, w.case, w.shape, w.checkout, w.budget_s,
                          w.reps),
                         ("dslc", "rms_norm", "8192x4096", "/snap/helion",
                          7.0, 3))


class EarlierHelionConfigs(unittest.TestCase):
    ROW = ("quick: Config(block_sizes=[1, 4096], indexing=['pointer', "
           "'tensor_descriptor'], num_warps=16, pid_type='flat', "
           "range_flattens=[None])")

    def test_config_column_reads_as_keywords(self):
        self.assertEqual(bench.helion_config_kwargs(self.ROW),
                         {"block_sizes": [1, 4096],
                          "indexing": ["pointer", "tensor_descriptor"],
                          "num_warps": 16, "pid_type": "flat",
                          "range_flattens": [None]})
        self.assertIsNone(bench.helion_config_kwargs("quick"))

    def test_dslc_config_column_names_each_loads_hint(self):
        # the metadata's tunables as dslc's column shows them: a block by
        # its index, a load's cache hint by its load (2: last)
        self.assertEqual(bench._tunables_config([
            {"kind": "block_size", "index": 0, "value": 1},
            {"kind": "num_warps", "value": 8},
            {"kind": "load_eviction", "loads": 2, "load": 0, "value": 2},
            {"kind": "load_eviction", "loads": 2, "load": 1, "value": 0}]),
            {"block_size[0]": 1, "num_warps": 8, "load_eviction[0]": 2,
             "load_eviction[1]": 0})

    def test_only_literals_are_read(self):
        with self.assertRaises(ValueError):
            bench.helion_config_kwargs("quick: Config(num_warps=__import__"
                                       "('os').getpid())")

    def test_the_last_helion_row_of_the_shape_is_taken(self):
        import csv
        import tempfile
        rows = [("rms_norm", 8192, 4096, "helion", "quick: Config(num_warps=4)", ""),
                ("rms_norm", 8192, 4096, "helion", "quick: Config(num_warps=8)", ""),
                ("rms_norm", 8192, 4096, "helion", "quick: Config(num_warps=2)",
                 "status 1: wrong"),
                ("rms_norm", 8192, 4096, "dslc", "{}", ""),
                ("rms_norm", 2048, 4096, "helion", "quick: Config(num_warps=1)", "")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "earlier.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["case", "T", "H", "impl", "config", "error"])
                w.writerows(rows)
            self.assertEqual(
                bench.earlier_helion_config(path, "rms_norm", 8192, 4096),
                {"num_warps": 8})
            self.assertIsNone(
                bench.earlier_helion_config(path, "softmax", 8192, 4096))
            opts = bench.parser().parse_args(
                ["/snap/helion", "--helion-configs", path])
            w = bench.parser().parse_args(
                bench.worker_args(opts, "rms_norm", 8192, 4096, "helion"))
            self.assertEqual(w.helion_configs, path)


class FixedDslcConfigs(unittest.TestCase):
    def test_items_parse_per_case_and_reach_the_worker(self):
        items = ['embedding={"block_sizes": [1, 256], "num_warps": 2}',
                 'jsd={"block_sizes": [4096, 1], "num_warps": 8}']
        self.assertEqual(bench.dslc_configs(items),
                         {"embedding": {"block_sizes": [1, 256],
                                        "num_warps": 2},
                          "jsd": {"block_sizes": [4096, 1], "num_warps": 8}})
        opts = bench.parser().parse_args(
            ["/snap/helion"] + [a for i in items for a in ("--dslc-config",
                                                           i)])
        w = bench.parser().parse_args(
            bench.worker_args(opts, "jsd", 8192, 4096, "dslc"))
        self.assertEqual(bench.dslc_configs(w.dslc_config)["jsd"],
                         {"block_sizes": [4096, 1], "num_warps": 8})

    def test_bad_items_are_usage_errors_naming_them(self):
        for item, says in (("jsd", "give CASE={...}"),
                           ("jsd=[1, 2]", "give CASE={...}"),
                           ("jsd={bad", "--dslc-config jsd={bad"),
                           ('nope={"num_warps": 2}', "unknown case 'nope'")):
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, \
                    redirect_stderr(err), redirect_stdout(io.StringIO()):
                bench.main(["--dry-run", "--dslc-config", item])
            self.assertEqual(e.exception.code, 2)
            self.assertIn(says, err.getvalue())


class Failures(unittest.TestCase):
    def test_the_error_line_is_kept(self):
        err = ("Traceback (most recent call last):\n  File x\n"
               "dslc.errors.CompileError: dslc: compiling k failed:\n"
               "k.py:3:5: error: no such thing\n1 error generated.\n")
        self.assertEqual(
            bench.failure_text(err),
            "k.py:3:5: error: no such thing ... 1 error generated.")
        self.assertEqual(bench.failure_text("boom\n"), "boom")
        self.assertEqual(bench.failure_text(""), "?")


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

    def test_earlier_rows_of_the_csv_count(self):
        # a run appending to a CSV whose copy and Helion rows came before
        earlier = [{"case": "c", "T": "1", "H": "2", "impl": "copy",
                    "us": "100", "bytes": "400000000"},
                   {"case": "c", "T": "1", "H": "2", "impl": "helion",
                    "us": "150", "bytes": "400000000", "GB/s": "2667"}]
        rows = [{"case": "c", "T": 1, "H": 2, "impl": "dslc", "us": 125,
                 "bytes": 400e6}]
        bench.derive(rows, earlier)
        self.assertEqual(rows[0]["pct_copy"], "80.0")
        self.assertEqual(rows[0]["vs_helion"], "1.200")
        self.assertNotIn("vs_eager", rows[0])
        self.assertEqual(earlier[1]["GB/s"], "2667")   # left as read
        self.assertNotIn("pct_copy", earlier[1])


class Bytes(unittest.TestCase):
    def test_a_gather_counts_the_rows_it_names(self):
        # embedding reads the distinct rows its indices name (not the
        # whole table) and writes one row per index
        class T:
            def __init__(self, shape, size, values=()):
                self.shape, self.size, self.values = shape, size, values

            def numel(self):
                n = 1
                for d in self.shape:
                    n *= d
                return n

            def element_size(self):
                return self.size

            def unique(self):
                v = sorted(set(self.values))
                return T([len(v)], self.size, v)
        x = T([5], 4, [3, 3, 7, 1, 7])            # 3 distinct of 5
        weight = T([32768, 1024], 2)
        self.assertEqual(bench._embedding_bytes(None, x, weight),
                         5 * 4 + (3 + 5) * 1024 * 2)

    def test_jsd_reads_both_rows_and_writes_two_floats_a_row(self):
        # jsd_forward's dX is [T] (a row's summed gradient), not [T, V]:
        # counting it as [T, V] put dslc above the H100's HBM peak
        class T:
            shape = (8192, 4096)

            def numel(self):
                return 8192 * 4096

            def element_size(self):
                return 4
        self.assertEqual(bench._jsd_bytes(None, T(), T()),
                         2 * 8192 * 4096 * 4 + 2 * 8192 * 4)

    def test_every_case_lists_without_torch(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = bench.main(["--dry-run", "--cases", ",".join(
                c.name for c in bench._cases()), "--tokens", "1",
                "--hidden", "4096", "--impls", "helion"])
        self.assertEqual(rc, 0)
        # every case but the dslc-only one has a Helion row
        self.assertEqual(len(out.getvalue().split()) // 4,
                         len(bench._cases()) - 1)


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
