//===- Interpreter.cpp - One CTA of one rank, step by step ----------------===//
//
// The step loop, the op dispatch and control flow (the function, tile.grid
// scf.for and scf.if frames). The op families live in InterpreterArith.cpp,
// InterpreterMemory.cpp and InterpreterComm.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"
#include "compiler/Simulator/SimulationOptions.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

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
    world.races->startCta(task.clock, task.rank, task.cta, int32_t(task.call));
  }
  while (true) {
    Frame &frame = task.frames.back();
    Operation &op = *frame.it;
    if (!chargeWork(task, op))
      return StepResult::Failed;
    switch (exec(task, op)) {
    case Outcome::Next:
      retire(task, op);
      ++task.frames.back().it;
      continue;
    case Outcome::Jumped:
      continue;
    case Outcome::Yield:
      retire(task, op);
      ++task.frames.back().it;
      return StepResult::Yielded;
    case Outcome::Again:
      return StepResult::Yielded;
    case Outcome::Block:
      return StepResult::Blocked;
    case Outcome::Done:
      task.done = true;
      flushStores(task, task.clock.self.clock);
      world.races->endCta(task.clock);
      task.values.shrink_and_clear();
      return StepResult::Done;
    case Outcome::Fail:
      return StepResult::Failed;
    }
  }
}

