//===- GeneratorState.h - MLIRGen's limits, state and its types -*- C++ -*-===//
//
// Private to compiler/MLIRGen. The state the generator (Generator.h) keeps
// while it walks a kernel, the small types its member functions pass
// around (namespace gen), and MLIRGen's limits. Generator derives from
// GeneratorState; its member functions are declared in Generator.h and
// defined one file per concern:
//   MLIRGen.cpp        the entry point and the kernel function's attributes
//   GenSignature.cpp   config, -D values, parameters and their types
//   GenParams.cpp      parameter kinds (constexprs, callables, optionals)
//   GenStmt.cpp        blocks, assignments, stores, return/assert
//   GenIf.cpp          if: folded, or scf.if on a run-time scalar
//   GenLoops.cpp       for loops: range, tuples, scf.for, unrolling
//   GenTileLoops.cpp   hl.tile/hl.grid loops: the grid, nested tile loops
//   GenExpr.cpp        names, attributes, subscripts
//   GenCall.cpp        calls: builtins, methods, tensor constructors
//   GenOperators.cpp   binary and unary operators
//   GenCompare.cpp     comparisons, run-time `and`/`or`
//   GenMath.cpp        elementwise math on tiles
//   GenActivations.cpp torch.nn.functional and composites (softmax, gelu)
//   GenReduce.cpp      reductions across tile dimensions
//   GenDot.cpp         matrix products of 2-d (and batched) tiles
//   GenHelpers.cpp     plain functions of the file, inlined; what is not
//                      supported and what to write instead
//   GenHost.cpp        host code around the loop: views, sizes
//   GenOutputs.cpp     tensors a kernel makes and returns
//   GenSizes.cpp       sizes compiled in from --shape
//   GenTritonRuntime.cpp Helion's Triton runtime, mapped back to the DSL
//   GenComm.cpp        signal/wait, stack tensors, packets, epochs, peers
//   GenTile.cpp        tile values: zeros/full, casts, coercion
//   GenReshape.cpp     tile shapes: reshape, transpose, expand, stack, split
//   GenShape.cpp       accesses (windows too), None, broadcasting
//   GenGather.cpp      gathers and scatters at computed indices
//   GenAtomic.cpp      hl.atomic_*
//   GenRandom.cpp      hl.rand (Philox)
//   GenConstant.cpp    compile-time evaluation, hl.specialize
//   GenArgs.cpp        call arguments and keyword helpers
//   GenSymmMemSync.cpp Helion's symm_mem_sync and its implicit pad
//   DTypes.cpp         dtype names <-> MLIR element types
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_GENERATORSTATE_H
#define DSLC_COMPILER_MLIRGEN_GENERATORSTATE_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Limits.h"
#include "compiler/MLIRGen/KernelDescription.h"
#include "compiler/MLIRGen/SemValue.h"
#include "compiler/MLIRGen/WorkCounter.h"
#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dslc::mlirgen {

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
// The most tile elements one thread may hold is kMaxElementsPerThread
// (compiler/Limits.h); the most dimensions of a tile
// tile::kMaxTileRank (dialects/Tile/TileDialect.h).
/// Whole rows (`x[rows, :]`) of more elements per thread than this are
/// computed a chunk at a time (RollReductions), in chunks of at most
/// kAutoRollElementsPerThread per thread.
constexpr int64_t kAutoRollAbove = 64;
constexpr int64_t kAutoRollElementsPerThread = 32;
/// range loops over constants of at most this many iterations are unrolled
/// (a loop over the peers issues their loads and polls together); longer
/// ones stay scf.for unless the body needs the loop variable at compile
/// time.
constexpr int64_t kAutoUnrollIterations = 8;
/// Deepest nesting of inlined helper calls.
constexpr size_t kMaxCallDepth = 32;
/// Why the matmuls other than hl.dot, torch.addmm / mm / matmul and `@`
/// (GenDot.cpp) are errors.
inline constexpr const char kNoMatmul[] =
    "is not supported: write hl.dot(a, b, acc=...) (or torch.addmm / "
    "torch.mm / a @ b) on 2-d tiles, with any scaling as tile arithmetic on "
    "the f32 result";
/// The module names a dotted call path may start with (torch.exp, hl.dot).
inline constexpr const char *kModules[] = {"torch", "hl", "helion", "dslc",
                                           "math"};

