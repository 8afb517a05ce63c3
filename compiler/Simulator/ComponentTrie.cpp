//===- ComponentTrie.cpp - Persistent map of clock components -------------===//

#include "compiler/Simulator/ComponentTrie.h"

using namespace dslc::sim;

ClockSpace::ClockSpace(unsigned worldSize, uint64_t ctasAndHost)
    : stride(ctasAndHost ? ctasAndHost : 1) {
  uint64_t keys = uint64_t(worldSize ? worldSize : 1) * stride;
  levels = 1;
  while (levels < 16 && (keys - 1) >> (4 * levels))
    ++levels;
}

namespace {

unsigned digit(uint64_t key, unsigned level) {
  return unsigned(key >> (4 * level)) & 0xf;
}

/// Level `level` counts down to 0, the leaves.
TrieRef insertAt(const TrieNode *node, unsigned level, uint64_t key,
                 Stamp stamp) {
  unsigned d = digit(key, level);
  bool has = node && (node->present >> d & 1);
  if (level == 0 && has && !(node->value[d] < stamp))
    return TrieRef(node);
  auto *copy = node ? new TrieNode(*node) : new TrieNode();
  copy->present |= uint16_t(1u << d);
  if (level == 0)
    copy->value[d] = stamp;
  else
    copy->child[d] =
        insertAt(has ? node->child[d].get() : nullptr, level - 1, key, stamp);
  return TrieRef(copy);
}

TrieRef joinAt(const TrieRef &a, const TrieRef &b, unsigned level) {
  if (!a || a == b)
    return b;
  if (!b)
    return a;
  TrieNode out;
  bool isA = true, isB = true;
  out.present = a->present | b->present;
  for (unsigned d = 0; d < TrieNode::kFan; ++d) {
    bool inA = a->present >> d & 1, inB = b->present >> d & 1;
    if (!inA && !inB)
      continue;
    if (level == 0) {
      Stamp x = inA ? a->value[d] : Stamp{}, y = inB ? b->value[d] : Stamp{};
      Stamp m = !inA ? y : !inB ? x : (x < y ? y : x);
      out.value[d] = m;
      isA &= inA && x == m;
      isB &= inB && y == m;
      continue;
    }
    out.child[d] = joinAt(inA ? a->child[d] : TrieRef(),
                          inB ? b->child[d] : TrieRef(), level - 1);
    isA &= inA && out.child[d] == a->child[d];
    isB &= inB && out.child[d] == b->child[d];
  }
  if (isA)
    return a;
  if (isB)
    return b;
  return TrieRef(new TrieNode(std::move(out)));
}

void forEachAt(const TrieRef &node, unsigned level, uint64_t prefix,
               llvm::DenseSet<const TrieNode *> &seen,
               llvm::function_ref<void(uint64_t, Stamp)> fn) {
  if (!node || !seen.insert(node.get()).second)
    return;
  for (unsigned d = 0; d < TrieNode::kFan; ++d) {
    if (!(node->present >> d & 1))
      continue;
    uint64_t key = prefix << 4 | d;
    if (level == 0)
      fn(key, node->value[d]);
    else
      forEachAt(node->child[d], level - 1, key, seen, fn);
  }
}

} // namespace

std::optional<Stamp> trie::lookup(const TrieRef &root, const ClockSpace &space,
                                  uint64_t key) {
  const TrieNode *node = root.get();
  for (unsigned level = space.levels - 1; node; --level) {
    unsigned d = digit(key, level);
    if (!(node->present >> d & 1))
      return std::nullopt;
    if (level == 0)
      return node->value[d];
    node = node->child[d].get();
  }
  return std::nullopt;
}

TrieRef trie::insert(const TrieRef &root, const ClockSpace &space, uint64_t key,
                     Stamp stamp) {
  return insertAt(root.get(), space.levels - 1, key, stamp);
}

TrieRef trie::join(const TrieRef &a, const TrieRef &b,
                   const ClockSpace &space) {
  return joinAt(a, b, space.levels - 1);
}

void trie::forEachNew(const TrieRef &root, const ClockSpace &space,
                      llvm::DenseSet<const TrieNode *> &seen,
                      llvm::function_ref<void(uint64_t, Stamp)> fn) {
  forEachAt(root, space.levels - 1, 0, seen, fn);
}
