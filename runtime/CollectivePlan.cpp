//===- CollectivePlan.cpp - Binding a collective kernel's args ----------===//
#include "runtime/CollectivePlan.h"

#include "contract/Sizing.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace dslc::rt {

const char *collectiveName(CollectiveKind c) {
  switch (c) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllGather:
    return "all_gather";
  }
  return "?";
}

std::optional<CollectiveKind> parseCollective(const std::string &name) {
  std::string s;
  for (char ch : name)
    if (ch != '_' && ch != '-')
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (CollectiveKind c :
       {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
        CollectiveKind::AllGather}) {
    std::string want;
    for (const char *p = collectiveName(c); *p; ++p)
      if (*p != '_')
        want += *p;
    if (s == want)
      return c;
  }
  return std::nullopt;
}

CollectiveShape collectiveShape(CollectiveKind c, int64_t n, int world) {
  if (n < 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{}: size {} is not positive", collectiveName(c), n));
  CollectiveShape s;
  s.total = n;
  if (c == CollectiveKind::AllReduce) {
    s.input = s.output = n;
    return s;
  }
  if (n % world != 0)
    raise(
        ErrorCode::InvalidArgument,
        fmt::format("{}: size {} is not a multiple of the world size {} "
                    "(N is the total element count: every rank {} N / "
                    "world elements)",
                    collectiveName(c), n, world,
                    c == CollectiveKind::ReduceScatter ? "receives" : "sends"));
  s.input = c == CollectiveKind::ReduceScatter ? n : n / world;
  s.output = c == CollectiveKind::ReduceScatter ? n / world : n;
  return s;
}

const char *argRoleName(ArgRole role) {
  switch (role) {
  case ArgRole::Input:
    return "input";
  case ArgRole::Output:
    return "output";
  case ArgRole::Workspace:
    return "workspace";
  case ArgRole::SignalPad:
    return "signal pad";
  case ArgRole::PeerTable:
    return "peer table";
  case ArgRole::PacketScratch:
    return "packet scratch";
  case ArgRole::Unused:
    return "unused";
  }
  return "?";
}

namespace {

[[noreturn]] void planError(const KernelMetadata &md, CollectiveKind c,
                            const std::string &what) {
  raise(ErrorCode::InvalidArgument,
        fmt::format("kernel {} as {}: {}", md.kernel, collectiveName(c), what));
}

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// The binding role of argument `a` (its metadata role), or an error.
ArgRole bindingRole(const KernelMetadata &md, CollectiveKind c,
                    const ArgSpec &a) {
  switch (a.role) {
  case Role::Input:
    return ArgRole::Input;
  case Role::Output:
    return ArgRole::Output;
  case Role::InOut:
    return ArgRole::Workspace;
  case Role::SignalPad:
    return ArgRole::SignalPad;
  case Role::PeerTable:
    return ArgRole::PeerTable;
  case Role::Scratch:
    return ArgRole::PacketScratch;
  case Role::Unused:
    return ArgRole::Unused;
  default:
    planError(md, c,
              fmt::format("cannot bind {} parameter '{}' (role {}): a "
                          "collective binds tensors only",
                          argKindName(a), a.name, roleName(a.role)));
  }
}

/// Each argument's role; the one data input and output.
void assignRoles(const KernelMetadata &md, CollectivePlan &plan) {
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    ArgPlan &p = plan.args[i];
    p.dtype = a.dtype;
    p.rank = a.rank;
    p.role = bindingRole(md, plan.collective, a);
    if (p.role == ArgRole::PeerTable) {
      p.tableOf = md.findArg(a.peerTableFor); // checked by the reader
      plan.args[p.tableOf].symmetric = true;
    }
    bool data = p.role == ArgRole::Input || p.role == ArgRole::Output;
    if (data && !isFloating(a.dtype))
      planError(md, plan.collective,
                fmt::format("{} '{}' is {}: a collective's data is floating",
                            argRoleName(p.role), a.name, dtypeName(a.dtype)));
    int &slot = p.role == ArgRole::Input ? plan.input : plan.output;
    if (data && slot >= 0)
      planError(md, plan.collective,
                fmt::format("two data {}s, '{}' and '{}'", argRoleName(p.role),
                            md.args[slot].name, a.name));
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
                              argRoleName(p.role), a.name, a.rank, want));
    };
    bool gather = plan.collective == CollectiveKind::AllGather;
    switch (p.role) {
    case ArgRole::Input:
      needRank(a.rank == 1, "rank 1");
      break;
    case ArgRole::Output:
      needRank(a.rank == 1 || (a.rank == 2 && gather),
               gather ? "rank 1 or 2 ([world, N / world])" : "rank 1");
      break;
    case ArgRole::Workspace:
      needRank(a.rank <= 2, "rank 1 (world * N) or 2 ([world, N])");
      break;
    case ArgRole::PacketScratch:
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
  case ArgRole::Input:
    return {collectiveShape(collective, n, world).input};
  case ArgRole::Output: {
    int64_t out = collectiveShape(collective, n, world).output;
    if (p.rank == 2)
      return {world, out / world};
    return {out};
  }
  case ArgRole::Workspace:
    if (p.rank == 2)
      return {world, n};
    return {world * n};
  case ArgRole::SignalPad:
  case ArgRole::PeerTable:
    return shapes.at(arg);
  case ArgRole::PacketScratch:
    return {static_cast<int64_t>(p.bytes / dtypeSize(p.dtype))};
  case ArgRole::Unused:
    return std::vector<int64_t>(p.rank, 1);
  }
  return {};
}

