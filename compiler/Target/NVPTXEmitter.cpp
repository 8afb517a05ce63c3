//===- NVPTXEmitter.cpp - LLVM dialect module to LLVM IR and PTX ---------===//

#include "compiler/Target/NVPTXEmitter.h"
#include "compiler/Target/LibDevice.h"
#include "compiler/Target/RematerializeAddresses.h"
#include "compiler/Target/RematerializePredicates.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace dslc;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

static std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const NVPTXOptions &options, std::string &error) {
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions targetOptions;
  auto level = options.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                     : llvm::CodeGenOptLevel::Default;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, options.arch.name, options.arch.getPtxFeature(), targetOptions,
      std::nullopt, std::nullopt, level));
}

std::unique_ptr<llvm::Module>
dslc::translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                        const NVPTXOptions &options) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "dslc");
  if (!llvmModule)
    return nullptr;

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(options, error);
  if (!machine) {
    module.emitError() << "cannot create the NVPTX target: " << error;
    return nullptr;
  }
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  if (!linkLibDevice(*llvmModule,
                     options.libDevicePath.empty() ? libDevicePath()
                                                   : options.libDevicePath,
                     error)) {
    module.emitError() << error;
    return nullptr;
  }

  // The standard optimization pipeline, as clang -O3 runs it.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level =
      options.optLevel >= 3   ? llvm::OptimizationLevel::O3
      : options.optLevel == 0 ? llvm::OptimizationLevel::O0
                              : llvm::OptimizationLevel::O2;
  llvm::ModulePassManager passes =
      options.optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                            : builder.buildPerModuleDefaultPipeline(level);
  if (options.optLevel > 0) {
    passes.addPass(
        llvm::createModuleToFunctionPassAdaptor(RematerializePredicatesPass()));
    passes.addPass(
        llvm::createModuleToFunctionPassAdaptor(RematerializeAddressesPass()));
  }
  passes.run(*llvmModule, mam);
  return llvmModule;
}

std::optional<std::string> dslc::emitPTX(llvm::Module &module,
                                         const NVPTXOptions &options,
                                         std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(options, error);
  if (!machine)
    return std::nullopt;
  module.setDataLayout(machine->createDataLayout());
  std::string ptx;
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream bos(os);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, bos, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile)) {
      error = "the NVPTX target cannot emit assembly";
      return std::nullopt;
    }
    pm.run(module);
  }
  return ptx;
}
