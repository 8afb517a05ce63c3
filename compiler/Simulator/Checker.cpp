//===- Checker.cpp - Inputs before, outputs after every launch -----------===//

#include "compiler/Simulator/Checker.h"

#include "compiler/Simulator/SimulationOptions.h"
#include "contract/Tolerance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

using namespace dslc;
using namespace dslc::sim;

/// "E" for a 1-d buffer, "[i, j, ...] (E)" otherwise.
std::string dslc::sim::elementText(const Buffer &b, int64_t flat) {
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

Checker::Checker(const Binding &binding, const ReferenceSpec &spec,
                 const Inputs &inputs, unsigned worldSize, int64_t calls,
                 Reporter &reporter, Dumper *dumper)
    : binding(binding), spec(spec), inputs(inputs), worldSize(worldSize),
      reporter(reporter), dumper(dumper),
      expected(calls,
               std::vector<std::map<int, std::shared_ptr<const Expected>>>(
                   worldSize)) {
  if (spec.output < 0 || spec.kind == "none" || spec.kind == "user")
    return;
  // A reduce-scatter's result differs by rank; the others' are shared.
  bool perRank = spec.kind == "reduce-scatter";
  for (int64_t c = 0; c < calls; ++c)
    for (unsigned r = 0; r < worldSize; ++r)
      expected[c][r][spec.output] =
          perRank || r == 0 ? std::make_shared<const Expected>(computeReference(
                                  spec, inputs, c, r, worldSize))
                            : expected[c][0][spec.output];
}

void Checker::expect(int64_t call, unsigned rank, int arg,
                     std::shared_ptr<const Expected> e) {
  expected[call][rank][arg] = std::move(e);
}

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
    world.work += kHostElementWork * uint64_t(b->numel); // host work too
    if (a.role == Role::Input) {
      const InputData &d = inputs.get(call, rank, k);
      if (b->isFloat())
        b->f = d.f;
      else
        b->i = d.i;
      b->generation = call;
      continue;
    }
    if (a.zeroed) {
      // torch.zeros: every caller zeroes it before the launch, so its
      // zeros count as written by this launch (atomics add into them).
      std::fill(b->f.begin(), b->f.end(), 0.0);
      std::fill(b->i.begin(), b->i.end(), 0);
      std::fill(b->writtenIn.begin(), b->writtenIn.end(), call);
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
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Output)
      continue;
    Buffer *b = world.heap.lookup(rank, a.name);
    world.work += kHostElementWork * uint64_t(b->numel);
    auto it = expected[call][rank].find(int(k));
    const Expected *e =
        it == expected[call][rank].end() ? nullptr : it->second.get();
    double tol = tolerance(b->type, worldSize);
    Check c = checkOutput(*b, e, call, spec.bitwise, tol);
    std::string error;
    if (dumper && schedule == 0 && !dumper->writeOutput(*b, call, error))
      reporter.error("dump", error);
    if (e) { // a NaN where a number is due is as wrong as it gets
      worstRel = std::max(worstRel, c.nonFinite ? INFINITY : c.relError);
      worstAbs = std::max(worstAbs, c.nonFinite ? INFINITY : c.maxAbsError);
    }
    if (c.ok)
      continue;
    ++mismatches;
    anyUnwritten |= c.unwritten || c.overwritten;
    anyPoisoned |= c.poisoned > 0;
    std::string head = "schedule " + std::to_string(schedule) + ", launch " +
                       std::to_string(call) + ", rank " + std::to_string(rank) +
                       ": '" + a.name + "' ";
    reportUnwritten(*b, a, c, head);
    if (e && !c.valuesOk)
      reportWrong(*b, c, head, *e, tol);
  }
}

