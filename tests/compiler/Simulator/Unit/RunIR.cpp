//===- RunIR.cpp - Run one function of Tile IR in the interpreter --------===//

#include "RunIR.h"

#include "compiler/Conversion/Passes.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace mlir;
using namespace dslc::sim;
using namespace dslc::sim::test;

RunIR::RunIR(const std::string &ir) {
  context.loadDialect<dslc::tile::TileDialect, dslc::comm::CommDialect,
                      arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                      func::FuncDialect>();
  module = parseSourceString<ModuleOp>(ir, &context);
  REQUIRE(module);
  auto funcs = module->getOps<func::FuncOp>();
  REQUIRE(!funcs.empty());
  func::FuncOp f = *funcs.begin();
  world.funcs.push_back(f);
  world.args.assign(1, {});
  world.epochs.assign(1, std::vector<uint32_t>(1, 0));
  for (Type t : f.getArgumentTypes())
    argTypes.push_back(t);
}

Buffer &RunIR::bind(std::vector<int64_t> sizes, std::vector<double> values) {
  size_t k = world.args[0].size();
  REQUIRE(k < argTypes.size());
  auto ref = dyn_cast<dslc::tile::RefType>(argTypes[k]);
  REQUIRE(ref);
  ElemType type = ElemType::fromType(ref.getElementType());
  Buffer &b = world.heap.allocate(0, "arg" + std::to_string(k), Role::InOut,
                                  type, sizes);
  for (size_t e = 0; e < values.size() && int64_t(e) < b.numel; ++e) {
    if (b.isFloat())
      b.f[e] = roundFloat(type.kind, values[e]);
    else
      b.i[e] = wrapInt(type, int64_t(values[e]));
  }
  if (values.empty() && b.isFloat())
    std::fill(b.f.begin(), b.f.end(), 0.0);
  auto v = std::make_shared<RefVal>();
  v->buffer = &b;
  v->sizes = sizes;
  world.args[0].push_back(RtValue::ofRef(v));
  return b;
}

void RunIR::bindInt(int64_t value) {
  world.args[0].push_back(RtValue::ofInt(value));
}

void RunIR::bindFloat(double value) {
  world.args[0].push_back(RtValue::ofFloat(value));
}

std::string RunIR::readFile(const std::string &path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool RunIR::canonicalize() {
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  return succeeded(pm.run(*module));
}

bool RunIR::foldBoundsByRange() {
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(dslc::createFoldBoundsByRange());
  pm.addPass(createCanonicalizerPass());
  return succeeded(pm.run(*module));
}

bool RunIR::splitJoinAtMemory() {
  PassManager pm(&context);
  pm.addPass(dslc::createSplitJoinAtMemory());
  return succeeded(pm.run(*module));
}

std::string RunIR::ir() {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

bool RunIR::run() {
  REQUIRE(world.args[0].size() == argTypes.size());
  world.computeLiveness();
  RaceLog log;
  RaceDetector races(1, 1, log);
  world.races = &races;
  races.beginLaunch(0, 0, {});
  Reporter reporter(out);
  Interpreter interp(world, reporter);
  Task task;
  while (true) {
    switch (interp.step(task)) {
    case StepResult::Yielded:
      continue;
    case StepResult::Done:
      return true;
    case StepResult::Blocked:
    case StepResult::Failed:
      return false;
    }
  }
}

std::vector<double> dslc::sim::test::runInToOut(const std::string &ir,
                                                bool (RunIR::*pass)(),
                                                std::vector<int64_t> inSizes,
                                                const std::vector<double> &x,
                                                std::vector<int64_t> outSizes,
                                                std::string *after) {
  RunIR r(ir);
  if (pass) {
    REQUIRE((r.*pass)());
    if (after)
      *after = r.ir();
  }
  int64_t n = 1;
  for (int64_t s : outSizes)
    n *= s;
  r.bind(std::move(inSizes), x);
  Buffer &out = r.bind(std::move(outSizes));
  INFO(r.report());
  REQUIRE(r.run());
  return std::vector<double>(out.f.begin(), out.f.begin() + n);
}
