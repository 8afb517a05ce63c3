//===- GenSignature.cpp - Config, -D values and the kernel signature ------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include "contract/KernelConfig.h"

#include "llvm/Support/JSON.h"
#include <cmath>
#include <cstdlib>

using namespace mlir;

namespace dslc::mlirgen {

/// A helion.Config(...) keyword value as JSON: literals (ints, floats,
/// strings, booleans, None, negated numbers) and lists or tuples of them.
static std::optional<llvm::json::Value> literalToJson(const ast::Expr &e) {
  if (auto *i = ast::dyn_cast<ast::IntLiteralExpr>(&e))
    return i->fitsInt64()
               ? std::optional<llvm::json::Value>(int64_t(i->getValue()))
               : std::nullopt;
  if (auto *f = ast::dyn_cast<ast::FloatLiteralExpr>(&e))
    return llvm::json::Value(f->getValue());
  if (auto *str = ast::dyn_cast<ast::StringLiteralExpr>(&e))
    return llvm::json::Value(str->getValue());
  if (auto *b = ast::dyn_cast<ast::BoolLiteralExpr>(&e))
    return llvm::json::Value(b->getValue());
  if (ast::isa<ast::NoneLiteralExpr>(&e))
    return llvm::json::Value(nullptr);
  if (auto *u = ast::dyn_cast<ast::UnaryExpr>(&e);
      u && u->getOp() == ast::UnaryOp::Neg)
    if (auto v = literalToJson(u->getOperand())) {
      if (auto n = v->getAsInteger())
        return llvm::json::Value(-*n);
      if (auto d = v->getAsNumber())
        return llvm::json::Value(-*d);
    }
  const ast::ExprList *elements = nullptr;
  if (auto *l = ast::dyn_cast<ast::ListExpr>(&e))
    elements = &l->getElements();
  else if (auto *t = ast::dyn_cast<ast::TupleExpr>(&e))
    elements = &t->getElements();
  if (!elements)
    return std::nullopt;
  llvm::json::Array array;
  for (const ast::ExprPtr &el : *elements) {
    std::optional<llvm::json::Value> v = literalToJson(*el);
    if (!v)
      return std::nullopt;
    array.push_back(std::move(*v));
  }
  return llvm::json::Value(std::move(array));
}

static std::string jsonText(llvm::json::Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

LogicalResult Generator::applyConfig(const contract::ConfigReading &reading,
                                     SourceRange where,
                                     llvm::StringRef source) {
  const contract::KernelConfig &c = reading.config;
  if (reading.has("block_sizes")) {
    blockSizes = c.blockSizes;
    configGivesBlockSizes = true;
  }
  if (reading.has("num_warps")) {
    desc.numWarps = c.numWarps;
    desc.numWarpsDefaulted = false;
  }
  if (reading.has("reduction_loops"))
    reductionLoops = c.reductionLoops;
  if (reading.has("dot_engine"))
    dotEngine = c.dotEngine;
  if (reading.has("num_stages"))
    numStages = c.numStages;
  if (reading.has("l2_groupings"))
    l2Grouping = c.l2Grouping;
  if (reading.has("fast_math"))
    fastMath = c.fastMath;
  if (reading.has("maxnreg"))
    maxNReg = c.maxNReg;
  if (reading.has("load_eviction_policies")) {
    loadEvictionPolicies = c.loadEvictionPolicies;
    evictionConfigWhere = where;
  }
  for (const char *runtimeOnly : {"max_ctas", "tunables"})
    if (reading.has(runtimeOnly))
      diags->warning(where, source.str() + " key '" + runtimeOnly +
                                "' is not read by the compiler (" +
                                (llvm::StringRef(runtimeOnly) == "max_ctas"
                                     ? "the runtime caps the grid at load"
                                     : "hl.register_tunable compiles its "
                                       "default") +
                                ")");
  for (const std::string &key : reading.ignoredKeys)
    diags->warning(where, source.str() + " key '" + key +
                              "' has no effect in dslc and is ignored");
  return success();
}

LogicalResult Generator::readConfigCall(const ast::Expr &config) {
  auto *call = ast::dyn_cast<ast::CallExpr>(&config);
  if (!call)
    return error(config.getRange(),
                 "config must be helion.Config(block_sizes=[...], "
                 "num_warps=...)");
  // Each keyword is read on its own by the one config reader (contract::
  // readConfig), so that its message points at the keyword.
  for (const ast::Argument &a : call->getArgs()) {
    if (a.kind != ast::Argument::Kind::Keyword)
      return error(a.range, "helion.Config takes keyword arguments only");
    std::optional<llvm::json::Value> value = literalToJson(*a.value);
    bool honoured =
        contract::classifyConfigKey(a.name) != contract::ConfigKey::HelionOnly;
    if (!value && honoured)
      return error(a.value->getRange(),
                   "config values are literals: '" + a.name +
                       "' must be an integer, None or a list of them");
    llvm::json::Object one;
    one[a.name] = value ? std::move(*value) : llvm::json::Value(nullptr);
    contract::Expected<contract::ConfigReading> reading =
        contract::readConfig(jsonText(std::move(one)));
    if (!reading)
      return error(a.range, reading.error());
    if (failed(applyConfig(*reading, a.range, "helion.Config")))
      return failure();
  }
  return success();
}

/// The module-level assignments `name = ...` of the kernel's file.
static std::vector<const ast::AssignStmt *>
moduleAssignments(const ast::Module &module, const std::string &name) {
  std::vector<const ast::AssignStmt *> found;
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *a = ast::dyn_cast<ast::AssignStmt>(s.get()))
      for (const ast::ExprPtr &t : a->getTargets())
        if (auto *n = ast::dyn_cast<ast::NameExpr>(t.get());
            n && n->getName() == name)
          found.push_back(a);
  return found;
}

LogicalResult Generator::readDecoratorConfig(const ast::Expr &config) {
  if (ast::isa<ast::NoneLiteralExpr>(config))
    return success(); // Helion autotunes; dslc compiles its defaults
  if (ast::isa<ast::CallExpr>(config))
    return readConfigCall(config);
  // A name: the config a module-level assignment makes, when it is one
  // written out; otherwise host code chooses it when the file runs.
  std::string what = "config is";
  if (auto *name = ast::dyn_cast<ast::NameExpr>(&config)) {
    std::vector<const ast::AssignStmt *> defs =
        moduleAssignments(module, name->getName());
    if (defs.empty())
      return error(config.getRange(), "unknown name '" + name->getName() +
                                          "': config names a module-level "
                                          "helion.Config(...)");
    if (defs.size() == 1 && ast::isa<ast::CallExpr>(defs[0]->getValue()))
      return readConfigCall(defs[0]->getValue());
    if (defs.size() == 1 && ast::isa<ast::NoneLiteralExpr>(defs[0]->getValue()))
      return success();
    what = "config '" + name->getName() + "' is" +
           (defs.size() > 1
                ? " assigned " + std::to_string(defs.size()) + " times and"
                : "");
  }
  diags->warning(config.getRange(),
                 what + " computed by host code when the file runs; dslc "
                        "compiles its default config instead (write "
                        "helion.Config(...) or pass --config to choose one)");
  return success();
}

int64_t Generator::helionDefaultBlock(size_t numBlocks,
                                      const std::set<int64_t> &fullRows,
                                      int64_t hint) {
  // Helion's BlockSizeSpec default: by the number of tiled dimensions and
  // the product of the reduction dimensions (powers of two).
  double reduction = 1;
  for (int64_t d : fullRows)
    reduction *= double(llvm::PowerOf2Ceil(d));
  int64_t block;
  if (numBlocks <= 2 && reduction <= 128) {
    block = 32;
  } else if (numBlocks >= 3 && reduction > 1) {
    auto perDim = int64_t(std::pow(32768.0 / reduction, 1.0 / numBlocks));
    block = perDim >= 1 ? int64_t(llvm::bit_floor(uint64_t(perDim))) : 1;
  } else if (reduction <= 256) {
    block = 16;
  } else {
    block = 1;
  }
  if (hint > 0)
    block = std::min<int64_t>(block, llvm::PowerOf2Ceil(hint));
  return std::max<int64_t>(block, 1);
}

std::array<int64_t, 3> Generator::helionMinDotSize(Type inputType) {
  // Triton 3.6's NVIDIA backend (min_dot_size, printed on an H100): M and N
  // any size (padded onto tensor cores), K 16, 32 for 8-bit inputs.
  return {1, 1, isFP8(inputType) ? 32 : 16};
}

FailureOr<int64_t> Generator::takeBlockSize(SourceRange where,
                                            llvm::StringRef what, int64_t lo,
                                            int64_t hi, int64_t hint) {
  unsigned i = nextBlockSize++;
  int64_t block;
  if (i < blockSizes.size()) {
    block = blockSizes[i];
  } else if (!configGivesBlockSizes && probe) {
    // Indexed, so that a speculative body rolled back and generated again
    // records its block sizes once.
    size_t k = i - blockSizes.size();
    if (probe->hints.size() <= k)
      probe->hints.resize(k + 1);
    probe->hints[k] = hint;
    block = std::max<int64_t>(lo, 1);
  } else if (!configGivesBlockSizes) {
    size_t k = i - blockSizes.size();
    block = helionDefaults && k < helionDefaults->size()
                ? (*helionDefaults)[k]
                : contract::kDefaultBlockSize;
    if (hi >= lo && hi > 0)
      block = std::min(block, hi);
    block = std::max(block, lo);
    if (!contract::isValidBlockSize(block))
      return error(where, what.str() + " needs a block size: its minimum " +
                              std::to_string(lo) +
                              " is larger than the largest tile dimension, " +
                              std::to_string(kMaxBlockSize));
    defaultedBlockSizes.push_back(block);
  } else {
    return error(where, what.str() +
                            " has a tunable block size but the config gives " +
                            std::to_string(blockSizes.size()) +
                            " block size(s); add one to block_sizes");
  }
  if (block < lo)
    return error(where, "block_sizes[" + std::to_string(i) +
                            "] = " + std::to_string(block) +
                            " is below this block size's minimum " +
                            std::to_string(lo));
  contract::Tunable tunable = contract::Tunable::blockSize(i, block);
  if (hint > 0)
    tunable.extent = hint;
  desc.tunables.push_back(tunable);
  return block;
}

LogicalResult Generator::readConfig() {
  if (const ast::Expr *p = kernel.getDecoratorKeyword("dot_precision")) {
    auto *s = ast::dyn_cast<ast::StringLiteralExpr>(p);
    if (!s || (s->getValue() != "tf32" && s->getValue() != "tf32x3" &&
               s->getValue() != "ieee"))
      return error(p->getRange(), "dot_precision must be \"tf32\", "
                                  "\"tf32x3\" or \"ieee\"");
    allowTf32 = s->getValue() == "tf32";
  }
  if (const ast::Expr *p = kernel.getDecoratorKeyword("static_shapes")) {
    auto *b = ast::dyn_cast<ast::BoolLiteralExpr>(p);
    if (!b)
      return error(p->getRange(), "static_shapes must be True or False");
    staticShapes = b->getValue();
  }
  if (const ast::Expr *p = kernel.getDecoratorKeyword("index_dtype")) {
    auto name = ast::getDottedName(*p);
    indexDtypeWhere = p->getRange();
    if (name && *name == "torch.int32")
      indexBitsGiven = 32;
    else if (name && *name == "torch.int64")
      indexBitsGiven = 64;
    else if (!ast::isa<ast::NoneLiteralExpr>(p))
      return error(p->getRange(),
                   "index_dtype must be torch.int32, torch.int64 or None");
  }
  if (const ast::Expr *config = kernel.getDecoratorKeyword("config"))
    if (failed(readDecoratorConfig(*config)))
      return failure();
  if (const ast::Expr *configs = kernel.getDecoratorKeyword("configs")) {
    // Helion autotunes over a list; dslc compiles the first.
    auto *list = ast::dyn_cast<ast::ListExpr>(configs);
    if (!list || list->getElements().empty())
      return error(configs->getRange(),
                   "configs must be a list of helion.Config(...)");
    if (list->getElements().size() > 1)
      diags->warning(configs->getRange(),
                     "configs lists " +
                         std::to_string(list->getElements().size()) +
                         " configs for Helion's autotuner; dslc compiles "
                         "the first (the tuner searches: docs/tuner.md)");
    if (failed(readConfigCall(*list->getElements()[0])))
      return failure();
  }
  if (options.configJSON.empty())
    return success();
  contract::Expected<contract::ConfigReading> reading =
      contract::readConfig(options.configJSON);
  if (!reading)
    return error(SourceRange(), "--config: " + reading.error());
  return applyConfig(*reading, kernel.getNameRange(), "--config");
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

LogicalResult Generator::checkSignatureNames() {
  bool ok = true;
  for (const auto &[name, sig] : options.signature)
    if (llvm::none_of(kernel.getParams(),
                      [&](const ast::Param &p) { return p.name == name; })) {
      diags->error(kernel.getNameRange(), "--signature names '" + name +
                                              "', which is not a "
                                              "parameter of kernel '" +
                                              kernel.getName() + "'");
      ok = false;
    }
  return success(ok);
}

/// Whether an annotation names hl.constexpr (or hl.ProcessGroupName: a
/// process group's name, compiled in like a constexpr; dslc's peers are the
/// communicator the kernel is launched on).
static bool isConstexprAnnotation(const std::optional<std::string> &annot) {
  return annot && (*annot == "hl.constexpr" || *annot == "helion.constexpr" ||
                   *annot == "dslc.constexpr" || *annot == "constexpr" ||
                   *annot == "hl.ProcessGroupName" ||
                   *annot == "helion.language.ProcessGroupName");
}

FailureOr<SemValue> Generator::constexprValue(const ast::Param &p) {
  SemValue v = SemValue::ofKind(SemValue::Kind::Unbound);
  v.text = p.name;
  auto def = options.defines.find(p.name);
  if (def != options.defines.end()) {
    usedDefines.insert(p.name);
    return defineValue(p.name, def->second, p.range);
  }
  if (isRankName(p.name) && options.rank)
    return SemValue::integer(*options.rank);
  if (isWorldSizeName(p.name) && options.worldSize)
    return SemValue::integer(*options.worldSize);
  if (p.defaultValue) {
    if (!isConstantSyntax(*p.defaultValue))
      return error(p.defaultValue->getRange(),
                   "the default of constexpr '" + p.name +
                       "' must be a constant: a number, True/False, a "
                       "string, None or a dtype");
    return genExpr(*p.defaultValue);
  }
  return v;
}

FailureOr<SemValue> Generator::scalarDefault(const ast::Param &p,
                                             contract::DType dtype) {
  const ast::Expr &e = *p.defaultValue;
  std::string what = "the default of scalar '" + p.name + "'";
  if (!isConstantSyntax(e))
    return error(e.getRange(), what + " must be a number");
  FailureOr<SemValue> v = genExpr(e);
  if (failed(v))
    return failure();
  bool isFloat = contract::isFloating(dtype);
  if (v->kind == SemValue::Kind::Int && isFloat)
    return SemValue::floating(static_cast<double>(v->intValue));
  if ((v->kind == SemValue::Kind::Float && isFloat) ||
      (v->kind == SemValue::Kind::Int && !isFloat))
    return v;
  return error(e.getRange(),
               what + " must be " + (isFloat ? "a number" : "an integer") +
                   " (the parameter is " + contract::dtypeName(dtype) + ")");
}

bool isConstantSyntax(const ast::Expr &e) {
  using K = ast::Expr::Kind;
  switch (e.getKind()) {
  case K::IntLiteral:
  case K::FloatLiteral:
  case K::BoolLiteral:
  case K::StringLiteral:
  case K::NoneLiteral:
    return true;
  case K::Unary:
    return isConstantSyntax(ast::cast<ast::UnaryExpr>(e).getOperand());
  case K::Binary:
    return isConstantSyntax(ast::cast<ast::BinaryExpr>(e).getLHS()) &&
           isConstantSyntax(ast::cast<ast::BinaryExpr>(e).getRHS());
  case K::Attribute: // torch.float32
    return ast::getDottedName(e).has_value();
  case K::Tuple:
  case K::List:
    return llvm::all_of(
        elementsOf(e), [](const ast::Expr *x) { return isConstantSyntax(*x); });
  default:
    return false;
  }
}

std::optional<std::string> constantJSON(const SemValue &v) {
  switch (v.kind) {
  case SemValue::Kind::Int:
    return std::to_string(v.intValue);
  case SemValue::Kind::Float:
    if (!std::isfinite(v.floatValue))
      return std::nullopt;
    // The shortest text that reads back as the same double (1e-06).
    for (int digits = 1; digits <= 17; ++digits) {
      std::string text =
          llvm::formatv("{0}", llvm::format("%.*g", digits, v.floatValue))
              .str();
      if (std::strtod(text.c_str(), nullptr) == v.floatValue)
        return text;
    }
    return llvm::formatv("{0}", llvm::format("%.17g", v.floatValue)).str();
  case SemValue::Kind::String:
  case SemValue::Kind::DType:
    return llvm::formatv("\"{0}\"", v.text).str();
  default:
    return std::nullopt;
  }
}

LogicalResult Generator::checkRankAgreement(const ast::Param &p,
                                            const SemValue &v) {
  bool ok = true;
  auto agree = [&](std::optional<int64_t> &known, const char *option) {
    if (known && *known != v.intValue) {
      diags->error(p.range, "constexpr '" + p.name + "' is " +
                                std::to_string(v.intValue) + " but " + option +
                                " says " + std::to_string(*known));
      ok = false;
    }
    known = v.intValue;
  };
  bool isRank = isRankName(p.name), isWorld = isWorldSizeName(p.name);
  if (v.kind == SemValue::Kind::Int && isRank)
    agree(desc.rank, "--rank");
  if (v.kind == SemValue::Kind::Int && isWorld)
    agree(desc.worldSize, "--world-size");
  if (v.kind == SemValue::Kind::Int && desc.rank && desc.worldSize &&
      (isRank || isWorld) && *desc.rank >= *desc.worldSize) {
    diags->error(p.range, "rank " + std::to_string(*desc.rank) +
                              " is not below the world size " +
                              std::to_string(*desc.worldSize));
    ok = false;
  }
  return success(ok);
}

/// The error for a parameter whose annotation gives no type.
LogicalResult Generator::missingType(const ast::Param &p) {
  return error(p.range, "parameter '" + p.name +
                            "' needs a type: torch.Tensor[DTYPE, RANK], "
                            "int, float or hl.constexpr");
}

FailureOr<Generator::ParamType>
Generator::tensorAnnotation(const ast::Param &p,
                            const ast::SubscriptExpr &sub) {
  auto base = ast::getDottedName(sub.getBase());
  auto *tuple = ast::dyn_cast<ast::TupleExpr>(&sub.getIndex());
  if (base && (*base == "torch.Tensor" || *base == "Tensor") && tuple &&
      tuple->getElements().size() == 2) {
    auto dt = ast::getDottedName(*tuple->getElements()[0]);
    auto *r = ast::dyn_cast<ast::IntLiteralExpr>(tuple->getElements()[1].get());
    std::optional<std::string> canon;
    if (dt)
      canon = canonicalDType(llvm::StringRef(*dt).starts_with("torch.")
                                 ? llvm::StringRef(*dt).drop_front(6)
                                 : llvm::StringRef(*dt));
    if (!canon || !r || r->getValue() == 0 || r->getValue() > 8)
      return error(sub.getRange(),
                   "tensor annotation must be torch.Tensor[DTYPE, RANK] "
                   "with a torch dtype and a rank from 1 to 8");
    return ParamType{*canon, unsigned(r->getValue())};
  }
  return missingType(p);
}

/// `tuple[X, ...]` (also Tuple, typing.Tuple): the element annotation X,
/// null when `a` is not a tuple annotation; `fixed` when it lists elements
/// instead of `X, ...`.
static const ast::Expr *tupleElement(const ast::Expr &a, bool &isTuple,
                                     bool &fixed) {
  isTuple = false;
  fixed = false;
  auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&a);
  auto base = ast::getDottedName(sub ? sub->getBase() : a);
  if (!base ||
      (*base != "tuple" && *base != "Tuple" && *base != "typing.Tuple"))
    return nullptr;
  isTuple = true;
  if (!sub)
    return nullptr;
  std::vector<const ast::Expr *> elements = elementsOf(sub->getIndex());
  if (elements.size() != 2 ||
      !ast::isa<ast::EllipsisLiteralExpr>(*elements[1])) {
    fixed = true;
    return nullptr;
  }
  return elements[0];
}

FailureOr<Generator::ParamType>
Generator::tupleParamType(const ast::Param &p, const ast::Expr &annotation) {
  bool isTuple, fixed;
  const ast::Expr *element = tupleElement(annotation, isTuple, fixed);
  if (fixed)
    return error(annotation.getRange(),
                 "a tuple parameter holds the copies of one tensor on every "
                 "rank: annotate it tuple[torch.Tensor, ...] (pass distinct "
                 "tensors as separate parameters)");
  ParamType type;
  auto sig = options.signature.find(p.name);
  if (sig != options.signature.end()) {
    if (sig->second.rank == 0)
      return error(p.range, "--signature " + p.name + " gives a scalar, but '" +
                                p.name +
                                "' is a tuple of tensors: pass --signature " +
                                p.name + "=DTYPE[RANK]");
    type = ParamType{sig->second.dtype, sig->second.rank};
  } else {
    auto *sub = element ? ast::dyn_cast<ast::SubscriptExpr>(element) : nullptr;
    if (!sub)
      return error(p.range, "the tensors of tuple parameter '" + p.name +
                                "' need an element type and rank: annotate "
                                "it tuple[torch.Tensor[torch.DTYPE, RANK], "
                                "...] or pass --signature " +
                                p.name + "=DTYPE[RANK]");
    auto t = tensorAnnotation(p, *sub);
    if (failed(t))
      return failure();
    type = *t;
  }
  type.isTuple = true;
  return type;
}

FailureOr<Generator::ParamType> Generator::paramType(const ast::Param &p) {
  // `X | None` typed as X (None is -D NAME=None, GenParams.cpp).
  const ast::Expr *annotation =
      p.annotation ? &unwrapOptional(*p.annotation) : nullptr;
  if (annotation) {
    bool isTuple, fixed;
    (void)tupleElement(*annotation, isTuple, fixed);
    if (isTuple)
      return tupleParamType(p, *annotation);
  }
  // Tensors: `torch.Tensor[dtype, rank]`, or --signature.
  auto sig = options.signature.find(p.name);
  if (sig != options.signature.end())
    return ParamType{sig->second.dtype, sig->second.rank,
                     sig->second.rank == 0};
  std::optional<std::string> annot =
      annotation ? ast::getDottedName(*annotation) : std::nullopt;
  if (annotation)
    if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(annotation))
      return tensorAnnotation(p, *sub);
  if (annot && (*annot == "int" || *annot == "float"))
    return ParamType{*annot == "int" ? "int64" : "float32", 0, true};
  if (annot && (*annot == "torch.Tensor" || *annot == "Tensor"))
    return error(p.range, "parameter '" + p.name +
                              "' needs its element type and rank: annotate "
                              "it torch.Tensor[torch.DTYPE, RANK] or pass "
                              "--signature " +
                              p.name + "=DTYPE[RANK]");
  return missingType(p);
}

