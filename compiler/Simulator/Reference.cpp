//===- Reference.cpp - The float64 result a kernel must produce ----------===//

#include "compiler/Simulator/Reference.h"

#include "contract/Tolerance.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstdio>

using namespace dslc;
using namespace dslc::sim;

namespace {

std::string shapeOf(const ArgBinding &a) {
  std::string s = "[";
  for (size_t k = 0; k < a.sizes.size(); ++k)
    s += (k ? "x" : "") + std::to_string(a.sizes[k]);
  return s + "]";
}

/// What `kind` needs of a kernel, for the refusal.
std::string needs(const std::string &kind) {
  if (kind == "all-reduce")
    return "one output and one input of its dtype with the same sizes";
  if (kind == "reduce-scatter")
    return "one 1-d output of S elements and one 1-d input of its dtype of "
           "world size x S elements";
  return "one output of world size x S elements ([world size, S] or 1-d) "
         "and one 1-d input of its dtype of S elements (the shard)";
}

/// Why the chosen output and input do not fit `kind` (empty when they do).
std::string mismatch(const std::string &kind, const ArgBinding &o,
                     const ArgBinding &in, unsigned worldSize) {
  int64_t w = worldSize;
  if (kind == "all-reduce") {
    if (o.sizes != in.sizes)
      return "'" + o.name + "' is " + shapeOf(o) + " and '" + in.name + "' " +
             shapeOf(in);
    return "";
  }
  if (!o.like.empty())
    return "'" + o.name + "' is torch.empty_like(" + o.like +
           "): it has the input's sizes";
  if (in.sizes.size() != 1)
    return "the input '" + in.name + "' has " +
           std::to_string(in.sizes.size()) + " dimensions, not 1";
  if (kind == "reduce-scatter") {
    if (o.sizes.size() != 1)
      return "the output '" + o.name + "' has " +
             std::to_string(o.sizes.size()) + " dimensions, not 1";
    if (o.sizes[0] * w != in.sizes[0])
      return "'" + in.name + "' has " + std::to_string(in.sizes[0]) +
             " element(s), not " + std::to_string(w) + " x " +
             std::to_string(o.sizes[0]) + " ('" + o.name + "')";
    return "";
  }
  if (o.sizes.size() == 2) {
    if (o.sizes[0] != w)
      return "'" + o.name + "' has " + std::to_string(o.sizes[0]) +
             " rows, not the world size " + std::to_string(w);
    if (o.sizes[1] != in.sizes[0])
      return "'" + o.name + "' has rows of " + std::to_string(o.sizes[1]) +
             " element(s), but '" + in.name + "' has " +
             std::to_string(in.sizes[0]);
    return "";
  }
  if (o.sizes.size() != 1)
    return "the output '" + o.name + "' has " + std::to_string(o.sizes.size()) +
           " dimensions, not 1 or 2";
  if (o.sizes[0] != w * in.sizes[0])
    return "'" + o.name + "' has " + std::to_string(o.sizes[0]) +
           " element(s), not " + std::to_string(w) + " x " +
           std::to_string(in.sizes[0]) + " ('" + in.name + "')";
  return "";
}

} // namespace

bool dslc::sim::chooseReference(const std::string &requested,
                                const KernelDescription &desc,
                                const Binding &binding, unsigned worldSize,
                                ReferenceSpec &spec, std::string &error) {
  (void)desc;
  spec = ReferenceSpec();
  if (requested == "none")
    return true;
  if (requested != "auto" && requested != "all-reduce" &&
      requested != "reduce-scatter" && requested != "all-gather") {
    error = "unknown reference '" + requested +
            "' (expected auto, all-reduce, reduce-scatter, all-gather or "
            "none)";
    return false;
  }
  bool automatic = requested == "auto";
  std::string kind = automatic ? binding.collective : requested;
  auto refuse = [&](const std::string &why) {
    if (automatic) { // nothing fits: "none"
      spec.why = why;
      return true;
    }
    error = "--reference " + requested + " needs " + needs(requested) +
            ", but " + why;
    return false;
  };
  if (binding.output < 0 || binding.input < 0) {
    int outputs = 0;
    for (const ArgBinding &a : binding.args)
      outputs += a.kind == ArgBinding::Kind::Tensor && a.role == Role::Output;
    if (outputs != 1)
      return refuse("the kernel has " + std::to_string(outputs) + " outputs");
    return refuse("no single input has the output's dtype");
  }
  if (kind.empty()) {
    spec.why = binding.why;
    return true;
  }
  const ArgBinding &o = binding.args[binding.output];
  const ArgBinding &in = binding.args[binding.input];
  std::string why = mismatch(kind, o, in, worldSize);
  if (!why.empty())
    return refuse(why);
  // Auto checks only kernels that communicate (not a local copy).
  bool communicates = llvm::any_of(binding.args, [](const ArgBinding &a) {
    return a.role == Role::PeerTable || a.role == Role::Scratch;
  });
  if (automatic && !communicates) {
    spec.why = "the kernel does not communicate (no peer table or LL "
               "scratch)";
    return true;
  }
  spec.kind = kind;
  spec.output = binding.output;
  spec.input = binding.input;
  spec.outputElements = 1;
  for (int64_t s : o.sizes)
    spec.outputElements *= s;
  spec.bitwise = kind == "all-gather";
  return true;
}