//===----------------------------------------------------------------------===//
// Types the generator's member functions pass around
//===----------------------------------------------------------------------===//

namespace gen {

/// Whole-row extents too wide for the registers, the chunk each is
/// computed in (tile::kAutoReductionLoopsAttr), and whether a tile of
/// them would not fit at all unrolled.
struct AutoRoll {
  int64_t chunk = 0;
  bool required = false;
};

/// What a first, quiet generation learns for Helion's default config
/// (no config gives the block sizes): the tunable block sizes taken,
/// with the extents they tile (0: unknown), and the whole-row extents.
struct DefaultProbe {
  std::vector<int64_t> hints;
  /// The extents of dimensions loaded whole; after the probe, Helion's
  /// reduction dimensions among them (helionReductionRows).
  std::set<int64_t> fullRows;
  /// The least block size a tunable takes because a matrix product uses
  /// its tiles as M, N or K (Helion's min_dot_size rule), by block index.
  std::vector<int64_t> dotMinimums;
  /// The tunable block index of each tile loop's begin (probe only).
  llvm::DenseMap<mlir::Value, unsigned> tileBlocks;
};

/// Inlined helper calls, innermost last.
struct CallFrame {
  const ast::FunctionDef *fn;
  SourceRange callSite;
  std::optional<SemValue> result;
  bool returned;
  unsigned loopDepth; ///< loopDepth at the call
};

/// What a tensor or scalar parameter's annotation or --signature says.
struct ParamType {
  std::string dtype;
  unsigned rank = 0;
  bool isScalar = false;
  bool isTuple = false; ///< tuple[torch.Tensor, ...]: the peers' copies
};

enum class ParamCategory {
  Value,          ///< a tensor or a scalar (paramType)
  Constexpr,      ///< str, bool, list[...]: compiled in like hl.constexpr
  Callable,       ///< a function (a lambda default): inlined where called
  OptionalTensor, ///< torch.Tensor | None
};

/// One path of a run-time if: its block, its statements, the bindings
/// after it and the values it yields.
struct IfPath {
  mlir::Block *block;
  const ast::StmtList *body;
  std::map<std::string, SemValue> values;
  llvm::SmallVector<mlir::Value> yields;
};

/// One dimension of an hl.tile / hl.grid loop.
struct TileDim {
  const ast::Expr *extentExpr = nullptr;
  SemValue extent;
  mlir::Value extentIndex;
  int64_t block = 1;
  /// The tunable block size it takes (block_sizes[blockIndex]); -1 when
  /// the program fixes it.
  int blockIndex = -1;
  const ast::Expr *target = nullptr;
};

/// Generator state that speculative generation may change.
struct Snapshot {
  std::vector<std::map<std::string, SemValue>> scopes;
  unsigned nextBlockSize;
  std::set<std::string> usedDefines, reportedUnbound, failedSizes;
  std::map<std::string, std::string> refDTypes;
  std::vector<std::string> argNames;
  KernelDescription desc;
  bool inGrid, returned, workReported;
  int64_t unrolledBodies, workTotal, workStatements;
};

/// One argument of an inlined call: a call's argument, or an element of
/// hl.triton_kernel's `args=` (a tuple, or a dict of keywords).
struct HelperArg {
  const ast::Expr *value; ///< evaluated at the call, unless `given`
  std::string keyword;    ///< empty: positional
  SourceRange range;
  /// A value computed already (a scan's combine function applied to
  /// tiles): bound as it is.
  std::optional<SemValue> given = std::nullopt;
};

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

/// A signal's or wait's memory options as written (hl.signal / hl.wait
/// keywords, triton_wait_signal's arguments), each with the expression
/// an error points at (null: the call).
struct SyncSpelling {
  bool isSignal = false;
  std::string scope, sem, op; ///< op empty: not given
  const ast::Expr *scopeAt = nullptr, *semAt = nullptr, *opAt = nullptr;
  bool hasExtra = false; ///< wait_for (signal) or update (wait) given
};

/// A tile access of a tensor: per tensor dimension an offset and a limit;
/// the dimensions indexed by tiles or slices (`dims`) give the tile's
/// shape and valid counts; `unitDims` are result positions of None.
/// One index of a subscript, evaluated (a slice and None are kept as
/// written).
struct IndexEntry {
  const ast::Expr *expr = nullptr;
  const ast::SliceExpr *slice = nullptr;
  bool none = false;
  std::optional<SemValue> value;
};

struct Access {
  /// Computed indices (an integer tile): the access is a gather or
  /// scatter of `entries` (GenGather.cpp); the rest is unset.
  bool gather = false;
  std::vector<IndexEntry> entries;
  llvm::SmallVector<mlir::Value> offsets, limits;
  llvm::SmallVector<int64_t> dims, shape;
  llvm::SmallVector<ValidCount, 4> valid;
  llvm::SmallVector<unsigned> unitDims;
  /// Every index is a scalar: one element (a one-element tile).
  bool element = false;
};

/// A gather's result shape, valid counts, index tiles (one per tensor
/// dimension, i64, of that shape) and mask.
struct Gather {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<ValidCount, 4> valid;
  llvm::SmallVector<mlir::Value> indices;
  mlir::Value mask;
};

} // namespace gen

