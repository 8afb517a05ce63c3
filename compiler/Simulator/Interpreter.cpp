//===- Interpreter.cpp - One CTA of one rank, step by step ---------------===//

#include "compiler/Simulator/Interpreter.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

namespace {

std::string joined(llvm::ArrayRef<int64_t> xs) {
  std::string s;
  for (size_t k = 0; k < xs.size(); ++k)
    s += (k ? ", " : "") + std::to_string(xs[k]);
  return s;
}

ElemType elemTypeOf(Type t) {
  if (auto ranked = dyn_cast<RankedTensorType>(t))
    return ElemType::fromType(ranked.getElementType());
  return ElemType::fromType(t);
}

double roundTo(const ElemType &type, double v) {
  return roundFloat(type.kind, v);
}

std::shared_ptr<TileVal> emptyTile(Type t) {
  auto ranked = cast<RankedTensorType>(t);
  auto tile = std::make_shared<TileVal>();
  tile->shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  tile->type = ElemType::fromType(ranked.getElementType());
  if (tile->type.isFloat())
    tile->f.resize(tile->numel());
  else
    tile->i.resize(tile->numel());
  return tile;
}

} // namespace

std::string Interpreter::who(const Task &task) const {
  return "rank " + std::to_string(task.rank) + " CTA " +
         std::to_string(task.cta);
}

RtValue &Interpreter::get(Task &task, Value v) { return task.values[v]; }

int64_t Interpreter::getInt(Task &task, Value v) { return get(task, v).i; }

Interpreter::Outcome Interpreter::fail(Task &task, Operation &op,
                                       const std::string &message) {
  reporter.error("fatal@" + where(&op) + message,
                 where(&op) + ": " + who(task) + " (launch " +
                     std::to_string(task.call) + "): " + message);
  world.fatal = true;
  return Outcome::Fail;
}

StepResult Interpreter::step(Task &task) {
  if (!task.started) {
    task.started = true;
    func::FuncOp f = world.funcs[task.rank];
    Block &entry = f.getBody().front();
    for (auto [k, arg] : llvm::enumerate(entry.getArguments()))
      task.values[arg] = world.args[task.rank][k];
    Frame frame;
    frame.kind = Frame::Kind::Func;
    frame.block = &entry;
    frame.it = entry.begin();
    task.frames.push_back(frame);
  }
  while (true) {
    Frame &frame = task.frames.back();
    Operation &op = *frame.it;
    switch (exec(task, op)) {
    case Outcome::Next:
      ++task.frames.back().it;
      continue;
    case Outcome::Jumped:
      continue;
    case Outcome::Yield:
      ++task.frames.back().it;
      return StepResult::Yielded;
    case Outcome::Again:
      return StepResult::Yielded;
    case Outcome::Block:
      return StepResult::Blocked;
    case Outcome::Done:
      task.done = true;
      return StepResult::Done;
    case Outcome::Fail:
      return StepResult::Failed;
    }
  }
}

