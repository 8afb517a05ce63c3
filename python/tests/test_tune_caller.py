"""Tuning against a PyTorch reference (python/dslc/_tune_caller.py) without
a GPU or torch: a numpy stand-in for the few torch calls the measurer makes
(events, streams, graphs, isclose), the real tuner searching and caching,
candidates whose results are right, wrong, of another shape, or that fault.
What only a GPU shows (the launches themselves, real times) is
torch_tests.py's torch-reference-autotune."""

import json
import os
import re
import tempfile
import types
import unittest
from unittest import mock

import _support
import dslc
from dslc import _capi, _locate, _timing, _torch, _tune_caller
from dslc.errors import CompileError, InvalidArgumentError

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None


class _DType:
    def __init__(self, name, floating):
        self.name, self.is_floating_point = name, floating


F32, I64 = _DType("float32", True), _DType("int64", False)


class _Tensor:
    """The tensor calls the measurer makes, over a numpy array."""

    def __init__(self, a):
        self.a = np.asarray(a)
        self.dtype = F32 if self.a.dtype.kind == "f" else I64
        self.shape = self.a.shape
        self.device = types.SimpleNamespace(index=0)

    def double(self):
        return _Tensor(self.a.astype(np.float64))

    def to(self, device):
        return self

    def clone(self):
        return _Tensor(self.a.copy())

    def numel(self):
        return self.a.size

    def element_size(self):
        return self.a.itemsize

    def sum(self):
        return int(self.a.sum())

    def nonzero(self):
        return np.argwhere(self.a)

    def __invert__(self):
        return _Tensor(~self.a)

    def __ne__(self, other):
        return _Tensor(self.a != other.a)

    def __getitem__(self, at):
        return types.SimpleNamespace(item=lambda: self.a[at].item())


class _FakeCuda:
    """Events advance a clock by the candidate's cost per call."""

    def __init__(self):
        self.clock, self.cost, self.capturing = 0.0, 1.0, False
        self.graph_fails = False
        outer = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = 0.0

            def record(self):
                self.t = outer.clock

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return (end.t - self.t) / 1e3   # ms

        class Graph:
            def __init__(self):
                self.calls = []

            def replay(self):
                for fn in self.calls:
                    fn()

        class Ctx:
            def __init__(self, graph=None):
                self.graph = graph

            def __enter__(self):
                if self.graph is not None:
                    if outer.graph_fails:
                        raise RuntimeError("operation not permitted when "
                                           "stream is capturing")
                    outer.capturing = self.graph
                return self

            def __exit__(self, *exc):
                outer.capturing = False

        self.Event, self.CUDAGraph = Event, Graph
        self.graph = lambda g: Ctx(g)
        self.stream = lambda s: Ctx()
        self.Stream = lambda device=None: types.SimpleNamespace(
            wait_stream=lambda other: None)
        self.current_stream = lambda device=None: types.SimpleNamespace(
            wait_stream=lambda other: None)
        self.synchronize = lambda device=None: None
        self.trace = []  # flushes, spins and launches, in order
        self._sleep = lambda cycles: self.trace.append(("spin", cycles))

    def run(self, fn):
        """One launch: now, or recorded into the graph being captured."""
        def launch():
            self.clock += self.cost
            self.trace.append("launch")
            return fn()
        if self.capturing:
            self.capturing.calls.append(launch)
            return fn()
        return launch()


def _fake_torch(cuda):
    t = types.SimpleNamespace(cuda=cuda, uint8="uint8")
    t.empty = lambda n, dtype, device: types.SimpleNamespace(
        nbytes=n, zero_=lambda: cuda.trace.append(("flush", n)))
    t.is_tensor = lambda v: isinstance(v, _Tensor)
    t.isclose = lambda a, b, rtol, atol, equal_nan: _Tensor(
        np.isclose(a.a, b.a, rtol=rtol, atol=atol, equal_nan=equal_nan))
    return t


_CONFIG = re.compile(_support.CANDIDATE_CONFIG)


