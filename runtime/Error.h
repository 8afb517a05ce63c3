//===- Error.h - Runtime errors and call checking ---------------*- C++ -*-===//
//
// Every failure in the runtime becomes a dslc::rt::Error: an exception with a
// code (the C API returns it) and a message that names the rank, the call and
// the error string. The helpers here format those messages; they need no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_ERROR_H
#define DSLC_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace dslc::rt {

/// Error categories. The numeric values are the C API's dslcStatus values.
enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1, ///< bad argument, binding or constraint violation
  Metadata = 2,        ///< malformed or incompatible kernel metadata
  Io = 3,              ///< file could not be read or written
  Cuda = 4,            ///< a CUDA runtime or driver call failed
  Nccl = 5,            ///< an NCCL call failed
  NoDevice = 6,        ///< no CUDA device / no driver
  Timeout = 7,         ///< a host-side bounded wait expired (peer died?)
  KernelTimeout = 8,   ///< a kernel's bounded spin expired (error record)
  OutOfMemory = 9,     ///< symmetric heap exhausted
  Internal = 10,
};

const char *errorCodeName(ErrorCode code);

class Error : public std::runtime_error {
public:
  Error(ErrorCode code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

private:
  ErrorCode code_;
};

/// Prefix "rank R: " (nothing when rank < 0: not known yet).
std::string rankPrefix(int rank);

/// "rank R: CALL failed: DESCRIPTION (NAME = CODE)".
std::string formatCallFailure(int rank, const char *call, const char *name,
                              int code, const char *description);

[[noreturn]] void raise(ErrorCode code, const std::string &message);

/// Checks a CUDA runtime result (cudaError_t passed as int).
void checkCudart(int result, const char *call, int rank);
/// Checks a CUDA driver result (CUresult passed as int).
void checkCu(int result, const char *call, int rank);
/// Checks an NCCL result (ncclResult_t passed as int); ncclInProgress is ok.
void checkNccl(int result, const char *call, int rank);

} // namespace dslc::rt

/// Call checking macros: the call text is part of the message.
#define DSLC_CUDART(rank, call)                                                \
  ::dslc::rt::checkCudart((int)(call), #call, rank)
#define DSLC_CU(rank, call) ::dslc::rt::checkCu((int)(call), #call, rank)
#define DSLC_NCCL(rank, call) ::dslc::rt::checkNccl((int)(call), #call, rank)

#endif // DSLC_RUNTIME_ERROR_H
