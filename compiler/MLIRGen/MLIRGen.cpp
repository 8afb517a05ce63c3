//===- MLIRGen.cpp - AST of a kernel to the Tile and Comm dialects -------===//
//
// Walks a kernel's statements once, evaluating what is known at compile time
// (constexprs, sizes made static by hl.specialize, block sizes, tuple
// unrolling, `if` on constants) and emitting Tile/Comm/arith ops for the
// rest. Names are bound to semantic values (SemValue): a tensor in memory, a
// stack tensor, a tile loop variable, a tile value, a scalar, a constant...
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/MLIRGen/AccessAnalysis.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <set>

using namespace mlir;
using namespace dslc;

namespace {

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

const char *kindName(SemValue::Kind k) {
  switch (k) {
  case SemValue::Kind::None:
    return "None";
  case SemValue::Kind::Int:
    return "an integer constant";
  case SemValue::Kind::Float:
    return "a float constant";
  case SemValue::Kind::String:
    return "a string";
  case SemValue::Kind::DType:
    return "a dtype";
  case SemValue::Kind::Scalar:
    return "a scalar";
  case SemValue::Kind::Ref:
    return "a tensor";
  case SemValue::Kind::Stack:
    return "a stack tensor";
  case SemValue::Kind::PeerList:
    return "a tuple of peer tensors";
  case SemValue::Kind::Tile:
    return "a tile";
  case SemValue::Kind::TileData:
    return "a tile value";
  case SemValue::Kind::Tuple:
    return "a tuple";
  case SemValue::Kind::Module:
    return "a module";
  case SemValue::Kind::Unbound:
    return "a constexpr without a value";
  }
  return "a value";
}

/// Thrown-free error propagation: every generator returns failure after
/// reporting, and callers bail out.
using Result = FailureOr<SemValue>;

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

std::optional<std::string> canonicalDType(llvm::StringRef name) {
  static const std::pair<const char *, const char *> aliases[] = {
      {"bfloat16", "bfloat16"}, {"bf16", "bfloat16"}, {"float16", "float16"},
      {"half", "float16"},      {"f16", "float16"},   {"float32", "float32"},
      {"float", "float32"},     {"f32", "float32"},   {"float64", "float64"},
      {"double", "float64"},    {"f64", "float64"},   {"int8", "int8"},
      {"i8", "int8"},           {"uint8", "uint8"},   {"u8", "uint8"},
      {"int16", "int16"},       {"i16", "int16"},     {"int32", "int32"},
      {"i32", "int32"},         {"int", "int64"},     {"uint32", "uint32"},
      {"u32", "uint32"},        {"int64", "int64"},   {"i64", "int64"},
      {"long", "int64"},        {"uint64", "uint64"}, {"u64", "uint64"},
      {"bool", "bool"}};
  for (auto [alias, canon] : aliases)
    if (name == alias)
      return std::string(canon);
  return std::nullopt;
}

/// The dtype name of an element type (signless integers read as signed).
std::string typeToDType(Type t) {
  if (t.isBF16())
    return "bfloat16";
  if (t.isF16())
    return "float16";
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (t.isInteger(1))
    return "bool";
  return "int" + std::to_string(t.getIntOrFloatBitWidth());
}

Type dtypeToType(MLIRContext *ctx, llvm::StringRef dtype) {
  Builder b(ctx);
  if (dtype == "bfloat16")
    return b.getBF16Type();
  if (dtype == "float16")
    return b.getF16Type();
  if (dtype == "float32")
    return b.getF32Type();
  if (dtype == "float64")
    return b.getF64Type();
  if (dtype == "int8" || dtype == "uint8")
    return b.getI8Type();
  if (dtype == "int16")
    return b.getI16Type();
  if (dtype == "int32" || dtype == "uint32")
    return b.getI32Type();
  if (dtype == "int64" || dtype == "uint64")
    return b.getI64Type();
  if (dtype == "bool")
    return b.getI1Type();
  return {};
}

/// The elements of a list or tuple expression, or the expression itself:
/// `hl.tile([m, n])`, `pad[[i, j]]`-style indices and tile shapes accept
/// either one entry or a sequence.
std::vector<const ast::Expr *> elementsOf(const ast::Expr &e) {
  const ast::ExprList *elements = nullptr;
  if (auto *list = ast::dyn_cast<ast::ListExpr>(&e))
    elements = &list->getElements();
  else if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&e))
    elements = &tuple->getElements();
  if (!elements)
    return {&e};
  std::vector<const ast::Expr *> result;
  for (const ast::ExprPtr &x : *elements)
    result.push_back(x.get());
  return result;
}

//===----------------------------------------------------------------------===//
// The generator
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

class Generator {
public:
  Generator(MLIRContext &ctx, const ast::Module &module,
            const ast::FunctionDef &kernel, const CompileOptions &options,
            dslc::DiagnosticEngine &diags, KernelDescription &desc)
      : ctx(ctx), builder(&ctx), module(module), kernel(kernel),
        options(options), diags(diags), desc(desc) {}

  OwningOpRef<ModuleOp> run();

private:
  MLIRContext &ctx;
  OpBuilder builder;
  const ast::Module &module;
  const ast::FunctionDef &kernel;
  const CompileOptions &options;
  dslc::DiagnosticEngine &diags;
  KernelDescription &desc;

  func::FuncOp func;
  std::vector<std::map<std::string, SemValue>> scopes;
  std::vector<int64_t> blockSizes;
  unsigned nextBlockSize = 0;
  std::set<std::string> symmetricParams;
  std::set<std::string> usedDefines;
  std::map<std::string, std::string> refDTypes; ///< value name -> dtype
  std::vector<std::string> argNames;
  bool inGrid = false;
  bool returned = false;

  // -- helpers ------------------------------------------------------------
  mlir::Location loc(const ast::Expr &e) { return loc(e.getRange()); }
  mlir::Location loc(SourceRange r) {
    return FileLineColLoc::get(&ctx, module.getFileName(), r.begin.line,
                               r.begin.column);
  }
  LogicalResult error(SourceRange r, const std::string &msg) {
    diags.error(r, msg);
    return failure();
  }
  Result fail(SourceRange r, const std::string &msg) {
    diags.error(r, msg);
    return failure();
  }

  SemValue *lookup(const std::string &name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end())
        return &found->second;
    }
    return nullptr;
  }
  void bind(const std::string &name, SemValue v) {
    // Python scoping: assignment rebinds the innermost existing binding.
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) {
        found->second = std::move(v);
        return;
      }
    }
    scopes.back()[name] = std::move(v);
  }

  Value indexConst(mlir::Location l, int64_t v) {
    return arith::ConstantIndexOp::create(builder, l, v);
  }
  /// An index-typed value of an integer SemValue.
  FailureOr<Value> toIndex(const SemValue &v, const ast::Expr &where);
  FailureOr<int64_t> toConstInt(const SemValue &v, const ast::Expr &where,
                                const std::string &what);

  // -- setup ----------------------------------------------------------------
  LogicalResult readConfig();
  LogicalResult readConfigCall(const ast::Expr &config);
  FailureOr<SemValue> defineValue(const std::string &name,
                                  const std::string &text, SourceRange where);
  LogicalResult buildSignature();
  void scanSymmetric(const ast::StmtList &body);
  void scanSymmetricExpr(const ast::Expr &e);

  // -- statements -----------------------------------------------------------
  LogicalResult genBlock(const ast::StmtList &body);
  LogicalResult genStmt(const ast::Stmt &s);
  LogicalResult genAssign(const ast::Expr &target, SemValue value,
                          SourceRange where);
  LogicalResult genStore(const ast::SubscriptExpr &target, SemValue value);
  LogicalResult genFor(const ast::ForStmt &s);
  LogicalResult genTileLoop(const ast::ForStmt &s, const ast::CallExpr &call,
                            bool isGrid);
  LogicalResult genLoopBody(const ast::ForStmt &s, const ast::Expr &target,
                            SemValue item);
  LogicalResult genRuntimeLoop(const ast::ForStmt &s, Value lb, Value ub,
                               Value step,
                               const std::function<SemValue(Value)> &item);

  // -- expressions ----------------------------------------------------------
  Result genExpr(const ast::Expr &e);
  Result genName(const ast::NameExpr &e);
  Result genAttribute(const ast::AttributeExpr &e);
  Result genCall(const ast::CallExpr &e);
  Result genSubscript(const ast::SubscriptExpr &e);
  Result genBinary(const ast::BinaryExpr &e);
  static bool isIndexLike(const SemValue &v);
  Result shiftTile(SemValue tile, const SemValue &by, const ast::Expr &where);
  Result genUnary(const ast::UnaryExpr &e);
  Result genCompare(const ast::CompareExpr &e);
  Result binaryOp(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                  const ast::Expr &where);

  // Intrinsics.
  Result genTileRange(const ast::CallExpr &e); // not a value: error
  Result genZerosFull(const ast::CallExpr &e, bool full);
  Result genSignalWait(const ast::CallExpr &e, bool isSignal);
  Result genStackTensor(const ast::CallExpr &e);
  Result genEpoch(const ast::CallExpr &e);
  Result genPacket(const ast::CallExpr &e, bool isPut);
  Result genRemoteTensors(const ast::CallExpr &e);
  Result genSpecialize(const ast::CallExpr &e);
  Result genEmptyLike(const ast::CallExpr &e);
  Result genLoadReduce(const ast::CallExpr &e, const SemValue &stack,
                       const ast::SubscriptExpr &sub);
  Result genCast(const ast::CallExpr &e, const ast::Expr &value);
  Result genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                     const ast::Expr &callee);

  // Tiles.
  FailureOr<RankedTensorType> tileShapeOf(const ast::Expr &list,
                                          Type elementType);
  struct Access {
    SmallVector<Value> offsets, limits;
    SmallVector<int64_t> dims, shape;
  };
  FailureOr<Access> accessOf(const SemValue &ref, unsigned rank,
                             const ast::Expr &index);
  FailureOr<Access> accessOfList(unsigned rank,
                                 const std::vector<const ast::Expr *> &idx,
                                 const ast::Expr &index);
  FailureOr<Value> coerceTile(SemValue v, RankedTensorType type,
                              const ast::Expr &where);
  FailureOr<Value> castTile(Value v, Type elementType, mlir::Location l);
  const ast::Expr *keyword(const ast::CallExpr &e, llvm::StringRef name);
  /// Checks that a tile of `shape` fits a CTA's registers.
  LogicalResult checkTileSize(ArrayRef<int64_t> shape, SourceRange where) {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d <= 0 || n > kMaxTileElements / d)
        return error(where, "a tile of more than " +
                                std::to_string(kMaxTileElements) +
                                " elements does not fit a CTA");
      n *= d;
    }
    int64_t threads = desc.numWarps * 32;
    if (n / threads > kMaxElementsPerThread)
      return error(where, "a tile of " + std::to_string(n) + " elements puts " +
                              std::to_string(n / threads) +
                              " in each of the CTA's " +
                              std::to_string(threads) + " threads (at most " +
                              std::to_string(kMaxElementsPerThread) +
                              "): raise num_warps or lower the block size");
    return success();
  }
  /// Records a launch-time check once.
  void addConstraint(Constraint c) {
    for (const Constraint &o : desc.constraints)
      if (o.param == c.param && o.dim == c.dim && o.op == c.op &&
          o.value == c.value)
        return;
    desc.constraints.push_back(std::move(c));
  }
  const ast::Expr *argument(const ast::CallExpr &e, size_t position,
                            llvm::StringRef name);
};

FailureOr<Value> Generator::toIndex(const SemValue &v, const ast::Expr &where) {
  mlir::Location l = loc(where);
  switch (v.kind) {
  case SemValue::Kind::Int:
    return indexConst(l, v.intValue);
  case SemValue::Kind::Scalar:
    if (v.value.getType().isIndex())
      return v.value;
    if (isa<IntegerType>(v.value.getType()))
      return Value(arith::IndexCastOp::create(builder, l,
                                              builder.getIndexType(), v.value));
    break;
  case SemValue::Kind::Unbound:
    return error(where.getRange(), "constexpr '" + v.text +
                                       "' has no value: pass -D " + v.text +
                                       "=VALUE");
  default:
    break;
  }
  return error(where.getRange(),
               std::string("expected an integer, got ") + kindName(v.kind));
}

FailureOr<int64_t> Generator::toConstInt(const SemValue &v,
                                         const ast::Expr &where,
                                         const std::string &what) {
  if (v.kind == SemValue::Kind::Int)
    return v.intValue;
  if (v.kind == SemValue::Kind::Unbound)
    return error(where.getRange(), what + " needs constexpr '" + v.text +
                                       "', which has no value: pass -D " +
                                       v.text + "=VALUE");
  return error(where.getRange(),
               what + " must be a compile-time integer, got " +
                   kindName(v.kind) +
                   (v.kind == SemValue::Kind::Scalar
                        ? " (make it static with hl.specialize or -D)"
                        : ""));
}

const ast::Expr *Generator::keyword(const ast::CallExpr &e,
                                    llvm::StringRef name) {
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Keyword && a.name == name)
      return a.value.get();
  return nullptr;
}

const ast::Expr *Generator::argument(const ast::CallExpr &e, size_t position,
                                     llvm::StringRef name) {
  size_t i = 0;
  for (const ast::Argument &a : e.getArgs()) {
    if (a.kind != ast::Argument::Kind::Positional)
      continue;
    if (i++ == position)
      return a.value.get();
  }
  return keyword(e, name);
}

//===----------------------------------------------------------------------===//
// Setup: config, -D values, signature
//===----------------------------------------------------------------------===//

