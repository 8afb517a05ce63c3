//===- Collectives.cpp - Tuned collectives with an NCCL fallback ----------===//
#include "runtime/Collectives.h"

#include "contract/Candidates.h"
#include "runtime/Binding.h"
#include "runtime/Error.h"
#include "runtime/Hierarchical.h"
#include "runtime/Kernel.h"
#include "runtime/Metadata.h"
#include "runtime/NcclTypes.h"
#include "runtime/SymmetricHeap.h"

#include <fmt/format.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace dslc::rt {

std::optional<ReduceOp> parseReduceOp(const std::string &name) {
  if (name == "sum")
    return ReduceOp::Sum;
  if (name == "prod")
    return ReduceOp::Prod;
  if (name == "max")
    return ReduceOp::Max;
  if (name == "min")
    return ReduceOp::Min;
  if (name == "avg")
    return ReduceOp::Avg;
  return std::nullopt;
}

const char *dispatchKindName(DispatchChoice::Kind k) {
  switch (k) {
  case DispatchChoice::Kind::Nccl:
    return "nccl";
  case DispatchChoice::Kind::Kernel:
    return "kernel";
  case DispatchChoice::Kind::Hierarchical:
    return "hierarchical";
  }
  return "nccl";
}

std::string Collectives::CallRecord::describe() const {
  return fmt::format("{} {} of {}: {} ({})", collectiveName(kind),
                     dtypeName(dtype), totalCount, dispatchKindName(path),
                     reason);
}

std::string cudaVersionString(int driverVersion, int runtimeVersion) {
  auto v = [](int x) {
    return fmt::format("{}.{}", x / 1000, (x % 1000) / 10);
  };
  return fmt::format("cuda {} driver, {} runtime", v(driverVersion),
                     v(runtimeVersion));
}

DispatchChoice decideDispatch(const std::optional<TuningValue> &entry,
                              ReduceOp op, size_t totalBytes,
                              size_t stagingBytes, bool cubinFound,
                              const std::string &kernelDir) {
  DispatchChoice c;
  if (op != ReduceOp::Sum) {
    c.reason = "the op is not a sum (the kernels sum)";
    return c;
  }
  if (!entry) {
    c.reason = "not tuned for this size bucket";
    return c;
  }
  if (entry->pick.us <= 0 || entry->pick.cubin.empty()) {
    c.reason = "the cache entry names no kernel";
    return c;
  }
  if (entry->ncclWins()) {
    c.reason = fmt::format("NCCL measured faster ({:.2f} us vs {} {:.2f} us)",
                           entry->ncclUs, entry->pick.kernel, entry->pick.us);
    return c;
  }
  // Half the staging: the input copy and the kernel's pads / scratch.
  if (totalBytes > stagingBytes / 2) {
    c.reason = fmt::format("{} bytes do not fit the staging buffer ({} "
                           "bytes per rank)",
                           totalBytes, stagingBytes);
    return c;
  }
  if (!cubinFound) {
    c.reason = fmt::format("the tuned cubin {} is not in {}", entry->pick.cubin,
                           kernelDir);
    return c;
  }
  c.kind = DispatchChoice::Kind::Kernel;
  c.kernel = entry->pick;
  c.kernelDir = kernelDir;
  c.reason = fmt::format("tuned: {} {} ({:.2f} us, NCCL {:.2f} us)",
                         entry->pick.kernel, entry->pick.config.brief(),
                         entry->pick.us, entry->ncclUs);
  return c;
}

std::optional<KernelDirInfo> readKernelDir(const std::string &dir) {
  std::string path = contract::manifestFile(dir);
  std::string text;
  try {
    text = readFile(path);
  } catch (const Error &) {
    std::fprintf(stderr,
                 "dslc: warning: kernel directory %s has no "
                 "manifest.json (made by tuner compile); ignored\n",
                 dir.c_str());
    return std::nullopt;
  }
  contract::Expected<contract::CandidatesManifest> m =
      contract::readCandidatesManifest(text, path);
  if (!m) {
    std::fprintf(stderr, "dslc: warning: %s; kernel directory ignored\n",
                 m.error().c_str());
    return std::nullopt;
  }
  KernelDirInfo k;
  k.dir = dir;
  k.collective = m->collective;
  k.dtype = m->dtype;
  k.set = m->set;
  k.worldSize = m->worldSize;
  k.hierarchy = m->hierarchy;
  return k;
}

