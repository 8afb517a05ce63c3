//===- CudaDriver.cpp - Lazily loaded CUDA driver API ---------------------===//
#include "runtime/CudaDriver.h"

#include "runtime/Error.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <mutex>

namespace dslc::rt {

namespace {
template <typename Fn>
void lookup(Fn &slot, const char *symbol, unsigned version = 12000) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  // `version`: the CUDA version whose ABI of the entry point we use (12.0
  // for most; an entry point that appeared later needs its own).
  cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &fn, version,
                                                     cudaEnableDefault, &query);
  if (err != cudaSuccess)
    checkCudart(
        err,
        fmt::format("cudaGetDriverEntryPointByVersion({})", symbol).c_str(),
        -1);
  if (query != cudaDriverEntryPointSuccess || !fn)
    raise(ErrorCode::NoDevice,
          fmt::format("CUDA driver entry point {} not found (query result {})",
                      symbol, static_cast<int>(query)));
  slot = reinterpret_cast<Fn>(fn);
}
} // namespace

const DriverApi &driver() {
  static DriverApi api;
  static std::once_flag once;
  static std::string failure;
  static ErrorCode failureCode = ErrorCode::Ok;
  std::call_once(once, [] {
    try {
      lookup(api.cuGetErrorString, "cuGetErrorString");
      lookup(api.cuGetErrorName, "cuGetErrorName");
      lookup(api.cuModuleLoadData, "cuModuleLoadData");
      lookup(api.cuModuleUnload, "cuModuleUnload");
      lookup(api.cuModuleGetFunction, "cuModuleGetFunction");
      lookup(api.cuFuncGetAttribute, "cuFuncGetAttribute");
      lookup(api.cuFuncSetAttribute, "cuFuncSetAttribute");
      lookup(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
             "cuOccupancyMaxActiveBlocksPerMultiprocessor");
      lookup(api.cuLaunchKernel, "cuLaunchKernel");
      lookup(api.cuDeviceGet, "cuDeviceGet");
      lookup(api.cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState");
      try {
        lookup(api.cuFuncGetParamInfo, "cuFuncGetParamInfo", 12040);
      } catch (const Error &) {
        api.cuFuncGetParamInfo = nullptr;
      }
    } catch (const Error &e) {
      failure = e.what();
      failureCode = e.code();
    }
  });
  if (failureCode != ErrorCode::Ok)
    raise(failureCode, failure);
  return api;
}

void checkCu(int result, const char *call, int rank) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "CUresult";
  const char *desc = "unknown CUDA driver error";
  try {
    const DriverApi &api = driver();
    api.cuGetErrorName(static_cast<CUresult>(result), &name);
    api.cuGetErrorString(static_cast<CUresult>(result), &desc);
  } catch (const Error &) {
  }
  raise(result == CUDA_ERROR_NO_DEVICE ? ErrorCode::NoDevice : ErrorCode::Cuda,
        formatCallFailure(rank, call, name, result, desc));
}

} // namespace dslc::rt
