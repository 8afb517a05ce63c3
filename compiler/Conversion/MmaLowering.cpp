//===- MmaLowering.cpp - tile.dot on tensor cores (mma.sync) -------------===//
//
// A tile.dot whose result is encoded #tile.mma (-dslc-mma-layouts made it;
// compiler/Conversion/MmaLayout.h says which thread holds what):
//  1. the owners store lhs [M, K] and rhs [K, N] (bf16 or f16, blocked;
//     batched, [B, M, K] and [B, K, N], the matrices one after another)
//     row-major into the shared workspace, rows a pitch apart that keeps
//     ldmatrix free of bank conflicts; the K tail past valid_k is zeroed
//     in registers first and K's padding to a multiple of 16 in shared
//     memory; bar.sync;
//  2. every warp runs the k-steps of 16: per step one ldmatrix.x4 per lhs
//     fragment row, one ldmatrix.x4.trans per two rhs fragment columns,
//     then mma.sync.m16n8k16 (f32 accumulate) per fragment, onto the
//     accumulator (or zero); f32 operands (dot_precision="tf32") take
//     k-steps of 8, the same ldmatrix bytes for the lhs (and an rhs staged
//     transposed), two 32-bit loads per rhs fragment otherwise (ldmatrix's
//     transpose moves 16-bit halves), cvt.rna.tf32.f32, then
//     mma.sync.m16n8k8.tf32;
//  3. a last bar.sync frees the workspace.
// tile.convert_layout between #tile.mma and the blocked layout goes through
// the workspace: the holders store the f32 tile row-major (pitch as above),
// bar.sync, each thread loads its elements in the other layout, bar.sync.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/MmaLowering.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/MmaLayout.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;
using lower::i64;

namespace {

/// Where a tensor-core dot stages its operands in the workspace.
struct MmaStaging {
  int64_t batch, m, n, k, kp;
  /// rhs staged as [N, Kp] rows (DotOp's rhs_transposed).
  bool rhsTransposed;
  int64_t pitchA, pitchB; ///< elements
  int64_t rhsOffset;      ///< bytes
  int64_t total;          ///< bytes
  /// The operands' shapes ([B,] M x K and [B,] K x N).
  SmallVector<int64_t> lhsShape, rhsShape;

  explicit MmaStaging(tile::DotOp op) {
    RankedTensorType lhs = op.getLhs().getType();
    int64_t rank = lhs.getRank();
    lhsShape = llvm::to_vector(lhs.getShape());
    rhsShape = llvm::to_vector(op.getRhs().getType().getShape());
    rhsTransposed = op.getRhsTransposed();
    batch = rank == 3 ? lhs.getDimSize(0) : 1;
    m = lhs.getDimSize(rank - 2);
    k = lhs.getDimSize(rank - 1);
    n = rhsTransposed ? rhsShape[rank - 2] : rhsShape.back();
    kp = MmaLayout::paddedK(k);
    int64_t bytes = lhs.getElementTypeBitWidth() / 8;
    pitchA = MmaLayout::lhsPitch(k, bytes);
    pitchB = MmaLayout::rhsPitch(n, k, rhsTransposed, bytes);
    rhsOffset = MmaLayout::stagedLhsBytes(batch, m, k, bytes);
    total = MmaLayout::stagedBytes(batch, m, n, k, rhsTransposed, bytes);
  }
};

/// The workspace pitch (f32 elements) of an f32 tile of `n` columns.
int64_t f32Pitch(int64_t n) { return MmaLayout::pitchFor(n, 4); }

/// This thread's place in `layout` (i64): its warp's first row and column
/// (MmaLayout::warpOrigin, warps past the grid repeating it), its lane and
/// its warp's first matrix (MmaLayout::warpMatrix; 0 unbatched).
struct WarpPlace {
  Value row0, col0, lane, matrix0;
};
WarpPlace warpPlace(OpBuilder &b, Location loc, const MmaLayout &layout) {
  Value tid = lower::threadId(b, loc);
  // Warps past the grid repeat its blocks (MmaLayout::choose).
  Value inGrid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, tid, i64(b, loc, 32)),
      i64(b, loc, layout.gridWarps()));
  Value warp =
      arith::RemUIOp::create(b, loc, inGrid, i64(b, loc, layout.matrixWarps()));
  auto at = [&](Value index, int64_t size) {
    return arith::MulIOp::create(b, loc, index, i64(b, loc, size));
  };
  Value warpsN = i64(b, loc, layout.warpsN);
  Value group =
      arith::DivUIOp::create(b, loc, inGrid, i64(b, loc, layout.matrixWarps()));
  return {at(arith::DivUIOp::create(b, loc, warp, warpsN), layout.warpRows()),
          at(arith::RemUIOp::create(b, loc, warp, warpsN), layout.warpCols()),
          arith::RemUIOp::create(b, loc, tid, i64(b, loc, 32)),
          at(group, layout.matricesPerWarp())};
}

