//===- LowerToLLVM.cpp - per-thread code to the LLVM and NVVM dialects ---===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

namespace dslc {
#define GEN_PASS_DEF_LOWERTOLLVM
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;

namespace {

struct LowerToLLVMPass : dslc::impl::LowerToLLVMBase<LowerToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // Remember each kernel's block size before func.func goes away, and
    // which kernels multiply on tensor cores.
    llvm::StringMap<int64_t> threads;
    llvm::StringSet<> tensorCores, onWgmma;
    module.walk([&](func::FuncOp f) {
      if (!f->hasAttr(dslc::tile::kKernelAttr))
        return;
      threads[f.getName()] = dslc::lower::kernelThreads(f);
      bool mma = false, wgmma = false;
      f.walk([&](Operation *op) {
        mma |= isa<NVVM::MmaOp>(op);
        wgmma |= isa<NVVM::WgmmaMmaAsyncOp>(op);
      });
      if (mma || wgmma)
        tensorCores.insert(f.getName());
      if (wgmma)
        onWgmma.insert(f.getName());
    });

    {
      // Ops without a direct LLVM counterpart (ceildivui, ...) first.
      // maximumf/minimumf stay: llvm.maximum is max.NaN.f32 on sm_80+.
      RewritePatternSet expand(ctx);
      arith::populateCeilFloorDivExpandOpsPatterns(expand);
      // Math without an exact PTX instruction calls libdevice.
      dslc::populateMathLoweringPatterns(expand);
      // Pieces of a per-thread vector (tiles of several chunks) become
      // element shuffles the LLVM lowering knows.
      vector::populateVectorInsertExtractStridedSliceTransforms(expand);
      if (failed(applyPatternsGreedily(module, std::move(expand))))
        return signalPassFailure();
    }
    {
      RewritePatternSet patterns(ctx);
      populateSCFToControlFlowConversionPatterns(patterns);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<scf::SCFDialect>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }

    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    RewritePatternSet patterns(ctx);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    // NVVM ops written as PTX (wgmma.mma_async) become inline assembly.
    populateNVVMToLLVMConversionPatterns(patterns);
    LLVMConversionTarget target(*ctx);
    target.addDynamicallyLegalDialect<NVVM::NVVMDialect>([](Operation *op) {
      auto ptx = dyn_cast<NVVM::BasicPtxBuilderInterface>(op);
      return !ptx || ptx.hasIntrinsic();
    });
    target.addLegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    SmallVector<UnrealizedConversionCastOp> remaining;
    reconcileUnrealizedCasts(casts, &remaining);
    if (!remaining.empty()) {
      remaining.front()->emitError(
          "value of a dslc type survives the lowering to LLVM");
      return signalPassFailure();
    }

    // A call of the error path (recordErrorAndTrap) ends its kernel: it
    // traps, so the rest of its block is dead in fact. A return right after
    // the call ends the error path for ptxas too, which otherwise keeps every
    // spin's error-path values live across the kernel (LoweringUtils.cpp).
    SmallVector<LLVM::CallOp> exits;
    module.walk([&](LLVM::CallOp call) {
      if (call->hasAttr(dslc::kErrorExitAttr))
        exits.push_back(call);
    });
    // ... except in a kernel on wgmma: a call serializes its products
    // (-dslc-divide-without-calls), so its few error paths are inlined
    // there.
    if (!onWgmma.empty())
      if (auto trap =
              module.lookupSymbol<LLVM::LLVMFuncOp>(dslc::kErrorTrapFunction)) {
        trap.setNoInline(false);
        trap.setAlwaysInline(true);
      }
    for (LLVM::CallOp call : exits) {
      call->removeAttr(dslc::kErrorExitAttr);
      Block *block = call->getBlock();
      block->splitBlock(call->getNextNode());
      OpBuilder b(ctx);
      b.setInsertionPointToEnd(block);
      LLVM::ReturnOp::create(b, call.getLoc(), ValueRange{});
    }

    module.walk([&](LLVM::LLVMFuncOp f) {
      auto it = threads.find(f.getName());
      if (it == threads.end())
        return;
      f->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                 UnitAttr::get(ctx));
      f->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                 DenseI32ArrayAttr::get(ctx, {(int32_t)it->second, 1, 1}));
      // A tensor-core kernel holds a large accumulator per thread: one CTA
      // per SM is enough (.minnctapersm 1). Without it ptxas keeps room for
      // two CTAs of 256 threads (128 registers) and spills instead:
      // [128, 128, 32] bf16 at 8 warps spilled 12 bytes at 128 registers
      // and takes 156 without spills.
      if (tensorCores.contains(f.getName()))
        f->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                   IntegerAttr::get(IntegerType::get(ctx, 32), 1));
      // ptxas serializes a wgmma kernel's products when it calls anything:
      // -dslc-divide-without-calls rewrites the divisions it would call.
      if (onWgmma.contains(f.getName()))
        f->setAttr(dslc::kWithoutCallsAttr, UnitAttr::get(ctx));
      // The config's maxnreg: ptxas holds every thread to that many
      // registers (PTX .maxnreg).
      if (auto regs = f->getAttrOfType<IntegerAttr>(dslc::tile::kMaxNRegAttr)) {
        f->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                   IntegerAttr::get(IntegerType::get(ctx, 32), regs.getInt()));
        f->removeAttr(dslc::tile::kMaxNRegAttr);
      }
      f->removeAttr(dslc::tile::kKernelAttr);
      f->removeAttr(dslc::tile::kNumWarpsAttr);
    });
  }
};
} // namespace