LogicalResult Generator::readConfigCall(const ast::Expr &config) {
  auto *call = ast::dyn_cast<ast::CallExpr>(&config);
  if (!call)
    return error(config.getRange(),
                 "config must be helion.Config(block_sizes=[...], "
                 "num_warps=...)");
  for (const ast::Argument &a : call->getArgs()) {
    if (a.kind != ast::Argument::Kind::Keyword)
      return error(a.range, "helion.Config takes keyword arguments only");
    if (a.name == "block_sizes") {
      auto *list = ast::dyn_cast<ast::ListExpr>(a.value.get());
      if (!list)
        return error(a.value->getRange(), "block_sizes must be a list");
      blockSizes.clear();
      for (const ast::ExprPtr &el : list->getElements()) {
        auto *lit = ast::dyn_cast<ast::IntLiteralExpr>(el.get());
        if (!lit || !lit->fitsInt64() || lit->getValue() == 0)
          return error(el->getRange(),
                       "a block size must be a positive integer literal");
        if (!contract::isValidBlockSize(lit->getValue()))
          return error(el->getRange(),
                       "block size " + std::to_string(lit->getValue()) +
                           " is larger than the largest tile dimension, " +
                           std::to_string(kMaxBlockSize));
        blockSizes.push_back(lit->getValue());
      }
    } else if (a.name == "num_warps") {
      auto *lit = ast::dyn_cast<ast::IntLiteralExpr>(a.value.get());
      if (!lit || !contract::isValidNumWarps(lit->getValue()))
        return error(a.value->getRange(),
                     "num_warps must be an integer between 1 and " +
                         std::to_string(contract::kMaxNumWarps));
      desc.numWarps = lit->getValue();
    } else if (a.name == "num_stages" || a.name == "indexing" ||
               a.name == "pid_type" || a.name == "loop_orders" ||
               a.name == "range_unroll_factors") {
      diags.warning(a.range, "config key '" + a.name +
                                 "' has no effect in dslc and is ignored");
    } else {
      return error(a.range, "unknown config key '" + a.name + "'");
    }
  }
  return success();
}

LogicalResult Generator::readConfig() {
  if (const ast::Expr *config = kernel.getDecoratorKeyword("config"))
    if (failed(readConfigCall(*config)))
      return failure();
  if (options.configJSON.empty())
    return success();
  SourceRange where = kernel.getNameRange();
  auto parsed = llvm::json::parse(options.configJSON);
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    return error(SourceRange(), "--config is not valid JSON: " + msg);
  }
  auto *object = parsed->getAsObject();
  if (!object)
    return error(SourceRange(), "--config must be a JSON object");
  for (auto &[key, value] : *object) {
    if (key == "block_sizes") {
      auto *array = value.getAsArray();
      if (!array)
        return error(SourceRange(), "--config: block_sizes must be an array");
      blockSizes.clear();
      for (auto &v : *array) {
        auto n = v.getAsInteger();
        if (!n || !contract::isValidBlockSize(*n))
          return error(SourceRange(),
                       "--config: block sizes must be integers from 1 to " +
                           std::to_string(kMaxBlockSize));
        blockSizes.push_back(*n);
      }
    } else if (key == "num_warps") {
      auto n = value.getAsInteger();
      if (!n || !contract::isValidNumWarps(*n))
        return error(SourceRange(),
                     "--config: num_warps must be between 1 and " +
                         std::to_string(contract::kMaxNumWarps));
      desc.numWarps = *n;
    } else {
      diags.warning(where, "--config key '" + key.str() + "' is ignored");
    }
  }
  return success();
}

FailureOr<SemValue> Generator::defineValue(const std::string &name,
                                           const std::string &text,
                                           SourceRange where) {
  llvm::StringRef t = llvm::StringRef(text).trim();
  int64_t i;
  double d;
  if (t == "True" || t == "true")
    return SemValue::integer(1);
  if (t == "False" || t == "false")
    return SemValue::integer(0);
  if (!t.getAsInteger(0, i))
    return SemValue::integer(i);
  if (!t.getAsDouble(d)) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Float);
    v.floatValue = d;
    return v;
  }
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') &&
      t.back() == t.front()) {
    SemValue v = SemValue::ofKind(SemValue::Kind::String);
    v.text = t.drop_front().drop_back().str();
    return v;
  }
  if (auto dtype =
          canonicalDType(t.starts_with("torch.") ? t.drop_front(6) : t)) {
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    v.text = *dtype;
    return v;
  }
  diags.error(where, "-D " + name + "=" + text +
                         ": value must be an integer, float, True/False, a "
                         "quoted string or a dtype");
  return failure();
}

void Generator::scanSymmetricExpr(const ast::Expr &e) {
  if (auto *call = ast::dyn_cast<ast::CallExpr>(&e)) {
    auto callee = ast::getDottedName(call->getCallee());
    if (callee && llvm::StringRef(*callee).ends_with("get_remote_tensors"))
      if (const ast::Expr *arg = argument(*call, 0, "tensor"))
        if (auto *name = ast::dyn_cast<ast::NameExpr>(arg))
          symmetricParams.insert(name->getName());
    for (const ast::Argument &a : call->getArgs())
      if (a.value)
        scanSymmetricExpr(*a.value);
  }
}

void Generator::scanSymmetric(const ast::StmtList &body) {
  for (const ast::StmtPtr &s : body) {
    if (auto *assign = ast::dyn_cast<ast::AssignStmt>(s.get()))
      scanSymmetricExpr(assign->getValue());
    else if (auto *expr = ast::dyn_cast<ast::ExprStmt>(s.get()))
      scanSymmetricExpr(expr->getExpr());
    else if (auto *loop = ast::dyn_cast<ast::ForStmt>(s.get())) {
      scanSymmetricExpr(loop->getIter());
      scanSymmetric(loop->getBody());
    } else if (auto *branch = ast::dyn_cast<ast::IfStmt>(s.get())) {
      scanSymmetric(branch->getThen());
      scanSymmetric(branch->getElse());
    }
  }
}

LogicalResult Generator::buildSignature() {
  scopes.emplace_back();
  SmallVector<Type> argTypes;
  std::vector<std::pair<std::string, SemValue>> constants;
  bool ok = true;

  for (const auto &[name, sig] : options.signature)
    if (llvm::none_of(kernel.getParams(),
                      [&](const ast::Param &p) { return p.name == name; })) {
      diags.error(kernel.getNameRange(), "--signature names '" + name +
                                             "', which is not a "
                                             "parameter of kernel '" +
                                             kernel.getName() + "'");
      ok = false;
    }
  for (const ast::Param &p : kernel.getParams()) {
    if (p.kind != ast::Param::Kind::Normal) {
      diags.error(p.range, "kernels cannot take *args or **kwargs");
      ok = false;
      continue;
    }
    ParamDescription pd;
    pd.name = p.name;
    std::optional<std::string> annot =
        p.annotation ? ast::getDottedName(*p.annotation) : std::nullopt;
    bool isConstexpr =
        annot && (*annot == "hl.constexpr" || *annot == "helion.constexpr" ||
                  *annot == "dslc.constexpr" || *annot == "constexpr");
    auto sig = options.signature.find(p.name);
    if (isConstexpr) {
      pd.kind = ParamDescription::Kind::Constexpr;
      SemValue v = SemValue::ofKind(SemValue::Kind::Unbound);
      v.text = p.name;
      auto def = options.defines.find(p.name);
      if (def != options.defines.end()) {
        usedDefines.insert(p.name);
        auto parsed = defineValue(p.name, def->second, p.range);
        if (failed(parsed)) {
          ok = false;
          continue;
        }
        v = *parsed;
      } else if ((p.name == "my_rank" || p.name == "rank") && options.rank) {
        v = SemValue::integer(*options.rank);
      } else if (p.name == "world_size" && options.worldSize) {
        v = SemValue::integer(*options.worldSize);
      } else if (p.defaultValue) {
        if (auto *lit =
                ast::dyn_cast<ast::IntLiteralExpr>(p.defaultValue.get()))
          v = SemValue::integer(lit->getValue());
      }
      if (v.kind == SemValue::Kind::Int)
        pd.value = std::to_string(v.intValue);
      else if (v.kind == SemValue::Kind::String)
        pd.value = llvm::formatv("\"{0}\"", v.text).str();
      else if (v.kind == SemValue::Kind::Float)
        pd.value = std::to_string(v.floatValue);
      if (pd.value)
        desc.constants[p.name] = *pd.value;
      auto agree = [&](std::optional<int64_t> &known, const char *option) {
        if (known && *known != v.intValue) {
          diags.error(p.range, "constexpr '" + p.name + "' is " +
                                   std::to_string(v.intValue) + " but " +
                                   option + " says " + std::to_string(*known));
          ok = false;
        }
        known = v.intValue;
      };
      if (v.kind == SemValue::Kind::Int &&
          (p.name == "my_rank" || p.name == "rank"))
        agree(desc.rank, "--rank");
      if (v.kind == SemValue::Kind::Int && p.name == "world_size")
        agree(desc.worldSize, "--world-size");
      if (v.kind == SemValue::Kind::Int && desc.rank && desc.worldSize &&
          (p.name == "my_rank" || p.name == "rank" || p.name == "world_size") &&
          *desc.rank >= *desc.worldSize) {
        diags.error(p.range, "rank " + std::to_string(*desc.rank) +
                                 " is not below the world size " +
                                 std::to_string(*desc.worldSize));
        ok = false;
      }
      desc.constexprs.push_back(pd);
      constants.emplace_back(p.name, v);
      continue;
    }

    // Tensors: `torch.Tensor[dtype, rank]`, or --signature.
    std::string dtype;
    unsigned rank = 0;
    bool isTensor = false, isScalar = false;
    if (sig != options.signature.end()) {
      dtype = sig->second.dtype;
      rank = sig->second.rank;
      isTensor = rank > 0;
      isScalar = rank == 0;
    } else if (p.annotation) {
      const ast::Expr *a = p.annotation.get();
      if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(a)) {
        auto base = ast::getDottedName(sub->getBase());
        auto *tuple = ast::dyn_cast<ast::TupleExpr>(&sub->getIndex());
        if (base && (*base == "torch.Tensor" || *base == "Tensor") && tuple &&
            tuple->getElements().size() == 2) {
          auto dt = ast::getDottedName(*tuple->getElements()[0]);
          auto *r =
              ast::dyn_cast<ast::IntLiteralExpr>(tuple->getElements()[1].get());
          std::optional<std::string> canon;
          if (dt)
            canon = canonicalDType(llvm::StringRef(*dt).starts_with("torch.")
                                       ? llvm::StringRef(*dt).drop_front(6)
                                       : llvm::StringRef(*dt));
          if (!canon || !r || r->getValue() == 0 || r->getValue() > 8) {
            diags.error(a->getRange(),
                        "tensor annotation must be torch.Tensor[DTYPE, RANK] "
                        "with a torch dtype and a rank from 1 to 8");
            ok = false;
            continue;
          }
          dtype = *canon;
          rank = r->getValue();
          isTensor = true;
        } else if (base && *base == "tuple") {
          diags.error(a->getRange(),
                      "tuple parameters are not supported: pass a symmetric "
                      "tensor and use torch.ops.symm_mem.get_remote_tensors");
          ok = false;
          continue;
        }
      } else if (annot && (*annot == "int" || *annot == "float")) {
        dtype = *annot == "int" ? "int64" : "float32";
        isScalar = true;
      } else if (annot && (*annot == "torch.Tensor" || *annot == "Tensor")) {
        diags.error(p.range, "parameter '" + p.name +
                                 "' needs its element type and rank: annotate "
                                 "it torch.Tensor[torch.DTYPE, RANK] or pass "
                                 "--signature " +
                                 p.name + "=DTYPE[RANK]");
        ok = false;
        continue;
      }
    }
    if (!isTensor && !isScalar) {
      diags.error(p.range, "parameter '" + p.name +
                               "' needs a type: torch.Tensor[DTYPE, RANK], "
                               "int, float or hl.constexpr");
      ok = false;
      continue;
    }
    pd.dtype = *contract::parseDType(dtype);
    pd.rank = rank;
    if (isScalar) {
      pd.kind = ParamDescription::Kind::Scalar;
      argTypes.push_back(dtypeToType(&ctx, dtype));
      argNames.push_back(p.name);
      desc.args.push_back(pd);
      continue;
    }
    pd.symmetric = symmetricParams.count(p.name) > 0;
    argTypes.push_back(
        tile::RefType::get(&ctx, dtypeToType(&ctx, dtype), rank));
    argNames.push_back(p.name);
    refDTypes[p.name] = dtype;
    if (pd.symmetric) {
      argTypes.push_back(tile::RefType::get(&ctx, builder.getI64Type(), 1));
      argNames.push_back(p.name + ".peers");
    }
    desc.args.push_back(pd);
  }
  if (!ok)
    return failure();

  builder.setInsertionPointToEnd(cast<ModuleOp>(func->getParentOp()).getBody());
  func.setType(builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // Bind parameters.
  unsigned argIndex = 0;
  for (const ParamDescription &pd : desc.args) {
    if (pd.kind == ParamDescription::Kind::Constexpr)
      continue;
    SemValue v;
    if (pd.kind == ParamDescription::Kind::Scalar) {
      v = SemValue::ofKind(SemValue::Kind::Scalar);
      v.value = entry->getArgument(argIndex++);
    } else {
      v = SemValue::ofKind(SemValue::Kind::Ref);
      v.value = entry->getArgument(argIndex++);
      v.text = pd.name;
      if (pd.symmetric) {
        // The peers' copies, for get_remote_tensors.
        SemValue peers = SemValue::ofKind(SemValue::Kind::Ref);
        peers.value = entry->getArgument(argIndex++);
        peers.text = pd.name + ".peers";
        scopes.back()[pd.name + ".peers"] = peers;
      }
    }
    scopes.back()[pd.name] = v;
  }
  for (auto &[name, v] : constants)
    scopes.back()[name] = v;
  // A symmetric tensor's peer table has one slot, no size: its length is
  // the world size, which the runtime checks against "world_size".
  return success();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult Generator::genBlock(const ast::StmtList &body) {
  bool ok = true;
  for (const ast::StmtPtr &s : body) {
    if (diags.limitReached())
      return failure();
    if (returned)
      return error(s->getRange(), "statement after 'return' is unreachable");
    if (failed(genStmt(*s)))
      ok = false;
  }
  return success(ok);
}

LogicalResult Generator::genStmt(const ast::Stmt &s) {
  if (auto *e = ast::dyn_cast<ast::ExprStmt>(&s)) {
    // Docstrings and other bare strings are comments.
    if (ast::isa<ast::StringLiteralExpr>(e->getExpr()))
      return success();
    return success(succeeded(genExpr(e->getExpr())));
  }
  if (auto *a = ast::dyn_cast<ast::AssignStmt>(&s)) {
    Result v = genExpr(a->getValue());
    if (failed(v))
      return failure();
    for (const ast::ExprPtr &t : a->getTargets())
      if (failed(genAssign(*t, *v, a->getRange())))
        return failure();
    return success();
  }
  if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(&s)) {
    if (!a->getValue())
      return success();
    Result v = genExpr(*a->getValue());
    if (failed(v))
      return failure();
    return genAssign(a->getTarget(), *v, a->getRange());
  }
  if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(&s)) {
    Result lhs = genExpr(a->getTarget());
    if (failed(lhs))
      return failure();
    Result rhs = genExpr(a->getValue());
    if (failed(rhs))
      return failure();
    Result v = binaryOp(a->getOp(), *lhs, *rhs, a->getValue());
    if (failed(v))
      return failure();
    return genAssign(a->getTarget(), *v, a->getRange());
  }
  if (auto *f = ast::dyn_cast<ast::ForStmt>(&s))
    return genFor(*f);
  if (auto *i = ast::dyn_cast<ast::IfStmt>(&s)) {
    Result c = genExpr(i->getCond());
    if (failed(c))
      return failure();
    if (c->kind == SemValue::Kind::Int)
      return genBlock(c->intValue ? i->getThen() : i->getElse());
    if (c->kind == SemValue::Kind::None)
      return genBlock(i->getElse());
    return error(i->getCond().getRange(),
                 std::string("'if' needs a compile-time condition (a "
                             "constexpr or a specialized size), got ") +
                     kindName(c->kind));
  }
  if (auto *r = ast::dyn_cast<ast::ReturnStmt>(&s)) {
    if (inGrid)
      return error(r->getRange(), "'return' inside a tile loop");
    if (const ast::Expr *v = r->getValue()) {
      Result value = genExpr(*v);
      if (failed(value))
        return failure();
      auto isOutput = [&](const SemValue &x) {
        return x.kind == SemValue::Kind::Ref &&
               llvm::any_of(desc.args, [&](const OutputDescription &o) {
                 return o.isOutput && o.name == x.text;
               });
      };
      bool ok = value->kind == SemValue::Kind::None || isOutput(*value) ||
                (value->kind == SemValue::Kind::Tuple &&
                 llvm::all_of(value->elements, isOutput));
      if (!ok)
        return error(v->getRange(), "a kernel returns the tensors it made with "
                                    "torch.empty_like (or nothing)");
    }
    returned = true;
    return success();
  }
  if (ast::isa<ast::PassStmt>(s) || ast::isa<ast::ImportStmt>(s) ||
      ast::isa<ast::ImportFromStmt>(s))
    return success();
  if (auto *a = ast::dyn_cast<ast::AssertStmt>(&s)) {
    Result t = genExpr(a->getTest());
    if (failed(t))
      return failure();
    if (t->kind == SemValue::Kind::Int) {
      if (!t->intValue)
        return error(a->getRange(), "assertion is false at compile time");
      return success();
    }
    return error(a->getTest().getRange(),
                 "'assert' needs a compile-time condition");
  }
  if (ast::isa<ast::WhileStmt>(s))
    return error(s.getRange(), "'while' loops are not supported in kernels; "
                               "use hl.tile, hl.grid or range");
  if (ast::isa<ast::BreakStmt>(s) || ast::isa<ast::ContinueStmt>(s))
    return error(s.getRange(),
                 "'break' and 'continue' are not supported in kernels");
  if (ast::isa<ast::FunctionDef>(s))
    return error(s.getRange(), "nested functions are not supported");
  return error(s.getRange(), "this statement is not supported in a kernel");
}

