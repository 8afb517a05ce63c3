//===- Generator.h - MLIRGen's generator, its member functions --*- C++ -*-===//
//
// Private to compiler/MLIRGen. The generator walks a kernel's statements
// once, evaluating what is known at compile time (constexprs, sizes made
// static by hl.specialize, block sizes, tuple unrolling, `if` on constants;
// `if` on run-time scalars is an scf.if, GenIf.cpp)
// and emitting Tile/Comm/arith ops for the rest. Its state, the types its
// member functions pass and MLIRGen's limits are in GeneratorState.h. Names are
// bound to semantic values (SemValue): a tensor in memory, a stack tensor, a
// tile loop variable, a tile value, a scalar, a constant...
//
// Its member functions are defined one file per concern, as clang's
// CodeGen splits CodeGenFunction (GeneratorState.h lists the files).
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_GENERATOR_H
#define DSLC_COMPILER_MLIRGEN_GENERATOR_H

#include "compiler/MLIRGen/GeneratorState.h"

#include "mlir/IR/OwningOpRef.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dslc::mlirgen {

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

class Generator : GeneratorState {
public:
  Generator(mlir::MLIRContext &ctx, const ast::Module &module,
            const ast::FunctionDef &kernel, const CompileOptions &options,
            dslc::DiagnosticEngine &diags, KernelDescription &desc)
      : GeneratorState(ctx, module, kernel, options, diags, desc) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

  using DefaultProbe = gen::DefaultProbe;
  /// Generates quietly with every tunable block size 1, to learn `probe`.
  void setProbe(DefaultProbe *p) { probe = p; }
  /// The block sizes Helion's default config gives (from a probe).
  void setDefaultBlockSizes(std::vector<int64_t> sizes) {
    helionDefaults = std::move(sizes);
  }
  /// Helion's default block size for `numBlocks` tunables and reduction
  /// dimensions of `fullRows` extents (its config spec's rule), clamped to
  /// a block's extent `hint` (0: unknown).
  static int64_t helionDefaultBlock(size_t numBlocks,
                                    const std::set<int64_t> &fullRows,
                                    int64_t hint);
  /// Triton's least M, N and K of a product of `inputType` tiles on NVIDIA
  /// (min_dot_size): Helion raises its block sizes' minimums to them.
  static std::array<int64_t, 3> helionMinDotSize(mlir::Type inputType);

private:
  using AutoRoll = gen::AutoRoll;
  using CallFrame = gen::CallFrame;
  using ParamType = gen::ParamType;
  using ParamCategory = gen::ParamCategory;
  using IfPath = gen::IfPath;
  using TileDim = gen::TileDim;
  using Snapshot = gen::Snapshot;
  using HelperArg = gen::HelperArg;
  using SignalSlots = gen::SignalSlots;
  using SignalOptions = gen::SignalOptions;
  using SyncSpelling = gen::SyncSpelling;
  using IndexEntry = gen::IndexEntry;
  using Access = gen::Access;
  using Gather = gen::Gather;

  // -- helpers (MLIRGen.cpp) ------------------------------------------------
  mlir::Location loc(const ast::Expr &e) { return loc(e.getRange()); }
  mlir::Location loc(SourceRange r);
  mlir::LogicalResult error(SourceRange r, const std::string &msg) {
    diags->error(r, msg);
    return mlir::failure();
  }
  Result fail(SourceRange r, const std::string &msg) {
    diags->error(r, msg);
    return mlir::failure();
  }
  SemValue *lookup(const std::string &name);
  /// Python scoping: assignment rebinds the innermost existing binding.
  void bind(const std::string &name, SemValue v);
  /// Records a launch-time check once.
  void addConstraint(Constraint c);
  /// Puts tile.static_sizes on each tensor parameter whose sizes the launch
  /// checks equal to constants (after the kernel body: the constraints are
  /// complete).
  void recordStaticSizes(llvm::ArrayRef<std::string> argNames);

  // -- constant evaluation (GenConstant.cpp) --------------------------------
  mlir::Value indexConst(mlir::Location l, int64_t v);
  /// An index-typed value of an integer SemValue.
  mlir::FailureOr<mlir::Value> toIndex(const SemValue &v,
                                       const ast::Expr &where);
  /// "constexpr 'k' has no value: pass -D k=VALUE", once per constexpr
  /// (later uses fail silently); `what` names the use.
  mlir::LogicalResult unboundError(const SemValue &v, SourceRange where,
                                   const std::string &what = "");
  mlir::FailureOr<int64_t> toConstInt(const SemValue &v, const ast::Expr &where,
                                      const std::string &what);
  /// `x` evaluated, as a compile-time integer (`what` names it in errors).
  mlir::FailureOr<int64_t> constIntOf(const ast::Expr &x,
                                      const std::string &what);
  /// The value of `-D name=text` (or of a specialized size).
  mlir::FailureOr<SemValue> defineValue(const std::string &name,
                                        const std::string &text,
                                        SourceRange where);
  /// `a op b` of two compile-time integers; nullopt when `op` does not fold.
  std::optional<Result> foldIntegers(ast::BinaryOp op, int64_t a, int64_t b,
                                     const ast::Expr &where);
  /// `a op b` of two constants, one of them a float (or `/`, `**` of ints):
  /// a float; nullopt when `op` does not fold.
  std::optional<Result> foldNumbers(ast::BinaryOp op, const SemValue &lhs,
                                    const SemValue &rhs,
                                    const ast::Expr &where);
  Result genSpecialize(const ast::CallExpr &e);

