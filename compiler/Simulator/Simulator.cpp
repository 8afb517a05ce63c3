//===- Simulator.cpp - Run a kernel's Tile/Comm IR on the CPU ------------===//
//
// simulate(): compile per rank, bind, choose the reference, then run the
// schedules; a Checker fills inputs before each launch and checks each
// rank's outputs when it finishes.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Simulator.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Simulator/Binding.h"
#include "compiler/Simulator/Checker.h"
#include "compiler/Simulator/Dump.h"
#include "compiler/Simulator/Inputs.h"
#include "compiler/Simulator/Reference.h"
#include "compiler/Simulator/Scheduler.h"
#include "compiler/Simulator/UserReference.h"

#include "mlir/IR/Verifier.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <iostream>

using namespace dslc;
using namespace dslc::sim;

namespace {

/// a * b, or INT64_MAX when it overflows (sizes come from the user).
int64_t satMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

int64_t satAdd(int64_t a, int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/// The host bytes a run plans for (kMaxSimulatedHostBytes): buffers of
/// every rank, every launch's inputs, the expected outputs.
int64_t plannedHostBytes(const Binding &binding, unsigned worldSize,
                         int64_t calls, const ReferenceSpec &spec) {
  int64_t bytes = 0;
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor)
      continue;
    int64_t n = 1;
    for (int64_t s : a.sizes)
      n = satMul(n, s < 0 ? INT64_MAX : s);
    int64_t all = satMul(n, worldSize);
    bytes = satAdd(bytes, satMul(all, a.role == Role::Output ? 16 : 8));
    if (a.role == Role::Input)
      bytes = satAdd(bytes, satMul(satMul(all, calls), 8));
    bool checked =
        llvm::is_contained(spec.outputs, int(k)) || spec.output == int(k);
    if (checked) // per rank for a reduce-scatter or a user reference
      bytes = satAdd(bytes, satMul(satMul(spec.kind == "reduce-scatter" ||
                                                  spec.kind == "user"
                                              ? all
                                              : n,
                                          calls),
                                   16));
  }
  return bytes;
}

/// Allocates every rank's buffers and the kernel's argument values.
void allocate(World &world, const Binding &binding) {
  for (unsigned r = 0; r < world.worldSize; ++r)
    for (const ArgBinding &a : binding.args)
      if (a.kind == ArgBinding::Kind::Tensor) {
        Buffer &b = world.heap.allocate(r, a.name, a.role, a.type, a.sizes);
        if (!b.isFloat() && a.role != Role::SignalPad &&
            a.role != Role::Scratch)
          std::fill(b.i.begin(), b.i.end(), wrapInt(b.type, kPoisonInt));
      }
  world.epochs.assign(world.worldSize,
                      std::vector<uint32_t>(size_t(world.numCtas), 0));
  world.args.assign(world.worldSize, {});
  for (unsigned r = 0; r < world.worldSize; ++r)
    for (const ArgBinding &a : binding.args) {
      if (a.kind == ArgBinding::Kind::IntScalar) {
        world.args[r].push_back(RtValue::ofInt(a.intValue));
        continue;
      }
      if (a.kind == ArgBinding::Kind::FloatScalar) {
        world.args[r].push_back(RtValue::ofFloat(a.floatValue));
        continue;
      }
      Buffer *b = world.heap.lookup(r, a.name);
      if (a.role == Role::PeerTable)
        for (unsigned p = 0; p < world.worldSize && p < b->numel; ++p)
          b->i[p] =
              int64_t(world.heap.addressOf(*world.heap.lookup(p, a.tableOf)));
      auto ref = std::make_shared<RefVal>();
      ref->buffer = b;
      ref->sizes = a.sizes;
      world.args[r].push_back(RtValue::ofRef(ref));
    }
}

/// Compiles the kernel once per rank (my_rank/rank and world_size compiled
/// in); rank 0's diagnostics go to `diags`, the other ranks' errors too,
/// prefixed. False on an error (reported).
bool generateRanks(mlir::MLIRContext &ctx, const ast::Module &module,
                   const ast::FunctionDef &kernel,
                   const CompileOptions &options, DiagnosticEngine &diags,
                   std::vector<mlir::OwningOpRef<mlir::ModuleOp>> &modules,
                   std::vector<KernelDescription> &descs, World &world) {
  for (unsigned r = 0; r < world.worldSize; ++r) {
    CompileOptions o = options;
    o.rank = r;
    for (std::string_view name : kRankNames)
      o.defines.erase(std::string(name));
    for (std::string_view name : kWorldSizeNames)
      o.defines.erase(std::string(name));
    DiagnosticEngine quiet(diags.getSourceManager(), nullptr);
    DiagnosticEngine &d = r == 0 ? diags : quiet;
    auto mod = generateKernel(ctx, module, kernel, o, d, descs[r]);
    if (r != 0)
      for (const Diagnostic &diag : quiet.getDiagnostics())
        if (diag.severity == Severity::Error)
          diags.report(diag.range, diag.severity,
                       "(rank " + std::to_string(r) + ") " + diag.message);
    if (!mod || d.hasErrors() || diags.hasErrors())
      return false;
    if (mlir::failed(mlir::verify(*mod))) {
      diags.error(kernel.getNameRange(),
                  "internal error: dslc generated invalid IR for this kernel");
      return false;
    }
    if (mlir::failed(runTilePipeline(*mod)))
      return false;
    auto func = mod->lookupSymbol<mlir::func::FuncOp>(kernel.getName());
    if (!func) {
      diags.error(kernel.getNameRange(), "internal error: no kernel function");
      return false;
    }
    world.funcs.push_back(func);
    modules.push_back(std::move(mod));
  }
  return true;
}

