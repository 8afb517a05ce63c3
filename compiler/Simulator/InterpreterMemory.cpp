//===- InterpreterMemory.cpp - Tile loads and stores ----------------------===//
//
// tile.load / tile.store / comm.multicast_store / comm.multicast_load_reduce:
// element indices under the masks, bounds checks, and the ordering hazards
// of data accesses between signals and waits.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

void Interpreter::noteDataAccess(Task &task, Operation &op) {
  task.accessSinceBarrier = true;
  task.accessSinceRelease = true;
  if (task.noBarrierWait) {
    reporter.warning(
        "nobarrier@" + where(task.noBarrierWait),
        where(&op) + ": " + who(task) +
            ": this memory access follows the wait at " +
            where(task.noBarrierWait) +
            " (hasSubsequentMemAccess=False) with no barrier in between: "
            "threads that did not wait may access memory before the flag "
            "arrived");
    task.noBarrierWait = nullptr;
  }
  if (task.relaxedWait) {
    reporter.warning("relaxed@" + where(task.relaxedWait),
                     where(&op) + ": " + who(task) +
                         ": this memory access follows the relaxed wait at " +
                         where(task.relaxedWait) +
                         " (no acquire): it may see data older than the flag");
    task.relaxedWait = nullptr;
  }
}

void Interpreter::checkRaces(Task &task, Operation &op, Buffer &b,
                             const std::vector<int64_t> &indices, bool write) {
  if (b.role == Role::SignalPad || b.role == Role::PeerTable)
    return; // atomics and host-written tables
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t idx : indices) {
    if (idx < 0)
      continue;
    if (!runs.empty() && runs.back().second == idx)
      ++runs.back().second;
    else
      runs.push_back({idx, idx + 1});
  }
  world.races->access(task.clock, b, runs, write, &op);
}

bool Interpreter::elementIndices(Task &task, Operation &op, const RefVal &ref,
                                 const std::vector<int64_t> &offsets,
                                 const std::vector<int64_t> &limits,
                                 ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> shape,
                                 std::vector<int64_t> &indices) {
  unsigned rank = ref.sizes.size();
  std::vector<int> tileDimOf(rank, -1);
  for (auto [k, d] : llvm::enumerate(dims))
    tileDimOf[d] = static_cast<int>(k);
  // A dimension indexed by a scalar: outside the tensor is a bug, not a tail.
  for (unsigned d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || (tileDimOf[d] < 0 && offsets[d] >= ref.sizes[d])) {
      fail(task, op,
           "out-of-bounds access to '" + ref.buffer->name + "' of rank " +
               std::to_string(ref.buffer->rank) + ": index " +
               std::to_string(offsets[d]) + " of dimension " +
               std::to_string(d) + " is outside [0, " +
               std::to_string(ref.sizes[d]) + ")");
      return false;
    }
  }
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  indices.assign(n, -1);
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = int64_t(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * ref.sizes[d + 1];
  // Fast path: one tile dimension.
  if (dims.size() == 1) {
    unsigned d = dims[0];
    int64_t base = 0;
    for (unsigned e = 0; e < rank; ++e)
      base += offsets[e] * strides[e];
    int64_t end = std::min(limits[d], ref.sizes[d]);
    for (int64_t k = 0; k < n && offsets[d] + k < end; ++k)
      indices[k] = base + k * strides[d];
    for (unsigned e = 0; e < rank; ++e)
      if (e != d && offsets[e] >= std::min(limits[e], ref.sizes[e]))
        std::fill(indices.begin(), indices.end(), -1);
    return true;
  }
  std::vector<int64_t> e(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0;
    bool masked = false;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t idx = offsets[d] + (tileDimOf[d] >= 0 ? e[tileDimOf[d]] : 0);
      if (idx >= limits[d] || idx >= ref.sizes[d])
        masked = true;
      flat += idx * strides[d];
    }
    indices[k] = masked ? -1 : flat;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++e[d] < shape[d])
        break;
      e[d] = 0;
    }
  }
  return true;
}

