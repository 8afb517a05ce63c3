//===- DslReference.cpp - A reference kernel written in the DSL -----------===//
#include "tooling/harness/DslReference.h"

#include "runtime/Error.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/support/Dslc.h"

#include <fmt/format.h>

namespace dslc::run {

using namespace dslc::rt;

namespace {

/// The checked output a reference output `a` stands for, or -1.
int matchOutput(const ArgSpec &a, const KernelMetadata &ref,
                const KernelPlan &checked) {
  int byName = checked.find(a.name);
  if (byName >= 0 && checked.args[byName].isOutput())
    return byName;
  int refOutputs = 0;
  for (const ArgSpec &r : ref.args)
    refOutputs += r.isOutput || r.role == Role::Output || r.role == Role::InOut;
  std::vector<int> outs = checked.outputs();
  return refOutputs == 1 && outs.size() == 1 ? outs[0] : -1;
}

} // namespace

ReferenceBinding bindReference(const KernelMetadata &ref,
                               const KernelPlan &checked) {
  ReferenceBinding b;
  std::vector<std::string> problems;
  for (const ArgSpec &a : ref.args) {
    ReferenceBinding::Arg arg;
    bool output = a.isOutput || a.role == Role::Output ||
                  (a.role == Role::InOut && matchOutput(a, ref, checked) >= 0);
    if (!a.isTensor()) {
      arg.kind = ReferenceBinding::Arg::Kind::Scalar;
      arg.checked = checked.find(a.name);
      if (arg.checked < 0 || checked.args[arg.checked].isTensor)
        problems.push_back(
            fmt::format("scalar '{}': kernel {} has no scalar of that name",
                        a.name, checked.kernel));
      b.args.push_back(arg);
      continue;
    }
    if (output) {
      arg.kind = ReferenceBinding::Arg::Kind::StackedOutput;
      arg.checked = matchOutput(a, ref, checked);
    } else if (a.role == Role::Input) {
      arg.checked = checked.find(a.name);
      if (arg.checked >= 0 && checked.args[arg.checked].fill != Fill::Seeded)
        arg.checked = -1;
    } else {
      problems.push_back(fmt::format(
          "'{}' is a {}: a reference binds stacked inputs, stacked outputs "
          "and scalars only (it must not communicate)",
          a.name, roleName(a.role)));
      b.args.push_back(arg);
      continue;
    }
    if (arg.checked < 0) {
      problems.push_back(
          fmt::format("{} '{}': kernel {} has no {} of that name",
                      output ? "output" : "input", a.name, checked.kernel,
                      output ? "output" : "input"));
      b.args.push_back(arg);
      continue;
    }
    const PlannedArg &c = checked.args[arg.checked];
    if (a.dtype != c.dtype)
      problems.push_back(fmt::format(
          "'{}' is {}, but {}'s '{}' is {} (compile the reference with "
          "--signature {}={}[{}])",
          a.name, dtypeName(a.dtype), checked.kernel, c.name,
          dtypeName(c.dtype), a.name, dtypeName(c.dtype), c.shape.size() + 1));
    if (a.rank != static_cast<int>(c.shape.size()) + 1)
      problems.push_back(fmt::format(
          "'{}' has rank {}; it holds every rank's '{}' stacked, so its "
          "rank must be {}",
          a.name, a.rank, c.name, c.shape.size() + 1));
    arg.shape = c.shape;
    arg.shape.insert(arg.shape.begin(), checked.world);
    b.args.push_back(arg);
  }
  if (!problems.empty()) {
    std::string msg =
        fmt::format("reference {} for kernel {}:", ref.kernel, checked.kernel);
    for (const std::string &p : problems)
      msg += "\n  " + p;
    raise(ErrorCode::InvalidArgument, msg);
  }
  return b;
}

DslReference::DslReference(Communicator &comm, std::unique_ptr<Kernel> kernel,
                           std::string label)
    : comm_(comm), kernel_(std::move(kernel)), label_(std::move(label)) {}

DslReference::~DslReference() { freeBuffers(); }

void DslReference::freeBuffers() noexcept {
  (void)cudaSetDevice(comm_.local(0).device);
  for (void *p : buffers_)
    if (p)
      (void)cudaFree(p);
  buffers_.clear();
}

void DslReference::prepare(const KernelPlan &plan, uint32_t seed) {
  std::string key =
      fmt::format("{}|{}|{}", plan.kernel, plan.spec.text(), seed);
  if (key == preparedFor_)
    return;
  preparedFor_.clear();
  const KernelMetadata &md = kernel_->metadata(0);
  ReferenceBinding b = bindReference(md, plan);
  const LocalRank &l = comm_.local(0);
  setDevice(l.device, l.rank);
  freeBuffers();
  expected_.clear();
  BoundArgs args = kernel_->args(0);
  for (size_t j = 0; j < b.args.size(); ++j) {
    const ReferenceBinding::Arg &ra = b.args[j];
    const PlannedArg &c = plan.args[ra.checked];
    if (ra.kind == ReferenceBinding::Arg::Kind::Scalar) {
      if (md.args[j].isIntScalar())
        args.setInt(static_cast<int>(j), static_cast<int64_t>(c.scalar));
      else
        args.setFloat(static_cast<int>(j), c.scalar);
      continue;
    }
    size_t rowBytes = static_cast<size_t>(c.numel()) * dtypeSize(c.dtype);
    void *p = nullptr;
    DSLC_CUDART(l.rank,
                cudaMalloc(&p, std::max<size_t>(16, rowBytes * plan.world)));
    buffers_.push_back(p);
    if (ra.kind == ReferenceBinding::Arg::Kind::StackedInput) {
      for (int r = 0; r < plan.world; ++r) {
        std::vector<char> row = hostInput(plan, ra.checked, r, seed);
        DSLC_CUDART(l.rank,
                    cudaMemcpy(static_cast<char *>(p) + r * rowBytes,
                               row.data(), row.size(), cudaMemcpyHostToDevice));
      }
    } else {
      DSLC_CUDART(l.rank, cudaMemset(p, 0xff, rowBytes * plan.world));
    }
    args.setTensor(static_cast<int>(j), TensorArg{p, c.dtype, ra.shape});
  }
  args.check(plan.world, l.rank);
  kernel_->launch(0, args);
  kernel_->synchronize();
  for (size_t j = 0, buf = 0; j < b.args.size(); ++j) {
    const ReferenceBinding::Arg &ra = b.args[j];
    if (ra.kind == ReferenceBinding::Arg::Kind::Scalar)
      continue;
    void *p = buffers_[buf++];
    if (ra.kind != ReferenceBinding::Arg::Kind::StackedOutput)
      continue;
    const PlannedArg &c = plan.args[ra.checked];
    int64_t n = c.numel();
    std::vector<char> host(static_cast<size_t>(n * plan.world) *
                           dtypeSize(c.dtype));
    DSLC_CUDART(l.rank, cudaMemcpy(host.data(), p, host.size(),
                                   cudaMemcpyDeviceToHost));
    for (int r = 0; r < plan.world; ++r) {
      std::vector<double> &want = expected_[{ra.checked, r}];
      want.resize(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k)
        want[k] = loadAny(host.data(), r * n + k, c.dtype);
    }
  }
  freeBuffers();
  preparedFor_ = key;
}

void compileReference(const std::string &dslc, const std::string &spec,
                      const KernelMetadata &checked, int world,
                      const std::string &out,
                      const std::vector<std::string> &extraArgs) {
  std::optional<tooling::KernelRef> ref = tooling::parseKernelRef(spec);
  if (!ref)
    raise(ErrorCode::InvalidArgument,
          fmt::format("--reference {}: give FILE.py:KERNEL", spec));
  tooling::DslcCompile c;
  c.dslc = dslc;
  c.file = ref->file;
  c.kernel = ref->name;
  c.out = out;
  c.extraArgs = extraArgs;
  c.defines.push_back({"world_size", std::to_string(world)});
  for (const auto &[name, value] : checked.constants)
    if (name != "world_size" && name != "my_rank" && name != "rank" &&
        !value.empty() && value[0] != '"') // strings name groups
      c.defines.push_back({name, value});
  auto compile = [&] {
    tooling::ProcessResult r = tooling::runDslc(c);
    if (!r.ok())
      raise(ErrorCode::InvalidArgument,
            fmt::format("reference {}: dslc {}:\n  {}\n{}", spec, r.describe(),
                        tooling::displayCommand(c.argv()), r.output));
  };
  compile();
  // The stacked tensors take the checked kernel's dtypes.
  KernelMetadata md = loadMetadataFile(out + ".json");
  std::string sig;
  for (const ArgSpec &a : md.args) {
    int i = checked.findArg(a.name);
    if (a.isOutput || !a.isTensor() || i < 0 ||
        checked.args[i].dtype == a.dtype)
      continue;
    sig += fmt::format("{}{}={}[{}]", sig.empty() ? "" : ",", a.name,
                       dtypeName(checked.args[i].dtype), a.rank);
  }
  if (sig.empty())
    return;
  c.signature = sig;
  compile();
}

const std::vector<double> *DslReference::expected(int arg, int rank) const {
  auto it = expected_.find({arg, rank});
  return it == expected_.end() ? nullptr : &it->second;
}

} // namespace dslc::run