LogicalResult Generator::genAssign(const ast::Expr &target, SemValue value,
                                   SourceRange where) {
  if (auto *name = ast::dyn_cast<ast::NameExpr>(&target)) {
    if (name->getName() == "_")
      return success();
    bind(name->getName(), std::move(value));
    return success();
  }
  if (ast::isa<ast::TupleExpr>(target) || ast::isa<ast::ListExpr>(target)) {
    const ast::ExprList &targets =
        ast::isa<ast::TupleExpr>(target)
            ? ast::cast<ast::TupleExpr>(target).getElements()
            : ast::cast<ast::ListExpr>(target).getElements();
    if (value.kind != SemValue::Kind::Tuple)
      return error(target.getRange(),
                   std::string("cannot unpack ") + kindName(value.kind));
    if (value.elements.size() != targets.size())
      return error(target.getRange(),
                   "cannot unpack " + std::to_string(value.elements.size()) +
                       " values into " + std::to_string(targets.size()) +
                       " names");
    for (size_t i = 0; i < targets.size(); ++i)
      if (failed(genAssign(*targets[i], value.elements[i], where)))
        return failure();
    return success();
  }
  if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&target))
    return genStore(*sub, std::move(value));
  return error(target.getRange(), "cannot assign to this expression");
}

LogicalResult Generator::genStore(const ast::SubscriptExpr &target,
                                  SemValue value) {
  Result base = genExpr(target.getBase());
  if (failed(base))
    return failure();
  if (base->kind != SemValue::Kind::Ref && base->kind != SemValue::Kind::Stack)
    return error(target.getBase().getRange(),
                 std::string("cannot store into ") + kindName(base->kind));
  unsigned rank;
  Type elementType;
  if (base->kind == SemValue::Kind::Ref) {
    auto t = cast<tile::RefType>(base->value.getType());
    rank = t.getRank();
    elementType = t.getElementType();
  } else {
    auto t = cast<comm::StackType>(base->value.getType());
    rank = t.getRank();
    elementType = t.getElementType();
  }
  auto access = accessOf(*base, rank, target.getIndex());
  if (failed(access))
    return failure();
  auto type = RankedTensorType::get(access->shape, elementType);
  auto tileValue = coerceTile(value, type, target);
  if (failed(tileValue))
    return failure();
  mlir::Location l = loc(target);
  if (base->kind == SemValue::Kind::Ref) {
    tile::StoreOp::create(builder, l, *tileValue, base->value, access->offsets,
                          access->limits, access->dims);
  } else {
    auto mode = options.multicast == MulticastMode::NVLS
                    ? comm::MulticastMode::nvls
                    : comm::MulticastMode::software;
    comm::MulticastStoreOp::create(builder, l, *tileValue, base->value,
                                   access->offsets, access->limits,
                                   access->dims, mode);
  }
  return success();
}

LogicalResult Generator::genFor(const ast::ForStmt &s) {
  if (!s.getElse().empty())
    return error(s.getRange(), "'for ... else' is not supported in kernels");
  const ast::Expr &iter = s.getIter();
  if (auto *call = ast::dyn_cast<ast::CallExpr>(&iter)) {
    auto callee = ast::getDottedName(call->getCallee());
    if (callee && (*callee == "hl.tile" || *callee == "helion.language.tile"))
      return genTileLoop(s, *call, /*isGrid=*/false);
    if (callee && (*callee == "hl.grid" || *callee == "helion.language.grid"))
      return genTileLoop(s, *call, /*isGrid=*/true);
    if (callee && *callee == "range") {
      std::vector<SemValue> args;
      for (const ast::Argument &a : call->getArgs()) {
        if (a.kind != ast::Argument::Kind::Positional)
          return error(a.range, "range takes positional arguments");
        Result v = genExpr(*a.value);
        if (failed(v))
          return failure();
        if (v->kind == SemValue::Kind::Unbound)
          return error(a.value->getRange(), "constexpr '" + v->text +
                                                "' has no value: pass -D " +
                                                v->text + "=VALUE");
        args.push_back(*v);
      }
      if (args.empty() || args.size() > 3)
        return error(call->getRange(), "range takes 1 to 3 arguments");
      SemValue start = args.size() > 1 ? args[0] : SemValue::integer(0);
      SemValue stop = args.size() > 1 ? args[1] : args[0];
      SemValue step = args.size() > 2 ? args[2] : SemValue::integer(1);
      if (step.kind == SemValue::Kind::Int && step.intValue == 0)
        return error(call->getRange(), "range step must not be zero");
      bool constant = start.kind == SemValue::Kind::Int &&
                      stop.kind == SemValue::Kind::Int &&
                      step.kind == SemValue::Kind::Int;
      if (constant) {
        int64_t count = 0;
        for (int64_t i = start.intValue;
             step.intValue > 0 ? i < stop.intValue : i > stop.intValue;
             i += step.intValue)
          if (++count > 4096)
            return error(call->getRange(),
                         "range with more than 4096 constant iterations");
        for (int64_t i = start.intValue;
             step.intValue > 0 ? i < stop.intValue : i > stop.intValue;
             i += step.intValue)
          if (failed(genLoopBody(s, s.getTarget(), SemValue::integer(i))))
            return failure();
        return success();
      }
      auto lb = toIndex(start, iter), ub = toIndex(stop, iter),
           st = toIndex(step, iter);
      if (failed(lb) || failed(ub) || failed(st))
        return failure();
      return genRuntimeLoop(s, *lb, *ub, *st, [&](Value iv) {
        SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
        v.value = iv;
        return v;
      });
    }
  }
  Result it = genExpr(iter);
  if (failed(it))
    return failure();
  if (it->kind == SemValue::Kind::PeerList) {
    for (int64_t p = 0; p < it->peers; ++p) {
      SemValue ref = SemValue::ofKind(SemValue::Kind::Ref);
      ref.value = comm::PeerOp::create(
          builder, loc(iter),
          tile::RefType::get(
              &ctx, cast<comm::StackType>(it->value.getType()).getElementType(),
              cast<comm::StackType>(it->value.getType()).getRank()),
          it->value, indexConst(loc(iter), p));
      ref.text = it->text + "[" + std::to_string(p) + "]";
      if (failed(genLoopBody(s, s.getTarget(), ref)))
        return failure();
    }
    return success();
  }
  if (it->kind == SemValue::Kind::Tuple) {
    for (const SemValue &el : it->elements)
      if (failed(genLoopBody(s, s.getTarget(), el)))
        return failure();
    return success();
  }
  return error(iter.getRange(),
               std::string("a kernel loops over hl.tile, hl.grid, range or "
                           "a tuple of tensors, not ") +
                   kindName(it->kind));
}

LogicalResult Generator::genLoopBody(const ast::ForStmt &s,
                                     const ast::Expr &target, SemValue item) {
  if (failed(genAssign(target, std::move(item), s.getRange())))
    return failure();
  return genBlock(s.getBody());
}

/// Names assigned anywhere in `body` (loop targets included).
static void assignedNames(const ast::StmtList &body,
                          std::set<std::string> &names);
static void assignedTargets(const ast::Expr &t, std::set<std::string> &names) {
  if (auto *n = ast::dyn_cast<ast::NameExpr>(&t))
    names.insert(n->getName());
  else if (auto *tu = ast::dyn_cast<ast::TupleExpr>(&t))
    for (const ast::ExprPtr &e : tu->getElements())
      assignedTargets(*e, names);
  else if (auto *li = ast::dyn_cast<ast::ListExpr>(&t))
    for (const ast::ExprPtr &e : li->getElements())
      assignedTargets(*e, names);
}
static void assignedNames(const ast::StmtList &body,
                          std::set<std::string> &names) {
  for (const ast::StmtPtr &s : body) {
    if (auto *a = ast::dyn_cast<ast::AssignStmt>(s.get()))
      for (const ast::ExprPtr &t : a->getTargets())
        assignedTargets(*t, names);
    else if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(s.get()))
      assignedTargets(a->getTarget(), names);
    else if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(s.get()))
      assignedTargets(a->getTarget(), names);
    else if (auto *f = ast::dyn_cast<ast::ForStmt>(s.get())) {
      assignedTargets(f->getTarget(), names);
      assignedNames(f->getBody(), names);
    } else if (auto *i = ast::dyn_cast<ast::IfStmt>(s.get())) {
      assignedNames(i->getThen(), names);
      assignedNames(i->getElse(), names);
    }
  }
}

LogicalResult
Generator::genRuntimeLoop(const ast::ForStmt &s, Value lb, Value ub, Value step,
                          const std::function<SemValue(Value)> &item) {
  // Values carried around the loop: names bound before it and assigned in
  // it, holding run-time values.
  std::set<std::string> assigned;
  assignedNames(s.getBody(), assigned);
  std::vector<std::string> carried;
  SmallVector<Value> inits;
  for (const std::string &name : assigned) {
    SemValue *v = lookup(name);
    if (!v)
      continue;
    if (v->kind == SemValue::Kind::TileData ||
        v->kind == SemValue::Kind::Scalar) {
      carried.push_back(name);
      inits.push_back(v->value);
    } else if (v->kind == SemValue::Kind::Int ||
               v->kind == SemValue::Kind::Float) {
      return error(s.getRange(),
                   "'" + name +
                       "' is a compile-time constant before this loop and "
                       "is reassigned in it; give it a run-time value first "
                       "(e.g. hl.zeros)");
    }
  }
  mlir::Location l = loc(s.getRange());
  auto loop = scf::ForOp::create(builder, l, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  scopes.emplace_back();
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue v = *lookup(name);
    v.value = loop.getRegionIterArgs()[i];
    bind(name, v);
  }
  LogicalResult body =
      genLoopBody(s, s.getTarget(), item(loop.getInductionVar()));
  if (failed(body)) {
    scopes.pop_back();
    return failure();
  }
  SmallVector<Value> yields;
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue *v = lookup(name);
    if (!v || v->value.getType() != inits[i].getType()) {
      scopes.pop_back();
      return error(s.getRange(),
                   "'" + name + "' changes its type inside the loop");
    }
    yields.push_back(v->value);
  }
  scopes.pop_back();
  builder.setInsertionPointToEnd(loop.getBody());
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  scf::YieldOp::create(builder, l, yields);
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue v = *lookup(name);
    v.value = loop.getResult(i);
    bind(name, v);
  }
  return success();
}