//===----------------------------------------------------------------------===//
// The generator's state
//===----------------------------------------------------------------------===//

class GeneratorState {
protected:
  // -- predicates and names that need no state -----------------------------
  /// "x.size(1)": how -D and messages name a size.
  static std::string sizeKey(const std::string &param, unsigned d);
  /// A plain tensor size (x.size(d) as a run-time scalar).
  static bool isPlainSize(const SemValue &v) {
    return v.kind == SemValue::Kind::Scalar && v.origin && v.origin->plain();
  }
  /// X of `X | None` / `Optional[X]`, else `a`.
  static const ast::Expr &unwrapOptional(const ast::Expr &a);
  /// "[A, B]" for messages.
  static std::string shapeText(llvm::ArrayRef<int64_t> shape);
  /// Whether `s` does device work (a loop, an hl.* call): not allowed after
  /// the grid loop, where code is host code.
  static bool isDeviceCode(const ast::Stmt &s);
  /// `for ... in hl.tile(...)` / `hl.grid(...)`: at the kernel's top level,
  /// a grid loop.
  static bool isTopLevelTileLoop(const ast::Stmt &s);
  static bool isIndexLike(const SemValue &v);
  /// Whether `fn` is decorated @triton.jit (or another triton.* decorator).
  static bool isTritonJit(const ast::FunctionDef &fn);
  /// view, reshape, view_as, flatten, contiguous, numel, new_empty & co.
  static bool isViewMethod(llvm::StringRef method);
  /// Whether `v` indexes a tensor element by element (an integer tile that
  /// is not tile.index + k).
  static bool isGatherIndex(const SemValue &v);
  /// Valid counts of an elementwise result: every bound of both.
  static llvm::SmallVector<ValidCount, 4>
  mergeValid(llvm::ArrayRef<ValidCount> a, llvm::ArrayRef<ValidCount> b);

  GeneratorState(mlir::MLIRContext &ctx, const ast::Module &module,
                 const ast::FunctionDef &kernel, const CompileOptions &options,
                 dslc::DiagnosticEngine &diags, KernelDescription &desc)
      : ctx(ctx), builder(&ctx, &work), module(module), kernel(kernel),
        options(options), diags(&diags), desc(desc) {}

  mlir::MLIRContext &ctx;
  WorkCounter work; // before builder, which reports to it
  mlir::OpBuilder builder;
  const ast::Module &module;
  const ast::FunctionDef &kernel;
  const CompileOptions &options;
  /// Where errors go: the caller's engine, or a quiet one while a loop body
  /// is generated speculatively (genRangeLoop).
  dslc::DiagnosticEngine *diags;
  KernelDescription &desc;

