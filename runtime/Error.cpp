//===- Error.cpp - Runtime errors and call checking -----------------------===//
#include "runtime/Error.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

namespace dslc::rt {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "ok";
  case ErrorCode::InvalidArgument:
    return "invalid argument";
  case ErrorCode::Metadata:
    return "metadata error";
  case ErrorCode::Io:
    return "I/O error";
  case ErrorCode::Cuda:
    return "CUDA error";
  case ErrorCode::Nccl:
    return "NCCL error";
  case ErrorCode::NoDevice:
    return "no CUDA device";
  case ErrorCode::Timeout:
    return "timeout";
  case ErrorCode::KernelTimeout:
    return "kernel wait timed out";
  case ErrorCode::OutOfMemory:
    return "out of symmetric memory";
  case ErrorCode::Internal:
    return "internal error";
  }
  return "unknown error";
}

std::string rankPrefix(int rank) {
  return rank < 0 ? std::string() : fmt::format("rank {}: ", rank);
}

std::string formatCallFailure(int rank, const char *call, const char *name,
                              int code, const char *description) {
  return fmt::format("{}{} failed: {} ({} = {})", rankPrefix(rank), call,
                     description ? description : "unknown error",
                     name ? name : "?", code);
}

void raise(ErrorCode code, const std::string &message) {
  throw Error(code, message);
}

void checkCudart(int result, const char *call, int rank) {
  if (result == cudaSuccess)
    return;
  auto err = static_cast<cudaError_t>(result);
  ErrorCode code = ErrorCode::Cuda;
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    code = ErrorCode::NoDevice;
  raise(code, formatCallFailure(rank, call, cudaGetErrorName(err), result,
                                cudaGetErrorString(err)));
}

void checkNccl(int result, const char *call, int rank) {
  if (result == ncclSuccess || result == ncclInProgress)
    return;
  auto res = static_cast<ncclResult_t>(result);
  std::string desc = ncclGetErrorString(res);
  const char *last = ncclGetLastError(nullptr);
  if (last && *last)
    desc += fmt::format(" [{}]", last);
  raise(ErrorCode::Nccl,
        formatCallFailure(rank, call, "ncclResult_t", result, desc.c_str()));
}

} // namespace dslc::rt
