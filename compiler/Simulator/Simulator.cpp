//===- Simulator.cpp - Run a kernel's Tile/Comm IR on the CPU ------------===//
//
// simulate(): compile per rank, bind, choose the reference, then run the
// schedules; a Checker fills inputs before each launch and checks each
// rank's outputs when it finishes.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Simulator.h"

#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Simulator/Binding.h"
#include "compiler/Simulator/Dump.h"
#include "compiler/Simulator/Inputs.h"
#include "compiler/Simulator/Reference.h"
#include "compiler/Simulator/Scheduler.h"

#include "mlir/IR/Verifier.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

using namespace dslc;
using namespace dslc::sim;

namespace {

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// "E" for a 1-d buffer, "[i, j, ...] (E)" otherwise.
std::string elementText(const Buffer &b, int64_t flat) {
  if (b.sizes.size() <= 1)
    return std::to_string(flat);
  std::vector<int64_t> idx(b.sizes.size());
  int64_t rest = flat;
  for (size_t d = b.sizes.size(); d-- > 0;) {
    idx[d] = rest % b.sizes[d];
    rest /= b.sizes[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "] (" + std::to_string(flat) + ")";
}

/// Allocates every rank's buffers and the kernel's argument values.
void allocate(World &world, const Binding &binding) {
  for (unsigned r = 0; r < world.worldSize; ++r)
    for (const ArgBinding &a : binding.args)
      if (a.kind == ArgBinding::Kind::Tensor) {
        Buffer &b = world.heap.allocate(r, a.name, a.role, a.type, a.sizes);
        if (!b.isFloat() && a.role != Role::Pad && a.role != Role::Scratch)
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
    for (const char *name : {"my_rank", "rank", "world_size"})
      o.defines.erase(name);
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
                  const CompileOptions &options) {
  out << "simulate: " << desc.kernel << ": " << world.worldSize << " ranks, "
      << world.numCtas << " CTA(s)/rank, " << binding.numTiles
      << " tile(s)/rank, " << options.calls << " launch(es), "
      << options.schedules << " schedule(s), seed " << options.seed << "\n";
  for (const ArgBinding &a : binding.args) {
    out << "  " << a.name << ": ";
    if (a.kind != ArgBinding::Kind::Tensor) {
      out << "scalar " << a.intValue << "\n";
      continue;
    }
    out << roleName(a.role) << " " << a.type.name() << "[";
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

/// Fills the inputs before every launch and checks every output after it,
/// over all schedules.
class Checker {
public:
  Checker(const Binding &binding, const ReferenceSpec &spec,
          const Inputs &inputs, unsigned worldSize, int64_t calls,
          Reporter &reporter, Dumper *dumper)
      : binding(binding), spec(spec), inputs(inputs), worldSize(worldSize),
        reporter(reporter), dumper(dumper), refs(calls) {
    // refs[call][rank]: a reduce-scatter's differs by rank.
    for (int64_t c = 0; c < calls; ++c)
      for (unsigned r = 0; r < worldSize; ++r)
        refs[c].push_back(computeReference(spec, inputs, c, r, worldSize));
  }

  void onLaunch(World &world, unsigned rank, int64_t call);
  void onFinish(World &world, unsigned rank, int64_t call, int64_t schedule);
  /// "all-reduce of 'x' (...): max relative error ..." or why not checked.
  std::string verdict(const CompileOptions &options) const;

  unsigned mismatches = 0;
  bool anyUnwritten = false, anyPoisoned = false;
  int64_t finishedLaunches = 0;
  double worstRel = 0, worstAbs = 0;

private:
  /// Reports the worst element of an output that differs from the
  /// reference.
  void reportWrong(const Buffer &b, const Check &c, const std::string &head,
                   int64_t call, unsigned rank);

  const Binding &binding;
  const ReferenceSpec &spec;
  const Inputs &inputs;
  unsigned worldSize;
  Reporter &reporter;
  Dumper *dumper;
  std::vector<std::vector<std::vector<double>>> refs;
};

void Checker::onLaunch(World &world, unsigned rank, int64_t call) {
  std::vector<Buffer *> refilled;
  for (const ArgBinding &a : binding.args)
    if (a.kind == ArgBinding::Kind::Tensor && a.role == Role::Input)
      refilled.push_back(world.heap.lookup(rank, a.name));
  world.races->beginLaunch(rank, int32_t(call), refilled);
  for (unsigned k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor ||
        (a.role != Role::Input && a.role != Role::Output))
      continue;
    Buffer *b = world.heap.lookup(rank, a.name);
    if (a.role == Role::Input) {
      const InputData &d = inputs.get(call, rank, k);
      if (b->isFloat())
        b->f = d.f;
      else
        b->i = d.i;
      b->generation = call;
      continue;
    }
    // Poison what this launch has not written yet: peers may already have
    // stored their part of an all-gather's result into it.
    int64_t poison = wrapInt(b->type, kPoisonInt);
    for (int64_t e = 0; e < b->numel; ++e) {
      if (b->writtenIn[e] == call)
        continue;
      if (b->isFloat())
        b->f[e] = std::nan("");
      else
        b->i[e] = poison;
      b->writtenIn[e] = -1;
    }
  }
}

void Checker::onFinish(World &world, unsigned rank, int64_t call,
                       int64_t schedule) {
  ++finishedLaunches;
  std::vector<Buffer *> results;
  for (const ArgBinding &a : binding.args)
    if (a.kind == ArgBinding::Kind::Tensor && a.role == Role::Output)
      results.push_back(world.heap.lookup(rank, a.name));
  world.races->endLaunch(rank, int32_t(call), results);
  int outputArg = spec.output;
  for (const ArgBinding &a : binding.args) {
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Output)
      continue;
    Buffer *b = world.heap.lookup(rank, a.name);
    bool checked = outputArg >= 0 && binding.args[outputArg].name == a.name;
    Check c =
        checkOutput(*b, checked ? refs[call][rank] : std::vector<double>(),
                    call, spec.bitwise);
    std::string error;
    if (dumper && schedule == 0 && !dumper->writeOutput(*b, call, error))
      reporter.error("dump", error);
    worstRel = std::max(worstRel, c.relError);
    worstAbs = std::max(worstAbs, c.maxAbsError);
    if (c.ok)
      continue;
    ++mismatches;
    anyUnwritten |= c.unwritten || c.overwritten;
    anyPoisoned |= c.poisoned > 0;
    std::string head = "schedule " + std::to_string(schedule) + ", launch " +
                       std::to_string(call) + ", rank " + std::to_string(rank) +
                       ": '" + a.name + "' ";
    if (c.unwritten)
      reporter.error(
          "unwritten@" + head,
          head + "has " + std::to_string(c.unwritten) + " of " +
              std::to_string(b->numel) + " element(s) " +
              (a.remoteWritten ? "no rank had stored for this launch "
                                 "when it finished"
                               : "the kernel never wrote") +
              " (first: element " + elementText(*b, c.firstUnwritten) + ")");
    if (c.overwritten)
      reporter.error(
          "overwritten@" + head,
          head + "has " + std::to_string(c.overwritten) + " of " +
              std::to_string(b->numel) +
              " element(s) already overwritten by launch " +
              std::to_string(c.overwrittenBy) + " (first: element " +
              elementText(*b, c.firstOverwritten) +
              "): a peer started its next launch and stored into this "
              "rank's buffer before this launch finished");
    if (c.poisoned)
      reporter.error(
          "poisoned@" + head,
          head + "has " + std::to_string(c.poisoned) + " of " +
              std::to_string(b->numel) + " element(s) that are " +
              (b->isFloat() ? "NaN" : "the poison pattern 0xdead...") +
              " (first: element " + elementText(*b, c.firstPoisoned) +
              "): the kernel wrote them from memory nothing had written (a "
              "poisoned workspace or output, or a peer's buffer read before "
              "the peer wrote it)");
    bool valuesWrong = spec.bitwise || !b->isFloat()
                           ? c.mismatched > 0
                           : c.relError > tolerance(b->type);
    if (checked && valuesWrong)
      reportWrong(*b, c, head, call, rank);
  }
}

void Checker::reportWrong(const Buffer &b, const Check &c,
                          const std::string &head, int64_t call,
                          unsigned rank) {
  int64_t k = c.worstIndex;
  double got = b.isFloat() ? b.f[k] : double(b.i[k]);
  std::string rowNote;
  if (spec.kind == "all-gather") {
    // Row p (S elements, S the shard's size) is rank p's shard.
    int64_t shard =
        std::max<int64_t>(spec.outputElements / int64_t(worldSize), 1);
    rowNote = " (row " + std::to_string(k / shard) + ": rank " +
              std::to_string(k / shard) + "'s '" +
              binding.args[spec.input].name + "')";
  }
  reporter.error(
      "mismatch@" + head,
      head + "differs from the " + spec.kind +
          " reference: " + std::to_string(c.mismatched) + " of " +
          std::to_string(b.numel) + " element(s) differ, relative error " +
          fmt("%.3g", c.relError) + " (" + toleranceText(b.type, spec.bitwise) +
          "), worst element " + elementText(b, k) + rowNote + ": got " +
          fmt("%.6g", got) + ", expected " + fmt("%.6g", refs[call][rank][k]));
}

std::string Checker::verdict(const CompileOptions &options) const {
  if (finishedLaunches == 0)
    return "no launch finished";
  if (spec.kind == "none") {
    bool anyOutput = false;
    for (const ArgBinding &a : binding.args)
      anyOutput |= a.kind == ArgBinding::Kind::Tensor && a.role == Role::Output;
    std::string verdict = options.reference == "none"
                              ? "not checked (--reference none"
                              : "not checked (no reference fits this kernel";
    if (anyOutput)
      verdict += "; every output element written: " +
                 std::string(anyUnwritten ? "no" : "yes") +
                 (anyPoisoned ? "; NaN or poisoned elements: yes" : "");
    return verdict + ")";
  }
  const ArgBinding &o = binding.args[spec.output];
  // "into 'O'" unless O is the kernel's returned torch.empty_like.
  return spec.kind + " of '" + binding.args[spec.input].name + "'" +
         (o.like.empty() ? " into '" + o.name + "'" : "") + " (" +
         o.type.name() + ", " + toleranceText(o.type, spec.bitwise) +
         "): max relative error " + fmt("%.3g", worstRel) + ", max abs error " +
         fmt("%.3g", worstAbs);
}

} // namespace

int dslc::simulate(mlir::MLIRContext &ctx, const ast::Module &module,
                   const ast::FunctionDef &kernel,
                   const CompileOptions &options, DiagnosticEngine &diags) {
  auto start = std::chrono::steady_clock::now();
  unsigned worldSize = static_cast<unsigned>(options.worldSize.value_or(1));
  std::ostream &out = std::cout;

  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::vector<KernelDescription> descs(worldSize);
  World world;
  world.worldSize = worldSize;
  if (!generateRanks(ctx, module, kernel, options, diags, modules, descs,
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
  ReferenceSpec spec;
  if (!chooseReference(options.reference, desc, binding, worldSize, spec,
                       error)) {
    diags.error(kernel.getNameRange(), "cannot simulate: " + error);
    return 1;
  }
  world.numCtas = options.ctas.value_or(std::max<int64_t>(binding.numTiles, 1));
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
  uint64_t totalSteps = 0;
  bool anyDeadlock = false, anyFailure = false;
  RaceLog raceLog;
  for (int64_t s = 0; s < options.schedules; ++s) {
    World w;
    w.worldSize = worldSize;
    w.numCtas = world.numCtas;
    w.funcs = world.funcs;
    w.deadAfter = world.deadAfter;
    allocate(w, binding);
    RaceDetector races(worldSize, uint32_t(w.numCtas), raceLog);
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
    raceLog.flush(reporter);
    totalSteps += res.steps;
    anyDeadlock |= res.deadlock;
    anyFailure |= res.failed;
    out << "schedule " << s << " (" << policyName(policy)
        << (w.relaxedStores ? ", relaxed stores" : "") << ", seed " << seed
        << "): " << res.steps << " steps, "
        << (res.deadlock ? "deadlock"
            : res.failed ? "stopped by an error"
                         : "finished")
        << "\n";
    out.flush();
    if (res.failed || res.deadlock)
      break; // the next schedules would report the same
  }

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  bool ok = reporter.getNumErrors() == 0 && checker.mismatches == 0 &&
            !anyDeadlock && !anyFailure;
  out << "result: " << checker.verdict(options) << ": "
      << (ok ? "PASS" : "FAIL") << "\n";
  out << "steps: " << totalSteps << ", errors: " << reporter.getNumErrors()
      << ", warnings: " << reporter.getNumWarnings() << "\n";
  out << "time: " << fmt("%.3f", seconds) << " s\n";
  out.flush();
  return ok ? 0 : 1;
}