LogicalResult Generator::genTileLoop(const ast::ForStmt &s,
                                     const ast::CallExpr &call, bool isGrid) {
  // Extents: hl.tile(n), hl.tile([m, n]) or, nested in the grid loop,
  // hl.tile(begin, end) (1-d: the tiles of [begin, end), in turn).
  const ast::Expr *extentArg = argument(call, 0, "begin_or_end");
  if (!extentArg)
    return error(call.getRange(), "hl.tile needs the extent to iterate");
  const ast::Expr *beginArg = nullptr;
  if (const ast::Expr *endArg = argument(call, 1, "end_or_none")) {
    if (!ast::isa<ast::NoneLiteralExpr>(*endArg)) {
      if (!inGrid)
        return error(call.getRange(),
                     "hl.tile(begin, end) is a loop inside the grid; the "
                     "grid itself is hl.tile(end)");
      if (!elementsOf(*extentArg).empty() &&
          (ast::isa<ast::ListExpr>(*extentArg) ||
           ast::isa<ast::TupleExpr>(*extentArg)))
        return error(extentArg->getRange(),
                     "hl.tile(begin, end) takes scalars (a 1-d range)");
      beginArg = extentArg;
      extentArg = endArg;
    }
  }
  std::vector<const ast::Expr *> extents = elementsOf(*extentArg);
  if (extents.empty())
    return error(extentArg->getRange(), "hl.tile needs at least one extent");

  // Block sizes: block_size= (an int, a list, or None = tunable).
  std::vector<int64_t> blocks;
  const ast::Expr *blockArg = keyword(call, "block_size");
  std::vector<const ast::Expr *> blockExprs;
  if (blockArg && !ast::isa<ast::NoneLiteralExpr>(*blockArg)) {
    if (auto *list = ast::dyn_cast<ast::ListExpr>(blockArg))
      for (const ast::ExprPtr &e : list->getElements())
        blockExprs.push_back(e.get());
    else
      blockExprs.push_back(blockArg);
    if (blockExprs.size() != extents.size())
      return error(blockArg->getRange(),
                   "block_size needs one entry per tiled dimension");
  }
  for (size_t d = 0; d < extents.size(); ++d) {
    if (isGrid) {
      blocks.push_back(1);
      continue;
    }
    if (d < blockExprs.size() &&
        !ast::isa<ast::NoneLiteralExpr>(*blockExprs[d])) {
      Result b = genExpr(*blockExprs[d]);
      if (failed(b))
        return failure();
      auto v = toConstInt(*b, *blockExprs[d], "a block size");
      if (failed(v))
        return failure();
      if (!contract::isValidBlockSize(*v))
        return error(blockExprs[d]->getRange(),
                     "block size must be between 1 and " +
                         std::to_string(kMaxBlockSize) + ", got " +
                         std::to_string(*v));
      blocks.push_back(*v);
      continue;
    }
    unsigned i = nextBlockSize++;
    if (i >= blockSizes.size())
      return error(call.getRange(),
                   "this tile's block size is tunable but the config gives " +
                       std::to_string(blockSizes.size()) +
                       " block size(s); add one to block_sizes");
    blocks.push_back(blockSizes[i]);
    desc.tunables.push_back(contract::Tunable::blockSize(i, blockSizes[i]));
  }

  std::vector<SemValue> extentValues;
  SmallVector<Value> extentIndex;
  for (const ast::Expr *e : extents) {
    Result v = genExpr(*e);
    if (failed(v))
      return failure();
    auto idx = toIndex(*v, *e);
    if (failed(idx))
      return failure();
    extentValues.push_back(*v);
    extentIndex.push_back(*idx);
  }

  mlir::Location l = loc(s.getRange());
  // Names for the per-dimension tile variables.
  std::vector<const ast::Expr *> targets;
  if (extents.size() == 1) {
    targets.push_back(&s.getTarget());
  } else if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&s.getTarget())) {
    for (const ast::ExprPtr &e : tuple->getElements())
      targets.push_back(e.get());
  }
  if (targets.size() != extents.size())
    return error(s.getTarget().getRange(),
                 "a " + std::to_string(extents.size()) +
                     "-d tile loop needs as many loop variables");

  auto makeTile = [&](size_t d, Value id) {
    SemValue t = SemValue::ofKind(SemValue::Kind::Tile);
    mlir::Location tl = loc(*extents[d]);
    t.id = id;
    t.block = blocks[d];
    t.begin = arith::MulIOp::create(builder, tl, id, indexConst(tl, blocks[d]));
    Value next =
        arith::AddIOp::create(builder, tl, t.begin, indexConst(tl, blocks[d]));
    t.end = arith::MinUIOp::create(builder, tl, next, extentIndex[d]);
    t.extentOrigin = extentValues[d].origin;
    if (isGrid) {
      SemValue scalar = SemValue::ofKind(SemValue::Kind::Scalar);
      scalar.value = id;
      return scalar;
    }
    return t;
  };

  if (!inGrid) {
    // The outermost tile loop: the grid of CTAs.
    auto grid = tile::GridOp::create(builder, l, extentIndex, blocks);
    Block *body = builder.createBlock(&grid.getBody());
    for (size_t d = 0; d < extents.size(); ++d)
      body->addArgument(builder.getIndexType(), l);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(body);
    tile::YieldOp::create(builder, l);
    builder.setInsertionPointToStart(body);
    for (size_t d = 0; d < extents.size(); ++d) {
      GridExtent ge;
      ge.block = blocks[d];
      if (extentValues[d].kind == SemValue::Kind::Int)
        ge.constant = extentValues[d].intValue;
      else if (extentValues[d].origin) {
        ge.param = extentValues[d].origin->param;
        ge.dim = extentValues[d].origin->dim;
        ge.add = extentValues[d].origin->add;
        ge.div = extentValues[d].origin->div;
      } else if (extentValues[d].kind == SemValue::Kind::Scalar &&
                 isa<BlockArgument>(extentValues[d].value)) {
        unsigned n = cast<BlockArgument>(extentValues[d].value).getArgNumber();
        ge.scalar = argNames[n];
      } else {
        return error(extents[d]->getRange(),
                     "the grid's extent must be a tensor size, a scalar "
                     "parameter or a constant");
      }
      desc.grid.push_back(ge);
    }
    scopes.emplace_back();
    inGrid = true;
    for (size_t d = 0; d < extents.size(); ++d) {
      SemValue t = makeTile(d, body->getArgument(d));
      t.gridTile = true;
      if (failed(genAssign(*targets[d], t, s.getRange()))) {
        inGrid = false;
        scopes.pop_back();
        return failure();
      }
    }
    LogicalResult r = genBlock(s.getBody());
    inGrid = false;
    scopes.pop_back();
    return r;
  }

  // A nested tile loop: sequential inside the CTA.
  if (extents.size() != 1)
    return error(call.getRange(),
                 "nested multi-dimensional tile loops are not supported");
  Value zero = indexConst(l, 0);
  Value one = indexConst(l, 1);
  Value first = zero;
  if (beginArg) {
    Result b = genExpr(*beginArg);
    if (failed(b))
      return failure();
    auto idx = toIndex(*b, *beginArg);
    if (failed(idx))
      return failure();
    first = *idx;
  }
  // Tiles of [first, end): none when end <= first.
  Value span = arith::SubIOp::create(
      builder, l, arith::MaxSIOp::create(builder, l, extentIndex[0], first),
      first);
  Value count =
      arith::CeilDivUIOp::create(builder, l, span, indexConst(l, blocks[0]));
  return genRuntimeLoop(s, zero, count, one, [&](Value iv) {
    SemValue t = makeTile(0, iv);
    if (beginArg) {
      mlir::Location tl = loc(*extents[0]);
      t.begin = arith::AddIOp::create(builder, tl, t.begin, first);
      t.end = arith::MinUIOp::create(
          builder, tl,
          arith::AddIOp::create(builder, tl, t.begin,
                                indexConst(tl, blocks[0])),
          extentIndex[0]);
    }
    return t;
  });
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Result Generator::genExpr(const ast::Expr &e) {
  using K = ast::Expr::Kind;
  switch (e.getKind()) {
  case K::Name:
    return genName(ast::cast<ast::NameExpr>(e));
  case K::IntLiteral: {
    auto &lit = ast::cast<ast::IntLiteralExpr>(e);
    if (!lit.fitsInt64())
      return fail(e.getRange(), "integer literal does not fit in 64 bits");
    return SemValue::integer(lit.getValue());
  }
  case K::FloatLiteral: {
    SemValue v = SemValue::ofKind(SemValue::Kind::Float);
    v.floatValue = ast::cast<ast::FloatLiteralExpr>(e).getValue();
    return v;
  }
  case K::BoolLiteral:
    return SemValue::integer(ast::cast<ast::BoolLiteralExpr>(e).getValue());
  case K::StringLiteral: {
    SemValue v = SemValue::ofKind(SemValue::Kind::String);
    v.text = ast::cast<ast::StringLiteralExpr>(e).getValue();
    return v;
  }
  case K::NoneLiteral:
    return SemValue::none();
  case K::Attribute:
    return genAttribute(ast::cast<ast::AttributeExpr>(e));
  case K::Call:
    return genCall(ast::cast<ast::CallExpr>(e));
  case K::Subscript:
    return genSubscript(ast::cast<ast::SubscriptExpr>(e));
  case K::Binary:
    return genBinary(ast::cast<ast::BinaryExpr>(e));
  case K::Unary:
    return genUnary(ast::cast<ast::UnaryExpr>(e));
  case K::Compare:
    return genCompare(ast::cast<ast::CompareExpr>(e));
  case K::Tuple:
  case K::List: {
    const ast::ExprList &els = e.getKind() == K::Tuple
                                   ? ast::cast<ast::TupleExpr>(e).getElements()
                                   : ast::cast<ast::ListExpr>(e).getElements();
    SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
    for (const ast::ExprPtr &el : els) {
      Result v = genExpr(*el);
      if (failed(v))
        return failure();
      v->where = el.get();
      t.elements.push_back(*v);
    }
    return t;
  }
  case K::IfElse: {
    auto &ie = ast::cast<ast::IfElseExpr>(e);
    Result c = genExpr(ie.getCond());
    if (failed(c))
      return failure();
    if (c->kind != SemValue::Kind::Int)
      return fail(ie.getCond().getRange(),
                  "a conditional expression needs a compile-time condition");
    return genExpr(c->intValue ? ie.getThen() : ie.getElse());
  }
  default:
    return fail(e.getRange(), "this expression is not supported in a kernel");
  }
}

Result Generator::genName(const ast::NameExpr &e) {
  if (SemValue *v = lookup(e.getName()))
    return *v;
  static const char *modules[] = {"torch", "hl", "helion", "dslc", "math"};
  for (const char *m : modules)
    if (e.getName() == m) {
      SemValue v = SemValue::ofKind(SemValue::Kind::Module);
      v.text = m;
      return v;
    }
  // Module-level imports of other names: `from torch import Tensor`, ...
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *imp = ast::dyn_cast<ast::ImportStmt>(s.get()))
      for (const ast::ImportAlias &a : imp->getNames())
        if ((a.asName.empty() ? a.name : a.asName) == e.getName()) {
          SemValue v = SemValue::ofKind(SemValue::Kind::Module);
          v.text = a.name == "helion.language" ? "hl" : a.name;
          return v;
        }
  return fail(e.getRange(), "unknown name '" + e.getName() + "'");
}