Value add(OpBuilder &b, Location loc, Value x, int64_t c) {
  return c ? arith::AddIOp::create(b, loc, x, i64(b, loc, c)).getResult() : x;
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::MulIOp::create(b, loc, x, i64(b, loc, c));
}

/// The element offset, in an f32 tile of `layout` staged with rows `pitch`
/// apart (batched: the matrices one after another), of element 0 of
/// fragment (0, 0) of the first matrix held by this thread (warp origin
/// plus the lane's row l / 4 and column 2 (l % 4)).
Value fragmentBase(OpBuilder &b, Location loc, const MmaLayout &layout,
                   int64_t pitch) {
  auto [row0, col0, lane, matrix0] = warpPlace(b, loc, layout);
  row0 = arith::AddIOp::create(b, loc, row0, mul(b, loc, matrix0, layout.m));
  Value row = arith::AddIOp::create(
      b, loc, row0, arith::DivUIOp::create(b, loc, lane, i64(b, loc, 4)));
  Value col = arith::AddIOp::create(
      b, loc, col0,
      mul(b, loc, arith::RemUIOp::create(b, loc, lane, i64(b, loc, 4)), 2));
  return arith::AddIOp::create(b, loc, mul(b, loc, row, pitch), col);
}

/// Calls `fn(position, offset)` for each pair of neighbouring accumulator
/// elements this thread holds (elements 2h, 2h + 1 of fragment (i, j) of
/// its matrix q), `position` the pair's in the per-thread vector, `offset`
/// its static element offset from fragmentBase.
void forEachPair(const MmaLayout &layout, int64_t pitch,
                 const std::function<void(int64_t, int64_t)> &fn) {
  for (int64_t q = 0; q < layout.matricesPerWarp(); ++q)
    for (int64_t i = 0; i < layout.fragmentsM(); ++i)
      for (int64_t j = 0; j < layout.fragmentsN(); ++j)
        for (int64_t h = 0; h < 2; ++h) {
          // inWarp(lane, i, j, 2h) less its lane part.
          auto [row, col] = MmaLayout::inWarp(0, i, j, 2 * h);
          fn(layout.position(i, j, 2 * h, q),
             (q * layout.m + row) * pitch + col);
        }
}

/// `value` (per-thread vector of a blocked tile of `shape`, one matrix or
/// a batch of them) with the elements at or past `limit` along dimension
/// `dim` (0: a matrix's rows, 1: the last) set to zero.
Value zeroPast(OpBuilder &b, Location loc, const KernelInfo &info,
               ArrayRef<int64_t> shape, Value value, int64_t dim, Value limit) {
  TileLayout layout = info.layout(shape);
  auto [lane, group] = lower::laneAndGroup(b, loc, layout);
  limit = lower::toI64(b, loc, limit);
  SmallVector<Value> keep;
  for (int64_t o = 0; o < layout.outer; ++o) {
    Value row;
    if (dim == 0) {
      // The row within its matrix: the row-major row over [B, rows].
      row = lower::rowInBounds(b, loc, layout, o, group);
      if (shape.size() == 3)
        row = arith::RemUIOp::create(b, loc, row, i64(b, loc, shape[1]));
    }
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        Value at = row;
        if (dim == 1)
          at = layout.replicated ? i64(b, loc, 0)
                                 : add(b, loc, mul(b, loc, lane, layout.vec),
                                       layout.innerIndex(c, 0, v));
        keep.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             at, limit));
      }
  }
  auto vectorType = cast<VectorType>(value.getType());
  Value mask = vector::FromElementsOp::create(
      b, loc, VectorType::get(vectorType.getShape(), b.getI1Type()), keep);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vectorType));
  return arith::SelectOp::create(b, loc, mask, value, zero);
}