ncclDataType_t ncclType(DType t) {
  switch (t) {
  case DType::BFloat16:
    return ncclBfloat16;
  case DType::Float16:
    return ncclFloat16;
  case DType::Float32:
    return ncclFloat32;
  case DType::Float64:
    return ncclFloat64;
  case DType::Int8:
    return ncclInt8;
  case DType::UInt8:
  case DType::Bool:
    return ncclUint8;
  case DType::Int32:
    return ncclInt32;
  case DType::UInt32:
    return ncclUint32;
  case DType::Int64:
    return ncclInt64;
  case DType::UInt64:
    return ncclUint64;
  case DType::Int16:
  case DType::Float8E4M3FN:
  case DType::Float8E5M2:
    break;
  }
  raise(ErrorCode::InvalidArgument,
        fmt::format("collectives: NCCL has no {} type", dtypeName(t)));
}

ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return ncclSum;
  case ReduceOp::Prod:
    return ncclProd;
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Min:
    return ncclMin;
  case ReduceOp::Avg:
    return ncclAvg;
  }
  return ncclSum;
}

namespace {
size_t envSize(const char *name, size_t fallback) {
  if (const char *v = std::getenv(name); v && *v)
    return static_cast<size_t>(std::strtoull(v, nullptr, 10));
  return fallback;
}

std::vector<std::string> splitDirs(const std::string &s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(':', pos);
    std::string d = s.substr(pos, c == std::string::npos ? c : c - pos);
    if (!d.empty())
      out.push_back(d);
    if (c == std::string::npos)
      break;
    pos = c + 1;
  }
  return out;
}

std::mutex defaultsMutex;
std::map<Communicator *, std::unique_ptr<Collectives>> defaults;
} // namespace

/// One kernel bound for one collective, dtype and element count.
struct Collectives::Instance {
  std::unique_ptr<Kernel> kernel;
  CollectivePlan plan;         ///< for exactly this element count
  std::vector<BoundArgs> args; ///< per local rank
  int input = -1, output = -1;
  bool inputSymmetric = false, outputSymmetric = false;
  std::vector<int64_t> inSizes, outSizes;
  size_t inBytes = 0, outBytes = 0;
  SymmetricBuffer inBuf, outBuf;
  std::vector<SymmetricBuffer> owned; ///< pads, scratch, workspaces
  std::string failure;                ///< non-empty: unusable, go to NCCL
};

Collectives::Collectives(Communicator &comm, CollectivesOptions opts)
    : comm_(comm), opts_(std::move(opts)) {
  if (opts_.kernelDirs.empty())
    if (const char *d = std::getenv("DSLC_KERNEL_DIR"))
      opts_.kernelDirs = d;
  if (opts_.stagingBytes == 0)
    opts_.stagingBytes = envSize("DSLC_STAGING_BYTES", size_t(256) << 20);
  if (const char *l = std::getenv("DSLC_COLLECTIVES_LOG");
      l && (std::string(l) == "1" || std::string(l) == "info"))
    opts_.log = true;
  for (const std::string &d : splitDirs(opts_.kernelDirs))
    if (auto k = readKernelDir(d))
      dirs_.push_back(*k);
  try {
    records_ = TuningCache(opts_.cacheDir).load();
  } catch (const Error &e) {
    // No cache directory: nothing is tuned, every call goes to NCCL.
    std::fprintf(stderr, "dslc: warning: collectives: %s\n", e.what());
  }
  const LocalRank &l = comm.local(0);
  cudaDeviceProp prop{};
  DSLC_CUDART(l.rank, cudaGetDeviceProperties(&prop, l.device));
  int drv = 0, rtv = 0;
  DSLC_CUDART(l.rank, cudaDriverGetVersion(&drv));
  DSLC_CUDART(l.rank, cudaRuntimeGetVersion(&rtv));
  device_ = contract::tuningDeviceName(prop.name, comm.isVirtual());
  driver_ = cudaVersionString(drv, rtv);
  // A world that spans nodes runs no kernel of its own (its peer tables
  // would need ranks of other nodes): hierarchical or NCCL.
  const RankTeams &teams = comm.teams(0);
  bool spans = teams.known() && !teams.wholeWorld();
  if (spans) {
    HierarchyMode mode = hierarchyModeFromEnv();
    std::string world =
        fmt::format("{} nodes of {} rank(s)", teams.numNodes(), teams.lsaSize);
    if (mode == HierarchyMode::Off)
      flatReason_ = world + "; DSLC_HIERARCHICAL=off";
    else if (comm.numLocal() != 1)
      flatReason_ = world + "; one process drives several ranks (the "
                            "hierarchical path needs one per process)";
    else
      hier_ = std::make_unique<Hierarchy>(comm, opts_, mode);
  }
  if (opts_.log)
    std::fprintf(stderr, "dslc: collectives: %s; %s\n",
                 teams.describe().c_str(),
                 hier_   ? fmt::format("hierarchical mode {}",
                                       hierarchyModeName(hier_->mode()))
                               .c_str()
                 : spans ? flatReason_.c_str()
                         : "kernels run on the whole world");
  if (!dirs_.empty() && !spans)
    heap_ = std::make_unique<SymmetricHeap>(comm, opts_.stagingBytes);
}