Result Generator::genAttribute(const ast::AttributeExpr &e) {
  Result base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  const std::string &name = e.getName();
  mlir::Location l = loc(e);
  switch (base->kind) {
  case SemValue::Kind::Module: {
    std::string path = base->text + "." + name;
    if (base->text == "torch" || base->text == "tl")
      if (auto dt = canonicalDType(name)) {
        SemValue v = SemValue::ofKind(SemValue::Kind::DType);
        v.text = *dt;
        return v;
      }
    SemValue v = SemValue::ofKind(SemValue::Kind::Module);
    v.text = path;
    return v;
  }
  case SemValue::Kind::Ref:
  case SemValue::Kind::Stack: {
    if (name == "dtype") {
      SemValue v = SemValue::ofKind(SemValue::Kind::DType);
      Type t =
          base->kind == SemValue::Kind::Ref
              ? cast<tile::RefType>(base->value.getType()).getElementType()
              : cast<comm::StackType>(base->value.getType()).getElementType();
      auto it = refDTypes.find(base->text);
      v.text = it != refDTypes.end() ? it->second : typeToDType(t);
      return v;
    }
    if (name == "device")
      return SemValue::none();
    if (name == "size" || name == "shape" || name == "ndim") {
      SemValue v = *base;
      v.text = base->text;
      if (name == "ndim")
        return SemValue::integer(
            base->kind == SemValue::Kind::Ref
                ? cast<tile::RefType>(base->value.getType()).getRank()
                : cast<comm::StackType>(base->value.getType()).getRank());
      if (name == "shape") {
        // x.shape: the tuple of sizes.
        SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
        if (base->kind != SemValue::Kind::Ref)
          return fail(e.getRange(), "shape of a stack tensor");
        unsigned rank = cast<tile::RefType>(base->value.getType()).getRank();
        for (unsigned d = 0; d < rank; ++d) {
          SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
          s.value = tile::DimOp::create(builder, l, builder.getIndexType(),
                                        base->value, uint64_t(d));
          s.origin = ScalarOrigin{base->text, d};
          tuple.elements.push_back(s);
        }
        return tuple;
      }
      return v; // method, resolved by genCall
    }
    return fail(e.getNameRange(), "tensors have no attribute '" + name + "'");
  }
  case SemValue::Kind::Tile: {
    SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
    if (name == "id") {
      v.value = base->id;
    } else if (name == "begin") {
      v.value = base->begin;
    } else if (name == "end") {
      v.value = base->end;
    } else if (name == "block_size") {
      return SemValue::integer(base->block);
    } else if (name == "index") {
      auto type = RankedTensorType::get({base->block}, builder.getI32Type());
      Value iota = tile::IotaOp::create(builder, l, type);
      Value begin = arith::IndexCastOp::create(builder, l, builder.getI32Type(),
                                               base->begin);
      Value splat = tile::SplatOp::create(builder, l, type, begin);
      SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
      t.value = arith::AddIOp::create(builder, l, iota, splat);
      return t;
    } else {
      return fail(
          e.getNameRange(),
          "tiles have .id, .begin, .end, .block_size and .index, not '" + name +
              "'");
    }
    return v;
  }
  case SemValue::Kind::TileData:
    if (name == "dtype") {
      SemValue v = SemValue::ofKind(SemValue::Kind::DType);
      Type t = cast<RankedTensorType>(base->value.getType()).getElementType();
      v.text = typeToDType(t);
      return v;
    }
    break;
  default:
    break;
  }
  return fail(e.getNameRange(), std::string(kindName(base->kind)) +
                                    " has no attribute '" + name + "'");
}

Result Generator::genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                              const ast::Expr &callee) {
  mlir::Location l = loc(e);
  if (ref.kind != SemValue::Kind::Ref)
    return fail(callee.getRange(), "size() of a stack tensor");
  unsigned rank = cast<tile::RefType>(ref.value.getType()).getRank();
  auto dimValue = [&](unsigned d) {
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    s.value = tile::DimOp::create(builder, l, builder.getIndexType(), ref.value,
                                  uint64_t(d));
    s.origin = ScalarOrigin{ref.text, d};
    return s;
  };
  if (e.getArgs().empty()) {
    SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
    for (unsigned d = 0; d < rank; ++d)
      tuple.elements.push_back(dimValue(d));
    return tuple;
  }
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "size() takes at most one argument");
  Result d = genExpr(*e.getArgs()[0].value);
  if (failed(d))
    return failure();
  auto dim = toConstInt(*d, *e.getArgs()[0].value, "a dimension");
  if (failed(dim))
    return failure();
  int64_t dd = *dim < 0 ? *dim + rank : *dim;
  if (dd < 0 || dd >= rank)
    return fail(e.getArgs()[0].value->getRange(),
                "dimension " + std::to_string(*dim) +
                    " is out of range for a " + std::to_string(rank) +
                    "-d tensor");
  return dimValue(dd);
}

Result Generator::genCall(const ast::CallExpr &e) {
  const ast::Expr &callee = e.getCallee();
  // Methods on values: x.size(d).
  if (auto *attr = ast::dyn_cast<ast::AttributeExpr>(&callee)) {
    if (attr->getName() == "size" || attr->getName() == "dim" ||
        attr->getName() == "element_size") {
      Result base = genExpr(attr->getBase());
      if (failed(base))
        return failure();
      if (base->kind == SemValue::Kind::Ref ||
          base->kind == SemValue::Kind::Stack) {
        Type element =
            base->kind == SemValue::Kind::Ref
                ? cast<tile::RefType>(base->value.getType()).getElementType()
                : cast<comm::StackType>(base->value.getType())
                      .getElementType();
        if (attr->getName() == "element_size")
          return SemValue::integer(
              std::max(1u, element.getIntOrFloatBitWidth() / 8));
        if (attr->getName() == "dim")
          return SemValue::integer(
              base->kind == SemValue::Kind::Ref
                  ? cast<tile::RefType>(base->value.getType()).getRank()
                  : cast<comm::StackType>(base->value.getType()).getRank());
        return genSizeCall(e, *base, callee);
      }
    }
  }
  if (auto *attr = ast::dyn_cast<ast::AttributeExpr>(&callee)) {
    if (attr->getName() == "sum")
      if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&attr->getBase())) {
        Result base = genExpr(sub->getBase());
        if (failed(base))
          return failure();
        if (base->kind == SemValue::Kind::Stack)
          return genLoadReduce(e, *base, *sub);
      }
    if (attr->getName() == "to")
      return genCast(e, attr->getBase());
  }
  std::optional<std::string> name = ast::getDottedName(callee);
  if (!name)
    return fail(callee.getRange(), "only named functions can be called");
  std::string n = *name;
  if (llvm::StringRef(n).starts_with("helion.language."))
    n = "hl." + n.substr(16);
  if (n == "hl.zeros")
    return genZerosFull(e, false);
  if (n == "hl.full")
    return genZerosFull(e, true);
  if (n == "hl.signal")
    return genSignalWait(e, true);
  if (n == "hl.wait")
    return genSignalWait(e, false);
  if (n == "hl.epoch")
    return genEpoch(e);
  if (n == "hl.ll_put")
    return genPacket(e, /*isPut=*/true);
  if (n == "hl.ll_get")
    return genPacket(e, /*isPut=*/false);
  if (n == "hl.stacktensor_like" || n == "hl.multicast_like")
    return genStackTensor(e);
  if (n == "torch.ops.symm_mem.get_remote_tensors")
    return genRemoteTensors(e);
  if (n == "hl.specialize")
    return genSpecialize(e);
  if (n == "torch.empty_like")
    return genEmptyLike(e);
  if (n == "len") {
    if (e.getArgs().size() != 1)
      return fail(e.getRange(), "len takes one argument");
    Result v = genExpr(*e.getArgs()[0].value);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::PeerList)
      return SemValue::integer(v->peers);
    if (v->kind == SemValue::Kind::Tuple)
      return SemValue::integer(v->elements.size());
    return fail(e.getRange(), "len of " + std::string(kindName(v->kind)));
  }
  if (n == "hl.tile" || n == "hl.grid")
    return fail(e.getRange(), n + " is only allowed as the iterable of a "
                                  "'for' loop");
  if (n == "min" || n == "max") {
    if (e.getArgs().size() != 2)
      return fail(e.getRange(), n + " takes two arguments");
    Result a = genExpr(*e.getArgs()[0].value);
    Result b = genExpr(*e.getArgs()[1].value);
    if (failed(a) || failed(b))
      return failure();
    if (a->kind == SemValue::Kind::Int && b->kind == SemValue::Kind::Int)
      return SemValue::integer(n == "min" ? std::min(a->intValue, b->intValue)
                                          : std::max(a->intValue, b->intValue));
    auto ai = toIndex(*a, *e.getArgs()[0].value);
    auto bi = toIndex(*b, *e.getArgs()[1].value);
    if (failed(ai) || failed(bi))
      return failure();
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    s.value = n == "min"
                  ? Value(arith::MinSIOp::create(builder, loc(e), *ai, *bi))
                  : Value(arith::MaxSIOp::create(builder, loc(e), *ai, *bi));
    return s;
  }
  return fail(callee.getRange(), "unknown function '" + *name + "'");
}

Result Generator::genSpecialize(const ast::CallExpr &e) {
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "hl.specialize takes one argument");
  const ast::Expr &arg = *e.getArgs()[0].value;
  Result v = genExpr(arg);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::Int)
    return *v;
  if (v->kind != SemValue::Kind::Scalar || !v->origin || !v->origin->plain())
    return fail(arg.getRange(), "hl.specialize takes a tensor size");
  // The static value: -D NAME (the variable it is assigned to, or the
  // tensor's dimension as PARAM.size(D)), or --world-size for a size that
  // is then named world_size.
  std::string dimKey =
      v->origin->param + ".size(" + std::to_string(v->origin->dim) + ")";
  std::optional<std::string> text;
  std::string varName;
  if (auto *n = ast::dyn_cast<ast::NameExpr>(&arg))
    varName = n->getName();
  for (const std::string &key : {varName, dimKey}) {
    if (key.empty())
      continue;
    auto it = options.defines.find(key);
    if (it != options.defines.end()) {
      usedDefines.insert(key);
      text = it->second;
      break;
    }
  }
  if (!text && varName == "world_size" && options.worldSize)
    text = std::to_string(*options.worldSize);
  if (!text)
    return fail(e.getRange(),
                "hl.specialize(" + (varName.empty() ? dimKey : varName) +
                    ") needs the value to compile for: pass -D " +
                    (varName.empty() ? dimKey : varName) + "=VALUE" +
                    (varName == "world_size" ? " or --world-size N" : ""));
  auto value =
      defineValue(varName.empty() ? dimKey : varName, *text, e.getRange());
  if (failed(value))
    return failure();
  if (value->kind != SemValue::Kind::Int || value->intValue < 0)
    return fail(e.getRange(), "a specialized size must be a non-negative "
                              "integer, got '" +
                                  *text + "'");
  addConstraint({v->origin->param, v->origin->dim, "==", value->intValue});
  if (varName == "world_size")
    desc.worldSize = value->intValue;
  desc.constants[varName.empty() ? dimKey : varName] =
      std::to_string(value->intValue);
  return *value;
}

Result Generator::genEmptyLike(const ast::CallExpr &e) {
  const ast::Expr *arg = argument(e, 0, "input");
  if (!arg)
    return fail(e.getRange(), "torch.empty_like needs a tensor");
  Result like = genExpr(*arg);
  if (failed(like))
    return failure();
  if (like->kind != SemValue::Kind::Ref)
    return fail(arg->getRange(), "torch.empty_like takes a tensor parameter");
  auto type = cast<tile::RefType>(like->value.getType());
  std::string dtype = refDTypes.count(like->text) ? refDTypes[like->text] : "";
  if (const ast::Expr *dt = keyword(e, "dtype")) {
    Result d = genExpr(*dt);
    if (failed(d))
      return failure();
    if (d->kind != SemValue::Kind::DType)
      return fail(dt->getRange(), "dtype must be a torch dtype");
    dtype = d->text;
    type = tile::RefType::get(&ctx, dtypeToType(&ctx, dtype), type.getRank());
  }
  // The output becomes a kernel parameter after the inputs.
  std::string outName = "out";
  unsigned k = 0;
  while (llvm::any_of(desc.args, [&](const OutputDescription &o) {
    return o.name == outName;
  }))
    outName = "out" + std::to_string(++k);
  Block &entry = func.getBody().front();
  BlockArgument arg2 = entry.addArgument(type, loc(e));
  argNames.push_back(outName);
  func.setType(builder.getFunctionType(entry.getArgumentTypes(), {}));
  desc.args.push_back(OutputDescription::output(
      outName, contract::parseDType(dtype).value_or(contract::DType::Float32),
      type.getRank(), like->text));
  refDTypes[outName] = dtype;
  SemValue v = SemValue::ofKind(SemValue::Kind::Ref);
  v.value = arg2;
  v.text = outName;
  return v;
}

Result Generator::genRemoteTensors(const ast::CallExpr &e) {
  const ast::Expr *arg = argument(e, 0, "tensor");
  if (!arg)
    return fail(e.getRange(), "get_remote_tensors needs a tensor");
  Result t = genExpr(*arg);
  if (failed(t))
    return failure();
  SemValue *peers =
      t->kind == SemValue::Kind::Ref ? lookup(t->text + ".peers") : nullptr;
  if (!peers)
    return fail(arg->getRange(),
                "get_remote_tensors takes a tensor parameter of the kernel");
  if (!desc.worldSize)
    return fail(e.getRange(),
                "get_remote_tensors needs the world size at compile time: "
                "pass --world-size N or -D world_size=N");
  auto refType = cast<tile::RefType>(t->value.getType());
  SemValue v = SemValue::ofKind(SemValue::Kind::PeerList);
  v.value = comm::StackViewOp::create(
      builder, loc(e),
      comm::StackType::get(&ctx, refType.getElementType(), refType.getRank()),
      peers->value, t->value);
  v.peers = *desc.worldSize;
  v.text = t->text;
  return v;
}

Result Generator::genStackTensor(const ast::CallExpr &e) {
  const ast::Expr *likeArg = argument(e, 0, "tensor_like");
  const ast::Expr *ptrArg = argument(e, 1, "dev_ptrs");
  if (!likeArg || !ptrArg)
    return fail(e.getRange(),
                "hl.stacktensor_like(tensor_like, dev_ptrs) takes two "
                "arguments");
  Result like = genExpr(*likeArg);
  Result ptrs = genExpr(*ptrArg);
  if (failed(like) || failed(ptrs))
    return failure();
  if (like->kind != SemValue::Kind::Ref)
    return fail(likeArg->getRange(), "tensor_like must be a tensor");
  if (ptrs->kind != SemValue::Kind::Ref ||
      cast<tile::RefType>(ptrs->value.getType()).getRank() != 1 ||
      !cast<tile::RefType>(ptrs->value.getType())
           .getElementType()
           .isInteger(64))
    return fail(ptrArg->getRange(),
                "dev_ptrs must be a 1-d uint64 tensor of peer addresses (or "
                "a full slice of one, t[:])");
  if (desc.worldSize)
    addConstraint({ptrs->text, 0, "==", *desc.worldSize});
  auto refType = cast<tile::RefType>(like->value.getType());
  SemValue v = SemValue::ofKind(SemValue::Kind::Stack);
  v.value = comm::StackViewOp::create(
      builder, loc(e),
      comm::StackType::get(&ctx, refType.getElementType(), refType.getRank()),
      ptrs->value, like->value);
  v.text = like->text;
  return v;
}