  mlir::func::FuncOp func;
  std::vector<std::map<std::string, SemValue>> scopes;
  std::vector<int64_t> blockSizes;
  unsigned nextBlockSize = 0;
  /// Whether a config (the decorator's or --config) lists block sizes;
  /// without one, tunable tiles take contract::kDefaultBlockSize.
  bool configGivesBlockSizes = false;
  /// helion.Config's reduction_loops: a chunk size per reduced dimension, 0
  /// for None (tile::kReductionLoopsAttr, Conversion/RollReductions.cpp).
  std::vector<int64_t> reductionLoops;
  /// The config's dot_engine (tile::kDotEngineAttr, -dslc-mma-layouts).
  contract::DotEngine dotEngine = contract::DotEngine::Default;
  /// @helion.kernel(dot_precision="tf32"): f32 products on tensor cores
  /// in tf32 (tile::kAllowTf32Attr); "ieee" (dslc's default, torch's) and
  /// "tf32x3" keep them exact, on CUDA cores.
  bool allowTf32 = false;
  /// @helion.kernel(static_shapes=...) (Helion's default True): the extent
  /// of a tile loop nested in the grid loop is compiled in where --shape
  /// gives it (a launch constraint), so its tiles' masks fold; with False
  /// only the sizes the kernel needs are (GenTileLoops.cpp).
  bool staticShapes = true;
  /// @helion.kernel(index_dtype=torch.int32 / torch.int64; 0: None, Helion's
  /// default): the bits the decorator gives index values (tile.index,
  /// hl.arange), and where it gives them.
  unsigned indexBitsGiven = 0;
  SourceRange indexDtypeWhere;
  /// The bits index values take (decideIndexBits: 64 where a tensor --shape
  /// gives holds more than INT32_MAX elements, as Helion's auto choice), and
  /// whether the kernel made any (then a 32-bit kernel's metadata bounds
  /// its tensors' elements: KernelMetadata::maxTensorElements).
  unsigned indexBits = 32;
  bool madeIndexValues = false;
  /// The config's num_stages (tile::kNumStagesAttr; 0: not given).
  int64_t numStages = 0;
  /// The config's l2_groupings (tile::kL2GroupingAttr; 0: not given).
  int64_t l2Grouping = 0;
  /// The config's fast_math (tile::kFastMathAttr).
  int64_t fastMath = 0;
  /// The config's maxnreg (tile::kMaxNRegAttr; 0: not given).
  int64_t maxNReg = 0;
  /// The config's load_eviction_policies: entry i is the hint of the
  /// kernel's i-th live load (applyLoadEvictions; tile::Eviction on
  /// tile.load and tile.gather).
  std::vector<contract::EvictionPolicy> loadEvictionPolicies;
  /// Where a config gave them (empty when none did).
  std::optional<SourceRange> evictionConfigWhere;
  /// The variable a statement `NAME = <call>` assigns while the call is
  /// generated: an output the call makes takes its name (addOutput).
  std::string outputNameHint;
  /// The block sizes taken by default (for the warning that lists them).
  std::vector<int64_t> defaultedBlockSizes;
  /// Extents of dimensions loaded whole (`x[rows, :]`): Helion's reduction
  /// dimensions.
  std::set<int64_t> fullRowExtents;
  std::map<int64_t, gen::AutoRoll> autoRollChunks;

  gen::DefaultProbe *probe = nullptr;
  std::optional<std::vector<int64_t>> helionDefaults;
  std::set<std::string> symmetricParams;
  /// Parameters annotated tuple[torch.Tensor, ...] (symmetric tensors
  /// seen as the tuple of their copies on every rank).
  std::set<std::string> tupleParams;
  std::set<std::string> usedDefines;
  /// Arguments given by position and by keyword, already reported.
  std::set<const ast::Expr *> reportedDoubleArguments;
  /// Constexprs whose missing value was reported (once each).
  std::set<std::string> reportedUnbound;
  /// Tensor sizes ("x.size(1)") needed at compile time whose value could
  /// not be had (reported once): later needs of the same size fail
  /// silently, so one mistake gives one error.
  std::set<std::string> failedSizes;
  std::map<std::string, std::string> refDTypes; ///< value name -> dtype
  std::vector<std::string> argNames;
  bool inGrid = false;
  /// The kernel's grid loop, once generated (nothing but `return` follows).
  const ast::ForStmt *gridLoop = nullptr;
  /// An hl.barrier() no top-level loop has followed yet.
  const ast::CallExpr *pendingBarrier = nullptr;
  /// kMaxPerThreadWork or kMaxGeneratedStatements was passed and reported.
  bool workReported = false;
  bool returned = false;
  /// Loop bodies generated by unrolling so far (kMaxUnrolledBodies).
  int64_t unrolledBodies = 0;
  /// Loops being generated around the current statement.
  unsigned loopDepth = 0;
  std::vector<gen::CallFrame> calls;
  unsigned lambdaDepth = 0;
  /// `:` slices made for `slice(None)` indices (sliceCall).
  std::vector<std::unique_ptr<ast::SliceExpr>> synthesizedSlices;
  std::set<std::string> evaluatingConstants;
};

} // namespace dslc::mlirgen

#endif // DSLC_COMPILER_MLIRGEN_GENERATORSTATE_H
