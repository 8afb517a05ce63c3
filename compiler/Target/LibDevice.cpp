//===- LibDevice.cpp - Linking CUDA's libdevice into a kernel ------------===//

#include "compiler/Target/LibDevice.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <set>

#ifndef DSLC_LIBDEVICE_PATH
#define DSLC_LIBDEVICE_PATH "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

using namespace dslc;

std::string dslc::libDevicePath() {
  if (const char *env = std::getenv("DSLC_LIBDEVICE"); env && *env)
    return env;
  return DSLC_LIBDEVICE_PATH;
}

bool dslc::linkLibDevice(llvm::Module &module, const std::string &path,
                         std::string &error) {
  std::string needed;
  for (const llvm::Function &f : module.functions())
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) {
      needed = f.getName().str();
      break;
    }
  if (needed.empty())
    return true;

  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "the kernel calls " + needed + " from CUDA's libdevice, which " +
            "cannot be read at '" + path + "' (" + buffer.getError().message() +
            "); set DSLC_LIBDEVICE to libdevice.10.bc";
    return false;
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!parsed) {
    error = "cannot read libdevice '" + path +
            "': " + llvm::toString(parsed.takeError());
    return false;
  }
  std::unique_ptr<llvm::Module> libdevice = std::move(*parsed);
  // libdevice is built for "nvptx64-nvidia-gpulibs": take the kernel's
  // triple and data layout, so linking does not warn.
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());

  // What the kernel defines before linking stays as it is; everything that
  // comes from libdevice becomes internal (and dies in -O3 unless used).
  std::set<std::string> own;
  for (const llvm::GlobalValue &g : module.global_values())
    if (!g.isDeclaration())
      own.insert(g.getName().str());
  if (llvm::Linker::linkModules(module, std::move(libdevice),
                                llvm::Linker::Flags::LinkOnlyNeeded)) {
    error = "linking libdevice '" + path + "' into the kernel failed";
    return false;
  }
  for (llvm::GlobalValue &g : module.global_values())
    if (!g.isDeclaration() && !own.count(g.getName().str()) &&
        !g.hasLocalLinkage())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  return true;
}