Interpreter::Outcome Interpreter::exec(Task &task, Operation &op) {
  if (op.getDialect() &&
      op.getDialect()->getNamespace() == arith::ArithDialect::getDialectNamespace())
    return execArith(task, op);
  return llvm::TypeSwitch<Operation *, Outcome>(&op)
      .Case<func::ReturnOp>([&](auto) {
        // Kernel end: the CTA advances its launch counter (comm.epoch).
        ++world.epochs[task.rank][task.cta];
        return Outcome::Done;
      })
      .Case<tile::GridOp>([&](auto) { return enterGrid(task, op); })
      .Case<scf::ForOp>([&](auto) { return enterFor(task, op); })
      .Case<tile::YieldOp, scf::YieldOp>(
          [&](auto) { return exitRegion(task, op); })
      .Case<tile::DimOp>([&](tile::DimOp d) {
        RtValue &ref = get(task, d.getRef());
        task.values[d.getResult()] =
            RtValue::ofInt(ref.ref->sizes[d.getDim()]);
        return Outcome::Next;
      })
      .Case<tile::SplatOp>([&](tile::SplatOp s) {
        auto tile = emptyTile(s.getType());
        RtValue &v = get(task, s.getValue());
        if (tile->type.isFloat())
          std::fill(tile->f.begin(), tile->f.end(),
                    roundTo(tile->type,
                            v.kind == RtValue::Kind::Float ? v.f : double(v.i)));
        else
          std::fill(tile->i.begin(), tile->i.end(),
                    wrapInt(tile->type, v.kind == RtValue::Kind::Float
                                            ? int64_t(v.f)
                                            : v.i));
        task.values[s.getResult()] = RtValue::ofTile(tile);
        return Outcome::Next;
      })
      .Case<tile::IotaOp>([&](tile::IotaOp iota) {
        auto tile = emptyTile(iota.getType());
        for (int64_t k = 0; k < tile->numel(); ++k)
          tile->i[k] = k;
        task.values[iota.getResult()] = RtValue::ofTile(tile);
        return Outcome::Next;
      })
      .Case<tile::ReduceOp>([&](auto) { return execReduce(task, op); })
      .Case<tile::LoadOp>([&](auto) { return execLoad(task, op); })
      .Case<tile::StoreOp, comm::MulticastStoreOp>(
          [&](auto) { return execStore(task, op); })
      .Case<comm::MulticastLoadReduceOp>(
          [&](auto) { return execMulticastLoadReduce(task, op); })
      .Case<comm::StackViewOp>([&](auto) { return execStackView(task, op); })
      .Case<comm::PeerOp>([&](auto) { return execPeer(task, op); })
      .Case<comm::SignalOp>([&](auto) { return execSignal(task, op); })
      .Case<comm::WaitOp>([&](auto) { return execWait(task, op); })
      .Case<comm::EpochOp>([&](auto) { return execEpoch(task, op); })
      .Case<comm::LLPutOp>([&](auto) { return execLLPut(task, op); })
      .Case<comm::LLGetOp>([&](auto) { return execLLGet(task, op); })
      .Default([&](Operation *) {
        return fail(task, op,
                    "the simulator does not support '" +
                        op.getName().getStringRef().str() + "'");
      });
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

Interpreter::Outcome Interpreter::enterGrid(Task &task, Operation &op) {
  auto grid = cast<tile::GridOp>(op);
  int64_t total = 1;
  for (auto [extent, block] : llvm::zip(grid.getExtents(), grid.getBlocks()))
    total *= (getInt(task, extent) + block - 1) / block;
  if (int64_t(task.cta) >= total)
    return Outcome::Next;
  Frame frame;
  frame.kind = Frame::Kind::Grid;
  frame.op = &op;
  frame.block = &grid.getBody().front();
  frame.iv = task.cta;
  frame.ub = total;
  frame.step = world.numCtas;
  task.frames.push_back(frame);
  // Bind the tile ids (row-major over the grid).
  auto bind = [&](Task &t, tile::GridOp g, int64_t linear) {
    unsigned n = g.getNumDims();
    std::vector<int64_t> counts(n);
    for (unsigned d = 0; d < n; ++d)
      counts[d] = (getInt(t, g.getExtents()[d]) + g.getBlocks()[d] - 1) /
                  g.getBlocks()[d];
    for (int64_t d = n - 1; d >= 0; --d) {
      int64_t id = d == 0 ? linear : linear % counts[d];
      linear = d == 0 ? 0 : linear / counts[d];
      t.values[g.getBody().front().getArgument(d)] = RtValue::ofInt(id);
    }
  };
  bind(task, grid, frame.iv);
  task.frames.back().it = frame.block->begin();
  return Outcome::Jumped;
}

Interpreter::Outcome Interpreter::enterFor(Task &task, Operation &op) {
  auto loop = cast<scf::ForOp>(op);
  int64_t lb = getInt(task, loop.getLowerBound());
  int64_t ub = getInt(task, loop.getUpperBound());
  int64_t step = getInt(task, loop.getStep());
  if (step <= 0)
    return fail(task, op, "loop step " + std::to_string(step) +
                              " is not positive");
  if (lb >= ub) {
    for (auto [res, init] : llvm::zip(loop.getResults(), loop.getInitArgs()))
      task.values[res] = get(task, init);
    return Outcome::Next;
  }
  Block *body = loop.getBody();
  std::vector<RtValue> inits;
  for (Value init : loop.getInitArgs())
    inits.push_back(get(task, init));
  task.values[loop.getInductionVar()] = RtValue::ofInt(lb);
  for (auto [arg, v] : llvm::zip(loop.getRegionIterArgs(), inits))
    task.values[arg] = v;
  Frame frame;
  frame.kind = Frame::Kind::For;
  frame.op = &op;
  frame.block = body;
  frame.it = body->begin();
  frame.iv = lb;
  frame.ub = ub;
  frame.step = step;
  task.frames.push_back(frame);
  return Outcome::Jumped;
}

Interpreter::Outcome Interpreter::exitRegion(Task &task, Operation &term) {
  Frame &frame = task.frames.back();
  if (frame.kind == Frame::Kind::Grid) {
    frame.iv += frame.step;
    if (frame.iv < frame.ub) {
      auto grid = cast<tile::GridOp>(frame.op);
      unsigned n = grid.getNumDims();
      int64_t linear = frame.iv;
      std::vector<int64_t> counts(n);
      for (unsigned d = 0; d < n; ++d)
        counts[d] = (getInt(task, grid.getExtents()[d]) + grid.getBlocks()[d] -
                     1) /
                    grid.getBlocks()[d];
      for (int64_t d = n - 1; d >= 0; --d) {
        int64_t id = d == 0 ? linear : linear % counts[d];
        linear = d == 0 ? 0 : linear / counts[d];
        task.values[frame.block->getArgument(d)] = RtValue::ofInt(id);
      }
      frame.it = frame.block->begin();
      return Outcome::Jumped;
    }
    task.frames.pop_back();
    ++task.frames.back().it;
    return Outcome::Jumped;
  }
  // scf.for
  auto loop = cast<scf::ForOp>(frame.op);
  std::vector<RtValue> yielded;
  for (Value v : term.getOperands())
    yielded.push_back(get(task, v));
  frame.iv += frame.step;
  if (frame.iv < frame.ub) {
    task.values[loop.getInductionVar()] = RtValue::ofInt(frame.iv);
    for (auto [arg, v] : llvm::zip(loop.getRegionIterArgs(), yielded))
      task.values[arg] = v;
    frame.it = frame.block->begin();
    return Outcome::Jumped;
  }
  for (auto [res, v] : llvm::zip(loop.getResults(), yielded))
    task.values[res] = v;
  task.frames.pop_back();
  ++task.frames.back().it;
  return Outcome::Jumped;
}

//===----------------------------------------------------------------------===//
// arith (scalars and elementwise on tiles)
//===----------------------------------------------------------------------===//

namespace {

/// Applies `f` (on doubles) or `g` (on int64) elementwise / on scalars.
struct Elementwise {
  static double fop(StringRef name, double a, double b) {
    if (name == "arith.addf")
      return a + b;
    if (name == "arith.subf")
      return a - b;
    if (name == "arith.mulf")
      return a * b;
    if (name == "arith.divf")
      return a / b;
    if (name == "arith.remf")
      return std::fmod(a, b);
    if (name == "arith.maximumf" || name == "arith.maxnumf")
      return std::isnan(a) && name == "arith.maxnumf" ? b : std::fmax(a, b);
    if (name == "arith.minimumf" || name == "arith.minnumf")
      return std::isnan(a) && name == "arith.minnumf" ? b : std::fmin(a, b);
    return NAN;
  }
  static bool iop(StringRef name, int64_t a, int64_t b, int64_t &r) {
    uint64_t ua = a, ub = b;
    if (name == "arith.addi")
      r = int64_t(ua + ub);
    else if (name == "arith.subi")
      r = int64_t(ua - ub);
    else if (name == "arith.muli")
      r = int64_t(ua * ub);
    else if (name == "arith.andi")
      r = a & b;
    else if (name == "arith.ori")
      r = a | b;
    else if (name == "arith.xori")
      r = a ^ b;
    else if (name == "arith.maxsi")
      r = std::max(a, b);
    else if (name == "arith.minsi")
      r = std::min(a, b);
    else if (name == "arith.maxui")
      r = int64_t(std::max(ua, ub));
    else if (name == "arith.minui")
      r = int64_t(std::min(ua, ub));
    else if (name == "arith.shli")
      r = b >= 64 ? 0 : int64_t(ua << b);
    else if (name == "arith.shrsi")
      r = b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
    else if (name == "arith.shrui")
      r = b >= 64 ? 0 : int64_t(ua >> b);
    else {
      if (b == 0)
        return false;
      if (name == "arith.divsi")
        r = a / b;
      else if (name == "arith.divui")
        r = int64_t(ua / ub);
      else if (name == "arith.remsi")
        r = a % b;
      else if (name == "arith.remui")
        r = int64_t(ua % ub);
      else if (name == "arith.floordivsi")
        r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
      else if (name == "arith.ceildivsi")
        r = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
      else if (name == "arith.ceildivui")
        r = int64_t(ua / ub + (ua % ub != 0));
      else
        return false;
    }
    return true;
  }
};

bool cmpInt(arith::CmpIPredicate p, int64_t a, int64_t b) {
  uint64_t ua = a, ub = b;
  switch (p) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

bool cmpFloat(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  }
  return false;
}

} // namespace

Interpreter::Outcome Interpreter::execArith(Task &task, Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = c.getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      ElemType t = ElemType::fromType(i.getType());
      task.values[c.getResult()] =
          RtValue::ofInt(wrapInt(t, t.bits == 1 ? i.getValue().getZExtValue()
                                                : i.getValue().getSExtValue()));
    } else if (auto f = dyn_cast<FloatAttr>(value)) {
      task.values[c.getResult()] = RtValue::ofFloat(f.getValueAsDouble());
    } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      auto tile = emptyTile(c.getType());
      int64_t k = 0;
      if (tile->type.isFloat())
        for (APFloat v : dense.getValues<APFloat>())
          tile->f[k++] = v.convertToDouble();
      else
        for (APInt v : dense.getValues<APInt>())
          tile->i[k++] = wrapInt(tile->type, tile->type.bits == 1
                                                 ? int64_t(v.getZExtValue())
                                                 : v.getSExtValue());
      task.values[c.getResult()] = RtValue::ofTile(tile);
    } else {
      return fail(task, op, "unsupported constant");
    }
    return Outcome::Next;
  }

  if (op.getNumResults() != 1)
    return fail(task, op, "unsupported op '" + name.str() + "'");
  Type resultType = op.getResult(0).getType();
  ElemType rt = elemTypeOf(resultType);
  bool isTile = isa<RankedTensorType>(resultType);
  std::shared_ptr<TileVal> out = isTile ? emptyTile(resultType) : nullptr;
  int64_t n = isTile ? out->numel() : 1;

  // Element k of operand `v` as double / int.
  auto fAt = [&](const RtValue &v, int64_t k) -> double {
    if (v.kind == RtValue::Kind::Tile)
      return v.tile->type.isFloat() ? v.tile->f[k] : double(v.tile->i[k]);
    return v.kind == RtValue::Kind::Float ? v.f : double(v.i);
  };
  auto iAt = [&](const RtValue &v, int64_t k) -> int64_t {
    if (v.kind == RtValue::Kind::Tile)
      return v.tile->type.isFloat() ? int64_t(v.tile->f[k]) : v.tile->i[k];
    return v.kind == RtValue::Kind::Float ? int64_t(v.f) : v.i;
  };
  auto operandType = [&](unsigned k) {
    return elemTypeOf(op.getOperand(k).getType());
  };
  std::vector<const RtValue *> in;
  for (Value v : op.getOperands())
    in.push_back(&get(task, v));

  auto setF = [&](int64_t k, double v) {
    if (isTile)
      out->f[k] = v;
    else
      task.values[op.getResult(0)] = RtValue::ofFloat(v);
  };
  auto setI = [&](int64_t k, int64_t v) {
    if (isTile)
      out->i[k] = v;
    else
      task.values[op.getResult(0)] = RtValue::ofInt(v);
  };

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    ElemType t = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t a = iAt(*in[0], k), b = iAt(*in[1], k);
      if (t.isUnsigned || t.bits < 64) {
        // Compare as the operand's width (sign bits already in place).
      }
      setI(k, cmpInt(cmp.getPredicate(), a, b));
    }
  } else if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setI(k, cmpFloat(cmp.getPredicate(), fAt(*in[0], k), fAt(*in[1], k)));
  } else if (isa<arith::SelectOp>(op)) {
    for (int64_t k = 0; k < n; ++k) {
      bool c = iAt(*in[0], in[0]->kind == RtValue::Kind::Tile ? k : 0);
      const RtValue &pick = c ? *in[1] : *in[2];
      if (rt.isFloat())
        setF(k, fAt(pick, k));
      else
        setI(k, iAt(pick, k));
    }
  } else if (isa<arith::NegFOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setF(k, -fAt(*in[0], k));
  } else if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setF(k, roundTo(rt, fAt(*in[0], k)));
  } else if (isa<arith::UIToFPOp>(op)) {
    ElemType from = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = iAt(*in[0], k);
      uint64_t u = from.bits >= 64 ? uint64_t(v)
                                   : uint64_t(v) & ((uint64_t(1) << from.bits) - 1);
      setF(k, roundTo(rt, double(u)));
    }
  } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setI(k, wrapInt(rt, int64_t(std::trunc(fAt(*in[0], k)))));
  } else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) {
    ElemType from = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = iAt(*in[0], k);
      uint64_t u = from.bits >= 64 ? uint64_t(v)
                                   : uint64_t(v) & ((uint64_t(1) << from.bits) - 1);
      setI(k, wrapInt(rt, int64_t(u)));
    }
  } else if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setI(k, wrapInt(rt, iAt(*in[0], k)));
  } else if (op.getNumOperands() == 2 && rt.isFloat()) {
    for (int64_t k = 0; k < n; ++k)
      setF(k, roundTo(rt, Elementwise::fop(name, fAt(*in[0], k),
                                           fAt(*in[1], k))));
    if (!name.ends_with("f"))
      return fail(task, op, "unsupported op '" + name.str() + "'");
  } else if (op.getNumOperands() == 2) {
    for (int64_t k = 0; k < n; ++k) {
      int64_t r = 0;
      if (!Elementwise::iop(name, iAt(*in[0], k), iAt(*in[1], k), r))
        return fail(task, op,
                    iAt(*in[1], k) == 0 && name.contains("div")
                        ? "integer division by zero"
                        : "unsupported op '" + name.str() + "'");
      setI(k, wrapInt(rt, r));
    }
  } else {
    return fail(task, op, "unsupported op '" + name.str() + "'");
  }
  if (isTile)
    task.values[op.getResult(0)] = RtValue::ofTile(out);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execReduce(Task &task, Operation &op) {
  auto reduce = cast<tile::ReduceOp>(op);
  const TileVal &in = *get(task, reduce.getInput()).tile;
  int64_t dim = reduce.getDim();
  std::vector<int64_t> outShape;
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (int64_t(d) != dim)
      outShape.push_back(in.shape[d]);
  int64_t inner = 1, outer = 1, extent = in.shape[dim];
  for (size_t d = dim + 1; d < in.shape.size(); ++d)
    inner *= in.shape[d];
  for (int64_t d = 0; d < dim; ++d)
    outer *= in.shape[d];
  Type resultType = reduce.getResult().getType();
  ElemType rt = elemTypeOf(resultType);
  std::vector<double> acc(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double a = 0;
      for (int64_t e = 0; e < extent; ++e) {
        int64_t k = (o * extent + e) * inner + j;
        double v = in.type.isFloat() ? in.f[k] : double(in.i[k]);
        switch (reduce.getKind()) {
        case tile::ReduceKind::sum:
          a = e ? a + v : v;
          break;
        case tile::ReduceKind::prod:
          a = e ? a * v : v;
          break;
        case tile::ReduceKind::max:
          a = e ? std::max(a, v) : v;
          break;
        case tile::ReduceKind::min:
          a = e ? std::min(a, v) : v;
          break;
        }
      }
      acc[o * inner + j] = a;
    }
  if (isa<RankedTensorType>(resultType)) {
    auto out = emptyTile(resultType);
    for (size_t k = 0; k < acc.size(); ++k) {
      if (rt.isFloat())
        out->f[k] = roundTo(rt, acc[k]);
      else
        out->i[k] = wrapInt(rt, int64_t(acc[k]));
    }
    task.values[reduce.getResult()] = RtValue::ofTile(out);
  } else if (rt.isFloat()) {
    task.values[reduce.getResult()] = RtValue::ofFloat(roundTo(rt, acc[0]));
  } else {
    task.values[reduce.getResult()] =
        RtValue::ofInt(wrapInt(rt, int64_t(acc[0])));
  }
  return Outcome::Next;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void Interpreter::noteDataAccess(Task &task, Operation &op) {
  task.accessSinceBarrier = true;
  task.accessSinceRelease = true;
  if (task.noBarrierWait) {
    reporter.warning(
        "nobarrier@" + where(task.noBarrierWait),
        where(&op) + ": " + who(task) +
            ": this memory access follows the wait at " +
            where(task.noBarrierWait) +
            " (hasSubsequentMemAccess=False) with no barrier in between: "
            "threads that did not wait may access memory before the flag "
            "arrived");
    task.noBarrierWait = nullptr;
  }
  if (task.relaxedWait) {
    reporter.warning("relaxed@" + where(task.relaxedWait),
                     where(&op) + ": " + who(task) +
                         ": this memory access follows the relaxed wait at " +
                         where(task.relaxedWait) +
                         " (no acquire): it may see data older than the flag");
    task.relaxedWait = nullptr;
  }
}

bool Interpreter::elementIndices(Task &task, Operation &op, const RefVal &ref,
                                 const std::vector<int64_t> &offsets,
                                 const std::vector<int64_t> &limits,
                                 ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> shape,
                                 std::vector<int64_t> &indices) {
  unsigned rank = ref.sizes.size();
  std::vector<int> tileDimOf(rank, -1);
  for (auto [k, d] : llvm::enumerate(dims))
    tileDimOf[d] = static_cast<int>(k);
  // A dimension indexed by a scalar: outside the tensor is a bug, not a tail.
  for (unsigned d = 0; d < rank; ++d) {
    if (offsets[d] < 0 ||
        (tileDimOf[d] < 0 && offsets[d] >= ref.sizes[d])) {
      fail(task, op,
           "out-of-bounds access to '" + ref.buffer->name + "' of rank " +
               std::to_string(ref.buffer->rank) + ": index " +
               std::to_string(offsets[d]) + " of dimension " +
               std::to_string(d) + " is outside [0, " +
               std::to_string(ref.sizes[d]) + ")");
      return false;
    }
  }
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  indices.assign(n, -1);
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = int64_t(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * ref.sizes[d + 1];
  // Fast path: one tile dimension.
  if (dims.size() == 1) {
    unsigned d = dims[0];
    int64_t base = 0;
    for (unsigned e = 0; e < rank; ++e)
      base += offsets[e] * strides[e];
    int64_t end = std::min(limits[d], ref.sizes[d]);
    for (int64_t k = 0; k < n && offsets[d] + k < end; ++k)
      indices[k] = base + k * strides[d];
    for (unsigned e = 0; e < rank; ++e)
      if (e != d && offsets[e] >= std::min(limits[e], ref.sizes[e]))
        std::fill(indices.begin(), indices.end(), -1);
    return true;
  }
  std::vector<int64_t> e(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0;
    bool masked = false;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t idx = offsets[d] + (tileDimOf[d] >= 0 ? e[tileDimOf[d]] : 0);
      if (idx >= limits[d] || idx >= ref.sizes[d])
        masked = true;
      flat += idx * strides[d];
    }
    indices[k] = masked ? -1 : flat;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++e[d] < shape[d])
        break;
      e[d] = 0;
    }
  }
  return true;
}

