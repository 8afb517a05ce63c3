//===- CudaDriver.h - Lazily loaded CUDA driver API -------------*- C++ -*-===//
//
// The runtime never links libcuda: the entry points it needs are looked up
// through the (statically linked) CUDA runtime with
// cudaGetDriverEntryPointByVersion the first time they are used, so binaries
// start on machines without a driver and report "no CUDA device" there.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_CUDADRIVER_H
#define DSLC_RUNTIME_CUDADRIVER_H

#include <cuda.h>

namespace dslc::rt {

struct DriverApi {
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxGetState)(CUdevice, unsigned *, int *);
  /// Optional (CUDA 12.4+ drivers): null when the driver lacks it.
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
};

/// The driver entry points; throws Error(NoDevice) when there is no driver.
const DriverApi &driver();

} // namespace dslc::rt

#endif // DSLC_RUNTIME_CUDADRIVER_H
