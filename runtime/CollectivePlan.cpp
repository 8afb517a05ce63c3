//===- CollectivePlan.cpp - Binding a collective kernel's args ----------===//
#include "runtime/CollectivePlan.h"

#include "contract/SimulationDump.h"
#include "contract/Sizing.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace dslc::rt {

CollectiveShape collectiveShape(CollectiveKind c, int64_t n, int world) {
  contract::Expected<CollectiveShape> s =
      contract::collectiveCounts(c, n, world);
  if (!s)
    raise(ErrorCode::InvalidArgument, s.error());
  return *s;
}

namespace {

[[noreturn]] void planError(const KernelMetadata &md, CollectiveKind c,
                            const std::string &what) {
  raise(ErrorCode::InvalidArgument,
        fmt::format("kernel {} as {}: {}", md.kernel, collectiveName(c), what));
}

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// The binding role of argument `a` (its metadata role), or an error.
Role bindingRole(const KernelMetadata &md, CollectiveKind c, const ArgSpec &a) {
  Role role = contract::bindingRole(a);
  if (role == Role::Scalar || role == Role::Constexpr || role == Role::Peers)
    planError(md, c,
              fmt::format("cannot bind {} parameter '{}' (role {}): a "
                          "collective binds tensors only",
                          argKindName(a), a.name, roleName(a.role)));
  return role;
}

/// Each argument's role; the one data input and output.
void assignRoles(const KernelMetadata &md, CollectivePlan &plan) {
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    ArgPlan &p = plan.args[i];
    p.dtype = a.dtype;
    p.rank = a.rank;
    p.role = bindingRole(md, plan.collective, a);
    if (p.role == Role::PeerTable) {
      p.tableOf = md.findArg(a.peerTableFor); // checked by the reader
      plan.args[p.tableOf].symmetric = true;
    }
    bool data = p.role == Role::Input || p.role == Role::Output;
    if (data && !isFloating(a.dtype))
      planError(md, plan.collective,
                fmt::format("{} '{}' is {}: a collective's data is floating",
                            contract::dumpRoleName(p.role), a.name,
                            dtypeName(a.dtype)));
    int &slot = p.role == Role::Input ? plan.input : plan.output;
    if (data && slot >= 0)
      planError(md, plan.collective,
                fmt::format("two data {}s, '{}' and '{}'",
                            contract::dumpRoleName(p.role), md.args[slot].name,
                            a.name));
    if (data)
      slot = static_cast<int>(i);
  }
  if (plan.input < 0)
    planError(md, plan.collective,
              "no data input (a floating tensor the kernel only reads)");
  if (plan.output < 0)
    planError(md, plan.collective,
              "no data output (a returned tensor, or a floating tensor the "
              "kernel only writes)");
}

/// Each argument's rank must be one the collective binds.
void checkRanks(const KernelMetadata &md, const CollectivePlan &plan) {
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    const ArgPlan &p = plan.args[i];
    auto needRank = [&](bool ok, const char *want) {
      if (!ok)
        planError(md, plan.collective,
                  fmt::format("{} '{}' has rank {}; a collective binds {}",
                              contract::dumpRoleName(p.role), a.name, a.rank,
                              want));
    };
    bool gather = plan.collective == CollectiveKind::AllGather;
    switch (p.role) {
    case Role::Input:
      needRank(a.rank == 1, "rank 1");
      break;
    case Role::Output:
      needRank(a.rank == 1 || (a.rank == 2 && gather),
               gather ? "rank 1 or 2 ([world, N / world])" : "rank 1");
      break;
    case Role::InOut:
      needRank(a.rank <= 2, "rank 1 (world * N) or 2 ([world, N])");
      break;
    case Role::Scratch:
      needRank(a.rank == 1, "rank 1");
      break;
    default:
      break;
    }
  }
}

} // namespace

std::vector<int64_t> CollectivePlan::sizesOf(int arg, int64_t n) const {
  const ArgPlan &p = args.at(arg);
  switch (p.role) {
  case Role::Input:
  case Role::Output:
    rt::collectiveShape(collective, n, world); // throws on a bad N
    return contract::collectiveArgShape(collective, p.role, p.rank, n, world);
  case Role::SignalPad:
  case Role::PeerTable:
    return shapes.at(arg);
  case Role::Scratch:
    return {static_cast<int64_t>(p.bytes / dtypeSize(p.dtype))};
  default:
    return contract::collectiveArgShape(collective, p.role, p.rank, n, world);
  }
}