bool Interpreter::loadTile(Task &task, Operation &op, const RefVal &ref,
                           const std::vector<int64_t> &offsets,
                           const std::vector<int64_t> &limits,
                           ArrayRef<int64_t> dims, TileVal &out, double otherF,
                           int64_t otherI) {
  std::vector<int64_t> indices;
  if (!elementIndices(task, op, ref, offsets, limits, dims, out.shape, indices))
    return false;
  Buffer &b = *ref.buffer;
  if (b.role == Role::Input && b.generation != task.call) {
    std::string held = b.generation < 0
                           ? "nothing yet (its kernel has not started)"
                           : "the data of launch " +
                                 std::to_string(b.generation);
    reporter.error("race@" + where(&op) + "@" + std::to_string(b.rank),
                   where(&op) + ": " + who(task) + " (launch " +
                       std::to_string(task.call) + ") reads '" + b.name +
                       "' of rank " + std::to_string(b.rank) +
                       " while it holds " + held +
                       ": a missing or misplaced signal/wait lets this read "
                       "run before the peer's data is ready");
  }
  bool isFloat = out.type.isFloat();
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t idx = indices[k];
    if (idx < 0) {
      if (isFloat)
        out.f[k] = otherF;
      else
        out.i[k] = otherI;
      continue;
    }
    if (b.role == Role::Output && b.writtenIn[idx] != task.call) {
      reporter.error("uninit@" + where(&op) + "@" + b.name,
                     where(&op) + ": " + who(task) + " reads element " +
                         std::to_string(idx) + " of '" + b.name +
                         "' of rank " + std::to_string(b.rank) +
                         ", which this launch never wrote");
    }
    if (isFloat)
      out.f[k] = b.isFloat() ? b.f[idx] : double(b.i[idx]);
    else
      out.i[k] = b.isFloat() ? int64_t(b.f[idx]) : b.i[idx];
  }
  return true;
}

