//===- Interpreter.h - One CTA of one rank, step by step --------*- C++ -*-===//
//
// Runs the Tile/Comm IR of a kernel (as MLIRGen makes it) for one CTA as a
// resumable task: an explicit stack of frames (the function, the tile.grid
// loop over this CTA's tiles, scf.for loops), so the scheduler can switch
// CTAs at every global memory access and comm op. A signal or wait that
// cannot complete leaves the task blocked on that op; the slots it already
// completed stay completed (one GPU thread per slot).
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_INTERPRETER_H
#define DSLC_COMPILER_SIMULATOR_INTERPRETER_H

#include "compiler/Simulator/HappensBefore.h"
#include "compiler/Simulator/Memory.h"
#include "compiler/Simulator/Reporter.h"
#include "compiler/Simulator/Values.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace dslc::sim {

/// A slot a blocked signal/wait (or a packet a blocked ll_get) still waits
/// for, for the deadlock report.
struct BlockedSlot {
  Buffer *pad = nullptr;
  std::vector<int64_t> coords; ///< ll_get: the packet index of the scratch.
  int64_t expected = 0;
  int64_t current = 0;
  /// The element of `pad` whose next write may unblock the task.
  int64_t element = 0;
};

struct Frame {
  enum class Kind { Func, Grid, For, If };
  Kind kind = Kind::Func;
  mlir::Block *block = nullptr;
  mlir::Block::iterator it;
  mlir::Operation *op = nullptr;
  int64_t iv = 0, ub = 0, step = 1;
};

/// A store to a data buffer that peers do not see yet (relaxed stores):
/// the elements, converted to the buffer's type, and the CTA's clock.
struct PendingStore {
  Buffer *buffer = nullptr;
  std::vector<int64_t> indices;
  std::vector<double> f;
  std::vector<int64_t> i;
  uint32_t clock = 0;
};

/// One CTA of one rank in one launch.
struct Task {
  unsigned rank = 0;
  unsigned cta = 0;
  int64_t call = 0;
  uint64_t priority = 0; ///< For the priority scheduling policy.
  bool started = false, done = false, blocked = false;
  /// While blocked: where the task is registered in Buffer::watchers.
  std::vector<std::pair<Buffer *, std::multimap<int64_t, uint32_t>::iterator>>
      watches;
  std::vector<Frame> frames;
  llvm::DenseMap<mlir::Value, RtValue> values;
  /// Progress of the signal/wait the task is blocked on.
  std::vector<uint8_t> slotDone;
  std::vector<BlockedSlot> waitingOn;
  mlir::Operation *blockedOp = nullptr;
  /// ll_get in progress: the data words of the packets already seen with
  /// the flag (a thread keeps what it read). ll_put in progress: packets
  /// stored so far.
  std::vector<uint32_t> packetWords;
  int64_t packetsStored = 0;
  /// tile.grid_barrier in progress: arrived, at this generation.
  bool barrierArrived = false;
  int64_t barrierGeneration = 0;
  /// Happens-before: what this CTA is ordered after (HappensBefore.h).
  CtaClock clock;
  /// Relaxed stores: this CTA's stores no release has published yet.
  std::vector<PendingStore> pendingStores;
  // Ordering hazards (Helion's memory semantics).
  bool accessSinceBarrier = false, accessSinceRelease = false;
  mlir::Operation *noBarrierWait = nullptr, *relaxedWait = nullptr;
};

