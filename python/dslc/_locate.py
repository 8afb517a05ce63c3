"""Where dslc's pieces are: the runtime library, the dslc and tuner binaries,
and the cache directory. Every path rule of the package is in this file.

Search order for the build (the folder holding lib/libdslc_runtime.so and
bin/dslc, bin/tuner):
  1. $DSLC_BUILD_DIR
  2. the repository's build/ when the package is imported from python/ of a
     source checkout
  3. the folder above a `dslc` found on $PATH (bin/dslc -> lib/)
Single files can be named directly: $DSLC_LIBRARY (the runtime library),
$DSLC_COMPILER (dslc), $DSLC_TUNER (tuner).

The fast-call extension (_fastcall.abi3.so, python/CMakeLists.txt): the
file $DSLC_FASTCALL names ("0" turns it off), else BUILD/python/dslc/ of the
first build folder above that has it, else none (ctypes for every call).
"""

import os
import shutil

_LIB_NAME = "libdslc_runtime.so"
_FASTCALL = os.path.join("python", "dslc", "_fastcall.abi3.so")
FASTCALL_OFF = ("0", "off", "no", "false")


def cache_dir():
    """The dslc cache directory: the contract's one rule, from the runtime
    (dslcCacheDir: $DSLC_CACHE_DIR, else $XDG_CACHE_HOME/dslc, else
    ~/.cache/dslc, else an error), so the tuning cache the tuner writes and
    the compiled kernels of this package sit together: tuning.json,
    kernels/, sources/."""
    from . import _capi  # _capi imports this module
    return _capi.cache_dir()


def _build_dirs():
    dirs = []
    env = os.environ.get("DSLC_BUILD_DIR")
    if env:
        dirs.append(env)
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.isfile(os.path.join(repo, "runtime", "CApi.h")):
        dirs.append(os.path.join(repo, "build"))
    on_path = shutil.which("dslc")
    if on_path:
        dirs.append(os.path.dirname(os.path.dirname(os.path.realpath(on_path))))
    return dirs


def searched():
    """A sentence listing where the build was looked for (for messages)."""
    places = _build_dirs()
    where = ", ".join(places) if places else "no build folder found"
    return (f"looked in: {where} (set DSLC_BUILD_DIR to the build folder, or "
            f"DSLC_LIBRARY / DSLC_COMPILER / DSLC_TUNER to the files)")


def runtime_library():
    """Path of libdslc_runtime.so, or None."""
    env = os.environ.get("DSLC_LIBRARY")
    if env:
        return env
    for d in _build_dirs():
        p = os.path.join(d, "lib", _LIB_NAME)
        if os.path.isfile(p):
            return p
    return None


def fastcall_extension():
    """Path of the _fastcall extension, or None (not built, or turned off
    with DSLC_FASTCALL=0)."""
    env = os.environ.get("DSLC_FASTCALL")
    if env:
        return None if env.lower() in FASTCALL_OFF else env
    for d in _build_dirs():
        p = os.path.join(d, _FASTCALL)
        if os.path.isfile(p):
            return p
    return None


def _binary(name, env_var):
    env = os.environ.get(env_var)
    if env:
        return env
    for d in _build_dirs():
        p = os.path.join(d, "bin", name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def compiler():
    """Path of the dslc compiler, or None."""
    return _binary("dslc", "DSLC_COMPILER")


def tuner():
    """Path of the tuner, or None."""
    return _binary("tuner", "DSLC_TUNER")