/// `stack[:, idx].sum(0)` (also `.sum(dim=0)`): the sum over peers of
/// every peer's tile at `idx`, one comm.multicast_load_reduce (a load per
/// peer, or `multimem.ld_reduce` with --multicast=nvls).
Result Generator::genLoadReduce(const ast::CallExpr &e, const SemValue &stack,
                                const ast::SubscriptExpr &sub) {
  const char *form = "a stack tensor is loaded as `stack[:, index].sum(0)`: "
                     "the sum over peers";
  auto *tuple = ast::dyn_cast<ast::TupleExpr>(&sub.getIndex());
  auto *peers = tuple && !tuple->getElements().empty()
                    ? ast::dyn_cast<ast::SliceExpr>(
                          tuple->getElements().front().get())
                    : nullptr;
  if (!peers || peers->getLower() || peers->getUpper() || peers->getStep())
    return fail(sub.getIndex().getRange(), form);
  const ast::Expr *dim = argument(e, 0, "dim");
  if (!dim || e.getArgs().size() != 1)
    return fail(e.getRange(), form);
  Result d = genExpr(*dim);
  if (failed(d))
    return failure();
  if (d->kind != SemValue::Kind::Int || d->intValue != 0)
    return fail(dim->getRange(), "only the peer dimension (0) of a stack "
                                 "tensor can be summed");
  auto type = cast<comm::StackType>(stack.value.getType());
  unsigned rank = type.getRank();
  // The index without the peer slice, as accessOf expects it.
  std::vector<const ast::Expr *> rest;
  for (size_t i = 1; i < tuple->getElements().size(); ++i)
    rest.push_back(tuple->getElements()[i].get());
  if (rest.size() != rank)
    return fail(sub.getIndex().getRange(),
                "a stack of " + std::to_string(rank) + "-d tensors needs ':' "
                "and " + std::to_string(rank) + " indices, got " +
                std::to_string(rest.size()));
  auto access = accessOfList(rank, rest, sub.getIndex());
  if (failed(access))
    return failure();
  auto mode = options.multicast == MulticastMode::NVLS
                  ? comm::MulticastMode::nvls
                  : comm::MulticastMode::software;
  SemValue v = SemValue::ofKind(SemValue::Kind::TileData);
  v.value = comm::MulticastLoadReduceOp::create(
      builder, loc(e), RankedTensorType::get(access->shape,
                                             type.getElementType()),
      stack.value, access->offsets, access->limits, access->dims, mode);
  return v;
}

/// `tile.to(dtype)`: the tile converted to another element type.
Result Generator::genCast(const ast::CallExpr &e, const ast::Expr &value) {
  Result v = genExpr(value);
  if (failed(v))
    return failure();
  if (v->kind != SemValue::Kind::TileData)
    return fail(value.getRange(), std::string(".to(dtype) converts a tile "
                                              "value, not ") +
                                      kindName(v->kind));
  const ast::Expr *dtypeArg = argument(e, 0, "dtype");
  if (!dtypeArg || e.getArgs().size() != 1)
    return fail(e.getRange(), ".to takes one dtype");
  Result dt = genExpr(*dtypeArg);
  if (failed(dt))
    return failure();
  if (dt->kind != SemValue::Kind::DType)
    return fail(dtypeArg->getRange(), ".to takes a dtype (torch.float32, "
                                      "x.dtype, ...)");
  auto cast = castTile(v->value, dtypeToType(&ctx, dt->text), loc(e));
  if (failed(cast))
    return failure();
  v->value = *cast;
  return *v;
}

/// Most CTAs a kernel with per-CTA epochs may be launched with; its state
/// buffer holds one 32-bit counter per CTA.
constexpr int64_t kMaxEpochCtas = 4096;

Result Generator::genEpoch(const ast::CallExpr &e) {
  if (!e.getArgs().empty())
    return fail(e.getRange(), "hl.epoch takes no arguments");
  if (!inGrid)
    return fail(e.getRange(), "hl.epoch is per CTA: call it inside the "
                              "kernel's tile loop");
  desc.stateBytes = 4 * kMaxEpochCtas;
  desc.maxCtas = kMaxEpochCtas;
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  v.value = comm::EpochOp::create(builder, loc(e), builder.getI32Type());
  return v;
}

Result Generator::genPacket(const ast::CallExpr &e, bool isPut) {
  const char *fn = isPut ? "hl.ll_put" : "hl.ll_get";
  // hl.ll_put(scratch, slot, value, flag, packet=16)
  // hl.ll_get(scratch, slot, flag, shape, dtype=..., packet=16)
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Keyword &&
        !llvm::is_contained(
            isPut ? std::vector<std::string>{"scratch", "slot", "value",
                                             "flag", "packet"}
                  : std::vector<std::string>{"scratch", "slot", "flag",
                                             "shape", "dtype", "packet"},
            a.name))
      return fail(a.range, std::string(fn) + " has no argument '" + a.name +
                               "'");
  const ast::Expr *scratchArg = argument(e, 0, "scratch");
  const ast::Expr *slotArg = argument(e, 1, "slot");
  const ast::Expr *valueArg = isPut ? argument(e, 2, "value") : nullptr;
  const ast::Expr *flagArg = argument(e, isPut ? 3 : 2, "flag");
  const ast::Expr *shapeArg = isPut ? nullptr : argument(e, 3, "shape");
  if (!scratchArg || !slotArg || !flagArg || (isPut && !valueArg) ||
      (!isPut && !shapeArg))
    return fail(e.getRange(),
                std::string(fn) +
                    (isPut ? " takes (scratch, slot, value, flag)"
                           : " takes (scratch, slot, flag, shape)"));
  Result scratch = genExpr(*scratchArg);
  if (failed(scratch))
    return failure();
  if (scratch->kind != SemValue::Kind::Ref)
    return fail(scratchArg->getRange(),
                std::string("the scratch must be a tensor (a peer's, for "
                            "hl.ll_put), got ") +
                    kindName(scratch->kind));
  Result slotValue = genExpr(*slotArg);
  if (failed(slotValue))
    return failure();
  auto slot = toIndex(*slotValue, *slotArg);
  if (failed(slot))
    return failure();
  Result flagValue = genExpr(*flagArg);
  if (failed(flagValue))
    return failure();
  mlir::Location l = loc(e);
  Value flag;
  if (flagValue->kind == SemValue::Kind::Int) {
    flag = arith::ConstantIntOp::create(builder, l, flagValue->intValue, 32);
  } else if (flagValue->kind == SemValue::Kind::Scalar &&
             isa<IntegerType, IndexType>(flagValue->value.getType())) {
    flag = flagValue->value;
    if (flag.getType().isIndex())
      flag = arith::IndexCastOp::create(builder, l, builder.getI32Type(), flag);
    else if (!flag.getType().isInteger(32))
      flag = arith::TruncIOp::create(builder, l, builder.getI32Type(), flag);
  } else {
    return fail(flagArg->getRange(),
                std::string("the flag must be an integer (hl.epoch()), got ") +
                    kindName(flagValue->kind));
  }
  int64_t packet = 16;
  if (const ast::Expr *p = keyword(e, "packet")) {
    Result pv = genExpr(*p);
    if (failed(pv))
      return failure();
    auto c = toConstInt(*pv, *p, "the packet size");
    if (failed(c))
      return failure();
    if (*c != 8 && *c != 16)
      return fail(p->getRange(), "the packet size must be 8 or 16 bytes, got " +
                                     std::to_string(*c));
    packet = *c;
  }
  desc.spins |= !isPut;
  if (isPut) {
    Result value = genExpr(*valueArg);
    if (failed(value))
      return failure();
    if (value->kind != SemValue::Kind::TileData)
      return fail(valueArg->getRange(),
                  std::string("hl.ll_put sends a tile value, got ") +
                      kindName(value->kind));
    comm::LLPutOp::create(builder, l, value->value, scratch->value, *slot, flag,
                          uint64_t(packet));
    return SemValue::none();
  }
  std::string dtype = "float32";
  if (const ast::Expr *dt = keyword(e, "dtype")) {
    Result d = genExpr(*dt);
    if (failed(d))
      return failure();
    if (d->kind != SemValue::Kind::DType)
      return fail(dt->getRange(), "dtype must be a torch dtype");
    dtype = d->text;
  }
  auto type = tileShapeOf(*shapeArg, dtypeToType(&ctx, dtype));
  if (failed(type))
    return failure();
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = comm::LLGetOp::create(builder, l, *type, scratch->value, *slot,
                                  flag, uint64_t(packet));
  return t;
}

Result Generator::genSignalWait(const ast::CallExpr &e, bool isSignal) {
  const char *fn = isSignal ? "hl.signal" : "hl.wait";
  static const std::set<std::string> signalKeys = {
      "signal_pad", "index", "signal", "wait_for",
      "scope",      "op",    "sem",    "hasPreviousMemAccess",
      "as_ptrs"};
  static const std::set<std::string> waitKeys = {
      "signal_pad", "index", "signal", "update",
      "scope",      "op",    "sem",    "hasSubsequentMemAccess",
      "as_ptrs"};
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Keyword &&
        !(isSignal ? signalKeys : waitKeys).count(a.name))
      return fail(a.range,
                  std::string(fn) + " has no argument '" + a.name + "'");
  size_t positional = e.getNumPositional();
  if (positional > 3)
    return fail(e.getRange(), std::string(fn) +
                                  " takes at most 3 positional arguments "
                                  "(pad, index, signal), got " +
                                  std::to_string(positional));
  const ast::Expr *padArg = argument(e, 0, "signal_pad");
  const ast::Expr *indexArg = argument(e, 1, "index");
  if (!padArg || !indexArg)
    return fail(e.getRange(), std::string(fn) + " needs a pad and an index");
  Result pad = genExpr(*padArg);
  if (failed(pad))
    return failure();
  if (pad->kind != SemValue::Kind::Ref && pad->kind != SemValue::Kind::Stack)
    return fail(padArg->getRange(), std::string("the pad must be a tensor") +
                                        (isSignal ? " or a stack tensor" : "") +
                                        ", got " + kindName(pad->kind));
  if (!isSignal && pad->kind == SemValue::Kind::Stack)
    return fail(padArg->getRange(),
                "hl.wait waits on the local pad, not on a stack tensor");
  Type element =
      pad->kind == SemValue::Kind::Ref
          ? cast<tile::RefType>(pad->value.getType()).getElementType()
          : cast<comm::StackType>(pad->value.getType()).getElementType();
  unsigned rank = pad->kind == SemValue::Kind::Ref
                      ? cast<tile::RefType>(pad->value.getType()).getRank()
                      : cast<comm::StackType>(pad->value.getType()).getRank();
  if (!element.isInteger(32))
    return fail(padArg->getRange(), "a signal pad holds int32 or uint32 flags");

  // The index: a list with one entry per pad dimension.
  std::vector<const ast::Expr *> idx = elementsOf(*indexArg);
  if (idx.size() != rank)
    return fail(indexArg->getRange(), "the pad has " + std::to_string(rank) +
                                          " dimension(s) but the index has " +
                                          std::to_string(idx.size()) +
                                          " entries");
  SmallVector<Value> indices;
  SmallVector<int64_t> extents;
  for (unsigned d = 0; d < rank; ++d) {
    Result v = genExpr(*idx[d]);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      indices.push_back(v->begin);
      extents.push_back(v->block);
      continue;
    }
    auto i = toIndex(*v, *idx[d]);
    if (failed(i))
      return failure();
    if (v->kind == SemValue::Kind::Int && v->intValue < 0)
      return fail(idx[d]->getRange(), "a slot index cannot be negative");
    // A grid tile's id indexes one row per tile: the pad needs that many.
    if (auto *attr = ast::dyn_cast<ast::AttributeExpr>(idx[d]))
      if (attr->getName() == "id" && pad->kind == SemValue::Kind::Ref) {
        Result t = genExpr(attr->getBase());
        if (succeeded(t) && t->kind == SemValue::Kind::Tile && t->gridTile)
          addConstraint({pad->text, d, ">=", contract::NumTiles{}});
      }
    indices.push_back(*i);
    extents.push_back(1);
  }

  auto constKeyword =
      [&](const char *key, std::optional<int64_t> dflt,
          size_t position) -> FailureOr<std::optional<int64_t>> {
    const ast::Expr *x = argument(e, position, key);
    if (!x)
      return dflt;
    Result v = genExpr(*x);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::None)
      return std::optional<int64_t>();
    auto c = toConstInt(*v, *x, std::string("'") + key + "'");
    if (failed(c))
      return failure();
    if (*c < INT32_MIN || *c > UINT32_MAX)
      return error(x->getRange(),
                   std::string("'") + key + "' must fit in 32 bits");
    return std::optional<int64_t>(*c);
  };
  auto stringKeyword = [&](const char *key,
                           const std::string &dflt) -> FailureOr<std::string> {
    const ast::Expr *x = keyword(e, key);
    if (!x)
      return dflt;
    Result v = genExpr(*x);
    if (failed(v))
      return failure();
    if (v->kind != SemValue::Kind::String)
      return error(x->getRange(),
                   std::string("'") + key + "' must be a string");
    return v->text;
  };
  auto boolKeyword = [&](const char *key) -> FailureOr<bool> {
    const ast::Expr *x = keyword(e, key);
    if (!x)
      return true;
    Result v = genExpr(*x);
    if (failed(v))
      return failure();
    if (v->kind != SemValue::Kind::Int)
      return error(x->getRange(),
                   std::string("'") + key + "' must be True or False");
    return v->intValue != 0;
  };

  auto signalValue = constKeyword("signal", 1, 2);
  auto extra =
      constKeyword(isSignal ? "wait_for" : "update", std::nullopt, ~size_t(0));
  auto scope = stringKeyword("scope", "gpu");
  auto op = stringKeyword("op", "");
  auto sem = stringKeyword("sem", isSignal ? "release" : "acquire");
  auto memAccess =
      boolKeyword(isSignal ? "hasPreviousMemAccess" : "hasSubsequentMemAccess");
  if (failed(signalValue) || failed(extra) || failed(scope) || failed(op) ||
      failed(sem) || failed(memAccess))
    return failure();
  if (!*signalValue)
    return fail(e.getRange(), "'signal' cannot be None");
  if (*scope != "gpu" && *scope != "sys")
    return fail(keyword(e, "scope")->getRange(),
                "scope must be \"gpu\" or \"sys\", got \"" + *scope + "\"");
  std::optional<comm::MemSem> semantic;
  for (auto [s, v] : {std::pair{"relaxed", comm::MemSem::relaxed},
                      std::pair{"acquire", comm::MemSem::acquire},
                      std::pair{"release", comm::MemSem::release},
                      std::pair{"acq_rel", comm::MemSem::acq_rel}})
    if (*sem == s)
      semantic = v;
  if (!semantic)
    return fail(keyword(e, "sem")->getRange(),
                "sem must be \"relaxed\", \"acquire\", \"release\" or "
                "\"acq_rel\", got \"" +
                    *sem + "\"");
  if (isSignal && *semantic == comm::MemSem::acquire)
    return fail(keyword(e, "sem")->getRange(),
                "a signal cannot have acquire semantics");
  if (!isSignal && *semantic == comm::MemSem::release)
    return fail(keyword(e, "sem")->getRange(),
                "a wait cannot have release semantics");
  // The older op= spelling must agree with the CAS/exchange choice.
  if (!op->empty()) {
    bool cas = *op == "atomic_cas";
    bool plain = isSignal ? *op == "atomic_xchg" : *op == "ld";
    if (!cas && !plain)
      return fail(keyword(e, "op")->getRange(),
                  std::string("op must be ") +
                      (isSignal ? "\"atomic_xchg\" or \"atomic_cas\""
                                : "\"ld\" or \"atomic_cas\"") +
                      ", got \"" + *op + "\"");
    if (cas && !*extra)
      return fail(keyword(e, "op")->getRange(),
                  std::string("op=\"atomic_cas\" needs ") +
                      (isSignal ? "wait_for" : "update"));
  }

  mlir::Location l = loc(e);
  auto scopeAttr = *scope == "sys" ? comm::MemScope::sys : comm::MemScope::gpu;
  desc.spins |= !isSignal || extra->has_value();
  if (isSignal) {
    auto s = comm::SignalOp::create(
        builder, l, pad->value, indices, extents, **signalValue,
        *extra ? builder.getI64IntegerAttr(**extra) : IntegerAttr(), scopeAttr,
        *semantic, *memAccess);
    (void)s;
  } else {
    auto w = comm::WaitOp::create(
        builder, l, pad->value, indices, extents, **signalValue,
        *extra ? builder.getI64IntegerAttr(**extra) : IntegerAttr(), scopeAttr,
        *semantic, *memAccess);
    (void)w;
  }
  return SemValue::none();
}

