//===- InterpreterComm.cpp - Stacks, signals, waits, packets --------------===//
//
// comm.stack_view / comm.peer, comm.signal / comm.wait slot by slot (a
// blocked op keeps the slots it completed), LL packets and comm.epoch.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include <cstring>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

namespace {

bool acquires(comm::MemSem sem) {
  return sem == comm::MemSem::acquire || sem == comm::MemSem::acq_rel;
}

bool releases(comm::MemSem sem) {
  return sem == comm::MemSem::release || sem == comm::MemSem::acq_rel;
}

std::string joined(llvm::ArrayRef<int64_t> xs) {
  std::string s;
  for (size_t k = 0; k < xs.size(); ++k)
    s += (k ? ", " : "") + std::to_string(xs[k]);
  return s;
}

} // namespace

Interpreter::Outcome Interpreter::execStackView(Task &task, Operation &op) {
  auto view = cast<comm::StackViewOp>(op);
  const RefVal &table = *get(task, view.getTable()).ref;
  const RefVal &like = *get(task, view.getLike()).ref;
  auto stack = std::make_shared<StackVal>();
  stack->sizes = like.sizes;
  stack->name = like.buffer->name;
  Buffer &t = *table.buffer;
  for (int64_t p = 0; p < table.sizes[0]; ++p) {
    uint64_t address = static_cast<uint64_t>(t.i[p]);
    Buffer *peer = world.heap.resolve(address);
    if (!peer) {
      std::ostringstream hex;
      hex << std::hex << address;
      return fail(task, op,
                  "entry " + std::to_string(p) + " of the address table '" +
                      t.name + "' is 0x" + hex.str() +
                      ", which is not the address of a buffer");
    }
    if (peer->numel < like.buffer->numel ||
        peer->type.kind != like.buffer->type.kind)
      return fail(task, op,
                  "entry " + std::to_string(p) + " of the address table '" +
                      t.name + "' points to '" + peer->name + "' of rank " +
                      std::to_string(peer->rank) +
                      ", which is not a copy of '" + like.buffer->name + "'");
    stack->peers.push_back(peer);
  }
  task.values[view.getResult()] = RtValue::ofStack(stack);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execPeer(Task &task, Operation &op) {
  auto peerOp = cast<comm::PeerOp>(op);
  const StackVal &stack = *get(task, peerOp.getStack()).stack;
  int64_t p = getInt(task, peerOp.getPeer());
  if (p < 0 || p >= int64_t(stack.peers.size()))
    return fail(task, op,
                "peer index " + std::to_string(p) + " of '" + stack.name +
                    "' is outside [0, " + std::to_string(stack.peers.size()) +
                    ") (the number of peers)");
  auto ref = std::make_shared<RefVal>();
  ref->buffer = stack.peers[p];
  ref->sizes = stack.sizes;
  task.values[peerOp.getResult()] = RtValue::ofRef(ref);
  return Outcome::Next;
}

int64_t Interpreter::slotRange(Task &task, ValueRange indexValues,
                               ArrayRef<int64_t> extents,
                               std::vector<int64_t> &indices) {
  indices.clear();
  for (Value v : indexValues)
    indices.push_back(getInt(task, v));
  int64_t slots = 1;
  for (int64_t e : extents)
    slots *= e;
  return slots;
}

bool Interpreter::slotFlat(Task &task, Operation &op,
                           const std::vector<int64_t> &sizes,
                           const std::vector<int64_t> &indices,
                           ArrayRef<int64_t> extents, int64_t slot,
                           std::vector<int64_t> &coords, int64_t &flat,
                           const std::string &padName) {
  unsigned rank = indices.size();
  coords.assign(rank, 0);
  int64_t rest = slot;
  for (int64_t d = rank - 1; d >= 0; --d) {
    coords[d] = indices[d] + rest % extents[d];
    rest /= extents[d];
  }
  flat = 0;
  for (unsigned d = 0; d < rank; ++d) {
    if (coords[d] < 0 || coords[d] >= sizes[d]) {
      std::string shape;
      for (unsigned e = 0; e < rank; ++e)
        shape += (e ? "x" : "") + std::to_string(sizes[e]);
      fail(task, op,
           "slot [" + joined(coords) + "] is outside the pad '" + padName +
               "' (" + shape + "): index " + std::to_string(coords[d]) +
               " of dimension " + std::to_string(d) + " is not below " +
               std::to_string(sizes[d]));
      return false;
    }
    flat = flat * sizes[d] + coords[d];
  }
  return true;
}

Interpreter::Outcome Interpreter::execSignal(Task &task, Operation &op) {
  auto signal = cast<comm::SignalOp>(op);
  RtValue &pad = get(task, signal.getPad());
  bool isStack = pad.kind == RtValue::Kind::Stack;
  llvm::ArrayRef<Buffer *> peers =
      isStack ? llvm::ArrayRef<Buffer *>(pad.stack->peers)
              : llvm::ArrayRef<Buffer *>(pad.ref->buffer);
  const std::vector<int64_t> &sizes =
      isStack ? pad.stack->sizes : pad.ref->sizes;
  const std::string &padName =
      isStack ? pad.stack->name : pad.ref->buffer->name;
  std::vector<int64_t> indices;
  int64_t slots =
      slotRange(task, signal.getIndices(), signal.getExtents(), indices);
  if (task.slotDone.empty()) {
    // First attempt: the barrier before the flag, and the ordering check.
    if (signal.getHasPreviousMemAccess()) {
      task.accessSinceBarrier = false;
      task.noBarrierWait = nullptr;
    } else if (task.accessSinceBarrier) {
      reporter.warning(
          "nobarrier-signal@" + where(&op),
          where(&op) + ": " + who(task) +
              ": signal with hasPreviousMemAccess=False after this CTA "
              "accessed memory: without the barrier a peer may see the flag "
              "before the CTA's other threads finished their accesses");
    }
    if (signal.getSem() == comm::MemSem::relaxed && task.accessSinceRelease)
      reporter.warning("relaxed-signal@" + where(&op),
                       where(&op) + ": " + who(task) +
                           ": relaxed signal after memory accesses: a peer "
                           "may see the flag before the data");
    if (signal.getSem() != comm::MemSem::relaxed)
      task.accessSinceRelease = false;
    task.slotDone.assign(peers.size() * slots, 0);
    world.races->beginSignal(task.clock, signal.getHasPreviousMemAccess());
    // The release publishes the stores its barrier covers.
    if (releases(signal.getSem()))
      flushStores(task, task.clock.barrierClock);
  }
  bool sys = signal.getScope() == comm::MemScope::sys;
  task.waitingOn.clear();
  bool all = true;
  for (size_t p = 0; p < peers.size(); ++p) {
    Buffer &b = *peers[p];
    int64_t newValue = wrapInt(b.type, signal.getSignal());
    for (int64_t s = 0; s < slots; ++s) {
      uint8_t &done = task.slotDone[p * slots + s];
      if (done)
        continue;
      std::vector<int64_t> coords;
      int64_t flat;
      if (!slotFlat(task, op, sizes, indices, signal.getExtents(), s, coords,
                    flat, padName))
        return Outcome::Fail;
      if (auto waitFor = signal.getWaitFor()) {
        int64_t expected = wrapInt(b.type, *waitFor);
        if (b.i[flat] != expected) {
          all = false;
          task.waitingOn.push_back({&b, coords, expected, b.i[flat], flat});
          continue;
        }
      }
      b.i[flat] = newValue;
      done = 1;
      world.noteWrite(b, flat, flat + 1);
      world.races->atomic(task.clock, b, flat, acquires(signal.getSem()),
                          releases(signal.getSem()), sys);
    }
  }
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  task.slotDone.clear();
  task.blockedOp = nullptr;
  task.clock.releasing.reset();
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execWait(Task &task, Operation &op) {
  auto wait = cast<comm::WaitOp>(op);
  const RefVal &pad = *get(task, wait.getPad()).ref;
  std::vector<int64_t> indices;
  int64_t slots =
      slotRange(task, wait.getIndices(), wait.getExtents(), indices);
  if (task.slotDone.empty()) {
    task.slotDone.assign(slots, 0);
    if (wait.getUpdate() && releases(wait.getSem()))
      flushStores(task, task.clock.barrierClock);
  }
  Buffer &b = *pad.buffer;
  int64_t expected = wrapInt(b.type, wait.getSignal());
  task.waitingOn.clear();
  bool all = true;
  for (int64_t s = 0; s < slots; ++s) {
    uint8_t &done = task.slotDone[s];
    if (done)
      continue;
    std::vector<int64_t> coords;
    int64_t flat;
    if (!slotFlat(task, op, pad.sizes, indices, wait.getExtents(), s, coords,
                  flat, b.name))
      return Outcome::Fail;
    if (b.i[flat] != expected) {
      all = false;
      task.waitingOn.push_back({&b, coords, expected, b.i[flat], flat});
      continue;
    }
    // A plain load acquires unless relaxed; a CAS update has the op's order.
    comm::MemSem sem = wait.getSem();
    bool update = wait.getUpdate().has_value();
    world.races->atomic(task.clock, b, flat,
                        update ? acquires(sem) : sem != comm::MemSem::relaxed,
                        update && releases(sem),
                        wait.getScope() == comm::MemScope::sys);
    if (update) {
      b.i[flat] = wrapInt(b.type, *wait.getUpdate());
      world.noteWrite(b, flat, flat + 1);
    }
    done = 1;
  }
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  task.slotDone.clear();
  task.blockedOp = nullptr;
  if (wait.getSem() == comm::MemSem::relaxed)
    task.relaxedWait = &op;
  else
    task.relaxedWait = nullptr;
  if (wait.getHasSubsequentMemAccess()) {
    task.accessSinceBarrier = false;
    task.noBarrierWait = nullptr;
    world.races->barrier(task.clock);
  } else {
    task.noBarrierWait = &op;
  }
  return Outcome::Yield;
}

//===----------------------------------------------------------------------===//
// LL packets and the per-CTA epoch
//===----------------------------------------------------------------------===//

namespace {

/// The 32-bit little-endian word at byte `offset` of an integer buffer.
uint32_t readWord(const Buffer &b, int64_t offset) {
  int64_t eb = b.type.byteSize();
  if (eb >= 4 && offset % 4 == 0) // one element holds the whole word
    return uint32_t(uint64_t(b.i[offset / eb]) >> ((offset % eb) * 8));
  uint32_t word = 0;
  for (int64_t j = 0; j < 4; ++j) {
    int64_t o = offset + j;
    uint64_t element = static_cast<uint64_t>(b.i[o / eb]);
    word |= uint32_t((element >> ((o % eb) * 8)) & 0xff) << (8 * j);
  }
  return word;
}

void writeWord(Buffer &b, int64_t offset, uint32_t word) {
  int64_t eb = b.type.byteSize();
  if (eb >= 4 && offset % 4 == 0) {
    unsigned shift = unsigned((offset % eb) * 8);
    uint64_t element = static_cast<uint64_t>(b.i[offset / eb]);
    element = (element & ~(uint64_t(0xffffffffu) << shift)) |
              (uint64_t(word) << shift);
    b.i[offset / eb] = wrapInt(b.type, int64_t(element));
    return;
  }
  for (int64_t j = 0; j < 4; ++j) {
    int64_t o = offset + j;
    unsigned shift = unsigned((o % eb) * 8);
    uint64_t element = static_cast<uint64_t>(b.i[o / eb]);
    element = (element & ~(uint64_t(0xff) << shift)) |
              (uint64_t((word >> (8 * j)) & 0xff) << shift);
    b.i[o / eb] = wrapInt(b.type, int64_t(element));
  }
}

/// Packets an ll_put/ll_get stores in one scheduler step: a tile's packets
/// land in a few groups, so a reader can see part of a tile (whole packets
/// only: each is one 8- or 16-byte store).
constexpr int64_t kPacketsPerStep = 64;

} // namespace

Interpreter::Outcome Interpreter::execEpoch(Task &task, Operation &op) {
  auto epoch = cast<comm::EpochOp>(op);
  uint32_t value = world.epochs[task.rank][task.cta] + 1;
  task.values[epoch.getResult()] =
      RtValue::ofInt(wrapInt(ElemType::fromType(epoch.getType()), value));
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execGridBarrier(Task &task, Operation &op) {
  // Words 0 (arrivals) and 1 (generation), kept across launches as the
  // kernel's state is.
  Buffer *b = world.heap.lookup(task.rank, "hl.barrier");
  if (!b) {
    ElemType word;
    word.kind = ElemType::Kind::Int;
    word.bits = 32;
    b = &world.heap.allocate(task.rank, "hl.barrier", Role::SignalPad, word,
                             {2});
  }
  if (!task.barrierArrived) {
    // Thread 0 arrives after the CTA's bar.sync, fenced: it releases every
    // store of the CTA so far; the last to arrive moves the generation.
    world.races->barrier(task.clock);
    flushStores(task, task.clock.self.clock);
    task.barrierGeneration = b->i[1];
    world.races->atomic(task.clock, *b, 0, /*acquire=*/true, /*release=*/true,
                        /*sysScope=*/false);
    if (++b->i[0] == world.numCtas) {
      // What it acquired from every arrival goes into its release.
      world.races->barrier(task.clock);
      b->i[0] = 0;
      world.races->atomic(task.clock, *b, 1, false, true, false);
      b->i[1] = wrapInt(b->type, b->i[1] + 1);
      world.noteWrite(*b, 1, 2);
    }
    task.barrierArrived = true;
  }
  if (b->i[1] == task.barrierGeneration) {
    task.waitingOn.assign(
        1, {b, {1}, wrapInt(b->type, task.barrierGeneration + 1), b->i[1], 1});
    task.blockedOp = &op;
    return Outcome::Block;
  }
  world.races->atomic(task.clock, *b, 1, /*acquire=*/true, false, false);
  world.races->barrier(task.clock);
  task.barrierArrived = false;
  task.waitingOn.clear();
  task.blockedOp = nullptr;
  task.accessSinceBarrier = false;
  task.noBarrierWait = nullptr;
  return Outcome::Yield;
}

bool Interpreter::checkPackets(Task &task, Operation &op, const Buffer &b,
                               int64_t slot, int64_t count,
                               int64_t packetBytes) {
  if (b.isFloat() || b.type.bits < 8) {
    fail(task, op,
         "the LL scratch '" + b.name + "' is a " + b.type.name() +
             " tensor; the simulator needs an integer tensor (int64)");
    return false;
  }
  int64_t bytes = b.numel * int64_t(b.type.byteSize());
  int64_t capacity = bytes / packetBytes;
  if (slot < 0 || slot + count > capacity) {
    int64_t bad = slot < 0 ? slot : std::max(slot, capacity);
    fail(task, op,
         "packet " + std::to_string(bad) + " (packets [" +
             std::to_string(slot) + ", " + std::to_string(slot + count) +
             ") of this tile, slot " + std::to_string(slot) +
             ") is outside the LL scratch '" + b.name + "' of rank " +
             std::to_string(b.rank) + ": " + std::to_string(bytes) +
             " bytes hold " + std::to_string(capacity) + " packet(s) of " +
             std::to_string(packetBytes) + " bytes");
    return false;
  }
  return true;
}

Interpreter::Outcome Interpreter::execLLPut(Task &task, Operation &op) {
  auto put = cast<comm::LLPutOp>(op);
  const TileVal &value = *get(task, put.getValue()).tile;
  Buffer &b = *get(task, put.getScratch()).ref->buffer;
  int64_t slot = getInt(task, put.getSlot());
  uint32_t flag = static_cast<uint32_t>(getInt(task, put.getFlag()));
  int64_t packetBytes = put.getPacket();
  int64_t payload = packetBytes / 2;
  int64_t vb = value.type.byteSize();
  int64_t tileBytes = value.numel() * vb;
  if (tileBytes % payload != 0)
    return fail(task, op,
                "the tile holds " + std::to_string(tileBytes) +
                    " bytes, not a whole number of " + std::to_string(payload) +
                    "-byte packet payloads");
  int64_t count = tileBytes / payload;
  if (task.packetsStored == 0) {
    if (!checkPackets(task, op, b, slot, count, packetBytes))
      return Outcome::Fail;
    noteDataAccess(task, op);
    flushStores(task, task.clock.self.clock);
  }
  if (task.packetsStored == 0) {
    // The tile's bytes as the GPU holds them, encoded once per put.
    std::vector<unsigned char> data(tileBytes);
    for (int64_t k = 0; k < value.numel(); ++k)
      encode(value.type, value.type.isFloat() ? value.f[k] : 0,
             value.type.isFloat() ? 0 : value.i[k], data.data() + k * vb);
    task.packetWords.resize(tileBytes / 4);
    std::memcpy(task.packetWords.data(), data.data(), tileBytes);
  }
  int64_t end = std::min(count, task.packetsStored + kPacketsPerStep);
  int64_t wordsPer = payload / 4;
  for (int64_t p = task.packetsStored; p < end; ++p) {
    int64_t base = (slot + p) * packetBytes;
    for (int64_t j = 0; j < wordsPer; ++j) {
      writeWord(b, base + 8 * j, task.packetWords[p * wordsPer + j]);
      writeWord(b, base + 8 * j + 4, flag);
    }
  }
  int64_t eb = b.type.byteSize();
  int64_t lo = (slot + task.packetsStored) * packetBytes / eb;
  int64_t hi = ((slot + end) * packetBytes + eb - 1) / eb;
  world.races->packetWrite(task.clock, b, lo, hi, &op);
  world.noteWrite(b, lo, hi);
  if (end < count) {
    task.packetsStored = end;
    return Outcome::Again;
  }
  task.packetsStored = 0;
  task.packetWords.clear();
  return Outcome::Yield;
}

Interpreter::Outcome Interpreter::execLLGet(Task &task, Operation &op) {
  auto llGet = cast<comm::LLGetOp>(op);
  Buffer &b = *get(task, llGet.getScratch()).ref->buffer;
  int64_t slot = getInt(task, llGet.getSlot());
  uint32_t flag = static_cast<uint32_t>(getInt(task, llGet.getFlag()));
  int64_t packetBytes = llGet.getPacket();
  int64_t payload = packetBytes / 2;
  int64_t wordsPer = payload / 4;
  auto tileType = cast<RankedTensorType>(llGet.getType());
  ElemType type = ElemType::fromType(tileType.getElementType());
  int64_t eb = type.byteSize();
  int64_t tileBytes = tileType.getNumElements() * eb;
  if (tileBytes % payload != 0)
    return fail(task, op,
                "the tile holds " + std::to_string(tileBytes) +
                    " bytes, not a whole number of " + std::to_string(payload) +
                    "-byte packet payloads");
  int64_t count = tileBytes / payload;
  if (task.slotDone.empty()) {
    if (!checkPackets(task, op, b, slot, count, packetBytes))
      return Outcome::Fail;
    task.slotDone.assign(count, 0);
    task.packetWords.assign(count * wordsPer, 0);
  }
  task.waitingOn.clear();
  bool all = true;
  std::vector<std::pair<int64_t, int64_t>> seen;
  for (int64_t p = 0; p < count; ++p) {
    if (task.slotDone[p])
      continue;
    int64_t base = (slot + p) * packetBytes;
    // One load of the whole packet: every flag word must hold the flag.
    std::optional<uint32_t> wrong;
    for (int64_t j = 0; j < wordsPer && !wrong; ++j) {
      uint32_t f = readWord(b, base + 8 * j + 4);
      if (f != flag)
        wrong = f;
    }
    if (wrong) {
      all = false;
      task.waitingOn.push_back({&b,
                                {slot + p},
                                int64_t(flag),
                                int64_t(*wrong),
                                base / int64_t(b.type.byteSize())});
      continue;
    }
    for (int64_t j = 0; j < wordsPer; ++j)
      task.packetWords[p * wordsPer + j] = readWord(b, base + 8 * j);
    task.slotDone[p] = 1;
    // The packets seen now, as runs of elements (one race check each).
    int64_t sb = b.type.byteSize();
    int64_t lo = base / sb, hi = (base + packetBytes + sb - 1) / sb;
    if (!seen.empty() && seen.back().second >= lo)
      seen.back().second = hi;
    else
      seen.push_back({lo, hi});
  }
  for (auto [lo, hi] : seen)
    world.races->packetRead(task.clock, b, lo, hi, &op);
  if (!all) {
    task.blockedOp = &op;
    return Outcome::Block;
  }
  auto out = emptyTile(tileType);
  std::vector<unsigned char> data(tileBytes);
  std::memcpy(data.data(), task.packetWords.data(), tileBytes);
  for (int64_t k = 0; k < out->numel(); ++k) {
    double f;
    int64_t i;
    decode(out->type, data.data() + k * eb, f, i);
    if (out->type.isFloat())
      out->f[k] = f;
    else
      out->i[k] = i;
  }
  task.values[llGet.getResult()] = RtValue::ofTile(out);
  task.slotDone.clear();
  task.packetWords.clear();
  task.waitingOn.clear();
  task.blockedOp = nullptr;
  noteDataAccess(task, op);
  return Outcome::Yield;
}