size_t CollectivePlan::heapBytes() const {
  size_t bytes = size_t(4) << 20; // slack: peer tables, alignment
  for (const ArgPlan &p : args)
    if (p.inHeap)
      bytes +=
          static_cast<size_t>(roundUp(static_cast<int64_t>(p.bytes), 256)) +
          static_cast<size_t>(roundUp(world * 8, 256));
  return bytes;
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
    if (p.role == ArgRole::SignalPad)
      plan.shapes[i] = contract::constrainedShape(md, static_cast<int>(i),
                                                  world, plan.tiles);
    if (p.role == ArgRole::PeerTable)
      plan.shapes[i] = {world};
    if (p.role == ArgRole::PacketScratch) {
      contract::Expected<int64_t> bytes =
          contract::llScratchBytes(md, static_cast<int>(i), world, plan.tiles);
      if (!bytes)
        planError(md, c, bytes.error());
      p.bytes = static_cast<size_t>(*bytes);
    } else if (p.role != ArgRole::PeerTable) {
      int64_t numel = 1;
      for (int64_t s : plan.sizesOf(static_cast<int>(i), cap))
        numel *= s;
      p.bytes =
          std::max<size_t>(static_cast<size_t>(numel) * dtypeSize(p.dtype), 16);
    }
    p.symmetric |= md.args[i].symmetric;
    p.inHeap = p.symmetric ||
               (p.role != ArgRole::Output && p.role != ArgRole::PeerTable);
  }
  return plan;
}

void bindCollective(BoundArgs &a, const CollectivePlan &plan, int64_t n,
                    const std::vector<void *> &local,
                    const std::vector<void *> &peers, int rank) {
  const KernelMetadata &md = a.metadata();
  for (size_t j = 0; j < plan.args.size(); ++j) {
    const ArgPlan &p = plan.args[j];
    TensorArg t;
    t.dtype = md.args[j].dtype;
    t.sizes = plan.sizesOf(static_cast<int>(j), n);
    if (p.role == ArgRole::PeerTable) {
      t.data = peers.at(p.tableOf);
    } else {
      t.data = local.at(j);
      if (md.args[j].symmetric)
        t.peers = peers.at(j);
    }
    a.setTensor(static_cast<int>(j), t);
  }
  a.check(plan.world, rank);
}

} // namespace dslc::rt