FailureOr<RankedTensorType> Generator::tileShapeOf(const ast::Expr &list,
                                                   Type elementType) {
  std::vector<const ast::Expr *> dims = elementsOf(list);
  SmallVector<int64_t> shape;
  for (const ast::Expr *d : dims) {
    Result v = genExpr(*d);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      shape.push_back(v->block);
      continue;
    }
    auto c = toConstInt(*v, *d, "a tile dimension");
    if (failed(c))
      return failure();
    if (*c <= 0)
      return error(d->getRange(), "a tile dimension must be positive");
    shape.push_back(*c);
  }
  if (shape.empty())
    return error(list.getRange(), "a tile needs at least one dimension");
  if (failed(checkTileSize(shape, list.getRange())))
    return failure();
  return RankedTensorType::get(shape, elementType);
}

Result Generator::genZerosFull(const ast::CallExpr &e, bool full) {
  const ast::Expr *shapeArg = argument(e, 0, "shape");
  if (!shapeArg)
    return fail(e.getRange(), "the tile's shape is missing");
  const ast::Expr *valueArg = full ? argument(e, 1, "value") : nullptr;
  if (full && !valueArg)
    return fail(e.getRange(), "hl.full needs a fill value");
  std::string dtype = "float32";
  if (const ast::Expr *dt = keyword(e, "dtype")) {
    Result d = genExpr(*dt);
    if (failed(d))
      return failure();
    if (d->kind != SemValue::Kind::DType)
      return fail(dt->getRange(), std::string("dtype must be a torch dtype, "
                                              "got ") +
                                      kindName(d->kind));
    dtype = d->text;
  }
  Type elementType = dtypeToType(&ctx, dtype);
  auto type = tileShapeOf(*shapeArg, elementType);
  if (failed(type))
    return failure();
  mlir::Location l = loc(e);
  TypedAttr fill;
  if (!full) {
    fill = builder.getZeroAttr(elementType);
  } else {
    Result v = genExpr(*valueArg);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Int)
      fill = isa<FloatType>(elementType)
                 ? TypedAttr(builder.getFloatAttr(elementType, v->intValue))
                 : TypedAttr(builder.getIntegerAttr(elementType, v->intValue));
    else if (v->kind == SemValue::Kind::Float && isa<FloatType>(elementType))
      fill = builder.getFloatAttr(elementType, v->floatValue);
    else
      return fail(valueArg->getRange(),
                  "hl.full's value must be a constant of the tile's dtype");
  }
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = arith::ConstantOp::create(builder, l,
                                      DenseElementsAttr::get(*type, fill));
  return t;
}

FailureOr<Generator::Access> Generator::accessOf(const SemValue &ref,
                                                 unsigned rank,
                                                 const ast::Expr &index) {
  std::vector<const ast::Expr *> idx;
  if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&index))
    for (const ast::ExprPtr &x : tuple->getElements())
      idx.push_back(x.get());
  else
    idx.push_back(&index);
  return accessOfList(rank, idx, index);
}

FailureOr<Generator::Access>
Generator::accessOfList(unsigned rank,
                        const std::vector<const ast::Expr *> &idx,
                        const ast::Expr &index) {
  if (idx.size() != rank)
    return error(index.getRange(), "a " + std::to_string(rank) +
                                       "-d tensor needs " +
                                       std::to_string(rank) + " indices, got " +
                                       std::to_string(idx.size()));
  Access a;
  mlir::Location l = loc(index);
  for (unsigned d = 0; d < rank; ++d) {
    if (auto *slice = ast::dyn_cast<ast::SliceExpr>(idx[d])) {
      if (slice->getLower() || slice->getUpper() || slice->getStep())
        return error(idx[d]->getRange(),
                     "only the full slice ':' is supported in a tile index");
      return error(idx[d]->getRange(),
                   "a full slice ':' needs a static size; index with a tile");
    }
    Result v = genExpr(*idx[d]);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      a.offsets.push_back(v->begin);
      a.limits.push_back(v->end);
      a.dims.push_back(d);
      a.shape.push_back(v->block);
      continue;
    }
    auto i = toIndex(*v, *idx[d]);
    if (failed(i))
      return failure();
    a.offsets.push_back(*i);
    a.limits.push_back(arith::AddIOp::create(builder, l, *i, indexConst(l, 1)));
  }
  if (a.dims.empty())
    return error(index.getRange(),
                 "index the tensor with at least one tile (scalar element "
                 "access is not supported)");
  if (failed(checkTileSize(a.shape, index.getRange())))
    return failure();
  return a;
}

FailureOr<Value> Generator::castTile(Value v, Type elementType,
                                     mlir::Location l) {
  auto type = cast<RankedTensorType>(v.getType());
  Type from = type.getElementType();
  if (from == elementType)
    return v;
  auto to = RankedTensorType::get(type.getShape(), elementType);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(elementType);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(builder, l, to, v))
               : Value(arith::TruncFOp::create(builder, l, to, v));
  if (!fromFloat && !toFloat)
    return from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth()
               ? Value(arith::ExtSIOp::create(builder, l, to, v))
               : Value(arith::TruncIOp::create(builder, l, to, v));
  if (fromFloat)
    return Value(arith::FPToSIOp::create(builder, l, to, v));
  return Value(arith::SIToFPOp::create(builder, l, to, v));
}

FailureOr<Value> Generator::coerceTile(SemValue v, RankedTensorType type,
                                       const ast::Expr &where) {
  mlir::Location l = loc(where);
  if (v.kind == SemValue::Kind::TileData) {
    auto t = cast<RankedTensorType>(v.value.getType());
    if (t.getShape() != type.getShape())
      return error(where.getRange(),
                   "a tile of shape " + std::to_string(t.getNumElements()) +
                       " elements cannot be stored into a tile of " +
                       std::to_string(type.getNumElements()));
    return castTile(v.value, type.getElementType(), l);
  }
  if (v.kind == SemValue::Kind::Int || v.kind == SemValue::Kind::Float) {
    Type et = type.getElementType();
    TypedAttr a = isa<FloatType>(et)
                      ? TypedAttr(builder.getFloatAttr(
                            et, v.kind == SemValue::Kind::Int ? v.intValue
                                                              : v.floatValue))
                      : TypedAttr(builder.getIntegerAttr(et, v.intValue));
    return Value(
        arith::ConstantOp::create(builder, l, DenseElementsAttr::get(type, a)));
  }
  return error(where.getRange(), std::string("cannot store ") +
                                     kindName(v.kind) + " into a tile");
}

Result Generator::genSubscript(const ast::SubscriptExpr &e) {
  Result base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  if (base->kind == SemValue::Kind::Tuple ||
      base->kind == SemValue::Kind::PeerList) {
    Result i = genExpr(e.getIndex());
    if (failed(i))
      return failure();
    auto k = toConstInt(*i, e.getIndex(), "a tuple index");
    if (failed(k))
      return failure();
    int64_t n = base->kind == SemValue::Kind::Tuple ? base->elements.size()
                                                    : base->peers;
    if (*k < 0 || *k >= n)
      return fail(e.getIndex().getRange(), "index " + std::to_string(*k) +
                                               " is out of range for " +
                                               std::to_string(n) + " elements");
    if (base->kind == SemValue::Kind::Tuple)
      return base->elements[*k];
    auto st = cast<comm::StackType>(base->value.getType());
    SemValue r = SemValue::ofKind(SemValue::Kind::Ref);
    r.value = comm::PeerOp::create(
        builder, loc(e),
        tile::RefType::get(&ctx, st.getElementType(), st.getRank()),
        base->value, indexConst(loc(e), *k));
    return r;
  }
  if (base->kind == SemValue::Kind::Ref) {
    // `t[:]` of a 1-d tensor: the whole tensor (e.g. a pointer table).
    if (auto *slice = ast::dyn_cast<ast::SliceExpr>(&e.getIndex()))
      if (!slice->getLower() && !slice->getUpper() && !slice->getStep())
        return *base;
    auto type = cast<tile::RefType>(base->value.getType());
    auto access = accessOf(*base, type.getRank(), e.getIndex());
    if (failed(access))
      return failure();
    auto tileType = RankedTensorType::get(access->shape, type.getElementType());
    SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
    t.value = tile::LoadOp::create(builder, loc(e), tileType, base->value,
                                   access->offsets, access->limits,
                                   access->dims, TypedAttr());
    return t;
  }
  if (base->kind == SemValue::Kind::Stack)
    return fail(e.getRange(),
                "a stack tensor is loaded as the sum over its peers, "
                "`stack[:, index].sum(0)`; to read one peer, loop over "
                "torch.ops.symm_mem.get_remote_tensors(...)");
  return fail(e.getBase().getRange(),
              std::string("cannot index ") + kindName(base->kind));
}

/// The grid rule of `lhs op rhs` when one side is a tensor size (or a
/// rule already derived from one) and the other a constant: `N + k`, `N - k`
/// and then `// d`, so that `(N + W - 1) // W` stays a rule the runtime can
/// evaluate.
static std::optional<ScalarOrigin>
derivedOrigin(ast::BinaryOp op, const SemValue &lhs, const SemValue &rhs) {
  using BO = ast::BinaryOp;
  const SemValue *sized = lhs.origin ? &lhs : rhs.origin ? &rhs : nullptr;
  const SemValue *constant = sized == &lhs ? &rhs : &lhs;
  if (!sized || constant->kind != SemValue::Kind::Int)
    return std::nullopt;
  ScalarOrigin o = *sized->origin;
  int64_t k = constant->intValue;
  switch (op) {
  case BO::Add:
    if (o.div != 1)
      return std::nullopt;
    o.add += k;
    return o;
  case BO::Sub:
    if (o.div != 1 || sized != &lhs)
      return std::nullopt;
    o.add -= k;
    return o;
  case BO::FloorDiv:
    if (o.div != 1 || sized != &lhs || k <= 0)
      return std::nullopt;
    o.div = k;
    return o;
  default:
    return std::nullopt;
  }
}

bool Generator::isIndexLike(const SemValue &v) {
  return v.kind == SemValue::Kind::Int ||
         (v.kind == SemValue::Kind::Scalar &&
          isa<IndexType, IntegerType>(v.value.getType()));
}

Result Generator::shiftTile(SemValue tile, const SemValue &by,
                            const ast::Expr &where) {
  mlir::Location l = loc(where);
  auto offset = toIndex(by, where);
  if (failed(offset))
    return failure();
  Value k = *offset;
  tile.begin = arith::AddIOp::create(builder, l, tile.begin, k);
  tile.end = arith::AddIOp::create(builder, l, tile.end, k);
  return tile;
}

