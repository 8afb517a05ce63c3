//===- DistributeTiles.cpp - Tile/Comm to per-thread code ----------------===//

#include "compiler/Analysis/ArgRoles.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace dslc {
#define GEN_PASS_DEF_DISTRIBUTETILES
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

/// Optional attribute (array of strings) naming the kernel's parameters.
static constexpr llvm::StringLiteral kArgNamesAttr = "tile.arg_names";
/// Optional attribute: the world size, i.e. the length of "X.peers" tables.
static constexpr llvm::StringLiteral kPeerCountAttr = tile::kPeerCountAttr;

/// The ABI type of a scalar parameter: i64 or f32 (docs/kernel-abi.md).
static std::optional<contract::SlotType> scalarSlotType(Type t) {
  if (t.isInteger(64))
    return contract::SlotType::I64;
  if (t.isF32())
    return contract::SlotType::F32;
  return std::nullopt;
}

/// Rewrites a kernel's parameters into its ABI: each !tile.ref becomes its
/// address and sizes (the implicit peer table of a symmetric tensor, role
/// `peers`, its address only), scalars stay, and the hidden slots are
/// appended. The slots are listed in `tile.abi` (#tile.abi_slot, from each
/// argument's #tile.role). The body sees the refs again through casts of
/// the flattened slots.
static LogicalResult flattenSignature(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  auto names = func->getAttrOfType<ArrayAttr>(kArgNamesAttr);
  std::optional<int64_t> peerCount;
  if (auto n = func->getAttrOfType<IntegerAttr>(kPeerCountAttr))
    peerCount = n.getInt();
  unsigned numOld = entry.getNumArguments();
  Type ptr = lower::ptrType(ctx);
  Type i64 = b.getI64Type();
  using contract::SlotKind;
  using contract::SlotType;

  SmallVector<Attribute> abi;
  SmallVector<BlockArgument> dataSlots;
  auto addSlot = [&](Type type, SlotType slotType, SlotKind kind,
                     StringRef param, std::optional<unsigned> dim) {
    contract::AbiSlot s;
    s.kind = kind;
    s.param = param.str();
    s.dim = dim ? static_cast<int>(*dim) : -1;
    abi.push_back(tile::AbiSlotAttr::get(
        ctx, contract::canonicalSlotName(s), kind, slotType,
        param.empty() ? StringAttr() : b.getStringAttr(param), dim));
    BlockArgument slot = entry.addArgument(type, loc);
    if (kind == SlotKind::Data)
      dataSlots.push_back(slot);
    return slot;
  };

  b.setInsertionPointToStart(&entry);
  for (unsigned i = 0; i < numOld; ++i) {
    BlockArgument arg = entry.getArgument(i);
    std::string name = "arg" + std::to_string(i);
    if (names && i < names.size())
      if (auto s = dyn_cast<StringAttr>(names[i]))
        name = s.str();
    tile::RoleAttr role = tile::getArgRole(func, i);
    if (!role)
      return func.emitError() << "kernel parameter '" << name
                              << "' has no #tile.role (argument attribute '"
                              << tile::kRoleAttr << "')";
    if (auto ref = dyn_cast<tile::RefType>(arg.getType())) {
      // A symmetric tensor's peer table is one address (docs/kernel-abi.md);
      // its length is the world size the kernel was compiled for.
      bool peers = role.getRole() == contract::Role::Peers;
      if (peers && (ref.getRank() != 1 || !peerCount))
        return func.emitError()
               << "the peer table '" << name << "' of '"
               << role.getOf().getValue()
               << "' needs rank 1 and the world size (tile.peer_count)";
      StringRef param = peers ? role.getOf().getValue() : StringRef(name);
      SmallVector<Value> fields{
          addSlot(ptr, SlotType::Ptr, peers ? SlotKind::Peers : SlotKind::Data,
                  param, std::nullopt)};
      for (unsigned d = 0; d < ref.getRank(); ++d) {
        if (peers) {
          fields.push_back(
              arith::ConstantIntOp::create(b, loc, *peerCount, 64));
          continue;
        }
        Value slot = addSlot(i64, SlotType::I64, SlotKind::Size, name, d);
        // A size every launch checks (tile.static_sizes) is compiled in:
        // strides, bounds and alignment then fold.
        if (std::optional<int64_t> size = tile::getStaticSize(func, i, d))
          slot = arith::ConstantIntOp::create(b, loc, *size, 64);
        fields.push_back(slot);
      }
      SmallVector<Type> fieldTypes{ptr};
      fieldTypes.append(ref.getRank(), i64);
      Type structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);
      Value s = LLVM::UndefOp::create(b, loc, structType);
      for (auto [k, f] : llvm::enumerate(fields))
        s = LLVM::InsertValueOp::create(b, loc, s, f,
                                        ArrayRef<int64_t>{(int64_t)k});
      Value cast =
          UnrealizedConversionCastOp::create(b, loc, ref, s).getResult(0);
      arg.replaceAllUsesWith(cast);
      continue;
    }
    Type t = arg.getType();
    std::optional<SlotType> slotType = scalarSlotType(t);
    if (!slotType)
      return func.emitError() << "kernel parameter '" << name
                              << "' has a type the ABI cannot pass: " << t
                              << " (scalars are i64 or f32)";
    arg.replaceAllUsesWith(
        addSlot(t, *slotType, SlotKind::Scalar, name, std::nullopt));
  }
  for (SlotKind h : {SlotKind::Timeout, SlotKind::Error, SlotKind::State})
    addSlot(h == SlotKind::Timeout ? i64 : ptr, contract::hiddenSlotType(h), h,
            "", std::nullopt);
  entry.eraseArguments(0, numOld);
  func.setType(FunctionType::get(ctx, entry.getArgumentTypes(), {}));
  // The roles are now in the slots; the new arguments have no attributes
  // but the alignment the runtime guarantees a tensor's address (LLVM then
  // folds the 16-byte alignment test of a piece whose offset it can prove
  // a multiple of 16 bytes).
  func.removeArgAttrsAttr();
  for (BlockArgument slot : dataSlots)
    func.setArgAttr(slot.getArgNumber(), LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(contract::kTensorAlignment));
  func->setAttr(tile::kAbiAttr, b.getArrayAttr(abi));
  func->removeAttr(kArgNamesAttr);
  func->removeAttr(kPeerCountAttr);
  return success();
}