Expected dslc::sim::computeReference(const ReferenceSpec &spec,
                                     const Inputs &inputs, int64_t call,
                                     unsigned rank, unsigned worldSize) {
  Expected e;
  auto valueAt = [](const InputData &d, size_t k) {
    return d.f.empty() ? double(d.i[k]) : d.f[k];
  };
  auto sizeOf = [](const InputData &d) {
    return d.f.empty() ? d.i.size() : d.f.size();
  };
  if (spec.kind == "all-gather") {
    // Row p: rank p's shard, copied.
    for (unsigned p = 0; p < worldSize; ++p) {
      const InputData &d = inputs.get(call, p, spec.input);
      for (size_t k = 0; k < sizeOf(d); ++k)
        e.values.push_back(valueAt(d, k));
    }
    return e;
  }
  if (spec.kind != "all-reduce" && spec.kind != "reduce-scatter")
    return e;
  // All-reduce: all of I; reduce-scatter: slice `rank` of it.
  size_t n = size_t(spec.outputElements);
  size_t base = spec.kind == "reduce-scatter" ? size_t(rank) * n : 0;
  e.values.assign(n, 0.0);
  e.scale.assign(n, 0.0);
  for (unsigned p = 0; p < worldSize; ++p) {
    const InputData &d = inputs.get(call, p, spec.input);
    for (size_t k = 0; k < n && base + k < sizeOf(d); ++k) {
      double v = valueAt(d, base + k);
      e.values[k] += v;
      e.scale[k] += v * v;
    }
  }
  for (double &s : e.scale)
    s = std::sqrt(s);
  return e;
}

double dslc::sim::tolerance(const ElemType &type, unsigned worldSize) {
  return contract::relativeTolerance(unitRoundoff(type), int(worldSize));
}

std::string dslc::sim::toleranceText(const ElemType &type, bool bitwise,
                                     double tol) {
  if (bitwise)
    return "bitwise";
  return contract::toleranceText(type.isFloat() ? tol : 0);
}

namespace {

/// Written-by-this-launch checks: unwritten, overwritten, NaN/poison.
void checkWritten(const Buffer &out, const Expected *ref, int64_t call,
                  Check &c) {
  int64_t poison = wrapInt(out.type, kPoisonInt);
  bool intPoison = !out.isFloat() && out.type.bits >= 32;
  for (int64_t k = 0; k < out.numel; ++k) {
    int64_t by = out.writtenIn[k];
    bool bad =
        out.isFloat() ? std::isnan(out.f[k]) : intPoison && out.i[k] == poison;
    if (by == call && bad && (!ref || !std::isnan(ref->values[k]))) {
      if (c.poisoned++ == 0)
        c.firstPoisoned = k;
    }
    if (by < call) {
      if (c.unwritten++ == 0)
        c.firstUnwritten = k;
    } else if (by > call) {
      if (c.overwritten++ == 0) {
        c.firstOverwritten = k;
        c.overwrittenBy = by;
      }
    }
  }
}

} // namespace

Check dslc::sim::checkOutput(const Buffer &out, const Expected *ref,
                             int64_t call, bool bitwise, double tol) {
  Check c;
  checkWritten(out, ref, call, c);
  if (ref) {
    std::vector<double> ints;
    if (!out.isFloat())
      ints.assign(out.i.begin(), out.i.end());
    const double *got = out.isFloat() ? out.f.data() : ints.data();
    bool exact = bitwise || !out.isFloat();
    contract::ToleranceCheck t = contract::checkWithTolerance(
        got, ref->values.data(),
        ref->scale.empty() ? nullptr : ref->scale.data(), out.numel,
        exact ? 0 : tol);
    c.mismatched = t.mismatched;
    c.outliers = t.outliers;
    c.nonFinite = t.nonFinite;
    c.relError = t.relError;
    c.maxAbsError = t.maxAbsError;
    c.worstIndex = t.worst;
    c.valuesOk = t.ok;
  }
  c.ok =
      c.unwritten == 0 && c.overwritten == 0 && c.poisoned == 0 && c.valuesOk;
  return c;
}