/// Zeroes K's padding in the staged operands: columns K..Kp of lhs's M
/// rows, rows K..Kp of rhs (columns K..Kp of its N rows when transposed;
/// one matrix: -dslc-mma-layouts puts batched products on tensor cores
/// only when K needs no padding).
void zeroPadding(OpBuilder &b, Location loc, const KernelInfo &info,
                 const MmaStaging &s, Value lhs, Value rhs, Type element) {
  if (s.kp == s.k)
    return;
  assert(s.batch == 1 && "batched products need K a multiple of 16");
  int64_t pad = s.kp - s.k;
  int64_t lhsCount = s.m * pad, total = lhsCount + pad * s.n;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value tid = lower::threadId(b, loc);
  scf::ForOp::create(
      b, loc, tid, i64(b, loc, total), i64(b, loc, info.threads), ValueRange{},
      [&](OpBuilder &b, Location loc, Value e, ValueRange) {
        Value inLhs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            e, i64(b, loc, lhsCount));
        scf::IfOp::create(
            b, loc, inLhs,
            [&](OpBuilder &b, Location loc) {
              Value row = arith::DivUIOp::create(b, loc, e, i64(b, loc, pad));
              Value col =
                  add(b, loc,
                      arith::RemUIOp::create(b, loc, e, i64(b, loc, pad)), s.k);
              Value at = arith::AddIOp::create(b, loc,
                                               mul(b, loc, row, s.pitchA), col);
              LLVM::StoreOp::create(
                  b, loc, zero, lower::elementPtr(b, loc, lhs, element, at));
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &b, Location loc) {
              Value r = arith::SubIOp::create(b, loc, e, i64(b, loc, lhsCount));
              // Transposed: row r / pad, column K + r % pad.
              int64_t across = s.rhsTransposed ? pad : s.n;
              Value row =
                  arith::DivUIOp::create(b, loc, r, i64(b, loc, across));
              Value col =
                  arith::RemUIOp::create(b, loc, r, i64(b, loc, across));
              if (s.rhsTransposed)
                col = add(b, loc, col, s.k);
              else
                row = add(b, loc, row, s.k);
              Value at = arith::AddIOp::create(b, loc,
                                               mul(b, loc, row, s.pitchB), col);
              LLVM::StoreOp::create(
                  b, loc, zero, lower::elementPtr(b, loc, rhs, element, at));
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
}

/// The four (or two) 32-bit registers of an ldmatrix.x4 at `at`.
SmallVector<Value> ldmatrix(OpBuilder &b, Location loc, Value at,
                            bool transpose) {
  Type i32 = b.getI32Type();
  auto type =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32, i32, i32});
  Value regs = NVVM::LdMatrixOp::create(
      b, loc, type, at, /*num=*/4,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> out;
  for (int64_t r = 0; r < 4; ++r)
    out.push_back(lower::field(b, loc, regs, r));
  return out;
}

/// One mma.sync.m16n8k16 (m16n8k8 for tf32, `element` f32: registers
/// holding tf32) on registers `a` (4), `b` (2) and accumulator elements
/// `c` (vector<4xf32>); returns vector<4xf32>.
Value mmaSync(OpBuilder &b, Location loc, Type element, ArrayRef<Value> a,
              ArrayRef<Value> bRegs, Value c) {
  Type f32 = b.getF32Type();
  bool f16 = element.isF16(), tf32 = element.isF32();
  auto asOperand = [&](Value r) -> Value {
    if (!f16)
      return r;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, element), r);
  };
  SmallVector<Value> aOps, bOps, cOps;
  for (Value r : a)
    aOps.push_back(asOperand(r));
  for (Value r : bRegs)
    bOps.push_back(asOperand(r));
  for (int64_t r = 0; r < 4; ++r)
    cOps.push_back(vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r}));
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes type = f16    ? NVVM::MMATypes::f16
                        : tf32 ? NVVM::MMATypes::tf32
                               : NVVM::MMATypes::bf16;
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, aOps, bOps, cOps,
      ArrayRef<int64_t>{16, 8, tf32 ? 8 : 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t r = 0; r < 4; ++r)
    elements.push_back(lower::field(b, loc, d, r));
  return vector::FromElementsOp::create(b, loc, VectorType::get({4}, f32),
                                        elements);
}

} // namespace

std::optional<MmaLayout> dslc::lower::mmaLayoutOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto mma =
      tensor ? dyn_cast_if_present<tile::MmaEncodingAttr>(tensor.getEncoding())
             : tile::MmaEncodingAttr();
  if (!mma)
    return std::nullopt;
  int64_t rank = tensor.getRank();
  return MmaLayout{tensor.getDimSize(rank - 2),
                   tensor.getDimSize(rank - 1),
                   mma.getWarpsM(),
                   mma.getWarpsN(),
                   rank == 3 ? tensor.getDimSize(0) : 1,
                   mma.getWarpsB()};
}

