//===- LibDevice.h - Linking CUDA's libdevice into a kernel -----*- C++ -*-===//
//
// Math the NVPTX backend has no exact instruction for is lowered to calls of
// libdevice's `__nv_*` functions (compiler/Conversion/MathLowering.cpp).
// Before optimization, the functions a module calls are linked in from
// libdevice.10.bc and made internal, so -O3 inlines them and drops the rest.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_TARGET_LIBDEVICE_H
#define DSLC_COMPILER_TARGET_LIBDEVICE_H

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace dslc {

/// Where libdevice.10.bc is read from: $DSLC_LIBDEVICE when set, else the
/// CUDA toolkit's copy found at configure time.
std::string libDevicePath();

/// Links the libdevice functions `module` declares (names starting with
/// `__nv_`) from `path` into it, internalized. Nothing is read when it
/// declares none. On failure returns false and sets `error`, which names
/// the function that needed libdevice.
bool linkLibDevice(llvm::Module &module, const std::string &path,
                   std::string &error);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_LIBDEVICE_H