@unittest.skipIf(np is None, "needs numpy")
class MeasurerTest(unittest.TestCase):
    def setUp(self):
        self.cuda = _FakeCuda()
        patches = [
            mock.patch.object(_torch, "_torch", _fake_torch(self.cuda)),
            mock.patch.object(_torch, "dtype_name", lambda d: d.name),
            mock.patch.object(_capi, "tuner_device_info", lambda d: {
                "device": "Stand-in GPU", "driver": "none",
                "memory_bytes_per_s": 4.8e12, "l2_bytes": 50 << 20}),
            mock.patch.object(_capi, "times_below_floor", self.floor),
        ]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        self.want = [_Tensor(np.arange(8, dtype=np.float32) * 2)]
        self.floor_why = ""
        self.released = 0

    def floor(self, device, eager, graph, nbytes):
        self.floor_bytes = nbytes
        return self.floor_why

    def runner_of(self, results, cost=1.0, fault=None):
        def runner(cubin, metadata):
            self.metadata = metadata
            self.cuda.cost = cost

            def call():
                return self.cuda.run(lambda: [_Tensor(r) for r in results])

            def check():
                if fault:
                    raise fault

            def release():
                self.released += 1
            return call, check, release
        return runner

    def measure(self, runner, **req):
        with _tune_caller.Measurer(0, self.want, runner) as m:
            rep = m.handle(dict({"op": "measure", "cubin": "k.r{rank}.cubin",
                                 "iters": 10, "graph_replays": 10,
                                 "repetitions": 3}, **req))
            return rep, m

    def test_a_right_candidate_is_timed_per_call(self):
        rep, m = self.measure(self.runner_of([np.arange(8) * 2.0], cost=7.0))
        self.assertTrue(rep["ok"], rep)
        self.assertAlmostEqual(rep["eager_us"], 7.0)
        self.assertAlmostEqual(rep["graph_us"], 7.0)
        self.assertEqual(self.floor_bytes, 8 * 8)   # the results' bytes
        self.assertEqual((m.measured, m.wrong, self.released), (1, [], 1))

    def test_each_eager_sample_is_l2_cold_with_its_host_part_covered(self):
        # the tuner's info (the L2's size) comes before any measure
        with _tune_caller.Measurer(0, self.want, self.runner_of(
                [np.arange(8) * 2.0], cost=7.0)) as m:
            self.assertTrue(m.handle({"op": "info"})["ok"])
            rep = m.handle({"op": "measure", "cubin": "k.cubin",
                            "repetitions": 3, "iters": 2,
                            "graph_replays": 2})
        self.assertTrue(rep["ok"], rep)
        trace = self.cuda.trace
        # the checked call, then 1 + 3 timed samples (repetitions: more
        # than iters), each after a flush of twice the L2 and a spin; then
        # the graph's launches (hot)
        self.assertEqual(trace[0], "launch")
        cold = trace[1:1 + 4 * 3]
        self.assertEqual(cold, [("flush", 100 << 20),
                                ("spin", _timing.HOST_COVER_CYCLES),
                                "launch"] * 4)
        self.assertNotIn(("flush", 100 << 20), trace[13:])

    def test_a_wrong_candidate_is_counted_with_its_first_difference(self):
        got = np.arange(8) * 2.0
        got[5] = 99
        rep, m = self.measure(self.runner_of([got]))
        self.assertFalse(rep["ok"])
        self.assertEqual(rep["mismatches"], 1)
        self.assertIn("result 0[5]: 99.0 (reference 10.0)", rep["reason"])
        self.assertEqual(len(m.wrong), 1)
        self.assertEqual(self.released, 1)

    def test_results_of_another_number_or_shape(self):
        rep, _ = self.measure(self.runner_of([np.zeros(8), np.zeros(8)]))
        self.assertIn("the candidate returned 2 tensor(s), the reference 1",
                      rep["reason"])
        rep, _ = self.measure(self.runner_of([np.zeros(4)]))
        self.assertIn("result 0: shape (4,), the reference's (8,)",
                      rep["reason"])

    def test_results_compared_with_a_reference(self):
        # add + RMSNorm writes the out and residual_out it is given and
        # makes nothing: its reference returns those two, in that order
        md = {"params": [{"name": "x", "role": "input"},
                         {"name": "out", "role": "output"},
                         {"name": "scratch", "role": "inout"},
                         {"name": "residual_out", "role": "output"},
                         {"name": "eps", "role": "constexpr"}],
              "outputs": []}
        values = {"x": "X", "out": "O", "scratch": "S", "residual_out": "R"}
        self.assertEqual(_tune_caller.compared_results(md, {}, values),
                         ["O", "R"])
        # a kernel that makes parts and out and returns (out, None, x):
        # out, then x (a parameter it returns), no parts, no host value
        md = {"params": [{"name": "x", "role": "input"}],
              "outputs": [{"name": "parts"}, {"name": "out"}],
              "returns": {"values": ["out", None, "x"], "tuple": True}}
        self.assertEqual(_tune_caller.compared_results(
            md, {"parts": "P", "out": "O"}, {"x": "X"}), ["O", "X"])
        # no return statement: every output made, in order
        del md["returns"]
        self.assertEqual(_tune_caller.compared_results(
            md, {"parts": "P", "out": "O"}, {"x": "X"}), ["P", "O"])
        # an output parameter it returns is not compared twice
        md = {"params": [{"name": "out", "role": "output"}], "outputs": [],
              "returns": {"values": ["out"], "tuple": False}}
        self.assertEqual(_tune_caller.compared_results(
            md, {}, {"out": "O"}), ["O"])

    def test_tolerance(self):
        got = np.arange(8) * 2.0 + 1e-3
        rep, _ = self.measure(self.runner_of([got]))
        self.assertFalse(rep["ok"])          # float32: 1e-4 / 1e-5
        with _tune_caller.Measurer(0, self.want, self.runner_of([got]),
                                   tolerance=(0, 1e-2)) as m:
            self.assertTrue(m.handle({"op": "measure",
                                      "cubin": "k.cubin"})["ok"])

    def test_a_fault_is_fatal_and_a_refusal_is_not(self):
        from dslc.errors import KernelError
        rep, _ = self.measure(self.runner_of(
            [np.arange(8) * 2.0], fault=KernelError("trap at k.py:3:5", [])))
        self.assertEqual((rep["ok"], rep["fatal"]), (False, True))
        self.assertIn("trap at k.py:3:5", rep["reason"])
        rep, _ = self.measure(self.runner_of(
            [np.arange(8) * 2.0], fault=InvalidArgumentError("bad size")))
        self.assertNotIn("fatal", rep)

    def test_below_the_floor_is_refused(self):
        self.floor_why = "the eager time of a call: 0.01 us is below ..."
        rep, _ = self.measure(self.runner_of([np.arange(8) * 2.0]))
        self.assertFalse(rep["ok"])
        self.assertEqual(rep["reason"], self.floor_why)

    def test_past_the_cutoff_one_call_is_the_time(self):
        # the tuner's cutoff (a multiple of its best so far): a candidate
        # slower than it in one timed call is not timed further
        launches = []
        runner = self.runner_of([np.arange(8) * 2.0], cost=7.0)

        def counting(cubin, metadata):
            call, check, release = runner(cubin, metadata)
            return (lambda: launches.append(1) or call()), check, release
        rep, _ = self.measure(counting, cutoff_us=5.0)
        self.assertTrue(rep["ok"], rep)
        self.assertTrue(rep["cut_off"])
        self.assertAlmostEqual(rep["eager_us"], 7.0)
        self.assertAlmostEqual(rep["graph_us"], 7.0)
        self.assertEqual(len(launches), 2)   # the checked call, the timed one
        launches.clear()
        rep, _ = self.measure(counting, cutoff_us=8.0)
        self.assertFalse(rep["cut_off"])
        # the checked call, 1 + 10 cold samples (iters), the graph's
        # side-stream call and its 10 captured ones
        self.assertEqual(len(launches), 23)

    def test_host_code_that_cannot_be_captured_is_timed_eagerly(self):
        self.cuda.graph_fails = True
        rep, _ = self.measure(self.runner_of([np.arange(8) * 2.0], cost=3.0))
        self.assertTrue(rep["ok"])
        self.assertAlmostEqual(rep["graph_us"], 3.0)
        self.assertIn("not captured in a CUDA graph", rep["note"])

    def test_a_grid_cap_is_a_metadata_copy(self):
        with tempfile.TemporaryDirectory() as d:
            cubin = os.path.join(d, "k.cubin")
            with open(cubin + ".json", "w") as f:
                json.dump({"grid": {"max_ctas": 32}, "kernel": "k"}, f)
            self.measure(self.runner_of([np.arange(8) * 2.0]),
                         cubin=cubin, max_ctas=8)
            self.assertIsNotNone(self.metadata)
            self.measure(self.runner_of([np.arange(8) * 2.0]),
                         cubin=cubin, max_ctas=0)
            self.assertIsNone(self.metadata)

    def test_info_describes_the_gpu_for_the_cache(self):
        with _tune_caller.Measurer(0, self.want, None) as m:
            info = m.handle({"op": "info"})
        self.assertEqual((info["ok"], info["world_size"], info["device"]),
                         (True, 1, "Stand-in GPU"))

    def test_tune_calls_with_the_real_tuner(self):
        build = _support.build_dir()
        tuner = os.path.join(build, "bin", "tuner")
        dslc_bin = os.path.join(build, "bin", "dslc")
        if not (os.path.isfile(tuner) and os.path.isfile(dslc_bin) and
                _support.runtime_library()):
            self.skipTest("needs the built tuner, dslc and runtime library")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "scale.py")
            with open(path, "w") as f:
                f.write(_support.SCALE_KERNEL)
            source = dslc.kernel(path, "scale").source
            seen, launches = [], {}

            def runner(cubin, metadata):
                bs, w = map(int, _CONFIG.search(cubin).groups())
                seen.append((bs, w))
                self.cuda.cost = 5 + abs(bs.bit_length() - 12) + abs(w - 4) / 64
                if bs == 4096:
                    self.cuda.cost = 5000        # far past the cutoff
                out = np.arange(8) * 2.0
                if bs == 512:
                    out[0] = 1                   # a wrong config

                def call():
                    launches[bs, w] = launches.get((bs, w), 0) + 1
                    return self.cuda.run(lambda: [_Tensor(out)])
                return call, lambda: None, lambda: None
            with mock.patch.object(_locate, "cache_dir",
                                   return_value=os.path.join(d, "cache")), \
                    mock.patch.object(_locate, "tuner", return_value=tuner), \
                    mock.patch.object(_locate, "compiler",
                                      return_value=dslc_bin):
                done = _tune_caller.tune_calls(
                    source, {"shapes": {"x": (1 << 16,)}}, dtype="float32",
                    n=1 << 16, device=0, want=self.want, runner=runner)
                again = _tune_caller.tune_calls(
                    source, {"shapes": {"x": (1 << 16,)}}, dtype="float32",
                    n=1 << 16, device=0, want=self.want, runner=runner)
            self.assertIsNone(again)             # cached: not tuned twice
            self.assertEqual(done["measured"], len(seen))
            self.assertTrue(any("/bs512_" in c for c, _ in done["wrong"]))
            with open(os.path.join(d, "cache", "tuning.json")) as f:
                pick = json.load(f)["entries"][0]["value"]["pick"]
            self.assertEqual(pick["config"]["block_sizes"], [2048])
            self.assertEqual(pick["config"]["num_warps"], 4)
            # the slow configs, measured after faster ones, took the
            # checked call and one timed call; the others a full timing
            slow = [c for c in seen if c[0] == 4096]
            self.assertTrue(slow)
            self.assertTrue(all(launches[c] == 2 for c in slow), launches)
            self.assertTrue(all(launches[c] > 10 for c in seen
                                if c[0] not in (4096, 512)), launches)
            # a tuner that fails: its output in the error
            with mock.patch.object(_locate, "cache_dir",
                                   return_value=os.path.join(d, "c2")), \
                    mock.patch.object(_locate, "tuner", return_value=tuner), \
                    mock.patch.object(_locate, "compiler",
                                      return_value=dslc_bin):
                with self.assertRaisesRegex(CompileError,
                                            "tuning scale at its call's "
                                            "shapes failed"):
                    _tune_caller.tune_calls(
                        source, {"shapes": {"x": (1 << 16,)},
                                 "defines": {"nope": 1}},
                        dtype="float32", n=1 << 16, device=0, want=self.want,
                        runner=runner, extra_args=("--config", "{bad"))


if __name__ == "__main__":
    unittest.main()