bool Interpreter::loadTile(Task &task, Operation &op, const RefVal &ref,
                           const std::vector<int64_t> &offsets,
                           const std::vector<int64_t> &limits,
                           ArrayRef<int64_t> dims, TileVal &out, double otherF,
                           int64_t otherI) {
  std::vector<int64_t> indices;
  if (!elementIndices(task, op, ref, offsets, limits, dims, out.shape, indices))
    return false;
  loadIndices(task, op, ref, indices, out, otherF, otherI);
  return true;
}

void Interpreter::loadIndices(Task &task, Operation &op, const RefVal &ref,
                              const std::vector<int64_t> &indices, TileVal &out,
                              double otherF, int64_t otherI) {
  Buffer &b = *ref.buffer;
  if (b.role == Role::Input && b.generation != task.call) {
    std::string held =
        b.generation < 0 ? "nothing yet (its kernel has not started)"
                         : "the data of launch " + std::to_string(b.generation);
    reporter.error("race@" + where(&op) + "@" + std::to_string(b.rank),
                   where(&op) + ": " + who(task) + " (launch " +
                       std::to_string(task.call) + ") reads '" + b.name +
                       "' of rank " + std::to_string(b.rank) +
                       " while it holds " + held +
                       ": a missing or misplaced signal/wait lets this read "
                       "run before the peer's data is ready");
  }
  checkRaces(task, op, b, indices, /*write=*/false);
  // Elements this CTA stored itself but has not made visible yet (relaxed
  // stores): it reads its own values (forwardStores), written this launch.
  std::unordered_set<int64_t> ownPending;
  if (b.role == Role::Output)
    for (const PendingStore &store : task.pendingStores)
      if (store.buffer == &b)
        ownPending.insert(store.indices.begin(), store.indices.end());
  bool isFloat = out.type.isFloat();
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t idx = indices[k];
    if (idx < 0) {
      if (isFloat)
        out.f[k] = otherF;
      else
        out.i[k] = otherI;
      continue;
    }
    if (b.role == Role::Output && b.writtenIn[idx] != task.call &&
        !ownPending.count(idx)) {
      reporter.error("uninit@" + where(&op) + "@" + b.name,
                     where(&op) + ": " + who(task) + " reads element " +
                         std::to_string(idx) + " of '" + b.name + "' of rank " +
                         std::to_string(b.rank) +
                         ", which this launch never wrote");
    }
    if (isFloat)
      out.f[k] = b.isFloat() ? b.f[idx] : double(b.i[idx]);
    else
      out.i[k] = b.isFloat() ? int64_t(b.f[idx]) : b.i[idx];
  }
  // This CTA's own stores that peers cannot see yet (relaxed stores).
  if (!task.pendingStores.empty())
    forwardStores(task, b, indices, out);
}

bool Interpreter::storeTile(Task &task, Operation &op, const RefVal &ref,
                            const std::vector<int64_t> &offsets,
                            const std::vector<int64_t> &limits,
                            ArrayRef<int64_t> dims, const TileVal &value) {
  std::vector<int64_t> indices;
  if (!elementIndices(task, op, ref, offsets, limits, dims, value.shape,
                      indices))
    return false;
  storeIndices(task, op, ref, indices, value);
  return true;
}

void Interpreter::storeIndices(Task &task, Operation &op, const RefVal &ref,
                               const std::vector<int64_t> &indices,
                               const TileVal &value) {
  Buffer &b = *ref.buffer;
  checkRaces(task, op, b, indices, /*write=*/true);
  // The stored elements, converted to the buffer's type.
  PendingStore store;
  store.buffer = &b;
  store.clock = task.clock.self.clock;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0)
      continue;
    store.indices.push_back(indices[k]);
    if (b.isFloat())
      store.f.push_back(roundTo(
          b.type, value.type.isFloat() ? value.f[k] : double(value.i[k])));
    else
      store.i.push_back(wrapInt(
          b.type, value.type.isFloat() ? int64_t(value.f[k]) : value.i[k]));
  }
  bool data =
      b.role == Role::Input || b.role == Role::Output || b.role == Role::InOut;
  if (world.relaxedStores && data)
    task.pendingStores.push_back(std::move(store));
  else
    commitStore(task, store);
}