  // -- compile-time sizes (GenSizes.cpp) -------------------------------------
  /// Checks every --shape entry: a tensor parameter of that rank.
  mlir::LogicalResult checkShapes();
  /// The bits of index values (indexBits): the decorator's index_dtype,
  /// else 64 where a tensor --shape gives holds more than INT32_MAX
  /// elements (Helion's rule), else 32; an error where index_dtype is
  /// torch.int32 and such a tensor is given.
  mlir::LogicalResult decideIndexBits();
  /// The element type of an index vector (tile.index, hl.arange), noting
  /// that the kernel makes one.
  mlir::IntegerType indexValueType() {
    madeIndexValues = true;
    return builder.getIntegerType(indexBits);
  }
  /// --dim-order entries name tensor parameters of their rank (not
  /// symmetric ones).
  mlir::LogicalResult checkDimOrders();
  /// The parameter an output is shaped like (torch.empty_like), else `name`.
  std::string shapedLike(const std::string &name);
  /// "--shape x=AxB" as given for tensor `name` (or the one it is shaped
  /// like).
  std::string shapeSpelling(const std::string &name);
  /// Size `d` of tensor `name` as --shape gives it (an output's: that of
  /// the parameter it is shaped like).
  std::optional<int64_t> shapeSize(const std::string &name, unsigned d);
  /// " or --shape x=AxB" with x's rank, for a missing size of tensor
  /// `name` (of the tensor an output is shaped like); empty when --shape
  /// cannot give it.
  std::string shapeAdvice(const std::string &name);
  /// Compiles size `d` of `param` in as `value`: a launch constraint `==`
  /// (what the metadata says a kernel is specialized for).
  void compileSizeIn(const std::string &param, unsigned d, int64_t value) {
    addConstraint({param, d, "==", value});
  }
  /// Whether the compile-time value of size `d` of `ref` (or of the tensor
  /// an output is shaped like) was needed and could not be had, reported.
  bool sizeFailed(const SemValue &ref, unsigned d);
  /// Records that size `d` of `name` (and of the tensor an output is shaped
  /// like) could not be had.
  void markSizeFailed(const std::string &name, unsigned d);

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
  /// A True/False keyword, `dflt` when absent.
  mlir::FailureOr<bool> boolKeyword(const ast::CallExpr &e, const char *key,
                                    bool dflt = true);
  /// The same, positional at `position` or by keyword.
  mlir::FailureOr<bool> boolArgument(const ast::CallExpr &e, size_t position,
                                     const char *key, bool dflt);
  /// `x` (an argument's expression, null when absent) as True/False.
  mlir::FailureOr<bool> boolValue(const ast::Expr *x, const char *key,
                                  bool dflt);
  /// The canonical name of a dtype expression (torch.float32, x.dtype).
  mlir::FailureOr<std::string> dtypeValue(const ast::Expr &e);
  /// Argument `position` or dtype=, `dflt` when absent.
  mlir::FailureOr<std::string> dtypeArgument(const ast::CallExpr &e,
                                             size_t position,
                                             const std::string &dflt);

  // -- setup (GenSignature.cpp) ---------------------------------------------
  mlir::LogicalResult readConfig();
  mlir::LogicalResult readConfigCall(const ast::Expr &config);
  /// A config read by contract::readConfig (a decorator keyword or
  /// --config, named by `source` in warnings at `where`) into the block
  /// sizes, num_warps and reduction_loops the kernel is generated with.
  mlir::LogicalResult applyConfig(const contract::ConfigReading &reading,
                                  SourceRange where, llvm::StringRef source);
  mlir::LogicalResult readDecoratorConfig(const ast::Expr &config);
  /// The next tunable block size: the config's entry, or without a config
  /// the default clamped into [lo, hi]; recorded as a tunable. `what` names
  /// the construct in the error when a config lists too few.
  mlir::FailureOr<int64_t> takeBlockSize(SourceRange where,
                                         llvm::StringRef what, int64_t lo = 1,
                                         int64_t hi = 0, int64_t hint = 0);
  void scanSymmetric(const ast::StmtList &body);
  void scanSymmetricExpr(const ast::Expr &e);
  mlir::LogicalResult buildSignature();
  // -- parameter kinds (GenParams.cpp) ---------------------------------------
  ParamCategory paramCategory(const ast::Param &p);
  /// The function a Callable parameter's default gives.
  mlir::FailureOr<SemValue> callableParam(const ast::Param &p);
  /// None for a `torch.Tensor | None` parameter --signature does not type.
  mlir::FailureOr<SemValue> optionalTensorParam(const ast::Param &p);
  mlir::LogicalResult checkSignatureNames();
  mlir::FailureOr<SemValue> constexprValue(const ast::Param &p);
  /// How to give the world size when the kernel needs it and has none.
  std::string worldSizeHint() const;
  /// "block_sizes=[...], num_warps=N" of the kernel being compiled.
  std::string configText() const;
  /// A run-time scalar's default: a constant of its type (ints widen to
  /// floats), else a located error.
  mlir::FailureOr<SemValue> scalarDefault(const ast::Param &p,
                                          contract::DType dtype);
  mlir::LogicalResult checkRankAgreement(const ast::Param &p,
                                         const SemValue &v);
  mlir::FailureOr<ParamType> paramType(const ast::Param &p);
  mlir::LogicalResult missingType(const ast::Param &p);
  mlir::FailureOr<ParamType> tensorAnnotation(const ast::Param &p,
                                              const ast::SubscriptExpr &sub);
  mlir::FailureOr<ParamType> tupleParamType(const ast::Param &p,
                                            const ast::Expr &annotation);
  void bindParameters(mlir::Block *entry,
                      std::vector<std::pair<std::string, SemValue>> &constants);

