//===- LayoutConversion.cpp - tile values between layouts ----------------===//
//
// A tile is either distributed over a CTA's threads or replicated in every
// thread (TileLayout.h). Going from replicated to distributed is a local
// selection: each thread keeps the elements it owns. Going the other way
// needs the other threads' elements: they meet in the module's shared
// workspace, one array of addrspace(3) bytes sized to the largest need of
// any op (reserveSharedWorkspace, called by the distribution before it
// lowers a kernel). Every use of the workspace ends with a bar.sync, so the
// next use cannot overwrite what a slower thread still reads.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

/// Bytes of one element of `element` in shared memory (i1 takes a byte).
static int64_t elementBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

namespace dslc::lower {

int64_t gatherSharedBytes(ArrayRef<int64_t> shape, Type element) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return llvm::alignTo(n * elementBytes(storageType(element)), 16);
}

int64_t sharedBytesNeeded(Operation *op, const KernelInfo &info) {
  if (isa<tile::ReduceOp>(op))
    return reduceSharedBytes(op, info);
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return dotSharedBytes(dot);
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    RankedTensorType in = reshape.getInput().getType();
    if (!info.layout(in.getShape()).replicated &&
        info.layout(reshape.getResult().getType().getShape()).replicated)
      return gatherSharedBytes(in.getShape(), in.getElementType());
  }
  return 0;
}

void reserveSharedWorkspace(ModuleOp module, int64_t bytes) {
  MLIRContext *ctx = module.getContext();
  bytes = llvm::alignTo(bytes, 16);
  auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes);
  if (auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedWorkspace)) {
    auto old = cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (static_cast<int64_t>(old.getNumElements()) < bytes)
      global.setGlobalTypeAttr(TypeAttr::get(type));
    return;
  }
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         LLVM::Linkage::Internal, kSharedWorkspace,
                         Attribute(), /*alignment=*/16, /*addrSpace=*/3);
}

Value sharedWorkspace(OpBuilder &b, Location loc, Operation *inModule) {
  auto module = dyn_cast<ModuleOp>(inModule);
  if (!module)
    module = inModule->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedWorkspace);
  assert(global && "the distribution reserves the workspace first");
  return LLVM::AddressOfOp::create(b, loc, global);
}

Value distributeReplicated(OpBuilder &b, Location loc, const KernelInfo &info,
                           ArrayRef<int64_t> shape, Value all) {
  TileLayout layout = info.layout(shape);
  assert(!layout.replicated && "the result must be distributed");
  Type element = cast<VectorType>(all.getType()).getElementType();
  auto type = VectorType::get({layout.perThread()}, element);
  Value tid = threadId(b, loc);
  // tid == t, built once per t.
  DenseMap<int64_t, Value> isThread;
  auto threadIs = [&](int64_t t) {
    Value &v = isThread[t];
    if (!v)
      v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                i64(b, loc, t));
    return v;
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  SmallVector<Value> elements;
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        // Element v of piece c is `all`'s element innerIndex(c, t, v) of row
        // o in thread t: one candidate per thread that owns one.
        Value x;
        for (int64_t t = 0; t < layout.threads; ++t) {
          int64_t g = layout.innerIndex(c, t, v);
          if (g >= layout.inner)
            break;
          Value candidate = vector::ExtractOp::create(
              b, loc, all, ArrayRef<int64_t>{o * layout.inner + g});
          x = x ? arith::SelectOp::create(b, loc, threadIs(t), candidate, x)
                      .getResult()
                : candidate;
        }
        elements.push_back(x ? x : zero);
      }
  return vector::FromElementsOp::create(b, loc, type, elements);
}

void storeDistributed(OpBuilder &b, Location loc, const KernelInfo &info,
                      ArrayRef<int64_t> shape, Value value, Value base) {
  TileLayout layout = info.layout(shape);
  assert(!layout.replicated && "the input must be distributed");
  Type memElement = cast<VectorType>(value.getType()).getElementType();
  Value tid = threadId(b, loc);

  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < layout.chunks; ++c) {
      // Piece c of row o starts at element o * inner + (c * T + tid) * V.
      Value first = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, tid, i64(b, loc, c * layout.threads)),
          i64(b, loc, layout.vec));
      Value linear =
          arith::AddIOp::create(b, loc, first, i64(b, loc, o * layout.inner));
      Value remaining = arith::SubIOp::create(b, loc, i64(b, loc, layout.inner),
                                              first);
      SmallVector<Value> lanes;
      for (int64_t v = 0; v < layout.vec; ++v)
        lanes.push_back(arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sgt, remaining, i64(b, loc, v)));
      Value mask = vector::FromElementsOp::create(
          b, loc, VectorType::get({layout.vec}, b.getI1Type()), lanes);
      // A whole piece is one vector store when its start is aligned: the
      // row starts of a row length that is not a multiple of V are not.
      Value full = arith::ConstantIntOp::create(b, loc, 0, 1);
      if (o * layout.inner % layout.vec == 0)
        full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                     remaining, i64(b, loc, layout.vec));
      AccessPiece piece{layout.position(o, c, 0),
                        layout.vec,
                        elementPtr(b, loc, base, memElement, linear),
                        i64(b, loc, 1),
                        /*contiguous=*/true,
                        mask,
                        full};
      Value slice = vector::ExtractStridedSliceOp::create(
          b, loc, value, ArrayRef<int64_t>{piece.position},
          ArrayRef<int64_t>{piece.vec}, ArrayRef<int64_t>{1});
      storePiece(b, loc, piece, slice);
    }
}

Value gatherDistributed(OpBuilder &b, Location loc, const KernelInfo &info,
                        ArrayRef<int64_t> shape, Value value,
                        Operation *inModule) {
  auto valueType = cast<VectorType>(value.getType());
  Type element = valueType.getElementType();
  // i1 vectors are packed bits in LLVM's memory model: go through bytes.
  bool isBool = element.isInteger(1);
  Type memElement = memoryType(element);
  if (isBool)
    value = arith::ExtUIOp::create(
        b, loc, VectorType::get(valueType.getShape(), memElement), value);
  Value base = sharedWorkspace(b, loc, inModule);
  storeDistributed(b, loc, info, shape, value, base);
  ctaBarrier(b, loc);
  TileLayout layout = info.layout(shape);
  int64_t n = layout.outer * layout.inner;
  auto allType = VectorType::get({n}, memElement);
  Value all = LLVM::LoadOp::create(b, loc, allType, base, /*alignment=*/16);
  ctaBarrier(b, loc);
  if (isBool)
    all = arith::TruncIOp::create(b, loc, VectorType::get({n}, element), all);
  return all;
}

} // namespace dslc::lower

int64_t dslc::sharedWorkspaceBytes(ModuleOp module) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedWorkspace);
  if (!global)
    return 0;
  return cast<LLVM::LLVMArrayType>(global.getGlobalType()).getNumElements();
}
