//===- GenTritonRuntime.cpp - Helion's Triton runtime, mapped back --------===//
//
// Helion lowers hl.wait to a device function of its Triton runtime,
// `triton_wait_signal(addr, expect, update, sem, scope, op, skip_sync,
// sync_before=False)` (helion/runtime/triton/helpers.py), and Helion's
// examples call it themselves from small @triton.jit helpers
// (all_gather_matmul.py's `_wait_progress_at_idx`). dslc maps the call back
// onto comm.wait: it is hl.wait on a 1-d tensor at a flat offset. A
// @triton.jit helper whose body is DSL code (no `tl.*`) is inlined like any
// helper; Triton code in it is reported with a note saying so.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"

using namespace mlir;

namespace dslc::mlirgen {

/// The modules that export Helion's runtime device functions.
static bool isHelionRuntimeModule(llvm::StringRef m) {
  return m == "helion.runtime" || m.starts_with("helion.runtime.");
}

std::optional<std::string>
Generator::importedFromModule(const std::string &name) const {
  // The module-level import that binds the first component (the last one
  // wins, as in Python); the rest of a dotted name follows it.
  std::string first = name.substr(0, name.find('.'));
  std::string rest = name.substr(first.size());
  std::optional<std::string> path;
  for (const ast::StmtPtr &s : module.getBody()) {
    if (auto *from = ast::dyn_cast<ast::ImportFromStmt>(s.get())) {
      if (from->getLevel() == 0)
        for (const ast::ImportAlias &a : from->getNames())
          if (a.getBoundName(/*fromImport=*/true) == first)
            path = from->getModule() + "." + a.name + rest;
    } else if (auto *imp = ast::dyn_cast<ast::ImportStmt>(s.get())) {
      for (const ast::ImportAlias &a : imp->getNames())
        if (a.getBoundName(/*fromImport=*/false) == first)
          path = a.asName.empty() ? name : a.name + rest;
    }
  }
  return path;
}

bool GeneratorState::isTritonJit(const ast::FunctionDef &fn) {
  for (const ast::Decorator &d : fn.getDecorators())
    if (const ast::Expr *x = d.expr.get()) {
      if (auto *c = ast::dyn_cast<ast::CallExpr>(x))
        x = &c->getCallee();
      std::optional<std::string> dn = ast::getDottedName(*x);
      if (dn && llvm::StringRef(*dn).starts_with("triton."))
        return true;
    }
  return false;
}

std::optional<Result> Generator::genHelionRuntimeCall(const ast::CallExpr &e,
                                                      const std::string &n) {
  if (!ast::isa<ast::NameExpr>(e.getCallee()) || lookup(n))
    return std::nullopt;
  std::optional<std::string> full = importedFromModule(n);
  if (!full)
    return std::nullopt;
  llvm::StringRef path(*full);
  auto [mod, fn] = path.rsplit('.');
  if (!isHelionRuntimeModule(mod))
    return std::nullopt;
  if (fn == "triton_wait_signal")
    return genTritonWaitSignal(e);
  return std::nullopt;
}

/// `addr` of triton_wait_signal: a 1-d tensor, `t + offset` or
/// `offset + t`. Fills the tensor and the slot index.
LogicalResult Generator::flatAddress(const ast::Expr &addr, SemValue &tensor,
                                     Value &slot) {
  const ast::Expr *base = &addr, *offset = nullptr;
  if (auto *b = ast::dyn_cast<ast::BinaryExpr>(&addr);
      b && b->getOp() == ast::BinaryOp::Add) {
    Result lhs = genExpr(b->getLHS());
    if (failed(lhs))
      return failure();
    bool leftIsTensor = lhs->kind == SemValue::Kind::Ref;
    base = leftIsTensor ? &b->getLHS() : &b->getRHS();
    offset = leftIsTensor ? &b->getRHS() : &b->getLHS();
  }
  Result t = genExpr(*base);
  if (failed(t))
    return failure();
  if (t->kind != SemValue::Kind::Ref)
    return error(addr.getRange(),
                 "triton_wait_signal's address is a tensor plus an offset "
                 "(`flags + i`), got " +
                     std::string(kindName(t->kind)));
  unsigned rank = cast<tile::RefType>(t->value.getType()).getRank();
  if (rank != 1)
    return error(addr.getRange(),
                 "triton_wait_signal's address is a flat offset into '" +
                     t->text + "', which has " + std::to_string(rank) +
                     " dimensions: write hl.wait(" + t->text +
                     ", [i, ...], ...) with one index per dimension");
  tensor = *t;
  mlir::Location l = loc(addr);
  if (!offset) {
    slot = indexConst(l, 0);
    return success();
  }
  Result o = genExpr(*offset);
  if (failed(o))
    return failure();
  if (o->kind == SemValue::Kind::Int && o->intValue < 0)
    return error(offset->getRange(), "a slot index cannot be negative");
  FailureOr<Value> i = toIndex(*o, *offset);
  if (failed(i))
    return failure();
  slot = *i;
  return success();
}

Result Generator::genTritonWaitSignal(const ast::CallExpr &e) {
  static const llvm::StringRef names[] = {"addr",      "expect",     "update",
                                          "sem",       "scope",      "op",
                                          "skip_sync", "sync_before"};
  if (failed(checkKeywords(e, "triton_wait_signal", names)))
    return failure();
  const ast::Expr *args[8];
  for (size_t i = 0; i < 8; ++i)
    args[i] = argument(e, i, names[i]);
  for (size_t i = 0; i < 7; ++i)
    if (!args[i])
      return fail(e.getRange(),
                  "triton_wait_signal(addr, expect, update, sem, scope, op, "
                  "skip_sync, sync_before=False) needs '" +
                      names[i].str() + "'");
  auto constant = [&](size_t i, SemValue::Kind kind,
                      const char *what) -> FailureOr<SemValue> {
    Result v = genExpr(*args[i]);
    if (failed(v))
      return failure();
    if (v->kind != kind)
      return error(args[i]->getRange(), "triton_wait_signal's '" +
                                            names[i].str() + "' must be " +
                                            what);
    return *v;
  };
  auto expect = constant(1, SemValue::Kind::Int, "a constant integer");
  auto update = constant(2, SemValue::Kind::Int, "a constant integer");
  auto sem = constant(3, SemValue::Kind::String, "a string");
  auto scope = constant(4, SemValue::Kind::String, "a string");
  auto op = constant(5, SemValue::Kind::String, "a string");
  auto skipSync = constant(6, SemValue::Kind::Int, "True or False");
  if (failed(expect) || failed(update) || failed(sem) || failed(scope) ||
      failed(op) || failed(skipSync))
    return failure();
  if (args[7]) {
    auto before = constant(7, SemValue::Kind::Int, "True or False");
    if (failed(before))
      return failure();
    if (before->intValue)
      return fail(args[7]->getRange(),
                  "sync_before=True (a CTA barrier before the wait) is not "
                  "supported: end what precedes with hl.signal(..., "
                  "hasPreviousMemAccess=True) or write hl.wait");
  }
  if (expect->intValue < 0 || expect->intValue > UINT32_MAX ||
      update->intValue < 0 || update->intValue > UINT32_MAX)
    return fail(e.getRange(), "triton_wait_signal's expect and update are "
                              "32-bit flag values");
  SyncSpelling spelling;
  spelling.scope = scope->text;
  spelling.sem = sem->text;
  spelling.op = op->text;
  spelling.scopeAt = args[4];
  spelling.semAt = args[3];
  spelling.opAt = args[5];
  spelling.hasExtra = true; // update is always passed
  SignalOptions checked;
  if (failed(checkSync(e, spelling, checked)))
    return failure();
  SemValue pad;
  Value slot;
  if (failed(flatAddress(*args[0], pad, slot)))
    return failure();
  if (!cast<tile::RefType>(pad.value.getType()).getElementType().isInteger(32))
    return fail(args[0]->getRange(),
                "a signal pad holds int32 or uint32 flags");
  mlir::Location l = loc(e);
  desc.spins = true;
  // op="ld" polls (update unused); "atomic_cas" swaps expect for update.
  IntegerAttr swap = op->text == "atomic_cas"
                         ? builder.getI64IntegerAttr(update->intValue)
                         : IntegerAttr();
  comm::WaitOp::create(builder, l, pad.value, ValueRange{slot},
                       ArrayRef<int64_t>{1}, expect->intValue, swap,
                       checked.scope, checked.sem,
                       /*has_subsequent_mem_access=*/skipSync->intValue == 0);
  return SemValue::none();
}

} // namespace dslc::mlirgen
