//===- Generator.h - MLIRGen's private state and helpers --------*- C++ -*-===//
//
// Private to compiler/MLIRGen. The generator walks a kernel's statements
// once, evaluating what is known at compile time (constexprs, sizes made
// static by hl.specialize, block sizes, tuple unrolling, `if` on constants)
// and emitting Tile/Comm/arith ops for the rest. Names are bound to semantic
// values (SemValue): a tensor in memory, a stack tensor, a tile loop
// variable, a tile value, a scalar, a constant...
//
// The member functions are defined one file per concern, as clang's CodeGen
// splits CodeGenFunction:
//   MLIRGen.cpp      the entry point and the kernel function's attributes
//   GenSignature.cpp config, -D values, parameters and their types
//   GenStmt.cpp      blocks, assignments, stores, return/assert/if
//   GenLoops.cpp     for loops: hl.tile/hl.grid, range, tuples, scf.for
//   GenExpr.cpp      names, attributes, calls, subscripts
//   GenOperators.cpp binary, unary and comparison operators
//   GenComm.cpp      signal/wait, stack tensors, packets, epochs, peers
//   GenTile.cpp      tile values: zeros/full, empty_like, casts, accesses
//   GenConstant.cpp  compile-time evaluation, hl.specialize
//   GenArgs.cpp      call arguments and keyword helpers
//   DTypes.cpp       dtype names <-> MLIR element types
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_GENERATOR_H
#define DSLC_COMPILER_MLIRGEN_GENERATOR_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/MLIRGen/KernelDescription.h"
#include "dialects/Comm/CommDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dslc::mlirgen {

//===----------------------------------------------------------------------===//
// Semantic values
//===----------------------------------------------------------------------===//

/// Where a scalar came from, for the metadata's grid rule.
struct ScalarOrigin {
  std::string param;
  unsigned dim = 0;
  /// The scalar is floor((size + add) / div).
  int64_t add = 0, div = 1;
  bool plain() const { return add == 0 && div == 1; }
};

struct SemValue {
  enum class Kind {
    None,     ///< None / unknown-but-harmless (device, group names).
    Int,      ///< Compile-time integer (also bool).
    Float,    ///< Compile-time float.
    String,   ///< Compile-time string.
    DType,    ///< An element type (torch.bfloat16, x.dtype).
    Scalar,   ///< A run-time scalar (index, i64 or float).
    Ref,      ///< A tensor in global memory.
    Stack,    ///< A stack tensor (one tensor per peer).
    PeerList, ///< get_remote_tensors(): iterable of the peers' tensors.
    Tile,     ///< A tile loop variable.
    TileData, ///< A tile value (ranked tensor).
    Tuple,    ///< A tuple/list of values.
    Module,   ///< A module or namespace path (torch, hl, torch.ops...).
    Unbound,  ///< A constexpr without a value.
  };
  Kind kind = Kind::None;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string text;  ///< String, Module path, DType name, Ref/param name.
  mlir::Value value; ///< Scalar, Ref, Stack, TileData.
  std::optional<ScalarOrigin> origin;
  // Tile loop variables.
  mlir::Value id, begin, end;
  int64_t block = 1;
  bool gridTile = false;
  std::optional<ScalarOrigin> extentOrigin;
  // Stack-derived: the peer count when known.
  int64_t peers = 0;
  std::vector<SemValue> elements; ///< Tuple.
  const ast::Expr *where = nullptr;

  static SemValue none() { return {}; }
  static SemValue integer(int64_t v) {
    SemValue s;
    s.kind = Kind::Int;
    s.intValue = v;
    return s;
  }
  static SemValue ofKind(Kind k) {
    SemValue s;
    s.kind = k;
    return s;
  }
};

/// "an integer constant", "a tile value", ... for diagnostics.
const char *kindName(SemValue::Kind k);

/// Thrown-free error propagation: every generator returns failure after
/// reporting, and callers bail out.
using Result = mlir::FailureOr<SemValue>;

//===----------------------------------------------------------------------===//
// dtypes (DTypes.cpp)
//===----------------------------------------------------------------------===//

/// The canonical dtype name of a torch/short spelling ("bf16", "half",
/// "int", ...), without the "torch." prefix.
std::optional<std::string> canonicalDType(llvm::StringRef name);
/// The dtype name of an element type (signless integers read as signed).
std::string typeToDType(mlir::Type t);
/// The element type of a canonical dtype name (null if unknown).
mlir::Type dtypeToType(mlir::MLIRContext *ctx, llvm::StringRef dtype);

/// The elements of a list or tuple expression, or the expression itself:
/// `hl.tile([m, n])`, `pad[[i, j]]`-style indices and tile shapes accept
/// either one entry or a sequence.
std::vector<const ast::Expr *> elementsOf(const ast::Expr &e);

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