  // -- statements (GenStmt.cpp) ---------------------------------------------
  mlir::LogicalResult genBlock(const ast::StmtList &body);
  mlir::LogicalResult genStmt(const ast::Stmt &s);
  mlir::LogicalResult genIf(const ast::IfStmt &s);
  // -- run-time if (GenIf.cpp) ------------------------------------------------
  /// `if` on a run-time scalar: an scf.if whose results are the names the
  /// branches assign (Python's scoping).
  mlir::LogicalResult genRuntimeIf(const ast::IfStmt &s, const SemValue &cond);
  /// Tile values `a` (then) and `b` (else) of one type as results of the
  /// if `ifOp`: appends the tiles, then per dimension whose valid counts
  /// differ each path's count, to the paths' yields. The merged value's
  /// `value` and the counts' ends (null) are the if's results, in order.
  SemValue mergeIfTiles(const SemValue &a, const SemValue &b,
                        IfPath (&paths)[2], mlir::Operation *ifOp,
                        mlir::Location l);
  /// Scalars or numbers `a`, `b` (one of them run-time): one type (f32
  /// when either is a float), appended to the paths' yields.
  SemValue mergeIfScalars(const SemValue &a, const SemValue &b,
                          IfPath (&paths)[2], mlir::Location l);
  /// `a if cond else b` on a run-time scalar: only the taken branch is
  /// evaluated (an scf.if yielding one tile, or one scalar).
  Result genRuntimeIfExpr(const ast::IfElseExpr &e, const SemValue &cond);
  /// Replaces `ifOp` (an scf.if without results whose paths are `paths`)
  /// by one yielding the paths' yields; returns it.
  mlir::Operation *withResults(mlir::Operation *ifOp, IfPath (&paths)[2],
                               mlir::Value flag, mlir::Location l);
  /// Sets `v`'s value, then the ends of its valid counts left null by
  /// mergeIfTiles, to results of `ifOp` from `next` on.
  void takeResults(mlir::Operation *ifOp, SemValue &v, unsigned &next);
  /// A run-time scalar's truth value (i1): nonzero, as Python's bool().
  mlir::Value truthValue(const SemValue &v, mlir::Location l);
  /// `a op b` of numbers and run-time scalars, at least one run-time: an
  /// i1 scalar.
  Result scalarCompare(ast::CompareOp op, const SemValue &a, const SemValue &b,
                       const ast::Expr &where);
  /// The --shape value (0 or 1) of `a op b` of integers, if any.
  std::optional<SemValue::ShapeKnown>
  foldKnownCompare(ast::CompareOp op, const SemValue &a, const SemValue &b);
  /// `a == b`, `a != b` of tuples (x.shape == y.shape): elementwise, an
  /// integer constant or a run-time bool.
  Result compareTuples(ast::CompareOp op, const SemValue &a, const SemValue &b,
                       const ast::Expr &where);
  /// `a and b`, `a or b` with a run-time scalar operand (a bool); nullopt
  /// when neither operand is a run-time scalar.
  std::optional<Result> scalarLogic(ast::BinaryOp op, const SemValue &a,
                                    const SemValue &b, const ast::Expr &where);
  /// `assert x.size(d) == k` (k known at compile time): a launch
  /// constraint that also makes the size static; nullopt for other asserts.
  std::optional<mlir::LogicalResult> genSizeAssert(const ast::Expr &test,
                                                   SourceRange where);
  /// The --shape value of a scalar `a op b` (SemValue::known), if any.
  std::optional<SemValue::ShapeKnown>
  foldKnown(ast::BinaryOp op, const SemValue &a, const SemValue &b);
  /// `assert x.size(i) >= y.size(j)` (or >, <=, <) between two run-time
  /// sizes: a same_sizes rule with that relation, which replaces the
  /// equality a tile indexing both implies; none for anything else.
  std::optional<mlir::LogicalResult>
  sizesAssertedOrdered(const ast::CompareExpr &cmp, SourceRange where);
  /// `assert x.size(i) == y.size(j)`: both compiled in from --shape when
  /// one is known; else a same_sizes rule checked at every launch.
  mlir::LogicalResult sizesAssertedEqual(const SemValue &a, const SemValue &b,
                                         SourceRange where);
  mlir::LogicalResult genReturn(const ast::ReturnStmt &s);
  mlir::LogicalResult genAssign(const ast::Expr &target, SemValue value,
                                SourceRange where);
  /// Binds the names of an assignment target whose value failed to Poison.
  void poisonTargets(const ast::Expr &target);
  /// After a failed `for` or `if`: binds the names it would have assigned
  /// that have no binding yet to Poison.
  void poisonAssigned(const ast::Stmt &s);
  mlir::LogicalResult genStore(const ast::SubscriptExpr &target,
                               SemValue value);
  /// Stores `value` into the tile of `base` that `idx` (the entries of
  /// `index`) selects.
  mlir::LogicalResult storeTo(const SemValue &base,
                              const std::vector<const ast::Expr *> &idx,
                              const ast::Expr &index, SemValue value,
                              const ast::Expr &where);

