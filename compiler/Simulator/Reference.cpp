//===- Reference.cpp - The float64 result a kernel must produce ----------===//

#include "compiler/Simulator/Reference.h"

#include <cmath>

using namespace dslc;
using namespace dslc::sim;

bool dslc::sim::chooseReference(const std::string &requested,
                                const KernelDescription &desc,
                                const Binding &binding, ReferenceSpec &spec,
                                std::string &error) {
  spec = ReferenceSpec();
  if (requested == "none")
    return true;
  auto indexOf = [&](const std::string &name) {
    for (size_t k = 0; k < binding.args.size(); ++k)
      if (binding.args[k].name == name)
        return int(k);
    return -1;
  };
  int output = -1, input = -1;
  if (desc.outputs.size() == 1) {
    output = indexOf(desc.outputs[0].name);
    input = indexOf(desc.outputs[0].like);
  }
  bool fits = output >= 0 && input >= 0 && binding.args[input].symmetric &&
              binding.args[input].role == Role::Input;
  if (requested == "auto" && !fits)
    return true;
  if (!fits) {
    error = "--reference all-reduce needs a kernel with one output made by "
            "torch.empty_like(x) of a symmetric input x";
    return false;
  }
  spec.kind = "all-reduce";
  spec.output = output;
  spec.input = input;
  return true;
}

std::vector<double> dslc::sim::computeReference(const ReferenceSpec &spec,
                                                const Inputs &inputs,
                                                int64_t call,
                                                unsigned worldSize) {
  std::vector<double> ref;
  if (spec.kind != "all-reduce")
    return ref;
  for (unsigned r = 0; r < worldSize; ++r) {
    const InputData &d = inputs.get(call, r, spec.input);
    size_t n = d.f.empty() ? d.i.size() : d.f.size();
    ref.resize(n, 0.0);
    for (size_t k = 0; k < n; ++k)
      ref[k] += d.f.empty() ? double(d.i[k]) : d.f[k];
  }
  return ref;
}

Check dslc::sim::checkOutput(const Buffer &out, const std::vector<double> &ref) {
  Check c;
  for (int64_t k = 0; k < out.numel; ++k)
    c.unwritten += !out.written[k];
  if (!ref.empty()) {
    double num = 0, den = 0;
    for (int64_t k = 0; k < out.numel; ++k) {
      double v = out.isFloat() ? out.f[k] : double(out.i[k]);
      double e = std::fabs(v - ref[k]);
      if (std::isnan(v))
        e = INFINITY;
      num += e * e;
      den += ref[k] * ref[k];
      if (e > c.maxAbsError || c.worstIndex < 0) {
        c.maxAbsError = e;
        c.worstIndex = k;
      }
    }
    c.relError = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  double tol = tolerance(out.type);
  c.ok = c.unwritten == 0 &&
         (ref.empty() || (out.isFloat() ? c.relError <= tol
                                        : c.maxAbsError == 0));
  return c;
}
