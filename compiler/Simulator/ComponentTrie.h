//===- ComponentTrie.h - Persistent map of clock components -----*- C++ -*-===//
//
// The components of a vector clock that knows many CTAs (a slot that every
// CTA signals and waits on: each waiter learns every signaller before it),
// as an immutable 16-ary radix trie over the key rank * stride + CTA. Clocks
// derived from one another share their unchanged subtrees, so a copy costs
// nothing, an insert the trie's height, and a join the subtrees the two
// sides do not share: the work of learning, not the size of what is known.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_COMPONENTTRIE_H
#define DSLC_COMPILER_SIMULATOR_COMPONENTTRIE_H

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace dslc::sim {

/// The key space of a run's clocks: (rank, CTA) is key rank * stride + CTA
/// (the host is CTA number stride - 1), `levels` nibbles of it.
struct ClockSpace {
  uint64_t stride = 1;
  unsigned levels = 1;
  ClockSpace() = default;
  ClockSpace(unsigned worldSize, uint64_t ctasAndHost);
  uint64_t key(uint32_t rank, uint32_t cta) const {
    return rank * stride + cta;
  }
};

/// When a CTA's clock knew an event: its launch, then its clock.
struct Stamp {
  int32_t launch = 0;
  uint32_t clock = 0;
  bool operator<(const Stamp &o) const {
    return launch < o.launch || (launch == o.launch && clock < o.clock);
  }
  bool operator==(const Stamp &o) const {
    return launch == o.launch && clock == o.clock;
  }
};

struct TrieNode : llvm::RefCountedBase<TrieNode> {
  static constexpr unsigned kFan = 16;
  uint16_t present = 0; ///< Which children (inner) or values (leaf) are set.
  std::array<llvm::IntrusiveRefCntPtr<const TrieNode>, kFan> child;
  std::array<Stamp, kFan> value;
};
using TrieRef = llvm::IntrusiveRefCntPtr<const TrieNode>;

/// Operations on tries of one ClockSpace (null: empty).
namespace trie {
std::optional<Stamp> lookup(const TrieRef &root, const ClockSpace &space,
                            uint64_t key);
/// `root` with key raised to at least `stamp`.
TrieRef insert(const TrieRef &root, const ClockSpace &space, uint64_t key,
               Stamp stamp);
/// The later stamp of every key of either; a side is returned itself where
/// it already holds the result.
TrieRef join(const TrieRef &a, const TrieRef &b, const ClockSpace &space);
/// Calls `fn(key, stamp)` for the values under nodes not in `seen` (and
/// adds those nodes to it): each shared subtree is visited once.
void forEachNew(const TrieRef &root, const ClockSpace &space,
                llvm::DenseSet<const TrieNode *> &seen,
                llvm::function_ref<void(uint64_t, Stamp)> fn);
} // namespace trie

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_COMPONENTTRIE_H
