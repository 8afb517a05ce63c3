"""The ctypes layer against runtime/CApi.h and the built library: every
function the header declares is in dslc._capi.FUNCTIONS with the same
argument and result types, the library exports it, the status codes and the
error record layout match. No GPU needed."""

import ctypes
import os
import re
import unittest

import _support
from dslc import _capi

HEADER = os.path.join(_support.REPO, "runtime", "CApi.h")
RECORD_HEADER = os.path.join(_support.REPO, "runtime", "ErrorRecord.h")

P = ctypes.POINTER
# C spelling (const removed, spaces normalized) -> ctypes, written here
# independently of the package's table.
SCALARS = {"int": ctypes.c_int, "int64_t": ctypes.c_int64,
           "size_t": ctypes.c_size_t, "double": ctypes.c_double,
           "dslcStatus": ctypes.c_int, "void*": ctypes.c_void_p,
           "char*": ctypes.c_char_p, "uint32_t": ctypes.c_uint32,
           "uint64_t": ctypes.c_uint64}


def _read(path):
    with open(path) as f:
        return f.read()


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return "\n".join(l for l in text.splitlines()
                     if not l.strip().startswith("#"))


def parse_header(path):
    text = strip_comments(_read(path))
    handles = set(re.findall(r"typedef\s+struct\s+\w+\s*\*\s*(\w+)\s*;", text))
    enum = re.search(r"typedef\s+enum\s+dslcStatus\s*\{(.*?)\}", text, re.S)
    status = {n: int(v) for n, v in
              re.findall(r"(\w+)\s*=\s*(\d+)", enum.group(1))}
    body = re.sub(r"typedef[^;]*;|typedef\s+enum.*?\}\s*\w+\s*;", " ", text,
                  flags=re.S)
    funcs = {}
    for ret, name, params in re.findall(
            r"([A-Za-z_][\w\s\*]*?)\b(dslc\w+)\s*\(([^)]*)\)\s*;", body):
        args = [] if params.strip() in ("", "void") else \
            [p.strip() for p in params.split(",")]
        funcs[name] = (ret.strip(), args)
    return handles, status, funcs


def ctype_of(decl, handles):
    """ctypes type of a C parameter/return declaration."""
    decl = re.sub(r"\bconst\b", " ", decl)
    # drop the parameter name: the last identifier not part of the type
    m = re.match(r"^\s*(\w+)\s*((?:\*\s*)*)(\w+)?\s*$", decl)
    assert m, f"cannot parse C declaration {decl!r}"
    base, stars = m.group(1), m.group(2).count("*")
    if base in handles:
        t, stars = ctypes.c_void_p, stars
    elif base == "DslcErrorRecord":
        t = _capi.ErrorRecord
    elif base in ("void", "char") and stars:
        t, stars = SCALARS[base + "*"], stars - 1
    else:
        t = SCALARS[base]
    for _ in range(stars):
        t = P(t)
    return t


class CApiHeaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.handles, cls.status, cls.funcs = parse_header(HEADER)

    def test_header_parsed(self):
        # guards the parser itself: these must be found
        for name in ("dslcAllReduce", "dslcKernelLaunch", "dslcGetLastError",
                     "dslcNcclLibrary", "dslcBufferImport"):
            self.assertIn(name, self.funcs)
        self.assertIn("dslcComm", self.handles)
        self.assertGreaterEqual(len(self.funcs), 40)

    def test_every_function_declared_is_bound_with_its_types(self):
        for name, (ret, args) in self.funcs.items():
            with self.subTest(function=name):
                self.assertIn(name, _capi.FUNCTIONS,
                              f"{name} is declared in CApi.h but not bound")
                res, argtypes = _capi.FUNCTIONS[name]
                self.assertEqual(res, ctype_of(ret, self.handles),
                                 f"{name}: result type")
                want = [ctype_of(a, self.handles) for a in args]
                self.assertEqual(len(argtypes), len(want),
                                 f"{name}: argument count")
                for i, (got, exp) in enumerate(zip(argtypes, want)):
                    self.assertEqual(got, exp,
                                     f"{name}: argument {i} ({args[i]})")

    def test_no_binding_without_declaration(self):
        extra = set(_capi.FUNCTIONS) - set(self.funcs)
        self.assertEqual(extra, set(), "bound but not declared in CApi.h")

    def test_status_codes(self):
        self.assertEqual(self.status, _capi.STATUS)
        from dslc import errors
        for name, value in self.status.items():
            if value:
                err = errors.error_for_status(value, "m")
                self.assertEqual(err.status, value, name)

    def test_error_record_layout(self):
        text = strip_comments(_read(RECORD_HEADER))
        body = re.search(r"typedef\s+struct\s+DslcErrorRecord\s*\{(.*?)\}",
                         text, re.S).group(1)
        fields = re.findall(r"(\w+)\s+(\w+)\s*;", body)
        self.assertEqual([n for _, n in fields],
                         [n for n, _ in _capi.ErrorRecord._fields_])
        for (ctype, name), (_, t) in zip(fields, _capi.ErrorRecord._fields_):
            self.assertEqual(SCALARS[ctype], t, name)
        self.assertEqual(ctypes.sizeof(_capi.ErrorRecord), 48)


@unittest.skipIf(_support.runtime_library() is None,
                 "SKIPPED: libdslc_runtime.so not built (no CUDA toolkit)")
class CApiLibraryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = _capi.load(_support.runtime_library())

    def test_library_exports_every_function(self):
        handles, _, funcs = parse_header(HEADER)
        for name in funcs:
            self.assertTrue(hasattr(self.lib, name), name)

    def test_errors_are_status_and_message(self):
        self.assertEqual(self.lib.dslcKernelLaunch(None, 0, None, None),
                         _capi.STATUS["DSLC_ERROR_INVALID_ARGUMENT"])
        self.assertEqual(_capi.last_error(), "kernel is NULL")
        from dslc.errors import InvalidArgumentError
        with self.assertRaisesRegex(InvalidArgumentError, "comm is NULL"):
            _capi.call("dslcCommBarrier", None)

    def test_nccl_library_is_reported(self):
        path, version = _capi.nccl_library()
        self.assertIn("libnccl", os.path.basename(path))
        self.assertGreaterEqual(version, 22800)
        # the file the runtime binds to is one that is mapped
        self.assertIn(os.path.realpath(path), _capi.mapped_nccl_files())

    def test_string_buffers_pass_as_char_pointers(self):
        buf = ctypes.create_string_buffer(64)
        rc = self.lib.dslcCollectivesChoice(None, b"all_reduce", 1,
                                            b"bfloat16", buf, len(buf))
        self.assertEqual(rc, 1)
        self.assertEqual(_capi.last_error(), "collectives is NULL")

    def test_tuner_device_info_names_a_missing_gpu(self):
        from dslc.errors import DslcError
        if self.lib.dslcDeviceCount() > 0:
            info = _capi.tuner_device_info(0)
            self.assertGreater(info["memory_bytes_per_s"], 0)
            self.assertTrue(info["driver"].startswith("cuda "))
        with self.assertRaisesRegex(DslcError, "no CUDA device 4096"):
            _capi.tuner_device_info(4096)

    def test_floor_is_the_runtimes_rule(self):
        # No roof known for a device that is not there: nothing refused.
        self.assertEqual(_capi.times_below_floor(4096, 1.0, 1.0, 1 << 40), "")
        if self.lib.dslcDeviceCount() > 0:
            # a TiB in a microsecond is never possible
            why = _capi.times_below_floor(0, 1.0, 0.0, 1 << 40)
            self.assertIn("below the physical floor", why)
            self.assertEqual(_capi.times_below_floor(0, 1e9, 1e9, 1 << 40),
                             "")


if __name__ == "__main__":
    unittest.main()