void Interpreter::commitStore(Task &task, const PendingStore &store) {
  Buffer &b = *store.buffer;
  int64_t lo = b.numel, hi = 0;
  for (size_t k = 0; k < store.indices.size(); ++k) {
    int64_t idx = store.indices[k];
    lo = std::min(lo, idx);
    hi = std::max(hi, idx + 1);
    if (b.isFloat())
      b.f[idx] = store.f[k];
    else
      b.i[idx] = store.i[k];
    if (b.role == Role::Output)
      b.writtenIn[idx] = task.call;
  }
  if (lo < hi)
    world.noteWrite(b, lo, hi);
}

void Interpreter::flushStores(Task &task, uint32_t upTo) {
  auto &pending = task.pendingStores;
  size_t kept = 0;
  for (size_t k = 0; k < pending.size(); ++k) {
    if (pending[k].clock <= upTo)
      commitStore(task, pending[k]);
    else
      pending[kept++] = std::move(pending[k]);
  }
  pending.resize(kept);
}

void Interpreter::forwardStores(const Task &task, const Buffer &b,
                                const std::vector<int64_t> &indices,
                                TileVal &out) {
  std::unordered_map<int64_t, size_t> position;
  for (const PendingStore &store : task.pendingStores) {
    if (store.buffer != &b)
      continue;
    if (position.empty())
      for (size_t k = 0; k < indices.size(); ++k)
        if (indices[k] >= 0)
          position[indices[k]] = k;
    for (size_t j = 0; j < store.indices.size(); ++j) {
      auto it = position.find(store.indices[j]);
      if (it == position.end())
        continue;
      double f = b.isFloat() ? store.f[j] : double(store.i[j]);
      int64_t i = b.isFloat() ? int64_t(store.f[j]) : store.i[j];
      if (out.type.isFloat())
        out.f[it->second] = f;
      else
        out.i[it->second] = i;
    }
  }
}

