//===- UserReference.cpp - A reference kernel written in the DSL ---------===//

#include "compiler/Simulator/UserReference.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Simulator/Reporter.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/Verifier.h"

#include <iostream>
#include <sstream>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

bool dslc::sim::isUserReference(const std::string &reference) {
  return reference.find(':') != std::string::npos;
}

namespace {

std::string shapeText(const std::vector<int64_t> &sizes) {
  std::string s = "[";
  for (size_t k = 0; k < sizes.size(); ++k)
    s += (k ? "x" : "") + std::to_string(sizes[k]);
  return s + "]";
}

/// The checked kernel's argument named `name`, or -1.
int argNamed(const Binding &binding, const std::string &name) {
  for (size_t k = 0; k < binding.args.size(); ++k)
    if (binding.args[k].name == name)
      return int(k);
  return -1;
}

/// The checked kernel's one tensor output, which a reference's one output
/// stands for whatever either calls it; -1 unless there is exactly one.
int loneOutput(const Binding &binding) {
  int found = -1;
  for (size_t j = 0; j < binding.args.size(); ++j)
    if (binding.args[j].kind == ArgBinding::Kind::Tensor &&
        binding.args[j].role == Role::Output) {
      if (found >= 0)
        return -1;
      found = int(j);
    }
  return found;
}

std::string namesWithRole(const Binding &binding, Role role) {
  std::string s;
  for (const ArgBinding &a : binding.args)
    if (a.kind == ArgBinding::Kind::Tensor && a.role == role)
      s += (s.empty() ? "'" : ", '") + a.name + "'";
  return s.empty() ? "none" : s;
}

} // namespace

std::unique_ptr<UserReference>
UserReference::load(MLIRContext &ctx, const std::string &spec,
                    const CompileOptions &options, const Binding &binding,
                    unsigned worldSize, std::string &error) {
  size_t colon = spec.rfind(':');
  std::string file = spec.substr(0, colon), name = spec.substr(colon + 1);
  if (file.empty() || name.empty()) {
    error = "--reference " + spec +
            ": a user reference is FILE.py:NAME, NAME a kernel of FILE.py";
    return nullptr;
  }
  auto ref = std::unique_ptr<UserReference>(new UserReference());
  ref->spec = spec;
  ref->worldSize = worldSize;
  std::string readError;
  uint32_t fileId = ref->sources.addFile(file, readError);
  if (!fileId) {
    error =
        "--reference " + spec + ": cannot read '" + file + "': " + readError;
    return nullptr;
  }
  DiagnosticEngine diags(ref->sources, &std::cerr);
  std::unique_ptr<ast::Module> ast = parseFile(ref->sources, fileId, diags,
                                               /*allowHostCode=*/true);
  if (!ast || diags.hasErrors()) {
    error = "the reference '" + spec + "' has errors (above)";
    return nullptr;
  }
  const ast::FunctionDef *fn = ast->lookupFunction(name);
  if (!fn || !fn->isKernel()) {
    std::string kernels;
    for (const ast::FunctionDef *k : ast->getKernels())
      kernels += (kernels.empty() ? "" : ", ") + k->getName();
    error = "--reference " + spec + ": '" + file + "' has no kernel '" + name +
            "' (" +
            (kernels.empty() ? "it defines none" : "its kernels: " + kernels) +
            "; a kernel is a def decorated with @helion.kernel)";
    return nullptr;
  }
  // One program over all ranks' data: world_size is the world size, no
  // rank; stacked tensors take the checked kernel's dtypes, one dimension
  // more.
  CompileOptions o = options;
  o.rank.reset();
  o.worldSize = worldSize;
  for (std::string_view n : kRankNames)
    o.defines.erase(std::string(n));
  for (std::string_view n : kWorldSizeNames)
    o.defines.erase(std::string(n));
  o.signature.clear();
  // The checked kernel's --size/--shape entries are a rank's; a stacked
  // tensor's shape is [world_size, sizes of a rank's tensor...].
  o.shapes.clear();
  // Tensors passed with --dim-order are stacked as stored: the reference
  // reads their stored layout ([world_size, stored sizes...]).
  o.dimOrders.clear();
  // A reference names the kernel's one output as it likes (the kernel's
  // output takes its variable's name, `out_flat`, the reference's
  // parameter may say `out`): one parameter no kernel argument names, and
  // one output, are the pair bindParams binds too.
  int unnamed = 0;
  for (const ast::Param &p : fn->getParams())
    unnamed += argNamed(binding, p.name) < 0;
  for (const ast::Param &p : fn->getParams()) {
    int k = argNamed(binding, p.name);
    if (k < 0 && unnamed == 1)
      k = loneOutput(binding);
    if (k < 0 || binding.args[k].kind != ArgBinding::Kind::Tensor ||
        (binding.args[k].role != Role::Input &&
         binding.args[k].role != Role::Output))
      continue;
    const ArgBinding &a = binding.args[k];
    o.signature[p.name] =
        ParamSignature{a.type.name(), unsigned(a.sizes.size() + 1)};
    TensorShape stacked{{int64_t(worldSize)}, /*fromSimulation=*/true};
    stacked.sizes.insert(stacked.sizes.end(), a.sizes.begin(), a.sizes.end());
    o.shapes[p.name] = std::move(stacked);
  }
  KernelDescription desc;
  ref->module = generateKernel(ctx, *ast, *fn, o, diags, desc);
  if (!ref->module || diags.hasErrors()) {
    error = "the reference '" + spec + "' has errors (above)";
    return nullptr;
  }
  if (failed(verify(*ref->module))) {
    error = "internal error: dslc generated invalid IR for the reference '" +
            spec + "'";
    return nullptr;
  }
  if (failed(runTilePipeline(*ref->module))) {
    error = "the reference '" + spec + "' has errors (above)";
    return nullptr;
  }
  ref->func = ref->module->lookupSymbol<func::FuncOp>(name);
  if (!ref->func || !ref->checkPlain(error) || !ref->bindParams(binding, error))
    return nullptr;
  return ref;
}

