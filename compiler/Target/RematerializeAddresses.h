//===- RematerializeAddresses.h - Constant offsets recomputed in loops -*- C++
//-*-===//
//
// A tile staged in shared memory is read and written at one per-thread
// address plus a constant per piece (compiler/Conversion's StagedPieces,
// the fragments of mma.sync). LLVM's -O3 hoists each `base + constant` out
// of the loops that use it (LICM: a GEP is invariant and safe to
// speculate), and every hoisted address then holds registers across the
// loop (two: NVPTX's shared pointers are 64-bit), where folded into the
// access (`[%r + 2176]`) it would take none. Helion's attention at its
// default [16, 16, 16] block spilled ~1 KB on ~150 such addresses. This
// pass, run after the -O3 pipeline, recomputes every GEP with constant
// indices that a loop uses but defines outside it next to each use in the
// loop (the chain of such GEPs down to the first other base), so that
// instruction selection folds the constants into the accesses and only the
// bases stay live.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_REMATERIALIZEADDRESSES_H
#define DSLC_COMPILER_TARGET_REMATERIALIZEADDRESSES_H

#include "llvm/IR/PassManager.h"

namespace dslc {

struct RematerializeAddressesPass
    : llvm::PassInfoMixin<RematerializeAddressesPass> {
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam);
};

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_REMATERIALIZEADDRESSES_H