/// Bytes the kernel's tile accesses of memory move (each op once, static
/// shapes), by element width in bits: loads, stores, gathers, scatters,
/// atomics (their data, not their index tiles), LL packets and multicast
/// accesses. A dot's operands, loaded at
/// every step of the loop over K, count as the bulk of the traffic.
static llvm::SmallDenseMap<unsigned, uint64_t>
accessBytesByWidth(func::FuncOp func) {
  llvm::SmallDenseMap<unsigned, uint64_t> bytes;
  auto count = [&](Type t, uint64_t weight) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() ||
        !tensor.getElementType().isIntOrFloat())
      return;
    unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
    if (bits < 8)
      return;
    uint64_t n = llvm::SaturatingMultiply<uint64_t>(
        static_cast<uint64_t>(tensor.getNumElements()), bits / 8);
    n = llvm::SaturatingMultiply(n, weight);
    bytes[bits] = llvm::SaturatingAdd(bytes[bits], n);
  };
  func.walk([&](Operation *op) {
    if (!isa<tile::LoadOp, tile::StoreOp, tile::GatherOp, tile::ScatterOp,
             tile::AtomicOp, comm::LLPutOp, comm::LLGetOp,
             comm::MulticastStoreOp, comm::MulticastLoadReduceOp>(op))
      return;
    uint64_t weight = 1;
    if (isa<tile::LoadOp>(op)) {
      SetVector<Operation *> slice;
      getForwardSlice(op, &slice);
      if (llvm::any_of(slice, [](Operation *o) { return isa<tile::DotOp>(o); }))
        weight = std::numeric_limits<uint64_t>::max();
    }
    for (Type t : op->getResultTypes())
      count(t, weight);
    // Index and mask tiles are registers, not traffic: a gather of f32
    // rows at i64 indices moves 4-byte elements.
    if (auto scatter = dyn_cast<tile::ScatterOp>(op))
      count(scatter.getValue().getType(), weight);
    else if (auto atomic = dyn_cast<tile::AtomicOp>(op))
      count(atomic.getValue().getType(), weight);
    else if (!isa<tile::GatherOp>(op))
      for (Type t : op->getOperandTypes())
        count(t, weight);
  });
  return bytes;
}