/// Largest block size of one tile dimension, and largest tile. A tile that
/// holds data lives in the registers of one CTA: past kMaxTileElements code
/// size and spills explode (checkTileSize). A block may be larger when its
/// tile only ranges over indices, e.g. a grid tile that a nested
/// hl.tile(chunk.begin, chunk.end) walks in smaller tiles.
using contract::kMaxBlockSize;
constexpr int64_t kMaxTileElements = 1 << 17;
/// Most tile elements one thread may hold (per tile value).
constexpr int64_t kMaxElementsPerThread = 256;
/// Most CTAs a kernel with per-CTA epochs may be launched with; its state
/// buffer holds one 32-bit counter per CTA.
constexpr int64_t kMaxEpochCtas = 4096;
/// Most iterations of a `range` loop over constants (unrolled).
constexpr int64_t kMaxConstantRangeIterations = 4096;

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

/// Counts the per-thread work (kMaxPerThreadWork, compiler/Limits.h) of the
/// operations MLIRGen inserts.
class WorkCounter : public mlir::OpBuilder::Listener {
public:
  int64_t threads = 128;
  int64_t total = 0;
  /// Statements generated (kMaxGeneratedStatements), unrolled copies
  /// included.
  int64_t statements = 0;
  void notifyOperationInserted(mlir::Operation *op,
                               mlir::OpBuilder::InsertPoint) override;
};

class Generator {
public:
  Generator(mlir::MLIRContext &ctx, const ast::Module &module,
            const ast::FunctionDef &kernel, const CompileOptions &options,
            dslc::DiagnosticEngine &diags, KernelDescription &desc)
      : ctx(ctx), builder(&ctx, &work), module(module), kernel(kernel),
        options(options), diags(diags), desc(desc) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  mlir::MLIRContext &ctx;
  WorkCounter work; // before builder, which reports to it
  mlir::OpBuilder builder;
  const ast::Module &module;
  const ast::FunctionDef &kernel;
  const CompileOptions &options;
  dslc::DiagnosticEngine &diags;
  KernelDescription &desc;

  mlir::func::FuncOp func;
  std::vector<std::map<std::string, SemValue>> scopes;
  std::vector<int64_t> blockSizes;
  unsigned nextBlockSize = 0;
  std::set<std::string> symmetricParams;
  std::set<std::string> usedDefines;
  /// Arguments given by position and by keyword, already reported.
  std::set<const ast::Expr *> reportedDoubleArguments;
  std::map<std::string, std::string> refDTypes; ///< value name -> dtype
  std::vector<std::string> argNames;
  bool inGrid = false;
  /// The kernel's grid loop, once generated (nothing but `return` follows).
  const ast::ForStmt *gridLoop = nullptr;
  /// kMaxPerThreadWork or kMaxGeneratedStatements was passed and reported.
  bool workReported = false;
  bool returned = false;

  // -- helpers (MLIRGen.cpp) ------------------------------------------------
  mlir::Location loc(const ast::Expr &e) { return loc(e.getRange()); }
  mlir::Location loc(SourceRange r);
  mlir::LogicalResult error(SourceRange r, const std::string &msg) {
    diags.error(r, msg);
    return mlir::failure();
  }
  Result fail(SourceRange r, const std::string &msg) {
    diags.error(r, msg);
    return mlir::failure();
  }
  SemValue *lookup(const std::string &name);
  /// Python scoping: assignment rebinds the innermost existing binding.
  void bind(const std::string &name, SemValue v);
  /// Records a launch-time check once.
  void addConstraint(Constraint c);

  // -- constant evaluation (GenConstant.cpp) --------------------------------
  mlir::Value indexConst(mlir::Location l, int64_t v);
  /// An index-typed value of an integer SemValue.
  mlir::FailureOr<mlir::Value> toIndex(const SemValue &v,
                                       const ast::Expr &where);
  mlir::FailureOr<int64_t> toConstInt(const SemValue &v, const ast::Expr &where,
                                      const std::string &what);
  /// The value of `-D name=text` (or of a specialized size).
  mlir::FailureOr<SemValue> defineValue(const std::string &name,
                                        const std::string &text,
                                        SourceRange where);
  /// `a op b` of two compile-time integers; nullopt when `op` does not fold.
  std::optional<Result> foldIntegers(ast::BinaryOp op, int64_t a, int64_t b,
                                     const ast::Expr &where);
  Result genSpecialize(const ast::CallExpr &e);