Value dslc::lower::mmaKSteps(OpBuilder &b, Location loc,
                             const MmaLayout &layout, Type e, Value lhsBase,
                             int64_t pitchA, Value rhsBase, int64_t pitchB,
                             int64_t kp, Value init, bool rhsTransposed) {
  // The lane's ldmatrix addresses at k-step 0 (element offsets), in the
  // warp's first matrix; 16 bytes are `unit` elements (8, or 4 in tf32).
  int64_t bytes = e.getIntOrFloatBitWidth() / 8;
  bool tf32 = e.isF32();
  int64_t unit = 16 / bytes, stepK = MmaLayout::stepK(bytes);
  auto [row0, col0, lane, matrix0] = warpPlace(b, loc, layout);
  Value l16 = arith::RemUIOp::create(b, loc, lane, i64(b, loc, 16));
  Value l8 = arith::RemUIOp::create(b, loc, lane, i64(b, loc, 8));
  Value half = arith::DivUIOp::create(b, loc, lane, i64(b, loc, 16));
  // lhsAddress(lane, 0): row l % 16, column 16 bytes times l / 16.
  Value aRow = arith::AddIOp::create(b, loc, row0, l16);
  Value aAt = arith::AddIOp::create(
      b, loc,
      mul(b, loc,
          arith::AddIOp::create(b, loc, aRow, mul(b, loc, matrix0, layout.m)),
          pitchA),
      mul(b, loc, half, unit));
  // rhsAddress(lane, 0): row 8 ((l / 8) % 2) + l % 8, column 8 (l / 16);
  // transposed (rhsTransposedAddress), row 8 (l / 16) + l % 8 of the
  // warp's columns, column 16 bytes times (l / 8) % 2. tf32 untransposed:
  // b0, b1 of a fragment are rows l % 4 and l % 4 + 4, column l / 4.
  Value eighth =
      mul(b, loc,
          arith::RemUIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, lane, i64(b, loc, 8)),
              i64(b, loc, 2)),
          rhsTransposed ? unit : 8);
  Value bAt;
  if (tf32 && !rhsTransposed) {
    Value bRow = arith::RemUIOp::create(b, loc, lane, i64(b, loc, 4));
    bRow = arith::AddIOp::create(b, loc, bRow, mul(b, loc, matrix0, kp));
    bAt = arith::AddIOp::create(
        b, loc, mul(b, loc, bRow, pitchB),
        arith::AddIOp::create(
            b, loc, col0,
            arith::DivUIOp::create(b, loc, lane, i64(b, loc, 4))));
  } else if (rhsTransposed) {
    Value bRow = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, col0, mul(b, loc, half, 8)), l8);
    bRow = arith::AddIOp::create(b, loc, bRow, mul(b, loc, matrix0, layout.n));
    bAt = arith::AddIOp::create(b, loc, mul(b, loc, bRow, pitchB), eighth);
  } else {
    Value bRow = arith::AddIOp::create(b, loc, eighth, l8);
    bRow = arith::AddIOp::create(b, loc, bRow, mul(b, loc, matrix0, kp));
    bAt = arith::AddIOp::create(
        b, loc, mul(b, loc, bRow, pitchB),
        arith::AddIOp::create(b, loc, col0, mul(b, loc, half, 8)));
  }
  // A k-step moves along rhs's rows, or its columns when transposed; a
  // matrix of the warp's is [Kp, N] past the last, or [N, Kp].
  int64_t bStepPitch = rhsTransposed ? 1 : pitchB;
  int64_t bMatrix = (rhsTransposed ? layout.n : kp) * pitchB;

  // tf32: an f32 register rounded to tf32 (cvt.rna, as Triton does).
  auto toTf32 = [&](OpBuilder &b, Location loc, Value bits) -> Value {
    if (!tf32)
      return bits;
    Value f = bits.getType().isF32()
                  ? bits
                  : LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
    return NVVM::ConvertFloatToTF32Op::create(b, loc, b.getI32Type(), f,
                                              NVVM::FPRoundingMode::RNA,
                                              NVVM::SaturationMode::NONE,
                                              /*relu=*/false);
  };
  auto steps = scf::ForOp::create(
      b, loc, i64(b, loc, 0), i64(b, loc, kp / stepK), i64(b, loc, 1),
      ValueRange{init},
      [&](OpBuilder &b, Location loc, Value step, ValueRange sums) {
        Value kk = mul(b, loc, step, stepK);
        Value aStep = arith::AddIOp::create(b, loc, aAt, kk);
        Value bStep =
            arith::AddIOp::create(b, loc, bAt, mul(b, loc, kk, bStepPitch));
        Value sum = sums[0];
        // The warp's matrices one after another: [M, Kp] and [Kp, N] apart.
        for (int64_t q = 0; q < layout.matricesPerWarp(); ++q) {
          SmallVector<SmallVector<Value>> a, bFrag;
          for (int64_t i = 0; i < layout.fragmentsM(); ++i) {
            auto [row, col] = MmaLayout::lhsAddress(0, i, bytes);
            Value at = add(b, loc, aStep, (q * layout.m + row) * pitchA + col);
            SmallVector<Value> regs =
                ldmatrix(b, loc, lower::elementPtr(b, loc, lhsBase, e, at),
                         /*transpose=*/false);
            for (Value &r : regs)
              r = toTf32(b, loc, r);
            a.push_back(regs);
          }
          for (int64_t j = 0; j < layout.fragmentsN(); j += 2) {
            if (tf32 && !rhsTransposed) {
              // b0, b1 of fragments j and j + 1: rows t, t + 4, columns
              // 8 j + g and 8 (j + 1) + g.
              for (int64_t f = j; f < j + 2; ++f) {
                SmallVector<Value> regs;
                for (int64_t r = 0; r < 2; ++r) {
                  Value at = add(b, loc, bStep,
                                 q * bMatrix + 4 * r * pitchB +
                                     f * MmaLayout::kFragCols);
                  regs.push_back(
                      toTf32(b, loc,
                             LLVM::LoadOp::create(
                                 b, loc, e,
                                 lower::elementPtr(b, loc, rhsBase, e, at))));
                }
                bFrag.push_back(regs);
              }
              continue;
            }
            auto [row, col] = rhsTransposed
                                  ? MmaLayout::rhsTransposedAddress(0, j, bytes)
                                  : MmaLayout::rhsAddress(0, j);
            Value at = add(b, loc, bStep, q * bMatrix + row * pitchB + col);
            SmallVector<Value> regs =
                ldmatrix(b, loc, lower::elementPtr(b, loc, rhsBase, e, at),
                         /*transpose=*/!rhsTransposed);
            for (Value &r : regs)
              r = toTf32(b, loc, r);
            bFrag.push_back({regs[0], regs[1]});
            bFrag.push_back({regs[2], regs[3]});
          }
          for (int64_t i = 0; i < layout.fragmentsM(); ++i)
            for (int64_t j = 0; j < layout.fragmentsN(); ++j) {
              int64_t at = layout.position(i, j, 0, q);
              Value c = vector::ExtractStridedSliceOp::create(
                  b, loc, sum, ArrayRef<int64_t>{at}, ArrayRef<int64_t>{4},
                  ArrayRef<int64_t>{1});
              Value d = mmaSync(b, loc, e, a[i], bFrag[j], c);
              sum = vector::InsertStridedSliceOp::create(
                  b, loc, d, sum, ArrayRef<int64_t>{at}, ArrayRef<int64_t>{1});
            }
        }
        scf::YieldOp::create(b, loc, sum);
      });
  return steps.getResult(0);
}

