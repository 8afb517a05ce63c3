"""Exceptions of the dslc package.

Every failure of the runtime's C API becomes a DslcError subclass chosen by
its status code (runtime/CApi.h, dslcStatus) and carries the runtime's
message, which names the rank, the call and the parameter. A kernel error
record (a timed-out wait, an index outside its tensor) becomes a KernelError
with the record's fields.
"""

import re


class DslcError(RuntimeError):
    """A failure reported by dslc (status is the C API's dslcStatus)."""

    status = None
    status_name = "error"

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(DslcError, ValueError):
    status, status_name = 1, "invalid argument"


class MetadataError(DslcError):
    status, status_name = 2, "metadata"


class DslcIOError(DslcError, OSError):
    status, status_name = 3, "io"


class CudaError(DslcError):
    status, status_name = 4, "cuda"


class NcclError(DslcError):
    status, status_name = 5, "nccl"


class NoDeviceError(DslcError):
    status, status_name = 6, "no CUDA device"


class DslcTimeoutError(DslcError, TimeoutError):
    status, status_name = 7, "timeout"


class OutOfMemoryError(DslcError, MemoryError):
    status, status_name = 9, "out of memory"


class InternalError(DslcError):
    status, status_name = 10, "internal"


class RuntimeNotFoundError(DslcError, ImportError):
    """libdslc_runtime.so (or a binary) could not be found or loaded."""


class NeedsTorchError(DslcError, ImportError):
    """A function that works on torch tensors was called without PyTorch."""


class CompileError(DslcError):
    """dslc rejected a kernel. `diagnostics` holds (file, line, column,
    message) for each `file:line:col: error: message` line of its output."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


class KernelRecord:
    """One rank's error record (docs/kernel-abi.md, "Error record")."""

    KINDS = {1: "wait timed out", 2: "packet poll timed out",
             3: "index out of bounds"}

    def __init__(self, rank, kernel, status, file, line, column, cta, slot,
                 expected, seen, address):
        self.rank, self.kernel, self.status = rank, kernel, status
        self.file, self.line, self.column = file, line, column
        self.cta, self.slot = cta, slot
        self.expected, self.seen, self.address = expected, seen, address

    @property
    def kind(self):
        return self.KINDS.get(self.status, f"status {self.status}")

    @property
    def location(self):
        return f"{self.file}:{self.line}:{self.column}"

    def __repr__(self):
        return (f"KernelRecord(rank={self.rank}, kernel={self.kernel!r}, "
                f"kind={self.kind!r}, at={self.location}, slot={self.slot}, "
                f"expected={self.expected}, seen={self.seen}, cta={self.cta})")


class KernelError(DslcError):
    """A kernel stopped on an error record: a wait or packet poll that timed
    out (status 1, 2) or an index outside its tensor (3). `records` lists
    every local rank's record; file, line, column, rank, slot, expected and
    seen are the first one's. The CUDA context is unusable afterwards (the
    kernel trapped): report and exit."""

    status, status_name = 8, "kernel wait timed out"

    def __init__(self, message, records=()):
        super().__init__(message)
        self.records = list(records)
        first = self.records[0] if self.records else None
        for field in ("file", "line", "column", "rank", "slot", "expected",
                      "seen", "cta", "kind", "kernel"):
            setattr(self, field, getattr(first, field) if first else None)


_BY_STATUS = {c.status: c for c in (
    InvalidArgumentError, MetadataError, DslcIOError, CudaError, NcclError,
    NoDeviceError, DslcTimeoutError, KernelError, OutOfMemoryError,
    InternalError)}


def error_for_status(status, message):
    """The exception for a C API status and message."""
    cls = _BY_STATUS.get(status, DslcError)
    if cls is KernelError:
        return KernelError(message)
    err = cls(message)
    if cls is DslcError:
        err.status = status
    return err


_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): "
                   r"error: (?P<msg>.*)$", re.MULTILINE)


def parse_diagnostics(text):
    """(file, line, column, message) of every `file:line:col: error: ...`
    line in dslc's output."""
    return [(m["file"], int(m["line"]), int(m["col"]), m["msg"])
            for m in _DIAG.finditer(text)]