/// The run's first lines: what is simulated and how each argument is bound.
void printBinding(std::ostream &out, const KernelDescription &desc,
                  const Binding &binding, const World &world,
                  const SimulationOptions &options) {
  out << "simulate: " << desc.kernel << ": " << world.worldSize << " ranks, "
      << world.numCtas << " CTA(s)/rank, " << binding.numTiles
      << " tile(s)/rank, " << options.calls << " launch(es), "
      << options.schedules << " schedule(s), seed " << options.seed << "\n";
  for (const ArgBinding &a : binding.args) {
    out << "  " << a.name << ": ";
    if (a.kind == ArgBinding::Kind::IntScalar) {
      out << "scalar " << a.intValue << "\n";
      continue;
    }
    if (a.kind == ArgBinding::Kind::FloatScalar) {
      out << "scalar " << a.floatValue << "\n";
      continue;
    }
    out << contract::dumpRoleName(a.role) << " " << a.type.name() << "[";
    for (size_t k = 0; k < a.sizes.size(); ++k)
      out << (k ? "x" : "") << a.sizes[k];
    out << "]" << (a.tableOf.empty() ? "" : " of " + a.tableOf)
        << (a.remoteWritten && a.role == Role::Output
                ? ", stored into by every rank"
                : "")
        << "\n";
  }
  out.flush();
}

struct Totals {
  uint64_t steps = 0;
  uint64_t work = 0; ///< Counted against kMaxSimulatedWork.

  bool deadlock = false, failed = false;
};

/// Runs the schedules (seeds seed, seed + 1, ...), each on fresh buffers,
/// printing a line per schedule; stops after a deadlock or a fatal error
/// (the next schedules would report the same).
Totals runSchedules(std::ostream &out, const World &world,
                    const Binding &binding, const SimulationOptions &options,
                    Checker &checker, Reporter &reporter) {
  Totals totals;
  RaceLog raceLog;
  uint64_t work = 0; // kMaxSimulatedWork covers all schedules
  for (int64_t s = 0; s < options.schedules; ++s) {
    World w;
    w.worldSize = world.worldSize;
    w.numCtas = world.numCtas;
    w.funcs = world.funcs;
    w.deadAfter = world.deadAfter;
    allocate(w, binding);
    w.work = work;
    w.stepWork = world.stepWork;
    RaceDetector races(w.worldSize, uint32_t(w.numCtas), raceLog);
    w.races = &races;
    // Odd schedules delay stores until a release publishes them.
    w.relaxedStores = s % 2 == 1;
    Policy policy = static_cast<Policy>(s % 3);
    uint64_t seed = options.seed + uint64_t(s);
    Scheduler scheduler(
        w, reporter, options.calls, seed, policy,
        [&](World &wd, unsigned r, int64_t call) {
          checker.onLaunch(wd, r, call);
        },
        [&](World &wd, unsigned r, int64_t call) {
          checker.onFinish(wd, r, call, s);
        });
    ScheduleResult res = scheduler.run();
    work = w.work;
    totals.work = work;
    raceLog.flush(reporter);
    totals.steps += res.steps;
    totals.deadlock |= res.deadlock;
    totals.failed |= res.failed;
    out << "schedule " << s << " (" << policyName(policy)
        << (w.relaxedStores ? ", relaxed stores" : "") << ", seed " << seed
        << "): " << res.steps << " steps, "
        << (res.deadlock ? "deadlock"
            : res.failed ? "stopped by an error"
                         : "finished")
        << "\n";
    out.flush();
    if (res.failed || res.deadlock)
      break;
  }
  return totals;
}

} // namespace

