//===- SemValue.h - What a DSL expression evaluates to ----------*- C++ -*-===//
//
// The generator's values (SemValue: compile-time constants, run-time
// scalars, tensors, tiles...), where scalars and tile tails come from, and
// the free helpers over them and over dtype names (defined in DTypes.cpp,
// GenArgs.cpp, GenSignature.cpp, GenStmt.cpp and MLIRGen.cpp). Generator.h
// declares the generator that produces them.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_SEMVALUE_H
#define DSLC_COMPILER_MLIRGEN_SEMVALUE_H

#include "compiler/Frontend/AST.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
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

/// How many elements of one dimension of a tile value hold data: the
/// smallest over the tile accesses it came from, each max(min(end,
/// ref.size(dim)) - begin, 0) (end - begin without a tensor). No bound:
/// every element does. Materialized only when a reduction needs it, so
/// kernels without reductions get no extra ops.
struct ValidCount {
  struct Bound {
    mlir::Value begin, end, ref;
    unsigned dim = 0;
    bool operator==(const Bound &o) const {
      return begin == o.begin && end == o.end && ref == o.ref && dim == o.dim;
    }
  };
  llvm::SmallVector<Bound, 1> bounds;
  bool all() const { return bounds.empty(); }
};

struct SemValue {
  enum class Kind {
    None,   ///< None / unknown-but-harmless (device, group names).
    Int,    ///< Compile-time integer (also bool).
    Float,  ///< Compile-time float.
    String, ///< Compile-time string.
    DType,  ///< An element type (torch.bfloat16, x.dtype).
    Scalar, ///< A run-time scalar (index, i64 or float).
    Ref,    ///< A tensor in global memory.
    /// A tensor in global memory seen through a permutation of its
    /// dimensions (a tensor argument given with --dim-order, `x.T` of a
    /// tensor): `value` is the tensor as stored (row-major), `dimOrder`
    /// the permutation. Only subscripts (loads), sizes, dtype and `.T`
    /// take it (GenDimOrder.cpp); anything else refuses it by its kind.
    PermutedRef,
    Stack,    ///< A stack tensor (one tensor per peer).
    PeerList, ///< get_remote_tensors(): iterable of the peers' tensors.
    Tile,     ///< A tile loop variable.
    TileData, ///< A tile value (ranked tensor).
    Tuple,    ///< A tuple/list of values.
    Module,   ///< A module or namespace path (torch, hl, torch.ops...).
    Unbound,  ///< A constexpr without a value.
    /// The value of a statement that failed (its error is reported): uses
    /// fail silently, so one mistake gives one error.
    Poison,
    /// A name that a run-time `if` leaves unassigned on some path, or with
    /// values of different types: `text` is the error its first use
    /// reports.
    Unmerged,
    /// A function value: a `lambda` (a parameter's default, or written in
    /// the kernel) or a def of the file; calling it inlines it.
    Callable,
    /// A tensor that host code computes (PyTorch on the caller's side in
    /// Helion: `losses.mean()` after the loop, `w.to(x.dtype)` before it):
    /// `text` says what; the kernel cannot use it.
    Host,
  };
  Kind kind = Kind::None;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string text;  ///< String, Module path, DType name, Ref/param name.
  mlir::Value value; ///< Scalar, Ref, Stack, TileData.
  std::optional<ScalarOrigin> origin;
  /// A run-time integer scalar whose value --shape gives: a tensor size, or
  /// integer arithmetic on such sizes and constants (D // WORLD_SIZE).
  /// Where a compile-time integer is needed (a slice bound...), the sizes
  /// it reads are compiled in (launch constraints) and `value` is used.
  struct ShapeKnown {
    int64_t value = 0;
    struct Size {
      std::string param;
      unsigned dim;
      int64_t value;
    };
    llvm::SmallVector<Size, 2> sizes;
  };
  std::optional<ShapeKnown> known;
  /// The tensor sizes (param, dim) a run-time integer scalar is computed
  /// from, for the error where a compile-time integer is needed.
  llvm::SmallVector<std::pair<std::string, unsigned>, 2> sizesRead;
  // Tile loop variables.
  mlir::Value id, begin, end;
  mlir::Value extent; ///< The loop's extent (index).
  int64_t block = 1;
  bool gridTile = false;
  std::optional<ScalarOrigin> extentOrigin;
  // Stack-derived: the peer count when known.
  int64_t peers = 0;
  std::vector<SemValue> elements; ///< Tuple.
  const ast::Expr *where = nullptr;
  // Tile values.
  /// Per dimension, the count of elements that hold data (the masked tail
  /// of a tile loaded through a tile index); null where all do.
  llvm::SmallVector<ValidCount, 4> valid;
  /// A tile value equal to `tile.index + k` (unit stride): the tile it
  /// indexes, shifted by k. Subscripting a tensor with it is that tile.
  std::shared_ptr<SemValue> indexTile;
  /// The sizes the kernel knows a tensor by (integer constants or run-time
  /// index scalars): a view's (`x.view(...)`, `x.reshape(...)` of tensor
  /// `text`) or an output's as torch.empty made it; empty for a parameter
  /// seen as it is (its sizes are tile.dim).
  std::vector<SemValue> viewSizes;
  /// A slice of a tensor taken before the loop (`x[:, :-1, :]`, a strided
  /// view in PyTorch): per dimension, where it starts in `value`'s tensor
  /// (an integer constant or a run-time index); `viewSizes` are its sizes.
  /// Empty for a tensor seen whole.
  std::vector<SemValue> windowStarts;
  /// PermutedRef: stored dimension s holds dimension dimOrder[s] of the
  /// tensor the kernel sees (torch's Tensor.dim_order(): {1, 0} for the
  /// transpose of a row-major matrix).
  std::vector<unsigned> dimOrder;
  // Callables.
  const ast::LambdaExpr *lambda = nullptr;
  const ast::FunctionDef *function = nullptr;
  /// A function parameter without a default (neither of the above): a
  /// kernel may take one it never calls (a variant with the function
  /// written in keeps the parameter); calling it is the error.
  const ast::Param *unboundParam = nullptr;
  /// A lambda that sees only its parameters and the modules (a
  /// parameter's default, defined at the top of the file), not the names
  /// of the code that calls it.
  bool isolated = false;