Interpreter::Outcome Interpreter::exec(Task &task, Operation &op) {
  if (Dialect *dialect = op.getDialect()) {
    if (dialect->getNamespace() == arith::ArithDialect::getDialectNamespace())
      return execArith(task, op);
    if (dialect->getNamespace() == math::MathDialect::getDialectNamespace())
      return execMath(task, op);
  }
  return llvm::TypeSwitch<Operation *, Outcome>(&op)
      .Case<func::ReturnOp>([&](auto) {
        // Kernel end: the CTA advances its launch counter (comm.epoch).
        ++world.epochs[task.rank][task.cta];
        return Outcome::Done;
      })
      .Case<tile::GridOp>([&](auto) { return enterGrid(task, op); })
      .Case<scf::ForOp>([&](auto) { return enterFor(task, op); })
      .Case<scf::IfOp>([&](auto) { return enterIf(task, op); })
      .Case<tile::YieldOp, scf::YieldOp>(
          [&](auto) { return exitRegion(task, op); })
      .Case<tile::DimOp>([&](tile::DimOp d) {
        RtValue &ref = get(task, d.getRef());
        task.values[d.getResult()] = RtValue::ofInt(ref.ref->sizes[d.getDim()]);
        return Outcome::Next;
      })
      .Case<tile::ViewOp>([&](auto) { return execView(task, op); })
      .Case<tile::SplatOp>([&](auto) { return execSplat(task, op); })
      .Case<tile::IotaOp>([&](auto) { return execIota(task, op); })
      .Case<tile::BroadcastOp>([&](auto) { return execBroadcast(task, op); })
      .Case<tile::ReshapeOp>([&](auto) { return execReshape(task, op); })
      .Case<tile::TransposeOp>([&](auto) { return execTranspose(task, op); })
      .Case<tile::ShiftOp>([&](auto) { return execShift(task, op); })
      .Case<tile::ReduceOp>([&](auto) { return execReduce(task, op); })
      .Case<tile::DotOp>([&](auto) { return execDot(task, op); })
      .Case<tile::LoadOp>([&](auto) { return execLoad(task, op); })
      .Case<tile::GatherOp>([&](auto) { return execGather(task, op); })
      .Case<tile::ScatterOp>([&](auto) { return execScatter(task, op); })
      .Case<tile::AtomicOp>([&](auto) { return execAtomic(task, op); })
      .Case<tile::StoreOp, comm::MulticastStoreOp>(
          [&](auto) { return execStore(task, op); })
      .Case<comm::MulticastLoadReduceOp>(
          [&](auto) { return execMulticastLoadReduce(task, op); })
      .Case<comm::StackViewOp>([&](auto) { return execStackView(task, op); })
      .Case<comm::PeerOp>([&](auto) { return execPeer(task, op); })
      .Case<comm::SignalOp>([&](auto) { return execSignal(task, op); })
      .Case<comm::WaitOp>([&](auto) { return execWait(task, op); })
      .Case<comm::EpochOp>([&](auto) { return execEpoch(task, op); })
      .Case<tile::GridBarrierOp>(
          [&](auto) { return execGridBarrier(task, op); })
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
    return fail(task, op,
                "loop step " + std::to_string(step) + " is not positive");
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

Interpreter::Outcome Interpreter::enterIf(Task &task, Operation &op) {
  auto branch = cast<scf::IfOp>(op);
  Region &taken = get(task, branch.getCondition()).i ? branch.getThenRegion()
                                                     : branch.getElseRegion();
  if (taken.empty()) // no else
    return Outcome::Next;
  Frame frame;
  frame.kind = Frame::Kind::If;
  frame.op = &op;
  frame.block = &taken.front();
  frame.it = frame.block->begin();
  task.frames.push_back(frame);
  return Outcome::Jumped;
}

Interpreter::Outcome Interpreter::exitRegion(Task &task, Operation &term) {
  Frame &frame = task.frames.back();
  if (frame.kind == Frame::Kind::If) {
    Operation *branch = frame.op;
    std::vector<RtValue> yielded; // copies: inserting may move the map
    for (Value v : term.getOperands())
      yielded.push_back(get(task, v));
    for (auto [res, v] : llvm::zip(branch->getResults(), yielded))
      task.values[res] = v;
    task.frames.pop_back();
    retire(task, *branch);
    ++task.frames.back().it;
    return Outcome::Jumped;
  }
  if (frame.kind == Frame::Kind::Grid) {
    frame.iv += frame.step;
    if (frame.iv < frame.ub) {
      auto grid = cast<tile::GridOp>(frame.op);
      unsigned n = grid.getNumDims();
      int64_t linear = frame.iv;
      std::vector<int64_t> counts(n);
      for (unsigned d = 0; d < n; ++d)
        counts[d] =
            (getInt(task, grid.getExtents()[d]) + grid.getBlocks()[d] - 1) /
            grid.getBlocks()[d];
      for (int64_t d = n - 1; d >= 0; --d) {
        int64_t id = d == 0 ? linear : linear % counts[d];
        linear = d == 0 ? 0 : linear / counts[d];
        task.values[frame.block->getArgument(d)] = RtValue::ofInt(id);
      }
      frame.it = frame.block->begin();
      return Outcome::Jumped;
    }
    Operation *gridOp = frame.op;
    task.frames.pop_back();
    retire(task, *gridOp);
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
  retire(task, *loop);
  ++task.frames.back().it;
  return Outcome::Jumped;
}

bool Interpreter::chargeWork(Task &task, Operation &op) {
  // An op costs kOpWork (its dispatch, about as long as that many
  // elementwise operations) plus the elements of its tiles, LL packet ops
  // kLLElementWork each (packed, polled and race-checked word by word).
  uint64_t elements = 0;
  for (Type t : op.getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      elements += uint64_t(tensor.getNumElements());
  for (Value v : op.getOperands())
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
      elements += uint64_t(tensor.getNumElements());
  if (isa<comm::LLPutOp, comm::LLGetOp>(op))
    elements *= kLLElementWork;
  uint64_t cost = kOpWork + elements;
  // Multicast ops move their tile to or from every peer.
  if (isa<comm::MulticastStoreOp, comm::MulticastLoadReduceOp>(op))
    cost *= world.worldSize;
  world.work += cost;
  if (world.work <= uint64_t(kMaxSimulatedWork))
    return true;
  fail(task, op,
       "the simulation exceeded " + std::to_string(kMaxSimulatedWork) +
           " element operations (kMaxSimulatedWork, "
           "compiler/Simulator/SimulationOptions.h): a loop runs far longer "
           "than a kernel should, or the run is too large to simulate; "
           "pass smaller --size values, fewer --calls or --schedules, or "
           "fewer CTAs (--ctas, larger blocks)");
  return false;
}

void Interpreter::retire(Task &task, Operation &op) {
  auto it = world.deadAfter.find(&op);
  if (it == world.deadAfter.end())
    return;
  for (Value v : it->second)
    task.values.erase(v);
}

void World::computeLiveness() {
  deadAfter.clear();
  auto note = [&](Value v, Block &block) {
    // The op of `block` that holds the value's last use.
    Operation *last = nullptr;
    for (Operation *user : v.getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (inBlock && (!last || last->isBeforeInBlock(inBlock)))
        last = inBlock;
    }
    if (!last)
      last = v.getDefiningOp();
    // A terminator's operands are read when the region exits; the next
    // iteration overwrites them.
    if (last && !last->hasTrait<OpTrait::IsTerminator>())
      deadAfter[last].push_back(v);
  };
  for (func::FuncOp f : funcs)
    f.walk([&](Block *block) {
      for (BlockArgument arg : block->getArguments())
        note(arg, *block);
      for (Operation &op : *block)
        for (Value r : op.getResults())
          note(r, *block);
    });
}
