//===- Binding.cpp - Binding and checking kernel arguments ----------------===//
#include "runtime/Binding.h"

#include "runtime/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <limits>

namespace dslc::rt {

int64_t TensorArg::numel() const { return contract::saturatedNumel(sizes); }

namespace {
[[noreturn]] void argError(const KernelMetadata &md, const std::string &what) {
  raise(ErrorCode::InvalidArgument,
        fmt::format("kernel {}: {}", md.kernel, what));
}

std::string describe(const ArgSpec &spec) {
  return fmt::format("{} '{}'", spec.isOutput ? "output" : "parameter",
                     spec.name);
}
} // namespace

BoundArgs::BoundArgs(const KernelMetadata &md)
    : md_(&md), values_(md.args.size()) {}

int BoundArgs::resolve(const std::string &name) const {
  int idx = md_->findArg(name);
  if (idx < 0) {
    std::vector<std::string> names;
    for (const ArgSpec &a : md_->args)
      names.push_back(a.name);
    argError(*md_, fmt::format("no parameter or output named '{}' (it takes: "
                               "{})",
                               name, fmt::join(names, ", ")));
  }
  return idx;
}

int BoundArgs::resolve(int position) const {
  if (position < 0 || position >= static_cast<int>(md_->args.size()))
    argError(*md_, fmt::format("argument position {} is out of range (it "
                               "takes {} arguments)",
                               position, md_->args.size()));
  return position;
}

void BoundArgs::setTensor(const std::string &name, const TensorArg &t) {
  setTensorAt(resolve(name), t);
}
void BoundArgs::setTensor(int position, const TensorArg &t) {
  setTensorAt(resolve(position), t);
}
void BoundArgs::setInt(const std::string &name, int64_t v) {
  setIntAt(resolve(name), v);
}
void BoundArgs::setInt(int position, int64_t v) {
  setIntAt(resolve(position), v);
}
void BoundArgs::setFloat(const std::string &name, double v) {
  setFloatAt(resolve(name), v);
}
void BoundArgs::setFloat(int position, double v) {
  setFloatAt(resolve(position), v);
}

void BoundArgs::setTensorAt(int idx, const TensorArg &t) {
  const ArgSpec &spec = md_->args[idx];
  if (!spec.isTensor())
    argError(*md_, fmt::format("{} is {}, a tensor was given", describe(spec),
                               argKindName(spec)));
  if (t.dtype != spec.dtype)
    argError(*md_,
             fmt::format("{}: dtype {} expected, {} given", describe(spec),
                         dtypeName(spec.dtype), dtypeName(t.dtype)));
  if (static_cast<int>(t.sizes.size()) != spec.rank)
    argError(*md_, fmt::format("{}: rank {} expected, {} given (sizes [{}])",
                               describe(spec), spec.rank, t.sizes.size(),
                               fmt::join(t.sizes, ", ")));
  for (size_t d = 0; d < t.sizes.size(); ++d)
    if (t.sizes[d] < 0)
      argError(*md_, fmt::format("{}: size {} is negative ({})", describe(spec),
                                 d, t.sizes[d]));
  auto addr = reinterpret_cast<uintptr_t>(t.data);
  if (!t.data && t.numel() != 0)
    argError(*md_, fmt::format("{}: null data pointer for {} elements",
                               describe(spec), t.numel()));
  if (addr % kPointerAlignment)
    argError(*md_, fmt::format("{}: address {:#x} is not {}-byte aligned",
                               describe(spec), addr, kPointerAlignment));
  auto peers = reinterpret_cast<uintptr_t>(t.peers);
  if (peers % 8)
    argError(*md_, fmt::format("{}: peer table {:#x} is not 8-byte aligned",
                               describe(spec), peers));
  checkPeers(idx, t);
  ArgValue &v = values_[idx];
  v.kind = ArgValue::Kind::Tensor;
  v.tensor = t;
}

void BoundArgs::setTeams(const RankTeams &teams) { teams_ = teams; }

void BoundArgs::checkPeers(int idx, const TensorArg &t) const {
  const ArgSpec &spec = md_->args[idx];
  bool table =
      (spec.symmetric && t.peers) || (spec.role == Role::PeerTable && t.data);
  if (!teams_ || !table)
    return;
  // A table holds one entry per rank of the world the kernel was compiled
  // for (the launch checks that it is the communicator's).
  int entries =
      md_->worldSize ? static_cast<int>(*md_->worldSize) : teams_->worldSize;
  std::string problem = lsaPeerTableProblem(*teams_, entries, describe(spec));
  if (!problem.empty())
    argError(*md_, problem);
}

void BoundArgs::setIntAt(int idx, int64_t value) {
  const ArgSpec &spec = md_->args[idx];
  if (!spec.isIntScalar())
    argError(*md_, fmt::format("{} is {}, an int was given", describe(spec),
                               argKindName(spec)));
  values_[idx].kind = ArgValue::Kind::Int;
  values_[idx].i = value;
}

void BoundArgs::setFloatAt(int idx, double value) {
  const ArgSpec &spec = md_->args[idx];
  if (!spec.isFloatScalar())
    argError(*md_, fmt::format("{} is {}, a float was given", describe(spec),
                               argKindName(spec)));
  values_[idx].kind = ArgValue::Kind::Float;
  values_[idx].f = value;
}

bool BoundArgs::isBound(const std::string &name) const {
  int idx = md_->findArg(name);
  return idx >= 0 && values_[idx].kind != ArgValue::Kind::Unset;
}

const ArgValue &BoundArgs::value(const std::string &name) const {
  return values_[resolve(name)];
}

int64_t BoundArgs::extent(const GridExtent &e) const {
  const std::string &name = e.param ? *e.param : *e.scalar;
  const ArgValue &v = values_[resolve(name)];
  if (e.scalar) {
    if (v.kind != ArgValue::Kind::Int)
      argError(*md_,
               fmt::format("grid extent: parameter '{}' is not bound", name));
    if (v.i < 0)
      argError(*md_, fmt::format("grid extent: parameter '{}' is negative "
                                 "({})",
                                 name, v.i));
    return v.i;
  }
  if (v.kind != ArgValue::Kind::Tensor)
    argError(*md_,
             fmt::format("grid extent: parameter '{}' is not bound", name));
  return v.tensor.sizes[e.dim];
}

int64_t BoundArgs::numTiles() const {
  return numTilesWith(*md_, [&](const GridExtent &e) { return extent(e); });
}

void BoundArgs::check(int worldSize, int rank) const {
  const KernelMetadata &md = *md_;
  if (md.worldSize && *md.worldSize != worldSize)
    argError(md, fmt::format("compiled for world size {}, launched on a "
                             "communicator of world size {}",
                             *md.worldSize, worldSize));
  if (md.rank && *md.rank != rank)
    argError(md, fmt::format("compiled for rank {}, launched on rank {}",
                             *md.rank, rank));
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &spec = md.args[i];
    const ArgValue &v = values_[i];
    if (v.kind == ArgValue::Kind::Unset)
      argError(md,
               fmt::format("{} (position {}) is not bound", describe(spec), i));
    if (spec.symmetric && !v.tensor.peers)
      argError(md, fmt::format("{} is symmetric: it needs a peer table of {} "
                               "addresses (got none)",
                               describe(spec), worldSize));
    if (v.kind == ArgValue::Kind::Tensor)
      checkPeers(static_cast<int>(i), v.tensor);
    if (v.kind == ArgValue::Kind::Tensor && md.maxTensorElements > 0 &&
        v.tensor.numel() > md.maxTensorElements)
      argError(md, fmt::format(
                       "{} holds {} elements, more than the {} that the "
                       "kernel's 32-bit index values (tile.index, hl.arange) "
                       "reach: compile it for these sizes (--shape; dslc then "
                       "takes 64-bit index values) or with "
                       "index_dtype=torch.int64",
                       describe(spec), v.tensor.numel(), md.maxTensorElements));
    if (spec.isOutput && !spec.like.empty()) {
      int like = md.findArg(spec.like);
      if (like >= 0 && values_[like].kind == ArgValue::Kind::Tensor &&
          values_[like].tensor.sizes != v.tensor.sizes)
        argError(md,
                 fmt::format("{} has sizes [{}], expected [{}] (like "
                             "'{}')",
                             describe(spec), fmt::join(v.tensor.sizes, ", "),
                             fmt::join(values_[like].tensor.sizes, ", "),
                             spec.like));
    }
  }
  for (const SameSize &s : md.sameSizes) {
    const ArgValue &a = values_[md.findArg(s.param)];
    const ArgValue &b = values_[md.findArg(s.as)];
    std::string why =
        s.problem(a.tensor.sizes.at(s.dim), b.tensor.sizes.at(s.asDim));
    if (!why.empty())
      argError(md, why);
  }
  int64_t tiles = numTiles();
  for (const Constraint &c : md.constraints) {
    int idx = md.findArg(c.param);
    int64_t actual = values_[idx].tensor.sizes[c.dim];
    if (!c.holds(actual, tiles))
      argError(md, fmt::format("{} dim {} is {}, but it must be {} {}{}",
                               describe(md.args[idx]), c.dim, actual, c.op,
                               c.valueWith(tiles),
                               c.isNumTiles() ? " (num_tiles)" : ""));
  }
}