  // -- call arguments (GenArgs.cpp) -----------------------------------------
  const ast::Expr *keyword(const ast::CallExpr &e, llvm::StringRef name);
  /// The positional argument `position` or else keyword `name`; an error
  /// (reported once) when the call gives both.
  const ast::Expr *argument(const ast::CallExpr &e, size_t position,
                            llvm::StringRef name);
  /// Fails (reported) on `*xs` / `**kw` arguments: every callee binds its
  /// arguments at compile time, by position and name.
  mlir::LogicalResult checkCallArguments(const ast::CallExpr &e);
  /// Fails (reported) on a keyword argument of `fn` not in `allowed`.
  mlir::LogicalResult checkKeywords(const ast::CallExpr &e, llvm::StringRef fn,
                                    llvm::ArrayRef<llvm::StringRef> allowed);
  /// A compile-time integer argument that fits 32 bits, `dflt` when absent,
  /// nullopt when None.
  mlir::FailureOr<std::optional<int64_t>>
  constIntArgument(const ast::CallExpr &e, const char *key,
                   std::optional<int64_t> dflt, size_t position);
  /// A string keyword, `dflt` when absent.
  mlir::FailureOr<std::string> stringKeyword(const ast::CallExpr &e,
                                             const char *key,
                                             const std::string &dflt);
  /// A True/False keyword, true when absent.
  mlir::FailureOr<bool> boolKeyword(const ast::CallExpr &e, const char *key);

  // -- setup (GenSignature.cpp) ---------------------------------------------
  mlir::LogicalResult readConfig();
  mlir::LogicalResult readConfigCall(const ast::Expr &config);
  void scanSymmetric(const ast::StmtList &body);
  void scanSymmetricExpr(const ast::Expr &e);
  /// What a tensor or scalar parameter's annotation or --signature says.
  struct ParamType {
    std::string dtype;
    unsigned rank = 0;
    bool isScalar = false;
  };
  mlir::LogicalResult buildSignature();
  mlir::LogicalResult checkSignatureNames();
  mlir::FailureOr<SemValue> constexprValue(const ast::Param &p);
  mlir::LogicalResult checkRankAgreement(const ast::Param &p,
                                         const SemValue &v);
  mlir::FailureOr<ParamType> paramType(const ast::Param &p);
  mlir::LogicalResult missingType(const ast::Param &p);
  mlir::FailureOr<ParamType> tensorAnnotation(const ast::Param &p,
                                              const ast::SubscriptExpr &sub);
  void bindParameters(mlir::Block *entry,
                      std::vector<std::pair<std::string, SemValue>> &constants);

  // -- statements (GenStmt.cpp) ---------------------------------------------
  mlir::LogicalResult genBlock(const ast::StmtList &body);
  mlir::LogicalResult genStmt(const ast::Stmt &s);
  mlir::LogicalResult genIf(const ast::IfStmt &s);
  mlir::LogicalResult genReturn(const ast::ReturnStmt &s);
  mlir::LogicalResult genAssign(const ast::Expr &target, SemValue value,
                                SourceRange where);
  mlir::LogicalResult genStore(const ast::SubscriptExpr &target,
                               SemValue value);

  // -- loops (GenLoops.cpp) -------------------------------------------------
  /// One dimension of an hl.tile / hl.grid loop.
  struct TileDim {
    const ast::Expr *extentExpr = nullptr;
    SemValue extent;
    mlir::Value extentIndex;
    int64_t block = 1;
    const ast::Expr *target = nullptr;
  };
  mlir::LogicalResult genFor(const ast::ForStmt &s);
  mlir::LogicalResult genRangeLoop(const ast::ForStmt &s,
                                   const ast::CallExpr &call);
  mlir::LogicalResult genTileLoop(const ast::ForStmt &s,
                                  const ast::CallExpr &call, bool isGrid);
  mlir::FailureOr<std::vector<int64_t>>
  tileBlockSizes(const ast::CallExpr &call, size_t numDims, bool isGrid);
  SemValue makeTile(const TileDim &dim, mlir::Value id, bool isGrid);
  mlir::FailureOr<GridExtent> gridExtent(const TileDim &dim);
  mlir::LogicalResult genGridLoop(const ast::ForStmt &s,
                                  std::vector<TileDim> &dims, bool isGrid);
  mlir::LogicalResult genNestedTileLoop(const ast::ForStmt &s,
                                        const ast::CallExpr &call,
                                        const ast::Expr *beginArg,
                                        std::vector<TileDim> &dims,
                                        bool isGrid);
  mlir::LogicalResult genLoopBody(const ast::ForStmt &s,
                                  const ast::Expr &target, SemValue item);
  mlir::LogicalResult
  genRuntimeLoop(const ast::ForStmt &s, mlir::Value lb, mlir::Value ub,
                 mlir::Value step,
                 const std::function<SemValue(mlir::Value)> &item);