  // -- loops (GenLoops.cpp) -------------------------------------------------
  mlir::LogicalResult genFor(const ast::ForStmt &s);
  mlir::LogicalResult genForLoop(const ast::ForStmt &s);
  /// range(...) (hl.static_range: `forceUnroll`).
  mlir::LogicalResult genRangeLoop(const ast::ForStmt &s,
                                   const ast::CallExpr &call, bool forceUnroll);
  mlir::LogicalResult genConstantRange(const ast::ForStmt &s, int64_t start,
                                       int64_t step, int64_t count,
                                       bool forceUnroll);
  /// Counts `copies` unrolled loop bodies against kMaxUnrolledBodies; the
  /// error names `why` the loop is unrolled.
  mlir::LogicalResult reserveUnrolled(int64_t copies, const ast::ForStmt &s,
                                      const std::optional<Diagnostic> &why);
  /// Generates copy k of an unrolled loop for k < copies, refused at the
  /// loop once the copies pass kMaxUnrolledLoopWork (compiler/Limits.h).
  mlir::LogicalResult
  genUnrolled(const ast::ForStmt &s, int64_t copies,
              llvm::function_ref<mlir::LogicalResult(int64_t)> genCopy);
  Snapshot snapshot();
  void restore(const Snapshot &s);
  /// Runs `gen` with diagnostics held back. True when it succeeded and
  /// `accept` (if any) takes it: its ops, state and warnings are kept.
  /// Otherwise it is all rolled back, `firstError` its first error, if any.
  bool speculate(llvm::function_ref<mlir::LogicalResult()> gen,
                 std::optional<Diagnostic> &firstError,
                 llvm::function_ref<bool()> accept = nullptr);
  /// A loop over every rank's copy: unrolled (item p: `itemAt(p)`), or past
  /// kMaxAutoUnrolledWork a loop over the peer table (`item(p)`).
  mlir::LogicalResult
  genPeerLoop(const ast::ForStmt &s, int64_t peers,
              llvm::function_ref<SemValue(mlir::Value)> item,
              llvm::function_ref<SemValue(int64_t)> itemAt);
  /// enumerate/zip of named peer lists; nullopt for other arguments.
  std::optional<mlir::LogicalResult>
  genZippedPeerLoop(const ast::ForStmt &s, const ast::CallExpr &call,
                    bool enumerate);
  mlir::LogicalResult genTileLoop(const ast::ForStmt &s,
                                  const ast::CallExpr &call, bool isGrid);
  /// The block size of each dimension of an hl.tile loop; `hints` are the
  /// extents when known (0: unknown). `indices` gets each tunable's
  /// block_sizes index (-1 where the program fixes the size).
  mlir::FailureOr<std::vector<int64_t>>
  tileBlockSizes(const ast::CallExpr &call, size_t numDims, bool isGrid,
                 llvm::ArrayRef<int64_t> hints, std::vector<int> &indices);
  /// Probe only: the tunables whose tiles `valid` bounds get at least `min`
  /// (a matrix product's M, N or K).
  void noteDotMinimum(const ValidCount &valid, int64_t min);
  SemValue makeTile(const TileDim &dim, mlir::Value id, bool isGrid);
  /// Probe only: `tile` (made for `dim`, shifted or not) is block
  /// dim.blockIndex's, for noteDotMinimum.
  void recordTileBlock(const TileDim &dim, const SemValue &tile);
  mlir::FailureOr<GridExtent> gridExtent(const TileDim &dim);
  /// The kernel's grid; `shift` is the begin of hl.tile(begin, end).
  /// hl.barrier() between two top-level loops: tile.grid_barrier.
  mlir::LogicalResult genGridBarrier(const ast::CallExpr &call);
  mlir::LogicalResult genGridLoop(const ast::ForStmt &s,
                                  std::vector<TileDim> &dims, bool isGrid,
                                  int64_t shift = 0);
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
  /// Whether a dotted name starts with a module (torch, hl, an import)
  /// rather than a value the kernel bound.
  bool isModulePath(const std::string &dotted);
  Result genAttribute(const ast::AttributeExpr &e);
  Result genRefAttribute(const ast::AttributeExpr &e, const SemValue &base);
  /// What `.T` (every dimension reversed) and `.mT` (the last two swapped)
  /// permute, for tiles and tensors alike: new dimension k is old perm[k].
  static llvm::SmallVector<int64_t> transposePermutation(llvm::StringRef name,
                                                         int64_t rank);
  Result genTileAttribute(const ast::AttributeExpr &e, const SemValue &base);
  /// tile.id / begin / end / block_size / index.
  Result genTileFact(const SemValue &tile, llvm::StringRef name,
                     const ast::Expr &where);
  Result genCall(const ast::CallExpr &e);
  /// x.size(d), x.dim(), x.element_size(), stack[:, i].sum(0), t.to(dtype);
  /// nullopt when `e` is not such a method call.
  std::optional<Result> genMethodCall(const ast::CallExpr &e);
  /// x.size(d), x.dim(), x.element_size() of tensors and tile values.
  std::optional<Result> genSizeMethod(const ast::CallExpr &e,
                                      const ast::AttributeExpr &attr,
                                      const std::string &method);
  Result genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                     const ast::Expr &callee);
  /// Size `d` of a tensor: a run-time scalar, or the constant -D
  /// 'P.size(D)=N' compiles in (a launch constraint).
  Result tensorSize(const SemValue &ref, unsigned d, const ast::Expr &where);
  Result genLen(const ast::CallExpr &e);
  /// The items of a tuple or of a peer list (rank p's copy at p).
  mlir::FailureOr<std::vector<SemValue>> sequenceItems(const SemValue &v,
                                                       const ast::Expr &where);
  /// zip, enumerate, list, tuple over tuples: compile-time tuples.
  Result genSequenceBuiltin(const ast::CallExpr &e, const std::string &n);
  /// hl.register_block_size: the config's next block size, a tunable.
  Result genRegisterBlockSize(const ast::CallExpr &e);
  /// hl.zeros/hl.full and torch's empty/zeros/ones/full(_like): tiles in
  /// the tile loop, outputs before it; nullopt for other names.
  std::optional<Result> genMakeTensor(const ast::CallExpr &e,
                                      const std::string &n);
  Result genMinMax(const ast::CallExpr &e, bool isMin);
  Result genSubscript(const ast::SubscriptExpr &e);

  // -- tensors seen through a permutation (GenDimOrder.cpp) ----------------
  /// The tensor as stored (a Ref) of a PermutedRef.
  static SemValue storedRef(const SemValue &p);
  /// The stored dimension of dimension `d` of a PermutedRef (of a Ref: d).
  static unsigned storedDim(const SemValue &p, unsigned d);
  /// A tensor (or a PermutedRef) with its dimensions permuted: new
  /// dimension k is old dimension perm[k] (`x.T`).
  Result permuteRef(const SemValue &ref, llvm::ArrayRef<int64_t> perm,
                    const ast::Expr &where);
  /// p[index]: the stored tile loaded and transposed.
  Result genPermutedLoad(const SemValue &p, const ast::Expr &index,
                         const ast::Expr &where);
  Result genTupleItem(const ast::SubscriptExpr &e, const SemValue &base);
  /// Rank `p`'s copy in a PeerList (a tensor with the list's name).
  SemValue peer(const SemValue &list, int64_t p, const ast::Expr &where);
  SemValue peer(const SemValue &list, mlir::Value p, const ast::Expr &where);
  /// The length of a PeerList: the world size (an error, once, when it is
  /// not known).
  mlir::FailureOr<int64_t> peerCount(const SemValue &list,
                                     const ast::Expr &where);

  // -- operators (GenOperators.cpp) -----------------------------------------
  Result genBinary(const ast::BinaryExpr &e);
  Result shiftTile(SemValue tile, const SemValue &by, const ast::Expr &where);
  Result genUnary(const ast::UnaryExpr &e);
  Result genCompare(const ast::CompareExpr &e);
  Result binaryOp(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                  const ast::Expr &where);
  Result tileBinary(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                    const ast::Expr &where);
  /// An elementwise op of two operands at least one of which is a tile:
  /// tensors loaded whole, numbers and scalars splat, torch's broadcasting
  /// and type promotion, then `emit(a, b, isFloat)`; `what` names the op
  /// in errors.
  Result combineTiles(SemValue lhs, SemValue rhs, const ast::Expr &where,
                      llvm::function_ref<mlir::FailureOr<mlir::Value>(
                          mlir::Value, mlir::Value, bool)>
                          emit,
                      llvm::StringRef what);
  /// A binary op with a tile value that keeps track of `tile.index + k`.
  Result indexArith(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                    const ast::Expr &where);
  /// torch's result type of two element types (bf16 and f16 meet in f32).
  mlir::Type promotedType(mlir::Type a, mlir::Type b);
  /// Broadcasts two tiles to one shape and converts them to the wider
  /// element type.
  mlir::LogicalResult promoteTiles(SemValue &lhs, SemValue &rhs,
                                   mlir::RankedTensorType &type,
                                   const ast::Expr &where);
  Result tileArith(ast::BinaryOp op, mlir::Value a, mlir::Value b, bool isFloat,
                   const ast::Expr &where);
  Result scalarBinary(ast::BinaryOp op, const SemValue &lhs,
                      const SemValue &rhs, const ast::Expr &where);
  /// Run-time float scalars (f32): `eps * 2.0`.
  Result floatScalarBinary(ast::BinaryOp op, const SemValue &lhs,
                           const SemValue &rhs, const ast::Expr &where);
  /// `tile ** k`: repeated products for a small integral k, powf otherwise.
  Result tilePow(const SemValue &lhs, const SemValue &rhs,
                 const ast::Expr &where);

  // -- random numbers (GenRandom.cpp) -----------------------------------------
  /// hl.rand(shape, seed=..., offsets=...): Philox, as Triton's tl.rand.
  Result genRand(const ast::CallExpr &e);
  /// Each element's row-major index over `shapeArg` (tiles: loop extents).
  mlir::FailureOr<SemValue> randOffsets(const ast::Expr &shapeArg);
  // -- atomics (GenAtomic.cpp) ------------------------------------------------
  /// hl.atomic_add/max/min/and/or/xor/xchg(target, index, value, sem=).
  Result genAtomic(const ast::CallExpr &e, llvm::StringRef fn);
  /// `g`'s mask, and-ed with its valid counts: false past a tile's end.
  mlir::Value validMask(const Gather &g, mlir::Location l);

  // -- math (GenMath.cpp) ---------------------------------------------------
  /// torch.NAME(...) / x.NAME(...) for the math functions (`self` is the
  /// receiver of a method call); nullopt for other names.
  std::optional<Result> genMathCall(const ast::CallExpr &e, llvm::StringRef fn,
                                    const ast::Expr *self);
  Result genUnaryMath(llvm::StringRef fn, const SemValue &arg,
                      const ast::Expr &where);
  /// math.sqrt(x) & co. of Python's math module (numbers folded).
  std::optional<Result> genPythonMathCall(const ast::CallExpr &e,
                                          llvm::StringRef fn);
  mlir::Value emitUnaryMath(llvm::StringRef fn, mlir::Value x,
                            mlir::Location l);
  Result genMinMax2(bool isMax, const SemValue &a, const SemValue &b,
                    const ast::Expr &where);
  // -- activations (GenActivations.cpp) -------------------------------------
  /// torch.nn.functional.X / torch.softmax & co.; nullopt for other names.
  std::optional<Result> genActivationCall(const ast::CallExpr &e,
                                          llvm::StringRef fn,
                                          const ast::Expr *self);
  /// `v` as a float tile to compute with (16-bit widened to f32);
  /// `resultType` its dtype.
  mlir::FailureOr<SemValue> computeTile(const SemValue &v,
                                        mlir::Type &resultType,
                                        llvm::StringRef fn,
                                        const ast::Expr &where);
  Result genSoftmax(const ast::CallExpr &where, const SemValue &x,
                    const ast::Expr &dimArg, bool logSoftmax);
  Result genSilu(const SemValue &x, const ast::Expr &where);
  // -- composites (GenComposites.cpp) -----------------------------------------
  /// torch.nn.functional.softplus & co., torch.reciprocal / logsumexp /
  /// nan_to_num / norm (`self`: a method's receiver); nullopt for others.
  std::optional<Result> genCompositeCall(const ast::CallExpr &e,
                                         llvm::StringRef fn,
                                         const ast::Expr *self);
  static bool isCompositeFunctional(llvm::StringRef fn);
  /// The k-th argument after the input (positional, or by `key`), or a
  /// number when absent.
  using CompositeArg = std::function<Result(unsigned, const char *, double)>;
  Result genCompositeActivation(llvm::StringRef fn, const SemValue &v,
                                const CompositeArg &arg, const ast::Expr &e);
  Result genCompositeTorch(llvm::StringRef fn, const SemValue &v,
                           const CompositeArg &arg, unsigned first,
                           const ast::CallExpr &e);
  Result genVariance(llvm::StringRef fn, const SemValue &v, unsigned first,
                     const ast::CallExpr &e);
  Result genGelu(const SemValue &x, bool tanhApproximation,
                 const ast::Expr &where);
  Result genClamp(const SemValue &x, const ast::Expr *lo, const ast::Expr *hi,
                  const ast::Expr &where);
  Result genWhere(const SemValue &cond, const SemValue &a, const SemValue &b,
                  const ast::Expr &where);
  Result genTileCompare(ast::CompareOp op, const SemValue &a, const SemValue &b,
                        const ast::Expr &where);

  // -- scans (GenScan.cpp) ---------------------------------------------------
  /// Combines the earlier elements (first) with the later ones (second),
  /// one tile per scanned input each.
  using ScanCombine = std::function<mlir::FailureOr<std::vector<SemValue>>(
      const std::vector<SemValue> &, const std::vector<SemValue> &)>;
  /// hl.associative_scan, hl.cumsum, hl.cumprod, torch.cumsum,
  /// torch.cumprod, hl.reduce (`self`: x.cumsum(dim)); nullopt for others.
  std::optional<Result> genScanCall(const ast::CallExpr &e, llvm::StringRef n,
                                    const ast::Expr *self);
  /// Hillis and Steele's scan of `values` (tiles of one shape) along `dim`.
  mlir::FailureOr<std::vector<SemValue>> scanTiles(const ScanCombine &combine,
                                                   std::vector<SemValue> values,
                                                   int64_t dim, bool reverse,
                                                   const ast::Expr &where);
  /// The index along `dim` of every element of a tile of `shape` (i32).
  mlir::Value indexAlong(mlir::RankedTensorType shape, int64_t dim,
                         mlir::Location l);
  /// The bool tile of `shape`: whether the element `offset` before (> 0)
  /// or `-offset` after (< 0, within `like`'s valid extent) exists.
  mlir::Value scanIndexMask(mlir::RankedTensorType shape, int64_t dim,
                            int64_t offset, const SemValue &like,
                            mlir::Location l);
  /// hl.reduce's result: each scanned tile's last valid element along
  /// `dim` (keep_dims from the call).
  Result lastAlong(std::vector<SemValue> scanned, int64_t dim,
                   const ast::CallExpr &e);

  // -- reductions (GenReduce.cpp) --------------------------------------------
  std::optional<Result> genReductionCall(const ast::CallExpr &e,
                                         llvm::StringRef fn,
                                         const ast::Expr *self);
  Result genReduction(llvm::StringRef fn, const SemValue &arg,
                      const ast::Expr *dimArg, bool keepdim,
                      const ast::Expr &where);
  /// `fn` (sum, mean, amax, ...) of tile value `input` along `dims`
  /// (normalized, distinct), keeping them as 1 when `keepdim`.
  /// torch.argmax / argmin (indices, int64), torch.max / min with a
  /// dimension (a tuple of values and indices), along one dimension.
  Result genArgReduction(llvm::StringRef fn, const SemValue &arg,
                         const ast::Expr *dimArg, bool keepdim,
                         const ast::Expr &where);
  Result reduceTile(llvm::StringRef fn, const SemValue &input,
                    llvm::ArrayRef<int64_t> dims, bool keepdim,
                    const ast::Expr &where);
  /// The dimensions `dim=` names (None: all), normalized and checked.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  reductionDims(const ast::Expr *dimArg, int64_t rank);

  // -- matrix multiplication (GenDot.cpp) -------------------------------------
  /// hl.dot, torch.addmm / mm / matmul (and an error for bmm / baddbmm);
  /// nullopt for other names.
  std::optional<Result> genMatmulCall(const ast::CallExpr &e,
                                      const std::string &n);
  /// `a @ b` of two tiles (torch.matmul of 2-d tiles).
  Result genMatmulOperator(const SemValue &lhs, const SemValue &rhs,
                           const ast::Expr &where);
  /// tile.dot of `a` [M, K] and `b` [K, N] (same element type), plus `acc`
  /// when given (converted to f32), rounded to `resultType`; `fn` names the
  /// spelling in errors. The result's valid counts are a's rows and b's
  /// columns (and acc's).
  Result genDot(llvm::StringRef fn, const SemValue &a, const SemValue &b,
                const SemValue *acc, mlir::Type resultType,
                const ast::Expr &where);

  // -- helper functions (GenHelpers.cpp) --------------------------------------
  /// The module-level def `name` when no local name shadows it.
  const ast::FunctionDef *helperNamed(const std::string &name);
  mlir::LogicalResult
  bindHelperArguments(const std::vector<HelperArg> &args, SourceRange callRange,
                      const ast::FunctionDef &fn,
                      std::map<std::string, SemValue> &scope);
  Result genHelperCall(const ast::CallExpr &e, const ast::FunctionDef &fn);
  /// A call of a function value (a lambda, or a def passed as a value):
  /// inlined, a lambda's body evaluated with its parameters bound.
  Result genCallableCall(const ast::CallExpr &e, const SemValue &f);
  /// Lambda `f` called at `e` with `args`, bound as Python binds them.
  Result callLambda(const ast::CallExpr &e, const SemValue &f,
                    const std::vector<HelperArg> &args);
  /// Function value `f` (a def or a lambda) called with values computed
  /// already, by position (`e`: the call that needs it, for messages).
  Result callWithValues(const SemValue &f, const std::vector<SemValue> &args,
                        const ast::CallExpr &e);
  /// Lambda calls being inlined (kMaxCallDepth).
  /// Inlines `fn` called at `callRange` (`calleeRange`: the name) with
  /// `args`.
  Result inlineHelper(SourceRange callRange, SourceRange calleeRange,
                      const std::vector<HelperArg> &args,
                      const ast::FunctionDef &fn);
  /// hl.triton_kernel(f, args=(...), output_like=None) with `f` a DSL def
  /// of this file: inlined like f(...); Helion's symm_mem_sync: the sync
  /// (GenSymmMemSync.cpp); else an error naming the DSL way.
  Result genTritonKernel(const ast::CallExpr &e);

  // -- Helion's symm_mem_sync (GenSymmMemSync.cpp) ---------------------------
  /// Whether `callee` names symm_mem_sync as imported from Helion's
  /// helion.runtime.triton.dist_utils (not a def or a value of that name).
  bool isHelionSymmMemSync(const ast::Expr &callee);
  /// symm_mem_sync(signal_pad_ptrs, block_id, rank, world_size,
  /// hasPreviousMemAccess=False, hasSubsequentMemAccess=False), called
  /// directly or through hl.triton_kernel: a signal to every peer's pad
  /// through the table, then a wait on the local pad (an implicit
  /// parameter, implicitPad).
  Result genSymmMemSync(SourceRange callRange,
                        const std::vector<HelperArg> &args);
  /// The local signal pad `table` points at: a kernel parameter the
  /// compiler adds after the table (named `TABLE.pad`, `implicit` in the
  /// metadata), once per table.
  SemValue implicitPad(const SemValue &table, int64_t world, mlir::Location l);
  /// The flat index of the current tile of the kernel's grid (row-major
  /// over its dimensions), in [0, number of tiles).
  mlir::Value flatGridTileId(mlir::Location l);
  /// A call of a name that is host code (Module::getHostCode): an error
  /// saying what in it is not DSL code; nullopt for other names.
  std::optional<Result> hostCodeCall(const std::string &name,
                                     SourceRange where);

  // -- Helion's Triton runtime (GenTritonRuntime.cpp) ----------------------
  /// The full dotted path an import binds `name` to: `from M import x`
  /// makes "x.y" "M.x.y", `import M as x` "M.y"; nullopt when no import
  /// binds its first component.
  std::optional<std::string> importedFromModule(const std::string &name) const;
  /// A call of a device function of Helion's runtime dslc maps onto its
  /// ops (triton_wait_signal); nullopt for other names.
  std::optional<Result> genHelionRuntimeCall(const ast::CallExpr &e,
                                             const std::string &n);
  Result genTritonWaitSignal(const ast::CallExpr &e);
  mlir::LogicalResult flatAddress(const ast::Expr &addr, SemValue &tensor,
                                  mlir::Value &slot);
  mlir::LogicalResult genHelperReturn(const ast::ReturnStmt &s);
  /// hl.triton_kernel & co, and Helion functions dslc does not have: an
  /// error naming what to write instead.
  std::optional<Result> genForeignCall(const ast::CallExpr &e,
                                       const std::string &n);
  /// hl.load / hl.store / hl.arange / hl.tile_index & co.
  std::optional<Result> genHelionFunction(const ast::CallExpr &e,
                                          const std::string &n);

  // -- communication (GenComm.cpp) ------------------------------------------
  Result genSignalWait(const ast::CallExpr &e, bool isSignal);
  /// The comm.signal / comm.wait of `slots` of `pad` (a ref or a stack).
  void emitSignalWait(bool isSignal, mlir::Value pad, const SignalSlots &slots,
                      const SignalOptions &opts, mlir::Location l);
  mlir::FailureOr<SignalSlots> signalSlots(const SemValue &pad,
                                           const ast::Expr &indexArg);
  mlir::FailureOr<SignalOptions> signalOptions(const ast::CallExpr &e,
                                               bool isSignal);
  /// The one check of those options (scope, semantics against the
  /// direction, op against the CAS/exchange choice) into `o`.
  mlir::LogicalResult checkSync(const ast::CallExpr &e, const SyncSpelling &s,
                                SignalOptions &o);
  Result genStackTensor(const ast::CallExpr &e);
  /// hl.stacktensor_like(like, ptrs): the table's length is the world size.
  SemValue stackOf(const SemValue &like, const SemValue &ptrs,
                   mlir::Location l);
  Result genEpoch(const ast::CallExpr &e);
  Result genPacket(const ast::CallExpr &e, bool isPut);
  mlir::FailureOr<mlir::Value> packetFlag(const ast::Expr &flagArg,
                                          mlir::Location l);
  Result genRemoteTensors(const ast::CallExpr &e);
  Result genLoadReduce(const ast::CallExpr &e, const SemValue &stack,
                       const ast::SubscriptExpr &sub);

  // -- host code (GenHost.cpp) ------------------------------------------------
  /// The sizes of a tensor, or of a view (its viewSizes).
  mlir::FailureOr<std::vector<SemValue>> refSizes(const SemValue &ref,
                                                  const ast::Expr &where);
  /// The product of sizes (a constant, or a run-time scalar).
  Result productOf(const std::vector<SemValue> &sizes, const ast::Expr &where);
  /// A value host code computes at `e` (Kind::Host).
  Result hostValue(const ast::Expr &e);
  /// Whether `v` is a tensor that code outside the loop computes with
  /// (then the computation is host code).
  bool isHostTensor(const SemValue &v) const;
  /// The error for a host-computed value `v` read by the kernel at `where`.
  mlir::LogicalResult hostValueUsed(const SemValue &v, const ast::Expr &where);
  /// x.view / reshape / view_as / flatten / contiguous / numel: a tile.view
  /// (or the count).
  Result genView(const ast::CallExpr &e, const SemValue &ref,
                 llvm::StringRef method);
  /// x.new_empty / new_zeros (an output, or in the loop a tile).
  Result genNewTensor(const ast::CallExpr &e, const SemValue &ref,
                      llvm::StringRef method);
  /// The view and new-tensor methods of a tensor; nullopt for others.
  std::optional<Result> genRefMethod(const ast::CallExpr &e,
                                     const SemValue &ref,
                                     llvm::StringRef method);
  /// float(x), int(x) of numbers and run-time scalars.
  Result genNumberCast(const ast::CallExpr &e, bool toFloat);
  /// torch.broadcast_tensors of tensors of one shape.
  Result genBroadcastTensors(const ast::CallExpr &e);
  /// helion.next_power_of_2 / helion.cdiv of integers known now.
  Result genHelionIntFunction(const ast::CallExpr &e, llvm::StringRef fn);
  /// hl.register_tunable: the fragment's default, with a warning.
  Result genRegisterTunable(const ast::CallExpr &e);
  /// hl.split (a last dimension of 2 into two tiles) and hl.join.
  Result genSplitJoin(const ast::CallExpr &e, bool join);
  /// torch.stack([a, b, ...], dim=d) of tiles of one type.
  Result genStack(const ast::CallExpr &e);
  /// t.expand(...), t.expand_as(u) of a tile value: broadcast.
  Result genTileExpand(const ast::CallExpr &e, const SemValue &v, bool asOther);
  /// A name the file binds to a constant at its top level (or Helion's
  /// helion._testing HALF_DTYPE & co.); nullopt for other names.
  std::optional<Result> moduleConstant(const std::string &name);
  /// Module constants being evaluated (a cycle is an unknown name).

  // -- outputs (GenOutputs.cpp) ----------------------------------------------
  /// Adds an output parameter the runtime binds after the inputs.
  SemValue addOutput(tile::RefType type, const std::string &dtype,
                     const std::string &like, const ast::Expr &where);
  /// torch.empty_like(x) / torch.zeros_like(x) (`zeros`): an output shaped
  /// like a tensor, or a tile like a tile value.
  Result genOutputLike(const ast::CallExpr &e, llvm::StringRef fn, bool zeros);
  /// torch.empty(shape) / torch.zeros(shape) outside the tile loop (and
  /// x.new_empty(shape), whose dtype defaults to x's).
  Result genOutputShaped(const ast::CallExpr &e, llvm::StringRef fn, bool zeros,
                         const std::string &dtype = "float32");
  /// An output of `sizes` (constants and run-time scalars).
  Result makeOutput(const ast::CallExpr &e, llvm::StringRef fn,
                    std::vector<std::pair<SemValue, const ast::Expr *>> values,
                    bool zeros, const std::string &dtype);

  // -- tiles (GenTile.cpp) --------------------------------------------------
  /// hl.zeros / hl.full / torch.zeros / torch.full inside the tile loop:
  /// a tile of `shapeArg` filled with `valueArg` (zeros when null).
  Result genTileFill(const ast::CallExpr &e, const char *fn,
                     const ast::Expr &shapeArg, const ast::Expr *valueArg,
                     const std::string &dflt, int64_t constantFill = 0);
  /// x.new_full / new_ones / new_zeros / new_empty in the loop, `base`
  /// a scalar or a tile: a tile of the size, or a scalar for size ().
  Result genNewFill(const ast::CallExpr &e, const SemValue &base,
                    llvm::StringRef method);
  /// torch.zeros_like / ones_like / full_like of a tile value.
  Result genFillLike(const ast::CallExpr &e, const SemValue &like,
                     const ast::Expr *valueArg, int64_t constantFill = 0);
  /// The fill of a tile: `valueArg`'s value, or `constantFill`.
  Result fillValue(const ast::Expr *valueArg, int64_t constantFill);
  Result genCast(const ast::CallExpr &e, const ast::Expr &value);
  /// v.view(...) / v.reshape(...) of a tile value: unit dimensions
  /// inserted or removed (tile.reshape).
  Result genTileReshape(const ast::CallExpr &e, const SemValue &v);
  /// v.squeeze(d) / v.unsqueeze(d) of a tile value.
  Result genTileSqueeze(const ast::CallExpr &e, const SemValue &v,
                        bool unsqueeze);
  /// `v` with its dimensions permuted (result dim k = input dim perm[k]).
  Result transposeTile(const SemValue &v, llvm::ArrayRef<int64_t> permutation,
                       const ast::Expr &where);
  /// x.t(), x.transpose(a, b), x.permute(...), torch.transpose & co.;
  /// nullopt for other names.
  std::optional<Result> genTransposeCall(const ast::CallExpr &e,
                                         llvm::StringRef fn,
                                         const ast::Expr *self);
  /// `v` as `shape`: the same dimensions other than 1, in order.
  Result reshapeTile(const SemValue &v, llvm::ArrayRef<int64_t> shape,
                     const ast::Expr &where);
  /// x.float(), x.half(), x.bfloat16(), x.int(), x.bool().
  Result genCastTo(const ast::CallExpr &e, const ast::Expr &value,
                   llvm::StringRef dtype);
  Result castSemValue(SemValue v, mlir::Type to, const ast::Expr &value,
                      const ast::Expr &where);
  mlir::FailureOr<mlir::RankedTensorType> tileShapeOf(const ast::Expr &list,
                                                      mlir::Type elementType);

  // -- accesses, None, broadcasting (GenShape.cpp) ---------------------------
  mlir::FailureOr<Access> accessOf(const SemValue &ref, const ast::Expr &index);
  /// `x[a:b, ...]` before the loop (every index a slice without a step):
  /// a window on x (SemValue::windowStarts); nullopt for other indices.
  std::optional<Result> genWindow(const SemValue &ref,
                                  const ast::SubscriptExpr &e);
  /// Moves `a` (an access of window `ref` in the window's indices) into
  /// the indices of the tensor the window is on.
  void shiftToWindow(const SemValue &ref, Access &a, mlir::Location l);
  /// `slice(None)` (Helion's spelling of `:` in a list index): a whole
  /// slice; null for other expressions.
  mlir::FailureOr<const ast::SliceExpr *> sliceCall(const ast::Expr &x);
  /// The access `idx` makes; a gather when an index is an integer tile
  /// (or `forceGather`: a load or store with extra_mask).
  mlir::FailureOr<Access>
  accessOfList(const SemValue &ref, const std::vector<const ast::Expr *> &idx,
               const ast::Expr &index, bool forceGather = false);
  /// Stores `value` at `access` (a tile access) of `base`.
  mlir::LogicalResult storeAccess(const SemValue &base, const Access &access,
                                  const ast::Expr &index, SemValue value,
                                  const ast::Expr &where);
  // -- gathers (GenGather.cpp) ------------------------------------------------
  mlir::FailureOr<Gather> gatherOf(const SemValue &ref,
                                   llvm::ArrayRef<IndexEntry> entries,
                                   const SemValue *extraMask,
                                   const ast::Expr &where);
  /// `evict`: hl.load's eviction_policy= (null: none given; the config's
  /// load_eviction_policies are applied when the kernel is whole,
  /// applyLoadEvictions in MLIRGen.cpp).
  Result genGatherLoad(const SemValue &ref, llvm::ArrayRef<IndexEntry> entries,
                       const SemValue *extraMask, const ast::Expr &where,
                       tile::EvictionAttr evict = {});
  mlir::LogicalResult genScatterStore(const SemValue &ref,
                                      llvm::ArrayRef<IndexEntry> entries,
                                      const SemValue &value,
                                      const ast::Expr &where,
                                      const SemValue *extraMask = nullptr);
  /// `x[s : s + k]`, s a run-time index and k a compile-time integer;
  /// nullopt for other slices.
  std::optional<mlir::LogicalResult>
  accessRuntimeSlice(const SemValue &ref, unsigned d,
                     const ast::SliceExpr &slice, Access &a);
  mlir::LogicalResult accessSlice(const SemValue &ref, unsigned d,
                                  const ast::SliceExpr &slice, Access &a);
  mlir::LogicalResult accessTile(const SemValue &ref, unsigned d,
                                 const SemValue &t, const ast::Expr &where,
                                 Access &a);
  /// A parameter's dimension `d` indexed by tile `t` over another
  /// parameter's size: the two sizes must be equal (metadata same_sizes).
  void recordSameSize(const SemValue &ref, unsigned d, const SemValue &t,
                      const ast::Expr &where);
  /// Adds `s` (its `where` set from `where`) to the metadata's same_sizes
  /// unless it, or its converse, is there.
  void addSameSize(contract::SameSize s, SourceRange where);
  /// The size of dimension `d` of a tensor when it is known at compile time
  /// (hl.specialize, or a constant dimension of torch.empty).
  std::optional<int64_t> staticSize(const SemValue &ref, unsigned d);
  /// `ref[index]` loaded as a tile.
  Result genLoad(const SemValue &ref, const ast::Expr &index,
                 const ast::Expr &where);
  /// The one element a load of scalar indices gave (a one-element tile),
  /// as a scalar of the tensor's dtype.
  SemValue loadedElement(const SemValue &ref, mlir::Value tile,
                         const ast::Expr &where);
  /// `evict` as genGatherLoad's.
  Result genAccessLoad(const SemValue &ref, const Access &access,
                       const ast::Expr &where, tile::EvictionAttr evict = {});
  /// hl.load's eviction_policy= argument as a hint (null for None: the
  /// config's; an explicit "" is `normal`, which wins over the config's).
  mlir::LogicalResult evictionPolicyArg(const ast::Expr &arg,
                                        tile::EvictionAttr &evict);
  /// A whole tensor of static sizes loaded as one tile (`w[:]` in
  /// arithmetic).
  Result loadWhole(const SemValue &ref, const ast::Expr &where);
  /// A tile value, or a tensor loaded whole.
  Result asTile(const SemValue &v, const ast::Expr &where);
  /// `v[:, None]`, `w[None, :]` of a tile value.
  Result genTileSubscript(const SemValue &base, const ast::SubscriptExpr &e);
  /// A tile value indexed by `idx` (each None or `:`/slice(None)), written
  /// at `index` within `e` (a subscript, or hl.subscript(v, [...])).
  Result genTileSubscript(const SemValue &base,
                          const std::vector<const ast::Expr *> &idx,
                          const ast::Expr &index, const ast::Expr &e);
  /// hl.subscript(v, [None, slice(None), ...]): v[None, :, ...].
  Result genHlSubscript(const ast::CallExpr &e);
  /// torch's broadcast of two shapes (an error names the dimension).
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  broadcastShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                 const ast::Expr &where);
  /// Reshapes (leading unit dims) and broadcasts `v` to `shape`.
  void broadcastTo(SemValue &v, llvm::ArrayRef<int64_t> shape,
                   mlir::Location l);
  /// The count as an index value (null when every element holds data).
  mlir::Value materialize(const ValidCount &v, mlir::Location l);
  mlir::FailureOr<mlir::Value>
  coerceTile(SemValue v, mlir::RankedTensorType type, const ast::Expr &where);
  mlir::FailureOr<mlir::Value> castTile(mlir::Value v, mlir::Type elementType,
                                        mlir::Location l);
  /// An Int or Float constant as an attribute of element type `et` (a
  /// float truncated toward zero for an integer type, != 0 for bool).
  mlir::TypedAttr constantAttr(mlir::Type et, const SemValue &v);
  /// A number (constantAttr) or a run-time scalar (castValue) as a value
  /// of type `t`.
  mlir::Value scalarAs(const SemValue &v, mlir::Type t, mlir::Location l);
  /// `v` (a tile or a scalar, index included) converted to element type
  /// `to` with torch's rules: float -> int truncates, bool is 0/1, -> bool
  /// is != 0; fp8 goes through f32.
  mlir::Value castValue(mlir::Value v, mlir::Type to, mlir::Location l);
  /// Checks that a tile of `shape` fits a CTA's registers.
  mlir::LogicalResult checkTileSize(llvm::ArrayRef<int64_t> shape,
                                    SourceRange where);
};

} // namespace dslc::mlirgen

#endif // DSLC_COMPILER_MLIRGEN_GENERATOR_H