namespace {

struct MmaDotLowering : TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<MmaLayout> layout =
        lower::mmaLayoutOf(op.getResult().getType());
    if (!layout)
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MmaStaging s(op);
    Type e = op.getLhs().getType().getElementType();
    Value lhsBase = lower::sharedWorkspace(b, loc, op);
    Value rhsBase = LLVM::GEPOp::create(
        b, loc, lhsBase.getType(), b.getI8Type(), lhsBase,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(s.rhsOffset)});
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (Value valid = adaptor.getValidK()) {
      lhs = zeroPast(b, loc, info, s.lhsShape, lhs, 1, valid);
      rhs = zeroPast(b, loc, info, s.rhsShape, rhs, s.rhsTransposed ? 1 : 0,
                     valid);
    }
    lower::storeDistributed(b, loc, info, s.lhsShape, lhs, lhsBase, s.pitchA);
    lower::storeDistributed(b, loc, info, s.rhsShape, rhs, rhsBase, s.pitchB);
    zeroPadding(b, loc, info, s, lhsBase, rhsBase, e);
    lower::ctaBarrier(b, loc);

    Value init = adaptor.getAcc();
    if (!init)
      init = arith::ConstantOp::create(
          b, loc,
          b.getZeroAttr(
              VectorType::get({layout->perThread()}, b.getF32Type())));
    Value sum = lower::mmaKSteps(b, loc, *layout, e, lhsBase, s.pitchA, rhsBase,
                                 s.pitchB, s.kp, init, s.rhsTransposed);
    lower::ctaBarrier(b, loc);
    rewriter.replaceOp(op, sum);
    return success();
  }
};

