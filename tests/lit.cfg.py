# lit configuration for dslc's compiler, dialect and tool tests.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "dslc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt",
                   "fuzz_backend.py", "hostile_campaign.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dslc_obj_root, "tests")

llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
config.environment["FILECHECK_OPTS"] = "--dump-input=fail"

tool_dirs = [config.dslc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["dslc", "dslc-opt", "dslc-translate", "FileCheck", "not", "count"], tool_dirs)
# The runtime's tools (built with a CUDA toolkit): tests of their command
# lines and of what they check before any GPU work.
for tool in ["dslrun", "tuner"]:
    if os.path.exists(os.path.join(config.dslc_tools_dir, tool)):
        config.available_features.add(tool)
        llvm_config.add_tool_substitutions([tool], [config.dslc_tools_dir])
# LLVM IR a pass rewrote runs on the CPU with lli (feature "lli"):
# mlir-translate (mlir-22-tools) and lli (llvm-22-runtime).
if all(os.path.exists(os.path.join(config.llvm_tools_dir, t))
       for t in ("lli", "mlir-translate")):
    config.available_features.add("lli")
    llvm_config.add_tool_substitutions(["lli", "mlir-translate"],
                                       [config.llvm_tools_dir])
config.substitutions.append(("%examples", os.path.join(config.dslc_src_root, "examples")))
config.substitutions.append(("%python", "python3"))

# Simulation dumps are checked with numpy.load where lit's Python has numpy
# (python3-numpy, scripts/install-deps.sh): feature "numpy", %numpy-python.
try:
    import sys
    import numpy  # noqa: F401
    config.available_features.add("numpy")
    config.substitutions.append(("%numpy-python", sys.executable))
except ImportError:
    pass

# Every PTX the tests generate is assembled for sm_90 when ptxas exists.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    # wgmma kernels are compiled for sm_90a (Backend.cpp): %ptxas-sm90a.
    config.substitutions.append(("%ptxas-sm90a", config.ptxas + " -arch=sm_90a"))
    config.substitutions.append(("%ptxas", config.ptxas + " -arch=sm_90"))
else:
    config.substitutions.append(("%ptxas-sm90a", "true"))
    config.substitutions.append(("%ptxas", "true"))