bool UserReference::checkPlain(std::string &error) {
  Operation *comm = nullptr;
  func.walk([&](Operation *op) {
    if (!comm && isa<comm::CommDialect>(op->getDialect()))
      comm = op;
  });
  if (!comm)
    return true;
  error = "the reference '" + spec + "' communicates (" +
          comm->getName().getStringRef().str() + " at " + where(comm) +
          "): a reference is a plain tile kernel over every rank's data "
          "stacked on a leading dimension";
  return false;
}

bool UserReference::bindParams(const Binding &binding, std::string &error) {
  auto names = func->getAttrOfType<ArrayAttr>("tile.arg_names");
  Block &entry = func.getBody().front();
  if (!names || names.size() != entry.getNumArguments()) {
    error = "the reference '" + spec + "' has no names for its arguments";
    return false;
  }
  // What the reference stores into: its outputs.
  llvm::DenseSet<Value> written;
  func.walk([&](tile::StoreOp store) {
    written.insert(tile::viewedTensor(store.getRef()));
  });
  int refOutputs = 0;
  for (BlockArgument arg : entry.getArguments())
    refOutputs += written.count(arg);
  std::string head = "the reference '" + spec + "': ";
  for (auto [k, arg] : llvm::enumerate(entry.getArguments())) {
    Param p;
    p.name = cast<StringAttr>(names[k]).getValue().str();
    int kk = argNamed(binding, p.name);
    auto refType = dyn_cast<tile::RefType>(arg.getType());
    if (!refType) {
      if (kk < 0 || binding.args[kk].kind == ArgBinding::Kind::Tensor) {
        error = head + "its scalar '" + p.name +
                "' is not a scalar parameter of the checked kernel";
        return false;
      }
      const ArgBinding &a = binding.args[kk];
      p.kind =
          isa<FloatType>(arg.getType()) ? Param::Kind::Float : Param::Kind::Int;
      p.intValue = a.intValue;
      p.floatValue = a.kind == ArgBinding::Kind::FloatScalar
                         ? a.floatValue
                         : double(a.intValue);
      params.push_back(p);
      continue;
    }
    bool isOutput = written.count(arg);
    if (kk < 0 && isOutput && refOutputs == 1)
      kk = loneOutput(binding);
    Role want = isOutput ? Role::Output : Role::Input;
    if (kk < 0 || binding.args[kk].kind != ArgBinding::Kind::Tensor ||
        binding.args[kk].role != want) {
      error = head + "its " + (isOutput ? "output" : "input") + " '" + p.name +
              "' is not " + (isOutput ? "an output" : "an input") +
              " of the checked kernel (its inputs: " +
              namesWithRole(binding, Role::Input) +
              "; outputs: " + namesWithRole(binding, Role::Output) + ")";
      return false;
    }
    const ArgBinding &a = binding.args[kk];
    p.kind = isOutput ? Param::Kind::Output : Param::Kind::Input;
    p.kernelArg = kk;
    p.type = ElemType::fromType(refType.getElementType());
    p.sizes = a.sizes;
    p.sizes.insert(p.sizes.begin(), int64_t(worldSize));
    if (unsigned(refType.getRank()) != p.sizes.size() ||
        p.type.kind != a.type.kind || p.type.bits != a.type.bits) {
      error = head + "'" + p.name + "' is " + p.type.name() + " of " +
              std::to_string(refType.getRank()) + " dimension(s); it holds " +
              "every rank's '" + a.name + "' stacked: " + a.type.name() + " " +
              shapeText(p.sizes);
      return false;
    }
    if (isOutput)
      checked.push_back(kk);
    params.push_back(p);
  }
  if (checked.empty()) {
    error = head + "it writes no output of the checked kernel (outputs: " +
            namesWithRole(binding, Role::Output) + ")";
    return false;
  }
  return true;
}