ParamBuffer packParams(const BoundArgs &args, const HiddenArgs &hidden) {
  const KernelMetadata &md = args.metadata();
  ParamBuffer buf;
  buf.cells_.resize(md.abi.size(), 0);
  for (size_t i = 0; i < md.abi.size(); ++i) {
    const AbiSlot &slot = md.abi[i];
    uint64_t &cell = buf.cells_[i];
    const ArgValue *v = slot.arg >= 0 ? &args.values()[slot.arg] : nullptr;
    if (v && v->kind == ArgValue::Kind::Unset)
      argError(md, fmt::format("{} is not bound", describe(md.args[slot.arg])));
    switch (slot.kind) {
    case SlotKind::Data:
      cell = reinterpret_cast<uintptr_t>(v->tensor.data);
      break;
    case SlotKind::Size:
      cell = static_cast<uint64_t>(v->tensor.sizes[slot.dim]);
      break;
    case SlotKind::Peers:
      cell = reinterpret_cast<uintptr_t>(v->tensor.peers);
      break;
    case SlotKind::Scalar:
      if (slot.type == SlotType::I64) {
        cell = static_cast<uint64_t>(v->i);
      } else {
        float f = static_cast<float>(v->f);
        std::memcpy(&cell, &f, sizeof(f));
      }
      break;
    case SlotKind::Timeout:
      cell = static_cast<uint64_t>(hidden.timeoutNs);
      break;
    case SlotKind::Error:
      cell = reinterpret_cast<uintptr_t>(hidden.errorRecord);
      break;
    case SlotKind::State:
      if (md.stateBytes > 0 && !hidden.state)
        argError(md, "state_bytes > 0 but no state buffer");
      cell = reinterpret_cast<uintptr_t>(hidden.state);
      break;
    }
  }
  buf.pointers_.resize(buf.cells_.size());
  for (size_t i = 0; i < buf.cells_.size(); ++i)
    buf.pointers_[i] = &buf.cells_[i];
  return buf;
}

int64_t planGrid(const KernelMetadata &md, int64_t numTiles, int maxActivePerSm,
                 int numSms) {
  if (md.spins && static_cast<int64_t>(maxActivePerSm) * numSms < 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {}: spins but not one CTA of {} threads fits "
                      "on an SM (occupancy {} per SM, {} SMs)",
                      md.kernel, md.threadsPerCta(), maxActivePerSm, numSms));
  return planGridResident(md, numTiles,
                          static_cast<int64_t>(maxActivePerSm) * numSms);
}

int64_t planGridResident(const KernelMetadata &md, int64_t numTiles,
                         int64_t resident) {
  if (numTiles <= 0)
    return 0;
  int64_t grid = numTiles;
  if (md.spins) {
    if (resident < 1)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: spins but no CTA of {} threads fits on "
                        "the GPUs",
                        md.kernel, md.threadsPerCta()));
    grid = std::min(grid, resident);
  }
  // A kernel with per-CTA state (epochs) has room for max_ctas CTAs only.
  if (md.maxCtas)
    grid = std::min(grid, *md.maxCtas);
  return std::min<int64_t>(grid, std::numeric_limits<int32_t>::max());
}

} // namespace dslc::rt
