//===- Memory.h - Host memory of every simulated rank -----------*- C++ -*-===//
//
// Every tensor a kernel sees lives in a Buffer owned by one rank: inputs,
// outputs, signal pads and tables of peer addresses. A simulated device
// address encodes the buffer and a byte offset, so an address read from a
// peer table resolves to that rank's buffer; anything else is a bad address.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_MEMORY_H
#define DSLC_COMPILER_SIMULATOR_MEMORY_H

#include "compiler/Simulator/Numerics.h"
#include "contract/Metadata.h"
#include "contract/SimulationDump.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dslc::sim {

/// What a buffer is for, which decides how it is filled and checked: the
/// contract's Role (contract::dumpRoleName spells it in messages and dumps):
///   Input      filled by the host before each launch (seeded values);
///   Output     poisoned before each launch (elements not yet written by
///              that launch; zeroed, and counted as written, when made by
///              torch.zeros); reads of unwritten elements are reported;
///   SignalPad  zeroed once, kept across launches;
///   PeerTable  u64 addresses of one buffer on every rank;
///   Scratch    LL-packet scratch (hl.ll_put/hl.ll_get): zeroed once, kept
///              across launches, accessed as bytes;
///   InOut      a workspace, a floating tensor the kernel reads and writes
///              (e.g. a staging buffer): poisoned once, kept across
///              launches, never refilled or checked.
using contract::Role;

/// What outputs and integer buffers hold before the kernel writes them
/// (floats: NaN), wrapped to the element type.
constexpr int64_t kPoisonInt = int64_t(0xdeaddeaddeaddeadull);

struct Buffer {
  unsigned id = 0;
  unsigned rank = 0;
  std::string name;
  Role role = Role::Input;
  ElemType type;
  std::vector<int64_t> sizes;
  int64_t numel = 0;
  std::vector<double> f;  ///< Float buffers.
  std::vector<int64_t> i; ///< Integer buffers.
  /// Outputs: the launch that last wrote each element (-1: none since the
  /// poisoning). A peer may write a buffer for its launch k before this
  /// rank starts launch k, or (a race) before this rank finishes launch k-1.
  std::vector<int64_t> writtenIn;
  /// Inputs: the launch whose data the buffer holds (-1: none yet).
  int64_t generation = -1;
  /// Blocked tasks (scheduler ids) waiting for a write to an element: a
  /// signal/wait slot or an LL packet. Writes to the element wake them.
  std::multimap<int64_t, uint32_t> watchers;

  bool isFloat() const { return type.isFloat(); }
};

class Heap {
public:
  Buffer &allocate(unsigned rank, const std::string &name, Role role,
                   ElemType type, std::vector<int64_t> sizes);
  Buffer *lookup(unsigned rank, const std::string &name);

  uint64_t addressOf(const Buffer &buffer) const;
  /// The buffer an address points to (at its start), or null.
  Buffer *resolve(uint64_t address);

  std::vector<std::unique_ptr<Buffer>> &getBuffers() { return buffers; }

private:
  std::vector<std::unique_ptr<Buffer>> buffers;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_MEMORY_H