int dslc::simulate(mlir::MLIRContext &ctx, const ast::Module &module,
                   const ast::FunctionDef &kernel,
                   const CompileOptions &compile,
                   const SimulationOptions &options, DiagnosticEngine &diags) {
  auto start = std::chrono::steady_clock::now();
  unsigned worldSize = static_cast<unsigned>(compile.worldSize.value_or(1));
  std::ostream &out = std::cout;

  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::vector<KernelDescription> descs(worldSize);
  World world;
  world.worldSize = worldSize;
  if (!generateRanks(ctx, module, kernel, compile, diags, modules, descs,
                     world))
    return 1;
  const KernelDescription &desc = descs[0];
  world.computeLiveness();

  Binding binding;
  std::string error;
  if (!bindParameters(world.funcs[0], desc, options, worldSize, binding,
                      error)) {
    diags.error(kernel.getNameRange(), "cannot simulate: " + error);
    return 1;
  }
  for (const std::string &g : binding.guessedOutputs)
    diags.warning(kernel.getNameRange(),
                  "the simulator chose the sizes of output '" +
                      g.substr(0, g.find('=')) + "' (" +
                      g.substr(g.find('=') + 1) +
                      "): a caller passes it and nothing here gives its "
                      "sizes, so only that much of it is checked; pass "
                      "--size " +
                      g.substr(0, g.find('=')) + "=AxB");
  ReferenceSpec spec;
  std::unique_ptr<UserReference> userRef;
  if (isUserReference(options.reference)) {
    userRef = UserReference::load(ctx, options.reference, compile, binding,
                                  worldSize, error);
    if (!userRef) {
      diags.error(kernel.getNameRange(), "cannot simulate: " + error);
      return 1;
    }
    spec.kind = "user";
    spec.userName = userRef->name();
    spec.outputs = userRef->outputs();
    spec.output = spec.outputs.front();
  } else if (!chooseReference(options.reference, desc, binding, worldSize, spec,
                              error)) {
    diags.error(kernel.getNameRange(), "cannot simulate: " + error);
    return 1;
  }
  int64_t planned = plannedHostBytes(binding, worldSize, options.calls, spec);
  if (planned > kMaxSimulatedHostBytes) {
    diags.error(kernel.getNameRange(),
                "cannot simulate: the run needs about " +
                    fmt::format("{:.1f}", double(planned) / double(1 << 30)) +
                    " GiB on the host (every rank's buffers, every launch's "
                    "inputs and expected outputs), more than the simulator's " +
                    fmt::format("{:.1f}", double(kMaxSimulatedHostBytes) /
                                              double(1 << 30)) +
                    " GiB (kMaxSimulatedHostBytes, "
                    "compiler/Simulator/SimulationOptions.h): pass a smaller "
                    "--size N (or fewer --calls)");
    return 1;
  }
  world.numCtas = options.ctas.value_or(std::max<int64_t>(binding.numTiles, 1));
  // The CTAs that hold tiles make the steps slow (their state out of cache).
  world.stepWork = uint64_t(
      stepWork(int64_t(worldSize) * std::min(world.numCtas, binding.numTiles)));
  if (desc.maxCtas && world.numCtas > *desc.maxCtas) {
    diags.error(
        kernel.getNameRange(),
        "cannot simulate: " + std::to_string(world.numCtas) +
            " CTAs per rank, but this kernel keeps a launch counter "
            "(hl.epoch) for at most " +
            std::to_string(*desc.maxCtas) +
            " CTAs; pass --ctas N with N <= " + std::to_string(*desc.maxCtas));
    return 1;
  }
  Inputs inputs(binding, worldSize, options.calls, options.seed);
  std::optional<Dumper> dumper;
  if (!options.dumpDir.empty()) {
    dumper.emplace(options.dumpDir);
    if (!dumper->writeManifest(desc.kernel, binding, worldSize, options.calls,
                               options.seed, spec.kind, error) ||
        !dumper->writeInputs(binding, inputs, worldSize, options.calls,
                             error)) {
      diags.error(SourceRange(), error);
      return 1;
    }
  }
  printBinding(out, desc, binding, world, options);

  Reporter reporter(out);
  Checker checker(binding, spec, inputs, worldSize, options.calls, reporter,
                  dumper ? &*dumper : nullptr);
  // A user reference runs once per launch, on every rank's inputs.
  for (int64_t c = 0; userRef && c < options.calls; ++c)
    if (!userRef->run(inputs, c, checker, error)) {
      diags.error(kernel.getNameRange(), "cannot simulate: " + error);
      return 1;
    }
  Totals totals = runSchedules(out, world, binding, options, checker, reporter);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  bool ok = reporter.getNumErrors() == 0 && checker.mismatches == 0 &&
            !totals.deadlock && !totals.failed;
  out << "result: " << checker.verdict(options.reference) << ": "
      << (ok ? "PASS" : "FAIL") << "\n";
  out << "steps: " << totals.steps << ", errors: " << reporter.getNumErrors()
      << ", warnings: " << reporter.getNumWarnings() << "\n";
  out << "time: " << fmt::format("{:.3f}", seconds) << " s (work "
      << fmt::format("{:.2g}", double(totals.work)) << " of "
      << fmt::format("{:.2g}", double(kMaxSimulatedWork))
      << " element operations)\n";
  out.flush();
  return ok ? 0 : 1;
}
