//===- Values.h - Run-time values of the interpreter ------------*- C++ -*-===//

#ifndef DSLC_COMPILER_SIMULATOR_VALUES_H
#define DSLC_COMPILER_SIMULATOR_VALUES_H

#include "compiler/Simulator/Memory.h"

#include <memory>
#include <vector>

namespace dslc::sim {

/// A tile value: row-major elements of one type.
struct TileVal {
  std::vector<int64_t> shape;
  ElemType type;
  std::vector<double> f;  ///< Float tiles.
  std::vector<int64_t> i; ///< Integer tiles.
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape)
      n *= s;
    return n;
  }
};

/// A tensor in memory: a buffer seen with `sizes` (those of the kernel's
/// parameter, which a peer's buffer shares).
struct RefVal {
  Buffer *buffer = nullptr;
  std::vector<int64_t> sizes;
};

/// One tensor per peer.
struct StackVal {
  std::vector<Buffer *> peers;
  std::vector<int64_t> sizes;
  std::string name; ///< The `like` tensor's name.
};

struct RtValue {
  enum class Kind { None, Int, Float, Tile, Ref, Stack };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  std::shared_ptr<TileVal> tile;
  std::shared_ptr<RefVal> ref;
  std::shared_ptr<StackVal> stack;

  static RtValue ofInt(int64_t v) {
    RtValue r;
    r.kind = Kind::Int;
    r.i = v;
    return r;
  }
  static RtValue ofFloat(double v) {
    RtValue r;
    r.kind = Kind::Float;
    r.f = v;
    return r;
  }
  static RtValue ofTile(std::shared_ptr<TileVal> t) {
    RtValue r;
    r.kind = Kind::Tile;
    r.tile = std::move(t);
    return r;
  }
  static RtValue ofRef(std::shared_ptr<RefVal> ref) {
    RtValue r;
    r.kind = Kind::Ref;
    r.ref = std::move(ref);
    return r;
  }
  static RtValue ofStack(std::shared_ptr<StackVal> s) {
    RtValue r;
    r.kind = Kind::Stack;
    r.stack = std::move(s);
    return r;
  }
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_VALUES_H