/// The piece widths of a kernel's tiles (TileLayout::get): at most 16
/// bytes of the element type that moves the most bytes (so the bulk of the
/// traffic goes in 16-byte accesses, neighbouring lanes' contiguous, and no
/// lane's piece spans two of them: a bf16 row beside an fp8 one in pieces
/// of 16 has each lane load 32 bytes in two strided halves), of the
/// narrowest type when the kernel accesses no tile; narrowed where a row
/// leaves lanes idle down to 16 bytes of the widest tensor it reads or
/// writes; never below what an LL packet's payload needs.
static void choosePieceWidths(func::FuncOp func, unsigned narrowest,
                              KernelInfo &info) {
  llvm::SmallDenseMap<unsigned, uint64_t> traffic = accessBytesByWidth(func);
  unsigned dominant = 0;
  uint64_t most = 0;
  for (auto [bits, n] : traffic)
    if (n > most || (n == most && bits > dominant)) {
      dominant = bits;
      most = n;
    }
  if (!dominant)
    dominant = narrowest ? narrowest : 32;
  info.maxVec = 128 / dominant;
  // The widest of the tensors the kernel reads and writes (not its packet
  // scratch, signal pads or peer tables).
  unsigned widest = 0;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto ref = dyn_cast<tile::RefType>(func.getArgument(i).getType());
    tile::RoleAttr role = tile::getArgRole(func, i);
    if (!ref || !role || !ref.getElementType().isIntOrFloat())
      continue;
    contract::Role r = role.getRole();
    if (r != contract::Role::Input && r != contract::Role::Output &&
        r != contract::Role::InOut)
      continue;
    unsigned bits = ref.getElementType().getIntOrFloatBitWidth();
    if (bits >= 8 && bits <= 128)
      widest = std::max(widest, bits);
  }
  info.minVec =
      widest ? std::min<int64_t>(info.maxVec, 128 / widest) : info.maxVec;
  // A piece of an LL packet tile holds whole payloads.
  func.walk([&](Operation *op) {
    RankedTensorType tile;
    int64_t packet = 0;
    if (auto put = dyn_cast<comm::LLPutOp>(op)) {
      tile = put.getValue().getType();
      packet = put.getPacket();
    } else if (auto get = dyn_cast<comm::LLGetOp>(op)) {
      tile = get.getResult().getType();
      packet = get.getPacket();
    }
    if (!tile || !tile.getElementType().isIntOrFloat())
      return;
    unsigned bits = tile.getElementType().getIntOrFloatBitWidth();
    if (bits < 8)
      return;
    int64_t need =
        std::max<int64_t>(1, comm::packetPayloadBytes(packet) * 8 / bits);
    info.minVec = std::max(info.minVec, need);
    info.maxVec = std::max(info.maxVec, need);
  });
}

/// Threads per CTA, the widest piece the kernel's tiles allow and the
/// threads a row of its 2-d tiles is spread over.
static KernelInfo kernelInfo(func::FuncOp func) {
  KernelInfo info;
  info.threads = lower::kernelThreads(func);
  unsigned narrowest = 0;
  // Each static shape of rank >= 2 a tile takes, and how many values (op
  // results and block arguments) have it: every op on a tile works on its
  // elements a thread.
  llvm::MapVector<ArrayRef<int64_t>, int64_t> shapeUses;
  auto noteShape = [&](Type t, int64_t values) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor && tensor.getRank() >= 2 && tensor.hasStaticShape())
      shapeUses[tensor.getShape()] += values;
  };
  auto visit = [&](Type t, int64_t values) {
    noteShape(t, values);
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.getElementType().isIntOrFloat())
      return;
    unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
    if (bits < 8)
      return;
    if (!narrowest || bits < narrowest)
      narrowest = bits;
  };
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      visit(t, 1);
    for (Type t : op->getOperandTypes())
      visit(t, 0);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          noteShape(arg.getType(), 1);
  });
  choosePieceWidths(func, narrowest, info);
  SmallVector<ArrayRef<int64_t>> shapes;
  SmallVector<int64_t> uses;
  for (const auto &[shape, n] : shapeUses) {
    shapes.push_back(shape);
    uses.push_back(n);
  }
  info.rowThreads =
      chooseRowThreads(shapes, info.threads, info.maxVec, info.minVec, uses);
  return info;
}

/// Whether `op` computes with fp8 values: fp8 is a storage type, only
/// loaded, stored, converted (extf/truncf), selected and made constant.
static bool computesWithFp8(Operation *op) {
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SelectOp, arith::ConstantOp>(
          op) ||
      !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  auto isFp8 = [](Type t) { return tile::isFp8Type(getElementTypeOrSelf(t)); };
  return llvm::any_of(op->getOperandTypes(), isFp8) ||
         llvm::any_of(op->getResultTypes(), isFp8);
}