Interpreter::Outcome Interpreter::execLoad(Task &task, Operation &op) {
  auto load = cast<tile::LoadOp>(op);
  std::vector<int64_t> offsets, limits;
  for (Value v : load.getOffsets())
    offsets.push_back(getInt(task, v));
  for (Value v : load.getLimits())
    limits.push_back(getInt(task, v));
  auto out = emptyTile(load.getType());
  double otherF = 0;
  int64_t otherI = 0;
  if (auto other = load.getOtherAttr()) {
    if (auto f = dyn_cast<FloatAttr>(other))
      otherF = f.getValueAsDouble(), otherI = int64_t(otherF);
    else if (auto i = dyn_cast<IntegerAttr>(other))
      otherI = i.getValue().getSExtValue(), otherF = double(otherI);
  }
  noteDataAccess(task, op);
  if (!loadTile(task, op, *get(task, load.getRef()).ref, offsets, limits,
                load.getDims(), *out, otherF, otherI))
    return Outcome::Fail;
  task.values[load.getResult()] = RtValue::ofTile(out);
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execStore(Task &task, Operation &op) {
  std::vector<int64_t> offsets, limits;
  auto collect = [&](ValueRange offs, ValueRange lims) {
    for (Value v : offs)
      offsets.push_back(getInt(task, v));
    for (Value v : lims)
      limits.push_back(getInt(task, v));
  };
  noteDataAccess(task, op);
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    collect(store.getOffsets(), store.getLimits());
    if (!storeTile(task, op, *get(task, store.getRef()).ref, offsets, limits,
                   store.getDims(), *get(task, store.getValue()).tile))
      return Outcome::Fail;
    return Outcome::Yield;
  }
  auto store = cast<comm::MulticastStoreOp>(op);
  collect(store.getOffsets(), store.getLimits());
  const StackVal &stack = *get(task, store.getStack()).stack;
  for (Buffer *peer : stack.peers) {
    RefVal ref{peer, stack.sizes};
    if (!storeTile(task, op, ref, offsets, limits, store.getDims(),
                   *get(task, store.getValue()).tile))
      return Outcome::Fail;
  }
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execMulticastLoadReduce(Task &task,
                                                          Operation &op) {
  auto load = cast<comm::MulticastLoadReduceOp>(op);
  std::vector<int64_t> offsets, limits;
  for (Value v : load.getOffsets())
    offsets.push_back(getInt(task, v));
  for (Value v : load.getLimits())
    limits.push_back(getInt(task, v));
  const StackVal &stack = *get(task, load.getStack()).stack;
  auto out = emptyTile(load.getType());
  auto part = emptyTile(load.getType());
  // 16-bit floats accumulate in f32.
  ElemType accType = out->type;
  if (accType.kind == ElemType::Kind::BF16 ||
      accType.kind == ElemType::Kind::F16)
    accType.kind = ElemType::Kind::F32;
  noteDataAccess(task, op);
  for (auto [p, peer] : llvm::enumerate(stack.peers)) {
    RefVal ref{peer, stack.sizes};
    if (!loadTile(task, op, ref, offsets, limits, load.getDims(), *part, 0, 0))
      return Outcome::Fail;
    for (int64_t k = 0; k < out->numel(); ++k) {
      if (out->type.isFloat())
        out->f[k] = p ? roundTo(accType, out->f[k] + part->f[k]) : part->f[k];
      else
        out->i[k] = p ? wrapInt(out->type, out->i[k] + part->i[k]) : part->i[k];
    }
  }
  if (out->type.isFloat())
    for (double &v : out->f)
      v = roundTo(out->type, v);
  task.values[load.getResult()] = RtValue::ofTile(out);
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execView(Task &task, Operation &op) {
  auto view = cast<tile::ViewOp>(op);
  const RefVal &from = *get(task, view.getRef()).ref;
  auto ref = std::make_shared<RefVal>();
  ref->buffer = from.buffer;
  int64_t have = 1, want = 1;
  for (int64_t s : from.sizes)
    have *= s;
  std::string sizes;
  for (Value s : view.getSizes()) {
    ref->sizes.push_back(getInt(task, s));
    want *= ref->sizes.back();
    sizes += (sizes.empty() ? "" : "x") + std::to_string(ref->sizes.back());
  }
  if (llvm::any_of(ref->sizes, [](int64_t s) { return s < 0; }) || want > have)
    return fail(task, op,
                "a view of '" + from.buffer->name + "' as " + sizes +
                    " holds more elements than the tensor's " +
                    std::to_string(have));
  task.values[view.getResult()] = RtValue::ofRef(ref);
  return Outcome::Next;
}

/// The element indices of a gather or scatter: per element, the row-major
/// index of its indices, or -1 where one is outside the tensor or the mask
/// is false.
static std::vector<int64_t>
indexedElements(const RefVal &ref, const std::vector<const TileVal *> &indices,
                const TileVal *mask, int64_t n) {
  size_t rank = ref.sizes.size();
  std::vector<int64_t> out(n, -1);
  for (int64_t k = 0; k < n; ++k) {
    if (mask && !mask->i[k])
      continue;
    int64_t flat = 0;
    bool in = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t i = indices[d]->i[k];
      in &= i >= 0 && i < ref.sizes[d];
      flat = flat * ref.sizes[d] + i;
    }
    if (in)
      out[k] = flat;
  }
  return out;
}

Interpreter::Outcome Interpreter::execGather(Task &task, Operation &op) {
  auto gather = cast<tile::GatherOp>(op);
  std::vector<const TileVal *> indices;
  for (Value v : gather.getIndices())
    indices.push_back(get(task, v).tile.get());
  const TileVal *mask =
      gather.getMask() ? get(task, gather.getMask()).tile.get() : nullptr;
  auto out = emptyTile(gather.getType());
  const RefVal &ref = *get(task, gather.getRef()).ref;
  noteDataAccess(task, op);
  loadIndices(task, op, ref, indexedElements(ref, indices, mask, out->numel()),
              *out, 0, 0);
  task.values[gather.getResult()] = RtValue::ofTile(out);
  return Outcome::Yield;
}

/// `old` updated by `x` with `kind` (integers of `t`'s width).
static int64_t atomicInt(tile::AtomicKind kind, const ElemType &t, int64_t old,
                         int64_t x) {
  switch (kind) {
  case tile::AtomicKind::add:
    return wrapInt(t, int64_t(uint64_t(old) + uint64_t(x)));
  case tile::AtomicKind::max:
    return std::max(old, x);
  case tile::AtomicKind::min:
    return std::min(old, x);
  case tile::AtomicKind::andi:
    return old & x;
  case tile::AtomicKind::ori:
    return old | x;
  case tile::AtomicKind::xori:
    return old ^ x;
  case tile::AtomicKind::xchg:
    return x;
  }
  return x;
}

static double atomicFloat(tile::AtomicKind kind, const ElemType &t, double old,
                          double x) {
  switch (kind) {
  case tile::AtomicKind::add:
    return roundTo(t, old + x);
  case tile::AtomicKind::max:
    return std::isnan(old) ? x : std::isnan(x) ? old : std::max(old, x);
  case tile::AtomicKind::min:
    return std::isnan(old) ? x : std::isnan(x) ? old : std::min(old, x);
  default:
    return x;
  }
}

// Atomic updates apply at once (after this CTA's pending stores into the
// buffer), in the order the tasks run (the GPU's is
// any order: sums of floats may differ in their last bits), and are not
// checked for races: concurrent atomics are what they are for.
Interpreter::Outcome Interpreter::execAtomic(Task &task, Operation &op) {
  auto atomic = cast<tile::AtomicOp>(op);
  std::vector<const TileVal *> indices;
  for (Value v : atomic.getIndices())
    indices.push_back(get(task, v).tile.get());
  const TileVal *mask =
      atomic.getMask() ? get(task, atomic.getMask()).tile.get() : nullptr;
  const TileVal &value = *get(task, atomic.getValue()).tile;
  const RefVal &ref = *get(task, atomic.getRef()).ref;
  noteDataAccess(task, op);
  Buffer &b = *ref.buffer;
  // A thread's atomic follows its own earlier stores: this CTA's relaxed
  // stores into the buffer land first.
  auto &pending = task.pendingStores;
  size_t kept = 0;
  for (size_t k = 0; k < pending.size(); ++k) {
    if (pending[k].buffer == &b)
      commitStore(task, pending[k]);
    else
      pending[kept++] = std::move(pending[k]);
  }
  pending.resize(kept);
  std::vector<int64_t> at = indexedElements(ref, indices, mask, value.numel());
  int64_t lo = b.numel, hi = 0;
  for (size_t k = 0; k < at.size(); ++k) {
    int64_t idx = at[k];
    if (idx < 0)
      continue;
    lo = std::min(lo, idx);
    hi = std::max(hi, idx + 1);
    if (b.isFloat())
      b.f[idx] =
          atomicFloat(atomic.getKind(), b.type, b.f[idx],
                      value.type.isFloat() ? value.f[k] : double(value.i[k]));
    else
      b.i[idx] =
          atomicInt(atomic.getKind(), b.type, b.i[idx],
                    value.type.isFloat() ? int64_t(value.f[k]) : value.i[k]);
    if (b.role == Role::Output)
      b.writtenIn[idx] = task.call;
  }
  if (lo < hi)
    world.noteWrite(b, lo, hi);
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execScatter(Task &task, Operation &op) {
  auto scatter = cast<tile::ScatterOp>(op);
  std::vector<const TileVal *> indices;
  for (Value v : scatter.getIndices())
    indices.push_back(get(task, v).tile.get());
  const TileVal *mask =
      scatter.getMask() ? get(task, scatter.getMask()).tile.get() : nullptr;
  const TileVal &value = *get(task, scatter.getValue()).tile;
  const RefVal &ref = *get(task, scatter.getRef()).ref;
  noteDataAccess(task, op);
  storeIndices(task, op, ref,
               indexedElements(ref, indices, mask, value.numel()), value);
  return Outcome::Yield;
}