Collectives::~Collectives() {
  // Kernels and buffers before the heap; nothing may still run.
  for (auto &[key, inst] : instances_)
    if (inst)
      inst->kernel.reset();
  instances_.clear();
  hier_.reset();
  heap_.reset();
}

DispatchChoice Collectives::choose(CollectiveKind kind, size_t totalCount,
                                   DType dtype, ReduceOp op) const {
  if (hier_)
    return hier_->choose(kind, totalCount, dtype, op);
  if (!flatReason_.empty()) {
    DispatchChoice c;
    c.reason = flatReason_;
    return c;
  }
  std::string coll = collectiveName(kind);
  size_t bytes = totalCount * dtypeSize(dtype);
  for (const KernelDirInfo &d : dirs_) {
    if (d.collective != coll || d.dtype != dtypeName(dtype) ||
        d.worldSize != comm_.worldSize())
      continue;
    TuningKey key{coll,
                  d.set,
                  device_,
                  driver_,
                  comm_.worldSize(),
                  dtypeName(dtype),
                  sizeBucket(static_cast<int64_t>(totalCount))};
    std::optional<TuningValue> entry;
    for (const TuningRecord &r : records_)
      if (r.key == key)
        entry = r.value;
    bool found = false;
    if (entry && !entry->pick.cubin.empty()) {
      std::string p = expandRankPattern(d.dir + "/" + entry->pick.cubin,
                                        comm_.local(0).rank);
      found = access(p.c_str(), R_OK) == 0;
    }
    if (entry)
      return decideDispatch(entry, op, bytes, heap_ ? opts_.stagingBytes : 0,
                            found, d.dir);
  }
  DispatchChoice c;
  c.reason = dirs_.empty() ? "no kernel directory ($DSLC_KERNEL_DIR)"
                           : "not tuned for this size bucket";
  if (op != ReduceOp::Sum)
    c.reason = "the op is not a sum (the kernels sum)";
  return c;
}

Collectives::Instance *Collectives::instance(const DispatchChoice &c,
                                             CollectiveKind kind,
                                             size_t totalCount, DType dtype,
                                             bool mayCreate) {
  std::string key = fmt::format(
      "{}|{}|{}|{}|{}|{}", c.kernelDir, c.kernel.cubin, c.kernel.config.maxCtas,
      collectiveName(kind), totalCount, dtypeName(dtype));
  auto it = instances_.find(key);
  if (it != instances_.end())
    return it->second->failure.empty() ? it->second.get() : nullptr;
  if (!mayCreate || static_cast<int>(instances_.size()) >= opts_.maxInstances)
    return nullptr;
  auto inst = std::make_unique<Instance>();
  try {
    setUp(*inst, c, kind, totalCount, dtype);
  } catch (const Error &e) {
    inst->failure = e.what();
    std::fprintf(stderr,
                 "dslc: warning: collectives: %s for %zu elements: %s; "
                 "using NCCL\n",
                 c.kernel.kernel.c_str(), totalCount, e.what());
    if (e.code() != ErrorCode::InvalidArgument &&
        e.code() != ErrorCode::Metadata && e.code() != ErrorCode::Io &&
        e.code() != ErrorCode::OutOfMemory)
      throw;
  }
  Instance *ptr = inst->failure.empty() ? inst.get() : nullptr;
  instances_[key] = std::move(inst);
  return ptr;
}