  static SemValue none() { return {}; }
  static SemValue integer(int64_t v) {
    SemValue s;
    s.kind = Kind::Int;
    s.intValue = v;
    return s;
  }
  static SemValue floating(double v) {
    SemValue s;
    s.kind = Kind::Float;
    s.floatValue = v;
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
/// Whether `t` is one of the fp8 storage types (e4m3fn, e5m2).
bool isFP8(mlir::Type t);

/// torch's elementwise unary functions dslc has (rsqrt, sqrt, exp, ...).
bool isUnaryMath(llvm::StringRef name);
/// sum, mean, amax, amin, max, min, prod.
bool isReduction(llvm::StringRef name);
/// The `text` of the tuple torch.max/min(t, dim) give: its elements are
/// also `.values` and `.indices` (torch.return_types).
inline constexpr const char *kValuesIndices = "torch.return_types";

/// The rank and element type of a tensor (Ref) or stack value.
std::pair<unsigned, mlir::Type> refShape(const SemValue &ref);

/// An Int or Float constant.
inline bool isNumber(const SemValue &v) {
  return v.kind == SemValue::Kind::Int || v.kind == SemValue::Kind::Float;
}

/// A Float constant or a run-time float scalar (torch's promotion: it makes
/// an integer operand float32).
inline bool isFloatScalar(const SemValue &v) {
  return v.kind == SemValue::Kind::Float ||
         (v.kind == SemValue::Kind::Scalar &&
          mlir::isa<mlir::FloatType>(v.value.getType()));
}

/// Whether `e` is written with literals only (numbers, strings, None, a
/// dotted name such as torch.float32, operators and tuples of those): a
/// constexpr default.
bool isConstantSyntax(const ast::Expr &e);
/// The JSON literal of a compile-time value (metadata `constants`).
std::optional<std::string> constantJSON(const SemValue &v);

/// Adds the names assigned anywhere in `body` (loop targets included).
void assignedNames(const ast::StmtList &body, std::set<std::string> &names);
/// Adds the names statement `s` assigns (in its blocks too).
void assignedNames(const ast::Stmt &s, std::set<std::string> &names);

/// The elements of a list or tuple expression, or the expression itself:
/// `hl.tile([m, n])`, `pad[[i, j]]`-style indices and tile shapes accept
/// either one entry or a sequence.
std::vector<const ast::Expr *> elementsOf(const ast::Expr &e);

} // namespace dslc::mlirgen

#endif // DSLC_COMPILER_MLIRGEN_SEMVALUE_H
