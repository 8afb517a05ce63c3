//===- Reference.cpp - The float64 result a kernel must produce ----------===//

#include "compiler/Simulator/Reference.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstdio>

using namespace dslc;
using namespace dslc::sim;

namespace {

/// Why the kernel is not an all-gather (empty when it is); sets the result
/// G and the shard.
std::string allGatherMismatch(const KernelDescription &desc,
                              const Binding &binding, unsigned worldSize,
                              int &output, int &input) {
  if (!desc.outputs.empty())
    return "the kernel has a torch.empty_like output ('" +
           desc.outputs[0].name + "')";
  output = input = -1;
  for (size_t k = 0; k < binding.args.size(); ++k) {
    if (!binding.args[k].stackWritten)
      continue;
    if (output >= 0)
      return "both '" + binding.args[output].name + "' and '" +
             binding.args[k].name + "' are stored into through a stack view";
    output = int(k);
  }
  if (output < 0)
    return "no tensor is stored into through a stack view "
           "(hl.multicast_like / hl.stacktensor_like)";
  const ArgBinding &g = binding.args[output];
  if (g.sizes.size() != 2)
    return "'" + g.name + "' has " + std::to_string(g.sizes.size()) +
           " dimension(s), not 2";
  if (g.sizes[0] != int64_t(worldSize))
    return "'" + g.name + "' has " + std::to_string(g.sizes[0]) +
           " rows, not the world size " + std::to_string(worldSize);
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input ||
        a.sizes.size() != 1 || a.type.kind != g.type.kind ||
        a.sizes[0] != g.sizes[1])
      continue;
    if (input >= 0)
      return "both '" + binding.args[input].name + "' and '" + a.name +
             "' could be the shard (1-d " + g.type.name() + " inputs of " +
             std::to_string(g.sizes[1]) + " elements)";
    input = int(k);
  }
  if (input < 0)
    return "no 1-d " + std::string(g.type.name()) + " input has " +
           std::to_string(g.sizes[1]) + " elements (dimension 1 of '" +
           g.name + "') to be the shard";
  return "";
}

} // namespace

bool dslc::sim::chooseReference(const std::string &requested,
                                const KernelDescription &desc,
                                const Binding &binding, unsigned worldSize,
                                ReferenceSpec &spec, std::string &error) {
  spec = ReferenceSpec();
  if (requested == "none")
    return true;
  if (requested != "auto" && requested != "all-reduce" &&
      requested != "all-gather") {
    error = "unknown reference '" + requested +
            "' (expected auto, all-reduce, all-gather or none)";
    return false;
  }
  auto indexOf = [&](const std::string &name) {
    for (size_t k = 0; k < binding.args.size(); ++k)
      if (binding.args[k].name == name)
        return int(k);
    return -1;
  };
  if (requested != "all-gather") {
    int output = -1, input = -1;
    if (desc.outputs.size() == 1) {
      output = indexOf(desc.outputs[0].name);
      input = indexOf(desc.outputs[0].like);
    }
    // x is symmetric (peers read it), or the data moves through an LL
    // scratch (peers receive it as packets).
    bool viaScratch = llvm::any_of(binding.args, [](const ArgBinding &a) {
      return a.role == Role::Scratch;
    });
    bool fits = output >= 0 && input >= 0 &&
                (binding.args[input].symmetric || viaScratch) &&
                binding.args[input].role == Role::Input;
    if (fits) {
      spec.kind = "all-reduce";
      spec.output = output;
      spec.input = input;
      return true;
    }
    if (requested == "all-reduce") {
      error = "--reference all-reduce needs a kernel with one output made by "
              "torch.empty_like(x) of a symmetric input x (or of any input "
              "x when the kernel exchanges data through an LL scratch)";
      return false;
    }
  }
  int output = -1, input = -1;
  std::string why = allGatherMismatch(desc, binding, worldSize, output, input);
  if (!why.empty()) {
    if (requested == "auto")
      return true;
    error = "--reference all-gather needs a kernel that stores into a 2-d "
            "[world size, N] tensor through a stack view and has a 1-d "
            "shard input of N elements, but " +
            why;
    return false;
  }
  spec.kind = "all-gather";
  spec.output = output;
  spec.input = input;
  spec.bitwise = true;
  return true;
}

std::vector<double> dslc::sim::computeReference(const ReferenceSpec &spec,
                                                const Inputs &inputs,
                                                int64_t call,
                                                unsigned worldSize) {
  std::vector<double> ref;
  auto valueAt = [](const InputData &d, size_t k) {
    return d.f.empty() ? double(d.i[k]) : d.f[k];
  };
  if (spec.kind == "all-gather") {
    // Row p: rank p's shard, copied.
    for (unsigned p = 0; p < worldSize; ++p) {
      const InputData &d = inputs.get(call, p, spec.input);
      size_t n = d.f.empty() ? d.i.size() : d.f.size();
      for (size_t k = 0; k < n; ++k)
        ref.push_back(valueAt(d, k));
    }
    return ref;
  }
  if (spec.kind != "all-reduce")
    return ref;
  for (unsigned r = 0; r < worldSize; ++r) {
    const InputData &d = inputs.get(call, r, spec.input);
    size_t n = d.f.empty() ? d.i.size() : d.f.size();
    ref.resize(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      ref[k] += valueAt(d, k);
  }
  return ref;
}

std::string dslc::sim::toleranceText(const ElemType &type, bool bitwise) {
  if (bitwise)
    return "bitwise";
  char buf[32];
  std::snprintf(buf, sizeof buf, "tolerance %.0e", tolerance(type));
  return buf;
}

Check dslc::sim::checkOutput(const Buffer &out, const std::vector<double> &ref,
                             int64_t call, bool bitwise) {
  Check c;
  for (int64_t k = 0; k < out.numel; ++k) {
    int64_t by = out.writtenIn[k];
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
  if (!ref.empty()) {
    double num = 0, den = 0;
    for (int64_t k = 0; k < out.numel; ++k) {
      double v = out.isFloat() ? out.f[k] : double(out.i[k]);
      double e = std::fabs(v - ref[k]);
      if (std::isnan(v))
        e = INFINITY;
      bool same = v == ref[k] && std::signbit(v) == std::signbit(ref[k]);
      c.mismatched += !same;
      num += e * e;
      den += ref[k] * ref[k];
      // The worst element: the largest error, else (bitwise) the first
      // that differs at all.
      if (e > c.maxAbsError || c.worstIndex < 0 ||
          (!same && c.maxAbsError == 0 && c.mismatched == 1)) {
        c.maxAbsError = e;
        c.worstIndex = k;
      }
    }
    c.relError = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  bool valuesOk = ref.empty() || (bitwise || !out.isFloat()
                                      ? c.mismatched == 0
                                      : c.relError <= tolerance(out.type));
  c.ok = c.unwritten == 0 && c.overwritten == 0 && valuesOk;
  return c;
}