/// Loads the kernel, plans its binding for exactly `totalCount` elements,
/// allocates the staging input (and output when symmetric), the pads,
/// scratch and workspaces (zeroed, symmetric) and binds every local rank.
void Collectives::setUp(Instance &inst, const DispatchChoice &c,
                        CollectiveKind kind, size_t totalCount, DType dtype) {
  int64_t n = static_cast<int64_t>(totalCount);
  std::vector<std::string> images;
  std::vector<KernelMetadata> mds;
  for (int i = 0; i < comm_.numLocal(); ++i) {
    std::string path = expandRankPattern(c.kernelDir + "/" + c.kernel.cubin,
                                         comm_.local(i).rank);
    images.push_back(readFile(path));
    KernelMetadata md = loadMetadataFile(path + ".json");
    if (c.kernel.config.maxCtas > 0)
      md.maxCtas = md.maxCtas ? std::min(*md.maxCtas, c.kernel.config.maxCtas)
                              : c.kernel.config.maxCtas;
    mds.push_back(std::move(md));
  }
  KernelOptions ko;
  ko.timeoutMs = opts_.timeoutMs;
  inst.kernel = Kernel::loadImages(comm_, images, mds, ko);
  const KernelMetadata &md = inst.kernel->metadata(0);
  inst.plan = planCollective(md, kind, comm_.worldSize(), n);
  const CollectivePlan &plan = inst.plan;
  if (plan.dtype != dtype)
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {}: its data is {}, the call's {}", md.kernel,
                      dtypeName(plan.dtype), dtypeName(dtype)));
  inst.input = plan.input;
  inst.output = plan.output;
  inst.inputSymmetric = plan.args[plan.input].symmetric;
  inst.outputSymmetric = plan.args[plan.output].symmetric;
  inst.inSizes = plan.sizesOf(plan.input, n);
  inst.outSizes = plan.sizesOf(plan.output, n);
  // The bytes a call copies in and out (the buffers may be larger).
  auto bytesOf = [&](const std::vector<int64_t> &sizes) {
    size_t numel = 1;
    for (int64_t d : sizes)
      numel *= static_cast<size_t>(d);
    return numel * dtypeSize(dtype);
  };
  inst.inBytes = bytesOf(inst.inSizes);
  inst.outBytes = bytesOf(inst.outSizes);
  // The staging input stands in for the user's buffers until a call binds
  // them; the other buffers are the instance's own.
  std::vector<SymmetricBuffer> bufs(plan.args.size());
  for (size_t j = 0; j < plan.args.size(); ++j) {
    const ArgPlan &p = plan.args[j];
    if (p.role == Role::PeerTable ||
        (static_cast<int>(j) == plan.output && !p.symmetric))
      continue;
    if (p.role == Role::Input || p.role == Role::Output) {
      bufs[j] = heap_->alloc(p.bytes, 256);
      (p.role == Role::Input ? inst.inBuf : inst.outBuf) = bufs[j];
    } else {
      // Pads, scratch and workspaces start zeroed on every rank.
      bufs[j] = heap_->allocSignalPad(p.bytes);
      inst.owned.push_back(bufs[j]);
    }
  }
  for (int i = 0; i < comm_.numLocal(); ++i) {
    std::vector<void *> local(plan.args.size()), peers(plan.args.size());
    for (size_t j = 0; j < plan.args.size(); ++j)
      if (bufs[j].valid()) {
        local[j] = bufs[j].local[i];
        peers[j] = bufs[j].peers[i];
      }
    if (!inst.outputSymmetric)
      local[plan.output] = inst.inBuf.local[i];
    BoundArgs b = inst.kernel->args(i);
    bindCollective(b, plan, n, local, peers, comm_.local(i).rank);
    inst.args.push_back(std::move(b));
  }
}