void Checker::reportUnwritten(const Buffer &b, const ArgBinding &a,
                              const Check &c, const std::string &head) {
  if (c.unwritten)
    reporter.error("unwritten@" + head,
                   head + "has " + std::to_string(c.unwritten) + " of " +
                       std::to_string(b.numel) + " element(s) " +
                       (a.remoteWritten ? "no rank had stored for this launch "
                                          "when it finished"
                                        : "the kernel never wrote") +
                       " (first: element " + elementText(b, c.firstUnwritten) +
                       ")");
  if (c.overwritten)
    reporter.error("overwritten@" + head,
                   head + "has " + std::to_string(c.overwritten) + " of " +
                       std::to_string(b.numel) +
                       " element(s) already overwritten by launch " +
                       std::to_string(c.overwrittenBy) + " (first: element " +
                       elementText(b, c.firstOverwritten) +
                       "): a peer started its next launch and stored into this "
                       "rank's buffer before this launch finished");
  if (c.poisoned)
    reporter.error(
        "poisoned@" + head,
        head + "has " + std::to_string(c.poisoned) + " of " +
            std::to_string(b.numel) + " element(s) that are " +
            (b.isFloat() ? "NaN" : "the poison pattern 0xdead...") +
            " (first: element " + elementText(b, c.firstPoisoned) +
            "): the kernel wrote them from memory nothing had written (a "
            "poisoned workspace or output, or a peer's buffer read before "
            "the peer wrote it)");
}

void Checker::reportWrong(const Buffer &b, const Check &c,
                          const std::string &head, const Expected &e,
                          double tol) {
  int64_t k = c.worstIndex;
  double got = b.isFloat() ? b.f[k] : double(b.i[k]);
  std::string note;
  if (spec.kind == "all-gather") {
    // Row p (S elements, S the shard's size) is rank p's shard.
    int64_t shard =
        std::max<int64_t>(spec.outputElements / int64_t(worldSize), 1);
    note = " (row " + std::to_string(k / shard) + ": rank " +
           std::to_string(k / shard) + "'s '" + binding.args[spec.input].name +
           "')";
  }
  std::string outliers;
  if (c.nonFinite)
    outliers += ", " + std::to_string(c.nonFinite) + " not finite";
  if (c.outliers && !spec.bitwise && b.isFloat())
    outliers += ", " + std::to_string(c.outliers) + " beyond " +
                fmt::format("{:g}", contract::kElementToleranceFactor) +
                " x the tolerance of their magnitude";
  std::string what = spec.kind == "user" ? "reference " + spec.userName
                                         : "the " + spec.kind + " reference";
  reporter.error("mismatch@" + head,
                 head + "differs from " + what + ": " +
                     std::to_string(c.mismatched) + " of " +
                     std::to_string(b.numel) +
                     " element(s) differ, relative error " +
                     fmt::format("{:.3g}", c.relError) + " (" +
                     toleranceText(b.type, spec.bitwise, tol) + ")" + outliers +
                     ", worst element " + elementText(b, k) + note + ": got " +
                     fmt::format("{:.6g}", got) + ", expected " +
                     fmt::format("{:.6g}", e.values[k]));
}

std::string Checker::verdict(const std::string &requested) const {
  if (finishedLaunches == 0)
    return "no launch finished";
  if (spec.kind == "none") {
    bool anyOutput = false;
    for (const ArgBinding &a : binding.args)
      anyOutput |= a.kind == ArgBinding::Kind::Tensor && a.role == Role::Output;
    std::string verdict =
        requested == "none"
            ? "not checked (--reference none"
            : "not checked (no collective reference applies" +
                  (spec.why.empty() ? std::string() : ": " + spec.why);
    if (anyOutput)
      verdict += "; every output element written: " +
                 std::string(anyUnwritten ? "no" : "yes") +
                 (anyPoisoned ? "; NaN or poisoned elements: yes" : "");
    return verdict + ")";
  }
  const ArgBinding &o = binding.args[spec.output];
  std::string what;
  if (spec.kind == "user") {
    what = "reference " + spec.userName + " of ";
    for (size_t k = 0; k < spec.outputs.size(); ++k)
      what += (k ? ", '" : "'") + binding.args[spec.outputs[k]].name + "'";
  } else {
    // "into 'O'" unless O is the kernel's returned torch.empty_like.
    what = spec.kind + " of '" + binding.args[spec.input].name + "'" +
           (o.like.empty() ? " into '" + o.name + "'" : "");
  }
  return what + " (" + o.type.name() + ", " +
         toleranceText(o.type, spec.bitwise, tolerance(o.type, worldSize)) +
         "): max relative error " + fmt::format("{:.3g}", worstRel) +
         ", max abs error " + fmt::format("{:.3g}", worstAbs);
}