  // -- expressions (GenExpr.cpp) --------------------------------------------
  Result genExpr(const ast::Expr &e);
  Result genSequence(const ast::ExprList &elements);
  Result genName(const ast::NameExpr &e);
  Result genAttribute(const ast::AttributeExpr &e);
  Result genRefAttribute(const ast::AttributeExpr &e, const SemValue &base);
  Result genTileAttribute(const ast::AttributeExpr &e, const SemValue &base);
  Result genCall(const ast::CallExpr &e);
  /// x.size(d), x.dim(), x.element_size(), stack[:, i].sum(0), t.to(dtype);
  /// nullopt when `e` is not such a method call.
  std::optional<Result> genMethodCall(const ast::CallExpr &e);
  Result genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                     const ast::Expr &callee);
  Result genLen(const ast::CallExpr &e);
  Result genMinMax(const ast::CallExpr &e, bool isMin);
  Result genSubscript(const ast::SubscriptExpr &e);
  Result genTupleItem(const ast::SubscriptExpr &e, const SemValue &base);

  // -- operators (GenOperators.cpp) -----------------------------------------
  Result genBinary(const ast::BinaryExpr &e);
  static bool isIndexLike(const SemValue &v);
  Result shiftTile(SemValue tile, const SemValue &by, const ast::Expr &where);
  Result genUnary(const ast::UnaryExpr &e);
  Result genCompare(const ast::CompareExpr &e);
  Result binaryOp(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                  const ast::Expr &where);
  Result tileBinary(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                    const ast::Expr &where);
  /// Converts two tiles of different element types to the wider one.
  mlir::LogicalResult promoteTiles(SemValue &lhs, SemValue &rhs,
                                   mlir::RankedTensorType &type,
                                   const ast::Expr &where);
  Result tileArith(ast::BinaryOp op, mlir::Value a, mlir::Value b, bool isFloat,
                   const ast::Expr &where);
  Result scalarBinary(ast::BinaryOp op, const SemValue &lhs,
                      const SemValue &rhs, const ast::Expr &where);

  // -- communication (GenComm.cpp) ------------------------------------------
  /// The slots a signal/wait touches: one start index and extent per pad
  /// dimension.
  struct SignalSlots {
    llvm::SmallVector<mlir::Value> indices;
    llvm::SmallVector<int64_t> extents;
  };
  /// A signal/wait's keyword options.
  struct SignalOptions {
    int64_t signal = 1;
    std::optional<int64_t> extra; ///< wait_for (signal) or update (wait).
    comm::MemScope scope = comm::MemScope::gpu;
    comm::MemSem sem = comm::MemSem::relaxed;
    bool memAccess = true; ///< hasPrevious/SubsequentMemAccess.
  };
  Result genSignalWait(const ast::CallExpr &e, bool isSignal);
  mlir::FailureOr<SignalSlots> signalSlots(const SemValue &pad,
                                           const ast::Expr &indexArg);
  mlir::FailureOr<SignalOptions> signalOptions(const ast::CallExpr &e,
                                               bool isSignal);
  Result genStackTensor(const ast::CallExpr &e);
  Result genEpoch(const ast::CallExpr &e);
  Result genPacket(const ast::CallExpr &e, bool isPut);
  mlir::FailureOr<mlir::Value> packetFlag(const ast::Expr &flagArg,
                                          mlir::Location l);
  Result genRemoteTensors(const ast::CallExpr &e);
  Result genLoadReduce(const ast::CallExpr &e, const SemValue &stack,
                       const ast::SubscriptExpr &sub);

  // -- tiles (GenTile.cpp) --------------------------------------------------
  Result genZerosFull(const ast::CallExpr &e, bool full);
  Result genEmptyLike(const ast::CallExpr &e);
  Result genCast(const ast::CallExpr &e, const ast::Expr &value);
  mlir::FailureOr<mlir::RankedTensorType> tileShapeOf(const ast::Expr &list,
                                                      mlir::Type elementType);
  struct Access {
    llvm::SmallVector<mlir::Value> offsets, limits;
    llvm::SmallVector<int64_t> dims, shape;
  };
  mlir::FailureOr<Access> accessOf(const SemValue &ref, unsigned rank,
                                   const ast::Expr &index);
  mlir::FailureOr<Access>
  accessOfList(unsigned rank, const std::vector<const ast::Expr *> &idx,
               const ast::Expr &index);
  mlir::FailureOr<mlir::Value>
  coerceTile(SemValue v, mlir::RankedTensorType type, const ast::Expr &where);
  mlir::FailureOr<mlir::Value> castTile(mlir::Value v, mlir::Type elementType,
                                        mlir::Location l);
  /// Checks that a tile of `shape` fits a CTA's registers.
  mlir::LogicalResult checkTileSize(llvm::ArrayRef<int64_t> shape,
                                    SourceRange where);
};

} // namespace dslc::mlirgen

#endif // DSLC_COMPILER_MLIRGEN_GENERATOR_H