bool UserReference::run(const Inputs &inputs, int64_t call, Checker &checker,
                        std::string &error) {
  World world;
  world.worldSize = 1;
  world.numCtas = 1;
  world.funcs = {func};
  world.args.assign(1, {});
  world.epochs.assign(1, std::vector<uint32_t>(1, 0));
  world.computeLiveness();
  RaceLog log;
  RaceDetector races(1, 1, log);
  world.races = &races;
  std::vector<Buffer *> buffers;
  for (const Param &p : params) {
    if (p.kind == Param::Kind::Int || p.kind == Param::Kind::Float) {
      world.args[0].push_back(p.kind == Param::Kind::Int
                                  ? RtValue::ofInt(p.intValue)
                                  : RtValue::ofFloat(p.floatValue));
      buffers.push_back(nullptr);
      continue;
    }
    bool in = p.kind == Param::Kind::Input;
    Buffer &b = world.heap.allocate(0, p.name, in ? Role::Input : Role::Output,
                                    p.type, p.sizes);
    b.generation = 0;
    int64_t row = b.numel / int64_t(worldSize);
    for (unsigned r = 0; in && r < worldSize; ++r) {
      const InputData &d = inputs.get(call, r, unsigned(p.kernelArg));
      for (int64_t e = 0; e < row; ++e) {
        if (b.isFloat())
          b.f[r * row + e] = d.f[e];
        else
          b.i[r * row + e] = d.i[e];
      }
    }
    auto ref = std::make_shared<RefVal>();
    ref->buffer = &b;
    ref->sizes = p.sizes;
    world.args[0].push_back(RtValue::ofRef(ref));
    buffers.push_back(&b);
  }
  std::ostringstream out;
  Reporter reporter(out);
  Interpreter interp(world, reporter);
  Task task;
  races.beginLaunch(0, 0, {});
  StepResult step;
  while ((step = interp.step(task)) == StepResult::Yielded)
    ;
  if (step != StepResult::Done || reporter.getNumErrors()) {
    std::string what = out.str();
    error = "the reference '" + spec + "' failed in launch " +
            std::to_string(call) + ":\n" + what;
    return false;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    const Param &p = params[k];
    if (p.kind != Param::Kind::Output)
      continue;
    const Buffer &b = *buffers[k];
    int64_t row = b.numel / int64_t(worldSize);
    for (int64_t e = 0; e < b.numel; ++e)
      if (b.writtenIn[e] != 0) {
        error = "the reference '" + spec + "' left element " +
                std::to_string(e) + " of '" + p.name + "' unwritten";
        return false;
      }
    for (unsigned r = 0; r < worldSize; ++r) {
      auto want = std::make_shared<Expected>();
      for (int64_t e = 0; e < row; ++e)
        want->values.push_back(b.isFloat() ? b.f[r * row + e]
                                           : double(b.i[r * row + e]));
      checker.expect(call, r, p.kernelArg, std::move(want));
    }
  }
  return true;
}