size_t CollectivePlan::heapBytes() const {
  std::vector<size_t> bytes;
  for (const ArgPlan &p : args)
    if (p.inHeap)
      bytes.push_back(p.bytes);
  return contract::heapBytesFor(bytes, world);
}

CollectivePlan planCollective(const KernelMetadata &md, CollectiveKind c,
                              int world, int64_t maxN) {
  if (maxN < 1)
    planError(md, c, fmt::format("largest size {} is not positive", maxN));
  if (world < 1)
    planError(md, c, fmt::format("world size {} is not positive", world));
  CollectivePlan plan;
  plan.collective = c;
  plan.world = world;
  plan.maxN = maxN;
  plan.args.resize(md.args.size());
  plan.shapes.resize(md.args.size());
  assignRoles(md, plan);
  checkRanks(md, plan);
  plan.dtype = md.args[plan.input].dtype;
  if (md.args[plan.output].dtype != plan.dtype)
    planError(md, c,
              fmt::format("output '{}' is {}, but input '{}' is {}",
                          md.args[plan.output].name,
                          dtypeName(md.args[plan.output].dtype),
                          md.args[plan.input].name, dtypeName(plan.dtype)));
  // Sizes for the largest call (reduce_scatter / all_gather: rounded up to
  // a multiple of the world size).
  int64_t cap = c == CollectiveKind::AllReduce ? maxN : roundUp(maxN, world);
  int64_t tiles = numTilesWith(md, [&](const GridExtent &e) -> int64_t {
    int arg = e.param ? md.findArg(*e.param) : -1;
    if (arg < 0)
      planError(md, c,
                fmt::format("grid extent '{}' is not a tensor size",
                            e.param.value_or(e.scalar.value_or(""))));
    return plan.sizesOf(arg, cap)[e.dim];
  });
  plan.tiles = std::max<int64_t>(tiles, 1);
  for (size_t i = 0; i < md.args.size(); ++i) {
    ArgPlan &p = plan.args[i];
    if (p.role == Role::SignalPad || p.role == Role::PeerTable ||
        p.role == Role::Scratch) {
      contract::Expected<std::vector<int64_t>> shape =
          contract::commShape(md, static_cast<int>(i), world, plan.tiles);
      if (!shape)
        planError(md, c, shape.error());
      plan.shapes[i] = *shape;
    }
    if (p.role == Role::Scratch) {
      p.bytes = static_cast<size_t>(plan.shapes[i][0]) * dtypeSize(p.dtype);
      plan.shapes[i].clear();
    } else if (p.role != Role::PeerTable) {
      int64_t numel = 1;
      for (int64_t s : plan.sizesOf(static_cast<int>(i), cap))
        numel *= s;
      p.bytes =
          std::max<size_t>(static_cast<size_t>(numel) * dtypeSize(p.dtype), 16);
    }
    p.symmetric |= md.args[i].symmetric;
    p.inHeap =
        p.symmetric || (p.role != Role::Output && p.role != Role::PeerTable);
  }
  return plan;
}

void bindCollective(BoundArgs &a, const CollectivePlan &plan, int64_t n,
                    const std::vector<void *> &local,
                    const std::vector<void *> &peers, int rank) {
  const KernelMetadata &md = a.metadata();
  for (size_t j = 0; j < plan.args.size(); ++j) {
    int pos = static_cast<int>(j);
    a.setTensor(pos, planTensor(md, pos, plan.args[j].tableOf,
                                plan.sizesOf(pos, n), local, peers));
  }
  a.check(plan.world, rank);
}

TensorArg planTensor(const KernelMetadata &md, int arg, int tableOf,
                     std::vector<int64_t> sizes,
                     const std::vector<void *> &local,
                     const std::vector<void *> &peers) {
  TensorArg t;
  t.dtype = md.args[arg].dtype;
  t.sizes = std::move(sizes);
  if (md.args[arg].role == Role::PeerTable) {
    t.data = peers.at(tableOf);
  } else {
    t.data = local.at(arg);
    if (md.args[arg].symmetric)
      t.peers = peers.at(arg);
  }
  return t;
}

} // namespace dslc::rt
