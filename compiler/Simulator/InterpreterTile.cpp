//===- InterpreterTile.cpp - Tile shapes and reductions -------------------===//
//
// tile.splat, tile.iota, tile.broadcast, tile.reshape, tile.reduce and
// tile.dot. A
// reduction combines in the element type (each combination rounded as the
// GPU rounds it) in a pairwise tree, as the lowering combines a thread's
// elements (ReduceLowering.cpp); positions at or past `valid` contribute
// the identity. A dot computes as DotLowering.cpp does: each product
// element a chain of f32 FMAs over k < valid_k starting from the f32
// accumulator (or zero), rounded once to the result type.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"

#include "dialects/Tile/TileDialect.h"

#include <cmath>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

Interpreter::Outcome Interpreter::execSplat(Task &task, Operation &op) {
  auto splat = cast<tile::SplatOp>(op);
  auto tile = emptyTile(splat.getType());
  RtValue &v = get(task, splat.getValue());
  bool isFloat = v.kind == RtValue::Kind::Float;
  if (tile->type.isFloat())
    std::fill(tile->f.begin(), tile->f.end(),
              roundTo(tile->type, isFloat ? v.f : double(v.i)));
  else
    std::fill(tile->i.begin(), tile->i.end(),
              wrapInt(tile->type, isFloat ? toInteger(tile->type, v.f) : v.i));
  task.values[splat.getResult()] = RtValue::ofTile(tile);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execIota(Task &task, Operation &op) {
  auto iota = cast<tile::IotaOp>(op);
  auto tile = emptyTile(iota.getType());
  for (int64_t k = 0; k < tile->numel(); ++k)
    tile->i[k] = wrapInt(tile->type, k);
  task.values[iota.getResult()] = RtValue::ofTile(tile);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execBroadcast(Task &task, Operation &op) {
  auto broadcast = cast<tile::BroadcastOp>(op);
  const TileVal &in = *get(task, broadcast.getInput()).tile;
  auto out = emptyTile(broadcast.getType());
  size_t rank = out->shape.size();
  // Row-major strides of the input; a repeated (unit) dimension steps 0.
  std::vector<int64_t> stride(rank, 0);
  for (int64_t d = int64_t(rank) - 1, s = 1; d >= 0; --d) {
    stride[d] = in.shape[d] == 1 ? 0 : s;
    s *= in.shape[d];
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t from = 0;
  for (int64_t k = 0; k < out->numel(); ++k) {
    if (out->type.isFloat())
      out->f[k] = in.f[from];
    else
      out->i[k] = in.i[from];
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      from += stride[d];
      if (++idx[d] < out->shape[d])
        break;
      from -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }
  task.values[broadcast.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execReshape(Task &task, Operation &op) {
  auto reshape = cast<tile::ReshapeOp>(op);
  const TileVal &in = *get(task, reshape.getInput()).tile;
  // The same elements in the same order; only unit dimensions change.
  auto out = std::make_shared<TileVal>(in);
  auto type = cast<RankedTensorType>(reshape.getType());
  out->shape.assign(type.getShape().begin(), type.getShape().end());
  task.values[reshape.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execTranspose(Task &task, Operation &op) {
  auto transpose = cast<tile::TransposeOp>(op);
  const TileVal &in = *get(task, transpose.getInput()).tile;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  auto out = std::make_shared<TileVal>(in);
  auto type = cast<RankedTensorType>(transpose.getType());
  out->shape.assign(type.getShape().begin(), type.getShape().end());
  size_t rank = in.shape.size();
  // Row-major strides of the input, in the order of the result's dims.
  std::vector<int64_t> inStride(rank, 1), stride(rank);
  for (size_t d = rank; d-- > 1;)
    inStride[d - 1] = inStride[d] * in.shape[d];
  for (size_t k = 0; k < rank; ++k)
    stride[k] = inStride[perm[k]];
  std::vector<int64_t> j(rank, 0);
  for (int64_t n = 0; n < out->numel(); ++n) {
    int64_t from = 0;
    for (size_t k = 0; k < rank; ++k)
      from += j[k] * stride[k];
    if (in.type.isFloat())
      out->f[n] = in.f[from];
    else
      out->i[n] = in.i[from];
    for (size_t k = rank; k-- > 0;) { // the next result index, row-major
      if (++j[k] < out->shape[k])
        break;
      j[k] = 0;
    }
  }
  task.values[transpose.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execShift(Task &task, Operation &op) {
  auto shift = cast<tile::ShiftOp>(op);
  const TileVal &in = *get(task, shift.getInput()).tile;
  auto out = std::make_shared<TileVal>(in);
  size_t rank = in.shape.size(), dim = shift.getDim();
  int64_t offset = static_cast<int64_t>(shift.getOffset());
  int64_t extent = in.shape[dim];
  // Row-major: a step along `dim` is `stride` elements.
  int64_t stride = 1;
  for (size_t d = rank; d-- > dim + 1;)
    stride *= in.shape[d];
  for (int64_t n = 0; n < out->numel(); ++n) {
    int64_t c = n / stride % extent, from = c - offset;
    if (from < 0 || from >= extent)
      continue; // the edge keeps its own element
    int64_t src = n - offset * stride;
    if (in.type.isFloat())
      out->f[n] = in.f[src];
    else
      out->i[n] = in.i[src];
  }
  task.values[shift.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}

namespace {

/// How tile.reduce combines two elements of `type`, and its identity.
struct Combine {
  tile::ReduceKind kind;
  ElemType type;

  double identityF() const {
    switch (kind) {
    case tile::ReduceKind::sum:
      return 0.0;
    case tile::ReduceKind::prod:
      return 1.0;
    case tile::ReduceKind::max:
      return -INFINITY;
    case tile::ReduceKind::min:
      return INFINITY;
    }
    return 0.0;
  }
  int64_t identityI() const {
    bool isBool = type.bits == 1;
    int64_t lowest = isBool ? 0 : wrapInt(type, int64_t(1) << (type.bits - 1));
    int64_t highest = isBool ? 1 : ~lowest;
    if (type.kind == ElemType::Kind::Index || type.bits >= 64) {
      lowest = INT64_MIN;
      highest = INT64_MAX;
    }
    switch (kind) {
    case tile::ReduceKind::sum:
      return 0;
    case tile::ReduceKind::prod:
      return 1;
    case tile::ReduceKind::max:
      return lowest;
    case tile::ReduceKind::min:
      return highest;
    }
    return 0;
  }
  double f(double x, double y) const {
    switch (kind) {
    case tile::ReduceKind::sum:
      return roundTo(type, x + y);
    case tile::ReduceKind::prod:
      return roundTo(type, x * y);
    case tile::ReduceKind::max:
      return maximumF(x, y);
    case tile::ReduceKind::min:
      return minimumF(x, y);
    }
    return 0.0;
  }
  int64_t i(int64_t x, int64_t y) const {
    switch (kind) {
    case tile::ReduceKind::sum:
      return wrapInt(type, int64_t(uint64_t(x) + uint64_t(y)));
    case tile::ReduceKind::prod:
      return wrapInt(type, int64_t(uint64_t(x) * uint64_t(y)));
    case tile::ReduceKind::max:
      return std::max(x, y); // bools hold 0/1: max is "any"
    case tile::ReduceKind::min:
      return std::min(x, y);
    }
    return 0;
  }

  /// Combines `xs` pairwise (a balanced tree).
  template <typename T, typename F> static T tree(std::vector<T> xs, F f) {
    while (xs.size() > 1) {
      size_t half = 0;
      for (size_t k = 0; k + 1 < xs.size(); k += 2)
        xs[half++] = f(xs[k], xs[k + 1]);
      if (xs.size() % 2)
        xs[half++] = xs.back();
      xs.resize(half);
    }
    return xs.front();
  }
};

} // namespace

Interpreter::Outcome Interpreter::execReduce(Task &task, Operation &op) {
  auto reduce = cast<tile::ReduceOp>(op);
  const TileVal &in = *get(task, reduce.getInput()).tile;
  int64_t dim = reduce.getDim();
  int64_t inner = 1, outer = 1, extent = in.shape[dim];
  for (size_t d = dim + 1; d < in.shape.size(); ++d)
    inner *= in.shape[d];
  for (int64_t d = 0; d < dim; ++d)
    outer *= in.shape[d];
  // Positions at or past `valid` contribute the identity.
  int64_t valid = extent;
  if (Value v = reduce.getValid())
    valid = std::clamp<int64_t>(getInt(task, v), 0, extent);
  Combine comb{reduce.getKind(), in.type};
  Type resultType = reduce.getResult().getType();
  std::shared_ptr<TileVal> out;
  if (isa<RankedTensorType>(resultType))
    out = emptyTile(resultType);
  // A zero extent reduces to the identity.
  int64_t slots = std::max<int64_t>(extent, 1);
  std::vector<double> fs(in.type.isFloat() ? slots : 0, comb.identityF());
  std::vector<int64_t> is(in.type.isFloat() ? 0 : slots, comb.identityI());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t at = o * inner + j;
      for (int64_t e = 0; e < extent; ++e) {
        int64_t k = (o * extent + e) * inner + j;
        if (in.type.isFloat())
          fs[e] = e < valid ? in.f[k] : comb.identityF();
        else
          is[e] = e < valid ? in.i[k] : comb.identityI();
      }
      if (in.type.isFloat()) {
        double r =
            Combine::tree(fs, [&](double x, double y) { return comb.f(x, y); });
        if (out)
          out->f[at] = r;
        else
          task.values[reduce.getResult()] = RtValue::ofFloat(r);
      } else {
        int64_t r = Combine::tree(
            is, [&](int64_t x, int64_t y) { return comb.i(x, y); });
        if (out)
          out->i[at] = r;
        else
          task.values[reduce.getResult()] = RtValue::ofInt(r);
      }
    }
  if (out)
    task.values[reduce.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execDot(Task &task, Operation &op) {
  auto dot = cast<tile::DotOp>(op);
  const TileVal &a = *get(task, dot.getLhs()).tile;
  const TileVal &b = *get(task, dot.getRhs()).tile;
  const TileVal *acc =
      dot.getAcc() ? get(task, dot.getAcc()).tile.get() : nullptr;
  // [batches,] m x k times [batches,] k x n.
  size_t r = a.shape.size();
  int64_t batches = r == 3 ? a.shape[0] : 1;
  int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  int64_t valid = k;
  if (Value v = dot.getValidK())
    valid = std::clamp<int64_t>(getInt(task, v), 0, k);
  auto out = emptyTile(dot.getType());
  for (int64_t q = 0; q < batches; ++q) {
    const double *pa = a.f.data() + q * m * k, *pb = b.f.data() + q * k * n;
    int64_t base = q * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // Tile elements are exact in f32 (the inputs are f32 or narrower);
        // the chain of FMAs starts from acc.
        float sum = acc ? static_cast<float>(acc->f[base + i * n + j]) : 0.0f;
        for (int64_t kk = 0; kk < valid; ++kk)
          sum = std::fma(static_cast<float>(pa[i * k + kk]),
                         static_cast<float>(pb[kk * n + j]), sum);
        out->f[base + i * n + j] = roundTo(out->type, sum);
      }
  }
  task.values[dot.getResult()] = RtValue::ofTile(out);
  return Outcome::Next;
}