/// Everything the CTAs of all ranks share in one run.
struct World {
  Heap heap;
  unsigned worldSize = 1;
  int64_t numCtas = 1;
  /// Per rank: the kernel and the values of its arguments.
  std::vector<mlir::func::FuncOp> funcs;
  std::vector<std::vector<RtValue>> args;
  /// The race detector of this schedule.
  RaceDetector *races = nullptr;
  /// Relaxed stores: a CTA's stores to data buffers stay invisible to other
  /// CTAs until a release of the CTA covers them (a signal with release
  /// semantics after them, an ll_put) or the CTA ends.
  bool relaxedStores = false;
  /// Blocked tasks a write woke (Buffer::watchers), for the scheduler.
  std::vector<uint32_t> woken;
  /// comm.epoch: per rank, per CTA index, the launches that CTA finished
  /// (the kernel's state buffer; kept across launches).
  std::vector<std::vector<uint32_t>> epochs;
  /// Per op of every rank's kernel: the values whose last use it is (in
  /// the block that defines them); a task drops them once the op is done,
  /// so a long or unrolled body keeps only its live tiles.
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value, 2>>
      deadAfter;
  /// Dense constants, decoded once per op.
  llvm::DenseMap<mlir::Operation *, std::shared_ptr<TileVal>> constants;
  /// Fills deadAfter for `funcs`.
  void computeLiveness();
  /// Set on an error the run cannot continue after.
  bool fatal = false;
  uint64_t steps = 0;
  /// Elements the interpreted ops produced or moved (a measure of time),
  /// bounded by kMaxSimulatedWork.
  uint64_t work = 0;
  /// What a scheduler step adds to `work` (stepWork in
  /// SimulationOptions.h, by the CTAs that hold tiles).
  uint64_t stepWork = 0;

  /// Elements [lo, hi) of `b` were written: wake the tasks waiting on them.
  void noteWrite(Buffer &b, int64_t lo, int64_t hi) {
    if (b.watchers.empty())
      return;
    for (auto it = b.watchers.lower_bound(lo);
         it != b.watchers.end() && it->first < hi; ++it)
      woken.push_back(it->second);
  }
};

enum class StepResult { Yielded, Blocked, Done, Failed };

class Interpreter {
public:
  Interpreter(World &world, Reporter &reporter)
      : world(world), reporter(reporter) {}

  /// Runs `task` up to and including its next global memory access or comm
  /// op (or until it blocks, finishes or fails).
  StepResult step(Task &task);

private:
  /// Again: yield to the scheduler and run the same op again next time.
  enum class Outcome { Next, Yield, Again, Jumped, Block, Done, Fail };
  Outcome exec(Task &task, mlir::Operation &op);
  Outcome execArith(Task &task, mlir::Operation &op);
  Outcome execConstant(Task &task, mlir::Operation &op);
  Outcome execLoad(Task &task, mlir::Operation &op);
  Outcome execStore(Task &task, mlir::Operation &op);
  /// tile.view: the same buffer with other sizes (no more elements).
  Outcome execView(Task &task, mlir::Operation &op);
  Outcome execSignal(Task &task, mlir::Operation &op);
  Outcome execWait(Task &task, mlir::Operation &op);
  Outcome execStackView(Task &task, mlir::Operation &op);
  Outcome execPeer(Task &task, mlir::Operation &op);
  Outcome execMulticastLoadReduce(Task &task, mlir::Operation &op);
  Outcome execMath(Task &task, mlir::Operation &op);
  Outcome execSplat(Task &task, mlir::Operation &op);
  Outcome execIota(Task &task, mlir::Operation &op);
  Outcome execBroadcast(Task &task, mlir::Operation &op);
  Outcome execReshape(Task &task, mlir::Operation &op);
  Outcome execTranspose(Task &task, mlir::Operation &op);
  Outcome execShift(Task &task, mlir::Operation &op);
  Outcome execReduce(Task &task, mlir::Operation &op);
  Outcome execDot(Task &task, mlir::Operation &op);
  Outcome execEpoch(Task &task, mlir::Operation &op);
  /// hl.barrier: blocks until every CTA of the rank's launch has arrived
  /// (the kernel's state words, here a buffer of the rank named
  /// "hl.barrier"); arriving releases, leaving acquires.
  Outcome execGridBarrier(Task &task, mlir::Operation &op);
  Outcome execLLPut(Task &task, mlir::Operation &op);
  Outcome execLLGet(Task &task, mlir::Operation &op);
  /// The scratch of an ll_put/ll_get holds packets [slot, slot + count) of
  /// `packetBytes` bytes; false (reported) otherwise.
  bool checkPackets(Task &task, mlir::Operation &op, const Buffer &scratch,
                    int64_t slot, int64_t count, int64_t packetBytes);
  Outcome enterGrid(Task &task, mlir::Operation &op);
  Outcome enterFor(Task &task, mlir::Operation &op);
  Outcome enterIf(Task &task, mlir::Operation &op);
  Outcome exitRegion(Task &task, mlir::Operation &terminator);
  /// Counts `op`'s elements into World::work; false (reported) past the
  /// bound.
  bool chargeWork(Task &task, mlir::Operation &op);
  /// `op` is done: drop the values it used last.
  void retire(Task &task, mlir::Operation &op);