Result Generator::binaryOp(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                           const ast::Expr &where) {
  using BO = ast::BinaryOp;
  mlir::Location l = loc(where);
  // Compile-time arithmetic.
  if (lhs.kind == SemValue::Kind::Int && rhs.kind == SemValue::Kind::Int) {
    int64_t a = lhs.intValue, b = rhs.intValue;
    switch (op) {
    case BO::Add:
      return SemValue::integer(a + b);
    case BO::Sub:
      return SemValue::integer(a - b);
    case BO::Mul:
      return SemValue::integer(a * b);
    case BO::FloorDiv:
    case BO::Mod: {
      if (b == 0)
        return fail(where.getRange(), "division by zero");
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return SemValue::integer(op == BO::FloorDiv ? q : r);
    }
    case BO::BitAnd:
      return SemValue::integer(a & b);
    case BO::BitOr:
      return SemValue::integer(a | b);
    case BO::BitXor:
      return SemValue::integer(a ^ b);
    case BO::LShift:
      return SemValue::integer(a << (b & 63));
    case BO::RShift:
      return SemValue::integer(a >> (b & 63));
    case BO::And:
      return SemValue::integer(a && b);
    case BO::Or:
      return SemValue::integer(a || b);
    default:
      break;
    }
  }
  // A tile shifted by a scalar: `a[base + tile]` reads the tile's elements
  // at an offset (the masked tail moves with it).
  if (op == BO::Add && lhs.kind == SemValue::Kind::Tile && isIndexLike(rhs))
    return shiftTile(lhs, rhs, where);
  if (op == BO::Add && rhs.kind == SemValue::Kind::Tile && isIndexLike(lhs))
    return shiftTile(rhs, lhs, where);
  if (lhs.kind == SemValue::Kind::Tile || rhs.kind == SemValue::Kind::Tile)
    return fail(where.getRange(),
                std::string("operator '") + ast::getBinaryOpSpelling(op) +
                    "' on a tile: a tile is only shifted, `offset + tile` "
                    "with an integer offset (its elements' indices are "
                    "tile.index)");
  bool lt = lhs.kind == SemValue::Kind::TileData,
       rt = rhs.kind == SemValue::Kind::TileData;
  if (lt || rt) {
    RankedTensorType type =
        cast<RankedTensorType>((lt ? lhs : rhs).value.getType());
    // Promote to the wider element type of two tiles.
    if (lt && rt) {
      auto other = cast<RankedTensorType>(rhs.value.getType());
      if (type.getShape() != other.getShape())
        return fail(where.getRange(), "tiles of different shapes");
      Type a = type.getElementType(), b = other.getElementType();
      if (a != b) {
        Type wide =
            a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
        if (isa<FloatType>(a) != isa<FloatType>(b))
          wide = isa<FloatType>(a) ? a : b;
        if (a.isBF16() && b.isF16())
          wide = builder.getF32Type();
        if (a.isF16() && b.isBF16())
          wide = builder.getF32Type();
        auto la = castTile(lhs.value, wide, l);
        auto rb = castTile(rhs.value, wide, l);
        if (failed(la) || failed(rb))
          return failure();
        lhs.value = *la;
        rhs.value = *rb;
        type = RankedTensorType::get(type.getShape(), wide);
      }
    }
    for (const SemValue *v : {&lhs, &rhs})
      if (v->kind != SemValue::Kind::TileData &&
          v->kind != SemValue::Kind::Int && v->kind != SemValue::Kind::Float)
        return fail(where.getRange(),
                    std::string("operator '") + ast::getBinaryOpSpelling(op) +
                        "' cannot combine " + kindName(lhs.kind) + " and " +
                        kindName(rhs.kind));
    auto coerce = [&](SemValue &v) -> LogicalResult {
      if (v.kind == SemValue::Kind::TileData)
        return success();
      auto t = coerceTile(v, type, where);
      if (failed(t))
        return failure();
      v = SemValue::ofKind(SemValue::Kind::TileData);
      v.value = *t;
      return success();
    };
    if (failed(coerce(lhs)) || failed(coerce(rhs)))
      return failure();
    bool isFloat = isa<FloatType>(type.getElementType());
    Value a = lhs.value, b = rhs.value, r;
    switch (op) {
    case BO::Add:
      r = isFloat ? Value(arith::AddFOp::create(builder, l, a, b))
                  : Value(arith::AddIOp::create(builder, l, a, b));
      break;
    case BO::Sub:
      r = isFloat ? Value(arith::SubFOp::create(builder, l, a, b))
                  : Value(arith::SubIOp::create(builder, l, a, b));
      break;
    case BO::Mul:
      r = isFloat ? Value(arith::MulFOp::create(builder, l, a, b))
                  : Value(arith::MulIOp::create(builder, l, a, b));
      break;
    case BO::Div:
      if (!isFloat)
        return fail(where.getRange(), "'/' on integer tiles; use '//'");
      r = arith::DivFOp::create(builder, l, a, b);
      break;
    case BO::FloorDiv:
      if (isFloat)
        return fail(where.getRange(), "'//' on float tiles is not supported");
      r = arith::FloorDivSIOp::create(builder, l, a, b);
      break;
    case BO::BitAnd:
    case BO::BitOr:
    case BO::BitXor:
      if (isFloat)
        return fail(where.getRange(), "bitwise operation on float tiles");
      r = op == BO::BitAnd  ? Value(arith::AndIOp::create(builder, l, a, b))
          : op == BO::BitOr ? Value(arith::OrIOp::create(builder, l, a, b))
                            : Value(arith::XOrIOp::create(builder, l, a, b));
      break;
    default:
      return fail(where.getRange(), std::string("operator '") +
                                        ast::getBinaryOpSpelling(op) +
                                        "' is not supported on tiles");
    }
    SemValue v = SemValue::ofKind(SemValue::Kind::TileData);
    v.value = r;
    return v;
  }
  // Run-time scalars (index arithmetic).
  bool scalarish =
      (lhs.kind == SemValue::Kind::Scalar || lhs.kind == SemValue::Kind::Int) &&
      (rhs.kind == SemValue::Kind::Scalar || rhs.kind == SemValue::Kind::Int);
  if (scalarish &&
      isa<IndexType, IntegerType>(
          (lhs.kind == SemValue::Kind::Scalar ? lhs : rhs).value.getType())) {
    auto a = toIndex(lhs, where), b = toIndex(rhs, where);
    if (failed(a) || failed(b))
      return failure();
    Value r;
    switch (op) {
    case BO::Add:
      r = arith::AddIOp::create(builder, l, *a, *b);
      break;
    case BO::Sub:
      r = arith::SubIOp::create(builder, l, *a, *b);
      break;
    case BO::Mul:
      r = arith::MulIOp::create(builder, l, *a, *b);
      break;
    case BO::FloorDiv:
      r = arith::FloorDivSIOp::create(builder, l, *a, *b);
      break;
    case BO::Mod:
      r = arith::RemSIOp::create(builder, l, *a, *b);
      break;
    default:
      return fail(where.getRange(), std::string("operator '") +
                                        ast::getBinaryOpSpelling(op) +
                                        "' is not supported on scalars");
    }
    SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
    v.value = r;
    v.origin = derivedOrigin(op, lhs, rhs);
    return v;
  }
  if (lhs.kind == SemValue::Kind::Unbound ||
      rhs.kind == SemValue::Kind::Unbound) {
    const SemValue &u = lhs.kind == SemValue::Kind::Unbound ? lhs : rhs;
    return fail(where.getRange(), "constexpr '" + u.text +
                                      "' has no value: pass -D " + u.text +
                                      "=VALUE");
  }
  return fail(where.getRange(), std::string("operator '") +
                                    ast::getBinaryOpSpelling(op) +
                                    "' cannot combine " + kindName(lhs.kind) +
                                    " and " + kindName(rhs.kind));
}

Result Generator::genBinary(const ast::BinaryExpr &e) {
  Result a = genExpr(e.getLHS());
  if (failed(a))
    return failure();
  Result b = genExpr(e.getRHS());
  if (failed(b))
    return failure();
  return binaryOp(e.getOp(), *a, *b, e);
}

Result Generator::genUnary(const ast::UnaryExpr &e) {
  Result v = genExpr(e.getOperand());
  if (failed(v))
    return failure();
  switch (e.getOp()) {
  case ast::UnaryOp::Neg:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(-v->intValue);
    if (v->kind == SemValue::Kind::Float) {
      v->floatValue = -v->floatValue;
      return *v;
    }
    if (v->kind == SemValue::Kind::TileData &&
        isa<FloatType>(
            cast<RankedTensorType>(v->value.getType()).getElementType())) {
      v->value = arith::NegFOp::create(builder, loc(e), v->value);
      return *v;
    }
    return binaryOp(ast::BinaryOp::Sub, SemValue::integer(0), *v, e);
  case ast::UnaryOp::Pos:
    return *v;
  case ast::UnaryOp::Not:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(!v->intValue);
    if (v->kind == SemValue::Kind::None)
      return SemValue::integer(1);
    break;
  case ast::UnaryOp::Invert:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(~v->intValue);
    break;
  }
  return fail(e.getRange(), std::string("operator '") +
                                ast::getUnaryOpSpelling(e.getOp()) +
                                "' is not supported on " + kindName(v->kind));
}

Result Generator::genCompare(const ast::CompareExpr &e) {
  bool all = true;
  for (size_t i = 0; i < e.getOps().size(); ++i) {
    Result a = genExpr(*e.getOperands()[i]);
    Result b = genExpr(*e.getOperands()[i + 1]);
    if (failed(a) || failed(b))
      return failure();
    using CO = ast::CompareOp;
    CO op = e.getOps()[i];
    if ((op == CO::Is || op == CO::IsNot) &&
        (a->kind == SemValue::Kind::None || b->kind == SemValue::Kind::None)) {
      bool same = a->kind == b->kind;
      all &= op == CO::Is ? same : !same;
      continue;
    }
    if (a->kind == SemValue::Kind::String &&
        b->kind == SemValue::Kind::String &&
        (op == CO::Eq || op == CO::NotEq)) {
      all &= (a->text == b->text) == (op == CO::Eq);
      continue;
    }
    if (a->kind == SemValue::Kind::DType && b->kind == SemValue::Kind::DType &&
        (op == CO::Eq || op == CO::NotEq)) {
      all &= (a->text == b->text) == (op == CO::Eq);
      continue;
    }
    if (a->kind != SemValue::Kind::Int || b->kind != SemValue::Kind::Int)
      return fail(e.getRange(),
                  "comparisons are evaluated at compile time and need "
                  "constants (or dtypes/strings for == and !=)");
    int64_t x = a->intValue, y = b->intValue;
    bool r = false;
    switch (op) {
    case CO::Eq:
      r = x == y;
      break;
    case CO::NotEq:
      r = x != y;
      break;
    case CO::Lt:
      r = x < y;
      break;
    case CO::LtE:
      r = x <= y;
      break;
    case CO::Gt:
      r = x > y;
      break;
    case CO::GtE:
      r = x >= y;
      break;
    default:
      return fail(e.getRange(), "unsupported comparison");
    }
    all &= r;
  }
  return SemValue::integer(all);
}

OwningOpRef<ModuleOp> Generator::run() {
  ctx.loadDialect<tile::TileDialect, comm::CommDialect, arith::ArithDialect,
                  func::FuncDialect, scf::SCFDialect>();
  mlir::Location l = loc(kernel.getNameRange());
  OwningOpRef<ModuleOp> result = ModuleOp::create(l);
  desc.kernel = kernel.getName();
  desc.sourceFile = module.getFileName();
  desc.sourceLine = kernel.getRange().begin.line;
  if (options.worldSize)
    desc.worldSize = *options.worldSize;
  if (options.rank)
    desc.rank = *options.rank;
  if (failed(readConfig()))
    return nullptr;
  scanSymmetric(kernel.getBody());
  builder.setInsertionPointToEnd(result->getBody());
  func = func::FuncOp::create(builder, l, kernel.getName(),
                              builder.getFunctionType({}, {}));
  if (failed(buildSignature()))
    return nullptr;
  if (failed(genBlock(kernel.getBody())))
    return nullptr;
  Block &entry = func.getBody().front();
  builder.setInsertionPointToEnd(&entry);
  func::ReturnOp::create(builder, l);
  func->setAttr(tile::kKernelAttr, builder.getUnitAttr());
  func->setAttr(tile::kNumWarpsAttr, builder.getI64IntegerAttr(desc.numWarps));
  SmallVector<Attribute> names;
  for (const std::string &n : argNames)
    names.push_back(builder.getStringAttr(n));
  func->setAttr("tile.arg_names", builder.getArrayAttr(names));
  if (failed(describeParamAccess(func, argNames, desc)))
    return nullptr;
  if (desc.worldSize)
    func->setAttr(tile::kPeerCountAttr,
                  builder.getI64IntegerAttr(*desc.worldSize));
  desc.tunables.push_back(contract::Tunable::numWarps(desc.numWarps));
  for (const auto &[name, value] : options.defines)
    if (!usedDefines.count(name))
      diags.warning(kernel.getNameRange(),
                    "-D " + name + "=" + value + " is not used by kernel '" +
                        kernel.getName() +
                        "' (it names no constexpr parameter and no "
                        "hl.specialize'd value)");
  if (nextBlockSize < blockSizes.size())
    diags.warning(kernel.getNameRange(),
                  "the config gives " + std::to_string(blockSizes.size()) +
                      " block sizes but the kernel has " +
                      std::to_string(nextBlockSize) + " tunable tile(s)");
  if (desc.grid.empty()) {
    (void)error(kernel.getNameRange(),
                "a kernel needs a top-level 'for ... in hl.tile(...)' loop "
                "(its grid)");
    return nullptr;
  }
  return result;
}

} // namespace

OwningOpRef<ModuleOp> dslc::generateKernel(MLIRContext &context,
                                           const ast::Module &module,
                                           const ast::FunctionDef &kernel,
                                           const CompileOptions &options,
                                           dslc::DiagnosticEngine &diags,
                                           KernelDescription &description) {
  Generator gen(context, module, kernel, options, diags, description);
  return gen.run();
}