LogicalResult Generator::buildSignature() {
  scopes.emplace_back();
  SmallVector<Type> argTypes;
  std::vector<std::pair<std::string, SemValue>> constants;
  bool ok = succeeded(checkSignatureNames());
  for (const ast::Param &p : kernel.getParams()) {
    if (p.kind != ast::Param::Kind::Normal) {
      diags->error(p.range, "kernels cannot take *args or **kwargs");
      ok = false;
      continue;
    }
    ParamDescription pd;
    pd.name = p.name;
    ParamCategory category = paramCategory(p);
    // A function, or a tensor compiled as None: a compile-time value.
    std::optional<FailureOr<SemValue>> fixed;
    if (category == ParamCategory::Callable)
      fixed = callableParam(p);
    else if (category == ParamCategory::OptionalTensor &&
             !options.signature.count(p.name) &&
             !ast::isa<ast::SubscriptExpr>(unwrapOptional(*p.annotation)))
      fixed = optionalTensorParam(p);
    else if (category == ParamCategory::OptionalTensor &&
             options.defines.count(p.name))
      fixed = optionalTensorParam(p); // -D NAME=None
    if (fixed) {
      if (failed(*fixed)) {
        ok = false;
        continue;
      }
      pd.kind = ParamDescription::Kind::Constexpr;
      desc.constexprs.push_back(pd);
      constants.emplace_back(p.name, **fixed);
      continue;
    }
    if (category == ParamCategory::Constexpr ||
        isConstexprAnnotation(p.annotation ? ast::getDottedName(*p.annotation)
                                           : std::nullopt)) {
      pd.kind = ParamDescription::Kind::Constexpr;
      FailureOr<SemValue> v = constexprValue(p);
      if (failed(v)) {
        ok = false;
        continue;
      }
      pd.value = constantJSON(*v);
      if (pd.value)
        desc.constants[p.name] = *pd.value;
      if (failed(checkRankAgreement(p, *v)))
        ok = false;
      desc.constexprs.push_back(pd);
      constants.emplace_back(p.name, *v);
      continue;
    }
    FailureOr<ParamType> type = paramType(p);
    if (failed(type)) {
      ok = false;
      continue;
    }
    pd.dtype = *contract::parseDType(type->dtype);
    pd.rank = type->rank;
    argNames.push_back(p.name);
    if (type->isScalar) {
      pd.kind = ParamDescription::Kind::Scalar;
      argTypes.push_back(dtypeToType(&ctx, type->dtype));
      // The source's default (`eps: float = 1e-5`): every caller binds it
      // when the scalar is not given (metadata "value").
      if (p.defaultValue) {
        FailureOr<SemValue> def = scalarDefault(p, pd.dtype);
        if (failed(def)) {
          ok = false;
          continue;
        }
        pd.value = constantJSON(*def);
      }
      desc.args.push_back(pd);
      continue;
    }
    // A tuple of tensors is the copies of one symmetric tensor on every
    // rank: passed as that tensor and its peer table (docs/kernel-abi.md).
    pd.symmetric = symmetricParams.count(p.name) > 0 || type->isTuple;
    if (type->isTuple)
      tupleParams.insert(p.name);
    argTypes.push_back(
        tile::RefType::get(&ctx, dtypeToType(&ctx, type->dtype), type->rank));
    refDTypes[p.name] = type->dtype;
    if (pd.symmetric) {
      argTypes.push_back(tile::RefType::get(&ctx, builder.getI64Type(), 1));
      argNames.push_back(p.name + ".peers");
    }
    desc.args.push_back(pd);
  }
  if (ok && failed(checkShapes()))
    ok = false;
  if (ok && failed(decideIndexBits()))
    ok = false;
  if (ok && failed(checkDimOrders()))
    ok = false;
  if (!ok)
    return failure();

  builder.setInsertionPointToEnd(cast<ModuleOp>(func->getParentOp()).getBody());
  func.setType(builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  bindParameters(entry, constants);
  return success();
}

void Generator::bindParameters(
    Block *entry, std::vector<std::pair<std::string, SemValue>> &constants) {
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
      if (!pd.dimOrder.empty()) { // --dim-order (checkDimOrders)
        v.kind = SemValue::Kind::PermutedRef;
        v.dimOrder = pd.dimOrder;
      }
      if (pd.symmetric) {
        // The peers' copies, for get_remote_tensors. A symmetric tensor's
        // peer table has one slot, no size: its length is the world size,
        // which the runtime checks against "world_size".
        SemValue peers = SemValue::ofKind(SemValue::Kind::Ref);
        peers.value = entry->getArgument(argIndex++);
        peers.text = pd.name + ".peers";
        scopes.back()[pd.name + ".peers"] = peers;
        if (tupleParams.count(pd.name)) {
          // The name is the tuple: t[i] is rank i's copy.
          auto refType = cast<tile::RefType>(v.value.getType());
          SemValue list = SemValue::ofKind(SemValue::Kind::PeerList);
          list.value = comm::StackViewOp::create(
              builder, v.value.getLoc(),
              comm::StackType::get(&ctx, refType.getElementType(),
                                   refType.getRank()),
              peers.value, v.value);
          list.text = pd.name;
          v = list;
        }
      }
    }
    scopes.back()[pd.name] = v;
  }
  for (auto &[name, v] : constants)
    scopes.back()[name] = v;
}

} // namespace dslc::mlirgen