void Collectives::prepare(CollectiveKind kind,
                          const std::vector<size_t> &totalCounts, DType dtype,
                          ReduceOp op) {
  for (size_t n : totalCounts) {
    DispatchChoice c = choose(kind, n, dtype, op);
    if (c.kind == DispatchChoice::Kind::Hierarchical)
      hier_->prepare(kind, {n}, dtype, op);
    if (c.kind == DispatchChoice::Kind::Kernel)
      instance(c, kind, n, dtype, true);
  }
}

void Collectives::nccl(CollectiveKind kind, int local, const void *send,
                       void *recv, size_t totalCount, DType dtype, ReduceOp op,
                       cudaStream_t stream) {
  const LocalRank &l = comm_.local(local);
  size_t world = static_cast<size_t>(comm_.worldSize());
  if (comm_.isVirtual())
    raise(ErrorCode::InvalidArgument,
          fmt::format("collectives: {} {} of {} elements would go to "
                      "NCCL, but a virtual world (every rank on one GPU) has "
                      "no NCCL communicator: no dslc kernel takes this call "
                      "(choice: {})",
                      collectiveName(kind), dtypeName(dtype), totalCount,
                      choose(kind, totalCount, dtype, op).reason));
  switch (kind) {
  case CollectiveKind::AllReduce:
    DSLC_NCCL(l.rank, ncclAllReduce(send, recv, totalCount, ncclType(dtype),
                                    ncclOp(op), l.comm, stream));
    break;
  case CollectiveKind::ReduceScatter:
    DSLC_NCCL(l.rank,
              ncclReduceScatter(send, recv, totalCount / world, ncclType(dtype),
                                ncclOp(op), l.comm, stream));
    break;
  case CollectiveKind::AllGather:
    DSLC_NCCL(l.rank, ncclAllGather(send, recv, totalCount / world,
                                    ncclType(dtype), l.comm, stream));
    break;
  }
  // Non-blocking communicators: the call is enqueued once NCCL says so.
  comm_.settle(
      fmt::format("nccl {} of {} elements", collectiveName(kind), totalCount));
  ++ncclCalls_;
}

void Collectives::run(CollectiveKind kind, int local, const void *send,
                      void *recv, size_t totalCount, DType dtype, ReduceOp op,
                      cudaStream_t stream) {
  if (local < 0 || local >= comm_.numLocal())
    raise(ErrorCode::InvalidArgument,
          fmt::format("collectives: local rank {} outside 0..{}", local,
                      comm_.numLocal() - 1));
  if (totalCount == 0)
    return;
  const LocalRank &l = comm_.local(local);
  stream = l.resolve(stream);
  DispatchChoice c = choose(kind, totalCount, dtype, op);
  if (c.kind == DispatchChoice::Kind::Hierarchical) {
    if (hier_->run(kind, send, recv, totalCount, dtype, op, stream)) {
      ++hierarchicalCalls_;
      note(kind, totalCount, dtype, c.kind, c.reason);
      return;
    }
    c.kind = DispatchChoice::Kind::Nccl;
    c.reason = "not prepared (capturing: call prepare() first); " + c.reason;
  }
  Instance *inst = nullptr;
  if (c.kind == DispatchChoice::Kind::Kernel) {
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    DSLC_CUDART(l.rank, cudaStreamIsCapturing(stream, &cap));
    bool mayCreate =
        cap == cudaStreamCaptureStatusNone && comm_.numLocal() == 1;
    inst = instance(c, kind, totalCount, dtype, mayCreate);
    if (!inst)
      c.reason = mayCreate ? "the kernel could not be set up (see above)"
                           : "not prepared (capturing, or several GPUs per "
                             "thread: call prepare() first)";
  }
  if (!inst) {
    nccl(kind, local, send, recv, totalCount, dtype, op, stream);
    note(kind, totalCount, dtype, DispatchChoice::Kind::Nccl, c.reason);
    return;
  }
  BoundArgs &b = inst->args[local];
  uintptr_t sp = reinterpret_cast<uintptr_t>(send);
  uintptr_t rp = reinterpret_cast<uintptr_t>(recv);
  bool stage =
      inst->inputSymmetric || send == recv || sp % kPointerAlignment != 0;
  if (!inst->outputSymmetric && rp % kPointerAlignment != 0) {
    nccl(kind, local, send, recv, totalCount, dtype, op, stream);
    note(kind, totalCount, dtype, DispatchChoice::Kind::Nccl,
         "the output is not 16-byte aligned");
    return;
  }
  if (stage) {
    DSLC_CUDART(l.rank,
                cudaMemcpyAsync(inst->inBuf.local[local], send, inst->inBytes,
                                cudaMemcpyDeviceToDevice, stream));
    b.setTensor(inst->input, inst->inBuf.tensor(local, dtype, inst->inSizes,
                                                inst->inputSymmetric));
  } else {
    b.setTensor(inst->input, {const_cast<void *>(send), dtype, inst->inSizes});
  }
  if (!inst->outputSymmetric)
    b.setTensor(inst->output, {recv, dtype, inst->outSizes});
  inst->kernel->launch(local, b, stream);
  if (inst->outputSymmetric)
    DSLC_CUDART(l.rank,
                cudaMemcpyAsync(recv, inst->outBuf.local[local], inst->outBytes,
                                cudaMemcpyDeviceToDevice, stream));
  ++kernelCalls_;
  note(kind, totalCount, dtype, DispatchChoice::Kind::Kernel, c.reason);
}