  /// Reads `n` elements of a tile (through load semantics) from `ref`.
  bool loadTile(Task &task, mlir::Operation &op, const RefVal &ref,
                const std::vector<int64_t> &offsets,
                const std::vector<int64_t> &limits,
                llvm::ArrayRef<int64_t> dims, TileVal &out, double otherF,
                int64_t otherI);
  /// A tile's elements read from (written to) `indices` of `ref`'s buffer
  /// (-1: not read, `other`; not written): the race, uninitialized-read
  /// and relaxed-store checks of every access.
  void loadIndices(Task &task, mlir::Operation &op, const RefVal &ref,
                   const std::vector<int64_t> &indices, TileVal &out,
                   double otherF, int64_t otherI);
  void storeIndices(Task &task, mlir::Operation &op, const RefVal &ref,
                    const std::vector<int64_t> &indices, const TileVal &value);
  /// tile.gather / tile.scatter: element by element at computed indices.
  Outcome execGather(Task &task, mlir::Operation &op);
  Outcome execScatter(Task &task, mlir::Operation &op);
  Outcome execAtomic(Task &task, mlir::Operation &op);
  bool storeTile(Task &task, mlir::Operation &op, const RefVal &ref,
                 const std::vector<int64_t> &offsets,
                 const std::vector<int64_t> &limits,
                 llvm::ArrayRef<int64_t> dims, const TileVal &value);
  /// Ref element index of each tile element (-1: masked); false on an
  /// out-of-bounds index (reported).
  bool elementIndices(Task &task, mlir::Operation &op, const RefVal &ref,
                      const std::vector<int64_t> &offsets,
                      const std::vector<int64_t> &limits,
                      llvm::ArrayRef<int64_t> dims,
                      llvm::ArrayRef<int64_t> shape,
                      std::vector<int64_t> &indices);
  void noteDataAccess(Task &task, mlir::Operation &op);
  /// Writes a store's elements to memory (outputs: as written by the task's
  /// launch) and wakes tasks waiting on them.
  void commitStore(Task &task, const PendingStore &store);
  /// Commits the task's relaxed stores made at clocks <= `upTo`.
  void flushStores(Task &task, uint32_t upTo);
  /// Overlays the task's own uncommitted stores to `b` on a load of
  /// `indices`.
  void forwardStores(const Task &task, const Buffer &b,
                     const std::vector<int64_t> &indices, TileVal &out);
  /// Checks the elements `indices` (-1: masked) of `b` for races.
  void checkRaces(Task &task, mlir::Operation &op, Buffer &b,
                  const std::vector<int64_t> &indices, bool write);
  /// The first slot's indices of a signal/wait (evaluated into `indices`)
  /// and how many slots its extents cover.
  int64_t slotRange(Task &task, mlir::ValueRange indexValues,
                    llvm::ArrayRef<int64_t> extents,
                    std::vector<int64_t> &indices);
  bool slotFlat(Task &task, mlir::Operation &op,
                const std::vector<int64_t> &sizes,
                const std::vector<int64_t> &indices,
                llvm::ArrayRef<int64_t> extents, int64_t slot,
                std::vector<int64_t> &coords, int64_t &flat,
                const std::string &padName);

  RtValue &get(Task &task, mlir::Value v);
  int64_t getInt(Task &task, mlir::Value v);
  std::string who(const Task &task) const;
  Outcome fail(Task &task, mlir::Operation &op, const std::string &message);

  World &world;
  Reporter &reporter;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_INTERPRETER_H