bool Interpreter::storeTile(Task &task, Operation &op, const RefVal &ref,
                            const std::vector<int64_t> &offsets,
                            const std::vector<int64_t> &limits,
                            ArrayRef<int64_t> dims, const TileVal &value) {
  std::vector<int64_t> indices;
  if (!elementIndices(task, op, ref, offsets, limits, dims, value.shape,
                      indices))
    return false;
  Buffer &b = *ref.buffer;
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t idx = indices[k];
    if (idx < 0)
      continue;
    if (b.isFloat())
      b.f[idx] = roundTo(b.type, value.type.isFloat() ? value.f[k]
                                                      : double(value.i[k]));
    else
      b.i[idx] = wrapInt(b.type, value.type.isFloat() ? int64_t(value.f[k])
                                                      : value.i[k]);
    if (b.role == Role::Output)
      b.writtenIn[idx] = task.call;
  }
  if (b.role == Role::Pad)
    ++world.padVersion;
  return true;
}

Interpreter::Outcome Interpreter::execLoad(Task &task, Operation &op) {
  auto load = cast<tile::LoadOp>(op);
  std::vector<int64_t> offsets, limits;
  for (Value v : load.getOffsets())
    offsets.push_back(getInt(task, v));
  for (Value v : load.getLimits())
    limits.push_back(getInt(task, v));
  auto out = emptyTile(load.getType());
  double otherF = 0;
  int64_t otherI = 0;
  if (auto other = load.getOtherAttr()) {
    if (auto f = dyn_cast<FloatAttr>(other))
      otherF = f.getValueAsDouble(), otherI = int64_t(otherF);
    else if (auto i = dyn_cast<IntegerAttr>(other))
      otherI = i.getValue().getSExtValue(), otherF = double(otherI);
  }
  noteDataAccess(task, op);
  if (!loadTile(task, op, *get(task, load.getRef()).ref, offsets, limits,
                load.getDims(), *out, otherF, otherI))
    return Outcome::Fail;
  task.values[load.getResult()] = RtValue::ofTile(out);
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execStore(Task &task, Operation &op) {
  std::vector<int64_t> offsets, limits;
  auto collect = [&](ValueRange offs, ValueRange lims) {
    for (Value v : offs)
      offsets.push_back(getInt(task, v));
    for (Value v : lims)
      limits.push_back(getInt(task, v));
  };
  noteDataAccess(task, op);
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    collect(store.getOffsets(), store.getLimits());
    if (!storeTile(task, op, *get(task, store.getRef()).ref, offsets, limits,
                   store.getDims(), *get(task, store.getValue()).tile))
      return Outcome::Fail;
    return Outcome::Yield;
  }
  auto store = cast<comm::MulticastStoreOp>(op);
  collect(store.getOffsets(), store.getLimits());
  const StackVal &stack = *get(task, store.getStack()).stack;
  for (Buffer *peer : stack.peers) {
    RefVal ref{peer, stack.sizes};
    if (!storeTile(task, op, ref, offsets, limits, store.getDims(),
                   *get(task, store.getValue()).tile))
      return Outcome::Fail;
  }
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execMulticastLoadReduce(Task &task,
                                                          Operation &op) {
  auto load = cast<comm::MulticastLoadReduceOp>(op);
  std::vector<int64_t> offsets, limits;
  for (Value v : load.getOffsets())
    offsets.push_back(getInt(task, v));
  for (Value v : load.getLimits())
    limits.push_back(getInt(task, v));
  const StackVal &stack = *get(task, load.getStack()).stack;
  auto out = emptyTile(load.getType());
  auto part = emptyTile(load.getType());
  // 16-bit floats accumulate in f32.
  ElemType accType = out->type;
  if (accType.kind == ElemType::Kind::BF16 ||
      accType.kind == ElemType::Kind::F16)
    accType.kind = ElemType::Kind::F32;
  noteDataAccess(task, op);
  for (auto [p, peer] : llvm::enumerate(stack.peers)) {
    RefVal ref{peer, stack.sizes};
    if (!loadTile(task, op, ref, offsets, limits, load.getDims(), *part, 0, 0))
      return Outcome::Fail;
    for (int64_t k = 0; k < out->numel(); ++k) {
      if (out->type.isFloat())
        out->f[k] = p ? roundTo(accType, out->f[k] + part->f[k]) : part->f[k];
      else
        out->i[k] = p ? wrapInt(out->type, out->i[k] + part->i[k]) : part->i[k];
    }
  }
  if (out->type.isFloat())
    for (double &v : out->f)
      v = roundTo(out->type, v);
  task.values[load.getResult()] = RtValue::ofTile(out);
  return Outcome::Yield;
}

//===----------------------------------------------------------------------===//
// Comm
//===----------------------------------------------------------------------===//

Interpreter::Outcome Interpreter::execStackView(Task &task, Operation &op) {
  auto view = cast<comm::StackViewOp>(op);
  const RefVal &table = *get(task, view.getTable()).ref;
  const RefVal &like = *get(task, view.getLike()).ref;
  auto stack = std::make_shared<StackVal>();
  stack->sizes = like.sizes;
  stack->name = like.buffer->name;
  Buffer &t = *table.buffer;
  for (int64_t p = 0; p < table.sizes[0]; ++p) {
    uint64_t address = static_cast<uint64_t>(t.i[p]);
    Buffer *peer = world.heap.resolve(address);
    std::ostringstream hex;
    hex << std::hex << address;
    if (!peer)
      return fail(task, op,
                  "entry " + std::to_string(p) + " of the address table '" +
                      t.name + "' is 0x" + hex.str() +
                      ", which is not the address of a buffer");
    if (peer->numel < like.buffer->numel || peer->type.kind != like.buffer->type.kind)
      return fail(task, op,
                  "entry " + std::to_string(p) + " of the address table '" +
                      t.name + "' points to '" + peer->name + "' of rank " +
                      std::to_string(peer->rank) + ", which is not a copy of '" +
                      like.buffer->name + "'");
    stack->peers.push_back(peer);
  }
  task.values[view.getResult()] = RtValue::ofStack(stack);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execPeer(Task &task, Operation &op) {
  auto peerOp = cast<comm::PeerOp>(op);
  const StackVal &stack = *get(task, peerOp.getStack()).stack;
  int64_t p = getInt(task, peerOp.getPeer());
  if (p < 0 || p >= int64_t(stack.peers.size()))
    return fail(task, op,
                "peer index " + std::to_string(p) + " of '" + stack.name +
                    "' is outside [0, " + std::to_string(stack.peers.size()) +
                    ") (the number of peers)");
  auto ref = std::make_shared<RefVal>();
  ref->buffer = stack.peers[p];
  ref->sizes = stack.sizes;
  task.values[peerOp.getResult()] = RtValue::ofRef(ref);
  return Outcome::Next;
}

bool Interpreter::slotFlat(Task &task, Operation &op,
                           const std::vector<int64_t> &sizes,
                           const std::vector<int64_t> &indices,
                           ArrayRef<int64_t> extents, int64_t slot,
                           std::vector<int64_t> &coords, int64_t &flat,
                           const std::string &padName) {
  unsigned rank = indices.size();
  coords.assign(rank, 0);
  int64_t rest = slot;
  for (int64_t d = rank - 1; d >= 0; --d) {
    coords[d] = indices[d] + rest % extents[d];
    rest /= extents[d];
  }
  flat = 0;
  for (unsigned d = 0; d < rank; ++d) {
    if (coords[d] < 0 || coords[d] >= sizes[d]) {
      std::string shape;
      for (unsigned e = 0; e < rank; ++e)
        shape += (e ? "x" : "") + std::to_string(sizes[e]);
      fail(task, op,
           "slot [" + joined(coords) + "] is outside the pad '" + padName +
               "' (" + shape + "): index " + std::to_string(coords[d]) +
               " of dimension " + std::to_string(d) + " is not below " +
               std::to_string(sizes[d]));
      return false;
    }
    flat = flat * sizes[d] + coords[d];
  }
  return true;
}

Interpreter::Outcome Interpreter::execSignal(Task &task, Operation &op) {
  auto signal = cast<comm::SignalOp>(op);
  RtValue &pad = get(task, signal.getPad());
  std::vector<Buffer *> peers;
  std::vector<int64_t> sizes;
  std::string padName;
  if (pad.kind == RtValue::Kind::Stack) {
    peers = pad.stack->peers;
    sizes = pad.stack->sizes;
    padName = pad.stack->name;
  } else {
    peers = {pad.ref->buffer};
    sizes = pad.ref->sizes;
    padName = pad.ref->buffer->name;
  }
  std::vector<int64_t> indices;
  for (Value v : signal.getIndices())
    indices.push_back(getInt(task, v));
  int64_t slots = 1;
  for (int64_t e : signal.getExtents())
    slots *= e;
  if (task.slotDone.empty()) {
    // First attempt: the barrier before the flag, and the ordering check.
    if (signal.getHasPreviousMemAccess()) {
      task.accessSinceBarrier = false;
      task.noBarrierWait = nullptr;
    } else if (task.accessSinceBarrier) {
      reporter.warning(
          "nobarrier-signal@" + where(&op),
          where(&op) + ": " + who(task) +
              ": signal with hasPreviousMemAccess=False after this CTA "
              "accessed memory: without the barrier a peer may see the flag "
              "before the CTA's other threads finished their accesses");
    }
    if (signal.getSem() == comm::MemSem::relaxed && task.accessSinceRelease)
      reporter.warning("relaxed-signal@" + where(&op),
                       where(&op) + ": " + who(task) +
                           ": relaxed signal after memory accesses: a peer "
                           "may see the flag before the data");
    if (signal.getSem() != comm::MemSem::relaxed)
      task.accessSinceRelease = false;
    task.slotDone.assign(peers.size() * slots, 0);
  }
  task.waitingOn.clear();
  bool all = true;
  for (size_t p = 0; p < peers.size(); ++p) {
    Buffer &b = *peers[p];
    int64_t newValue = wrapInt(b.type, signal.getSignal());
    for (int64_t s = 0; s < slots; ++s) {
      uint8_t &done = task.slotDone[p * slots + s];
      if (done)
        continue;
      std::vector<int64_t> coords;
      int64_t flat;
      if (!slotFlat(task, op, sizes, indices, signal.getExtents(), s, coords,
                    flat, padName))
        return Outcome::Fail;
      if (auto waitFor = signal.getWaitFor()) {
        int64_t expected = wrapInt(b.type, *waitFor);
        if (b.i[flat] != expected) {
          all = false;
          task.waitingOn.push_back({&b, coords, expected, b.i[flat]});
          continue;
        }
      }
      b.i[flat] = newValue;
      done = 1;
      ++world.padVersion;
    }
  }
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  task.slotDone.clear();
  task.blockedOp = nullptr;
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execWait(Task &task, Operation &op) {
  auto wait = cast<comm::WaitOp>(op);
  const RefVal &pad = *get(task, wait.getPad()).ref;
  std::vector<int64_t> indices;
  for (Value v : wait.getIndices())
    indices.push_back(getInt(task, v));
  int64_t slots = 1;
  for (int64_t e : wait.getExtents())
    slots *= e;
  if (task.slotDone.empty())
    task.slotDone.assign(slots, 0);
  Buffer &b = *pad.buffer;
  int64_t expected = wrapInt(b.type, wait.getSignal());
  task.waitingOn.clear();
  bool all = true;
  for (int64_t s = 0; s < slots; ++s) {
    uint8_t &done = task.slotDone[s];
    if (done)
      continue;
    std::vector<int64_t> coords;
    int64_t flat;
    if (!slotFlat(task, op, pad.sizes, indices, wait.getExtents(), s, coords,
                  flat, b.name))
      return Outcome::Fail;
    if (b.i[flat] != expected) {
      all = false;
      task.waitingOn.push_back({&b, coords, expected, b.i[flat]});
      continue;
    }
    if (auto update = wait.getUpdate()) {
      b.i[flat] = wrapInt(b.type, *update);
      ++world.padVersion;
    }
    done = 1;
  }
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  task.slotDone.clear();
  task.blockedOp = nullptr;
  if (wait.getSem() == comm::MemSem::relaxed)
    task.relaxedWait = &op;
  else
    task.relaxedWait = nullptr;
  if (wait.getHasSubsequentMemAccess()) {
    task.accessSinceBarrier = false;
    task.noBarrierWait = nullptr;
  } else {
    task.noBarrierWait = &op;
  }
  return Outcome::Yield;
}

//===----------------------------------------------------------------------===//
// LL packets and the per-CTA epoch
//===----------------------------------------------------------------------===//

namespace {

/// The 32-bit little-endian word at byte `offset` of an integer buffer.
uint32_t readWord(const Buffer &b, int64_t offset) {
  int64_t eb = b.type.byteSize();
  uint32_t word = 0;
  for (int64_t j = 0; j < 4; ++j) {
    int64_t o = offset + j;
    uint64_t element = static_cast<uint64_t>(b.i[o / eb]);
    word |= uint32_t((element >> ((o % eb) * 8)) & 0xff) << (8 * j);
  }
  return word;
}

void writeWord(Buffer &b, int64_t offset, uint32_t word) {
  int64_t eb = b.type.byteSize();
  for (int64_t j = 0; j < 4; ++j) {
    int64_t o = offset + j;
    unsigned shift = unsigned((o % eb) * 8);
    uint64_t element = static_cast<uint64_t>(b.i[o / eb]);
    element = (element & ~(uint64_t(0xff) << shift)) |
              (uint64_t((word >> (8 * j)) & 0xff) << shift);
    b.i[o / eb] = wrapInt(b.type, int64_t(element));
  }
}

/// Packets an ll_put/ll_get stores in one scheduler step: a tile's packets
/// land in a few groups, so a reader can see part of a tile (whole packets
/// only: each is one 8- or 16-byte store).
constexpr int64_t kPacketsPerStep = 64;

} // namespace

Interpreter::Outcome Interpreter::execEpoch(Task &task, Operation &op) {
  auto epoch = cast<comm::EpochOp>(op);
  uint32_t value = world.epochs[task.rank][task.cta] + 1;
  task.values[epoch.getResult()] =
      RtValue::ofInt(wrapInt(ElemType::fromType(epoch.getType()), value));
  return Outcome::Next;
}

bool Interpreter::checkPackets(Task &task, Operation &op, const Buffer &b,
                               int64_t slot, int64_t count,
                               int64_t packetBytes) {
  if (b.isFloat() || b.type.bits < 8) {
    fail(task, op,
         "the LL scratch '" + b.name + "' is a " + b.type.name() +
             " tensor; the simulator needs an integer tensor (int64)");
    return false;
  }
  int64_t bytes = b.numel * int64_t(b.type.byteSize());
  int64_t capacity = bytes / packetBytes;
  if (slot < 0 || slot + count > capacity) {
    int64_t bad = slot < 0 ? slot : std::max(slot, capacity);
    fail(task, op,
         "packet " + std::to_string(bad) + " (packets [" +
             std::to_string(slot) + ", " + std::to_string(slot + count) +
             ") of this tile, slot " + std::to_string(slot) +
             ") is outside the LL scratch '" + b.name + "' of rank " +
             std::to_string(b.rank) + ": " + std::to_string(bytes) +
             " bytes hold " + std::to_string(capacity) + " packet(s) of " +
             std::to_string(packetBytes) + " bytes");
    return false;
  }
  return true;
}

Interpreter::Outcome Interpreter::execLLPut(Task &task, Operation &op) {
  auto put = cast<comm::LLPutOp>(op);
  const TileVal &value = *get(task, put.getValue()).tile;
  Buffer &b = *get(task, put.getScratch()).ref->buffer;
  int64_t slot = getInt(task, put.getSlot());
  uint32_t flag = static_cast<uint32_t>(getInt(task, put.getFlag()));
  int64_t packetBytes = put.getPacket();
  int64_t payload = packetBytes / 2;
  int64_t eb = value.type.byteSize();
  int64_t tileBytes = value.numel() * eb;
  if (tileBytes % payload != 0)
    return fail(task, op,
                "the tile holds " + std::to_string(tileBytes) +
                    " bytes, not a whole number of " +
                    std::to_string(payload) + "-byte packet payloads");
  int64_t count = tileBytes / payload;
  if (task.packetsStored == 0) {
    if (!checkPackets(task, op, b, slot, count, packetBytes))
      return Outcome::Fail;
    noteDataAccess(task, op);
  }
  std::vector<unsigned char> data(tileBytes);
  for (int64_t k = 0; k < value.numel(); ++k)
    encode(value.type, value.type.isFloat() ? value.f[k] : 0,
           value.type.isFloat() ? 0 : value.i[k], data.data() + k * eb);
  int64_t end = std::min(count, task.packetsStored + kPacketsPerStep);
  for (int64_t p = task.packetsStored; p < end; ++p) {
    int64_t base = (slot + p) * packetBytes;
    for (int64_t j = 0; j < payload / 4; ++j) {
      uint32_t word;
      std::memcpy(&word, data.data() + p * payload + 4 * j, 4);
      writeWord(b, base + 8 * j, word);
      writeWord(b, base + 8 * j + 4, flag);
    }
  }
  ++world.padVersion;
  if (end < count) {
    task.packetsStored = end;
    return Outcome::Again;
  }
  task.packetsStored = 0;
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execLLGet(Task &task, Operation &op) {
  auto llGet = cast<comm::LLGetOp>(op);
  Buffer &b = *get(task, llGet.getScratch()).ref->buffer;
  int64_t slot = getInt(task, llGet.getSlot());
  uint32_t flag = static_cast<uint32_t>(getInt(task, llGet.getFlag()));
  int64_t packetBytes = llGet.getPacket();
  int64_t payload = packetBytes / 2;
  int64_t wordsPer = payload / 4;
  auto out = emptyTile(llGet.getType());
  int64_t eb = out->type.byteSize();
  int64_t tileBytes = out->numel() * eb;
  if (tileBytes % payload != 0)
    return fail(task, op,
                "the tile holds " + std::to_string(tileBytes) +
                    " bytes, not a whole number of " +
                    std::to_string(payload) + "-byte packet payloads");
  int64_t count = tileBytes / payload;
  if (task.slotDone.empty()) {
    if (!checkPackets(task, op, b, slot, count, packetBytes))
      return Outcome::Fail;
    task.slotDone.assign(count, 0);
    task.packetWords.assign(count * wordsPer, 0);
  }
  task.waitingOn.clear();
  bool all = true;
  for (int64_t p = 0; p < count; ++p) {
    if (task.slotDone[p])
      continue;
    int64_t base = (slot + p) * packetBytes;
    // One load of the whole packet: every flag word must hold the flag.
    std::optional<uint32_t> wrong;
    for (int64_t j = 0; j < wordsPer && !wrong; ++j) {
      uint32_t f = readWord(b, base + 8 * j + 4);
      if (f != flag)
        wrong = f;
    }
    if (wrong) {
      all = false;
      task.waitingOn.push_back(
          {&b, {slot + p}, int64_t(flag), int64_t(*wrong)});
      continue;
    }
    for (int64_t j = 0; j < wordsPer; ++j)
      task.packetWords[p * wordsPer + j] = readWord(b, base + 8 * j);
    task.slotDone[p] = 1;
  }
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  std::vector<unsigned char> data(tileBytes);
  std::memcpy(data.data(), task.packetWords.data(), tileBytes);
  for (int64_t k = 0; k < out->numel(); ++k) {
    double f;
    int64_t i;
    decode(out->type, data.data() + k * eb, f, i);
    if (out->type.isFloat())
      out->f[k] = f;
    else
      out->i[k] = i;
  }
  task.values[llGet.getResult()] = RtValue::ofTile(out);
  task.slotDone.clear();
  task.packetWords.clear();
  task.waitingOn.clear();
  task.blockedOp = nullptr;
  noteDataAccess(task, op);
  return Outcome::Yield;
}