void Collectives::note(CollectiveKind kind, size_t totalCount, DType dtype,
                       DispatchChoice::Kind path, const std::string &reason) {
  CallRecord r{kind, totalCount, dtype, path, reason};
  if (opts_.log) {
    std::string key =
        fmt::format("{}|{}|{}|{}", collectiveName(kind), totalCount,
                    dtypeName(dtype), dispatchKindName(path));
    if (!logged_[key]) {
      logged_[key] = true;
      std::fprintf(stderr, "dslc: %s\n", r.describe().c_str());
    }
  }
  lastCall_ = std::move(r);
}

void Collectives::allReduce(int local, const void *send, void *recv,
                            size_t count, DType dtype, ReduceOp op,
                            cudaStream_t stream) {
  run(CollectiveKind::AllReduce, local, send, recv, count, dtype, op, stream);
}

void Collectives::reduceScatter(int local, const void *send, void *recv,
                                size_t recvCount, DType dtype, ReduceOp op,
                                cudaStream_t stream) {
  run(CollectiveKind::ReduceScatter, local, send, recv,
      recvCount * static_cast<size_t>(comm_.worldSize()), dtype, op, stream);
}

void Collectives::allGather(int local, const void *send, void *recv,
                            size_t sendCount, DType dtype,
                            cudaStream_t stream) {
  run(CollectiveKind::AllGather, local, send, recv,
      sendCount * static_cast<size_t>(comm_.worldSize()), dtype, ReduceOp::Sum,
      stream);
}

Collectives &Collectives::forComm(Communicator &comm) {
  std::lock_guard<std::mutex> lock(defaultsMutex);
  auto &slot = defaults[&comm];
  if (!slot)
    slot = std::make_unique<Collectives>(comm);
  return *slot;
}

void Collectives::releaseDefault(Communicator &comm) {
  std::lock_guard<std::mutex> lock(defaultsMutex);
  defaults.erase(&comm);
}

void allReduce(Communicator &comm, const void *send, void *recv, size_t count,
               DType dtype, ReduceOp op, cudaStream_t stream, int local) {
  Collectives::forComm(comm).allReduce(local, send, recv, count, dtype, op,
                                       stream);
}

void reduceScatter(Communicator &comm, const void *send, void *recv,
                   size_t recvCount, DType dtype, ReduceOp op,
                   cudaStream_t stream, int local) {
  Collectives::forComm(comm).reduceScatter(local, send, recv, recvCount, dtype,
                                           op, stream);
}

void allGather(Communicator &comm, const void *send, void *recv,
               size_t sendCount, DType dtype, cudaStream_t stream, int local) {
  Collectives::forComm(comm).allGather(local, send, recv, sendCount, dtype,
                                       stream);
}

} // namespace dslc::rt