/// Stores this thread's fragments of an f32 tile of `layout` row-major at
/// `base` (rows `pitch` apart).
void storeFragments(OpBuilder &b, Location loc, const MmaLayout &layout,
                    Value value, Value base, int64_t pitch) {
  Type f32 = b.getF32Type();
  Value origin = fragmentBase(b, loc, layout, pitch);
  forEachPair(layout, pitch, [&](int64_t position, int64_t offset) {
    Value pair = vector::ExtractStridedSliceOp::create(
        b, loc, value, ArrayRef<int64_t>{position}, ArrayRef<int64_t>{2},
        ArrayRef<int64_t>{1});
    LLVM::StoreOp::create(
        b, loc, pair,
        lower::elementPtr(b, loc, base, f32, add(b, loc, origin, offset)),
        /*alignment=*/8);
  });
}

/// The converse: this thread's fragments of the f32 tile at `base`.
Value loadFragments(OpBuilder &b, Location loc, const MmaLayout &layout,
                    Value base, int64_t pitch) {
  Type f32 = b.getF32Type();
  Value origin = fragmentBase(b, loc, layout, pitch);
  Value result = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(VectorType::get({layout.perThread()}, f32)));
  forEachPair(layout, pitch, [&](int64_t position, int64_t offset) {
    Value pair = LLVM::LoadOp::create(
        b, loc, VectorType::get({2}, f32),
        lower::elementPtr(b, loc, base, f32, add(b, loc, origin, offset)),
        /*alignment=*/8);
    result = vector::InsertStridedSliceOp::create(b, loc, pair, result,
                                                  ArrayRef<int64_t>{position},
                                                  ArrayRef<int64_t>{1});
  });
  return result;
}

struct ConvertLayoutLowering : TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    std::optional<MmaLayout> from = lower::mmaLayoutOf(op.getInput().getType());
    std::optional<MmaLayout> to = lower::mmaLayoutOf(op.getType());
    RankedTensorType type = op.getType();
    if (!from && !to) {
      // Blocked to blocked: one layout per shape.
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    if (!type.getElementType().isF32() ||
        (type.getRank() != 2 && type.getRank() != 3))
      return rewriter.notifyMatchFailure(op,
                                         "#tile.mma tiles are 2-d or 3-d f32");
    int64_t pitch = f32Pitch(type.getShape().back());
    Value base = lower::sharedWorkspace(b, loc, op);
    Value value = adaptor.getInput();
    if (from) {
      storeFragments(b, loc, *from, value, base, pitch);
    } else {
      lower::storeDistributed(b, loc, info, type.getShape(), value, base,
                              pitch);
    }
    lower::ctaBarrier(b, loc);
    Value result =
        to ? loadFragments(b, loc, *to, base, pitch)
           : lower::loadDistributed(b, loc, info, type.getShape(),
                                    b.getF32Type(), base, nullptr, pitch);
    lower::ctaBarrier(b, loc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

int64_t dslc::lower::mmaDotSharedBytes(Operation *dot) {
  return MmaStaging(cast<tile::DotOp>(dot)).total;
}

int64_t dslc::lower::mmaConvertSharedBytes(Operation *convert) {
  auto op = cast<tile::ConvertLayoutOp>(convert);
  if (!lower::mmaLayoutOf(op.getType()) &&
      !lower::mmaLayoutOf(op.getInput().getType()))
    return 0;
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  return rows * f32Pitch(shape.back()) * 4;
}

void dslc::populateMmaLoweringPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<MmaDotLowering, ConvertLayoutLowering>(converter,
                                                      patterns.getContext());
}

std::optional<int64_t> dslc::lower::mmaElementsPerThread(Type type) {
  if (std::optional<MmaLayout> layout = lower::mmaLayoutOf(type))
    return layout->perThread();
  return std::nullopt;
}