/// Rejects what the distribution cannot lower, with the op's location, and
/// reserves the module's shared workspace for the largest need of `func`.
static LogicalResult checkAndReserve(func::FuncOp func,
                                     const KernelInfo &info) {
  int64_t shared = 0;
  WalkResult walk = func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        continue;
      int64_t n = lower::mmaElementsPerThread(tensor).value_or(
          info.layout(tensor.getShape()).perThread());
      if (n > kMaxElementsPerThread) {
        // A load at offset 0 in every dimension (`w[:, :]`) reads a whole
        // tensor: no block size shrinks it, and warps only go to 32.
        auto load = dyn_cast<tile::LoadOp>(op);
        bool whole = load && llvm::all_of(load.getOffsets(), [](Value v) {
                       return matchPattern(v, m_Zero());
                     });
        InFlightDiagnostic diag =
            op->emitError() << "a tile of " << tensor << " takes " << n
                            << " elements per thread in a CTA of "
                            << info.threads << " threads; at most "
                            << kMaxElementsPerThread << " fit in registers ";
        if (whole)
          diag << "(it loads the whole tensor into one CTA: loop over it "
                  "with an inner hl.tile, e.g. over the K dimension of a "
                  "matrix product, accumulating the partial results)";
        else
          diag << "(use more warps or a smaller block)";
        return WalkResult::interrupt();
      }
    }
    if (computesWithFp8(op)) {
      op->emitError() << "'" << op->getName()
                      << "' on fp8 values: fp8 is a storage type; convert "
                         "with arith.extf to f32 first";
      return WalkResult::interrupt();
    }
    if (auto splat = dyn_cast<tile::SplatOp>(op);
        splat && tile::isFp8Type(splat.getValue().getType())) {
      op->emitError() << "cannot splat an fp8 scalar: splat an f32 and "
                         "convert the tile with arith.truncf";
      return WalkResult::interrupt();
    }
    if (isa<tile::DotOp>(op) && failed(lower::checkDotFits(op)))
      return WalkResult::interrupt();
    int64_t bytes = lower::sharedBytesNeeded(op, info);
    if (bytes > kMaxSharedBytes) {
      op->emitError() << "'" << op->getName() << "' needs " << bytes
                      << " bytes of shared memory in a CTA of " << info.threads
                      << " threads; at most " << kMaxSharedBytes
                      << " are available";
      return WalkResult::interrupt();
    }
    shared = std::max(shared, bytes);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (shared)
    lower::reserveSharedWorkspace(func->getParentOfType<ModuleOp>(), shared);
  return success();
}

static bool hasTileType(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    return isa<RankedTensorType, tile::RefType, comm::StackType>(t);
  });
}

namespace {
struct DistributeTilesPass
    : dslc::impl::DistributeTilesBase<DistributeTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp f) {
      if (f->hasAttr(tile::kKernelAttr))
        kernels.push_back(f);
    });
    for (func::FuncOp func : kernels) {
      if (func.isExternal()) {
        func.emitError("a tile kernel needs a body");
        return signalPassFailure();
      }
      // Kernels written in the IR get their roles from the same analysis
      // MLIRGen runs (compiler/Analysis/ArgRoles.h).
      if (failed(decideMissingRoles(func)))
        return signalPassFailure();
      KernelInfo info = kernelInfo(func);
      lower::widenDots(func);
      lower::markReadsAfterWrites(func);
      if (failed(checkAndReserve(func, info)))
        return signalPassFailure();
      // Every comm.epoch of a launch reads the same counter: read it once,
      // first thing, so the load overlaps the kernel's first loads instead
      // of sitting in front of each tile's packets.
      SmallVector<comm::EpochOp> epochs;
      func.walk([&](comm::EpochOp op) { epochs.push_back(op); });
      Value epoch;
      if (!epochs.empty()) {
        OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
        epoch =
            comm::EpochOp::create(b, epochs.front().getLoc(), b.getI32Type());
        for (comm::EpochOp op : epochs) {
          op.replaceAllUsesWith(epoch);
          op.erase();
        }
      }
      if (failed(flattenSignature(func)))
        return signalPassFailure();
      // A kernel that reads its launch counter advances it at its end.
      if (epoch)
        func.walk([&](func::ReturnOp ret) {
          OpBuilder b(ret);
          lower::advanceEpoch(b, ret.getLoc(), ret, epoch);
        });

      TileTypeConverter converter(ctx, info);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                             vector::VectorDialect, func::FuncDialect>();
      target.addIllegalDialect<tile::TileDialect, comm::CommDialect>();
      target.addLegalOp<UnrealizedConversionCastOp>();
      target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
          [](Operation *op) {
            return !hasTileType(op->getOperandTypes()) &&
                   !hasTileType(op->getResultTypes());
          });
      RewritePatternSet patterns(ctx);
      populateGridLoweringPatterns(converter, patterns);
      populateMemoryLoweringPatterns(converter, patterns);
      populateGatherLoweringPatterns(converter, patterns);
      populateReduceLoweringPatterns(converter, patterns);
      populateDotLoweringPatterns(converter, patterns);
      populateMmaLoweringPatterns(converter, patterns);
      populateStagedLoweringPatterns(converter, patterns);
      populateShapeLoweringPatterns(converter, patterns);
      populateElementwiseLoweringPatterns(converter, patterns);
      populateCommLoweringPatterns(converter, patterns);
      populatePacketLoweringPatterns(converter, patterns);
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      if (failed(applyPartialConversion(func, target, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
