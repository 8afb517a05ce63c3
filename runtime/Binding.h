//===- Binding.h - Binding and checking kernel arguments --------*- C++ -*-===//
//
// BoundArgs holds the arguments of one launch on one rank, bound by name or
// by position (the position counts the kernel's non-constexpr parameters in
// source order, then its outputs). Every setter and check() throws an
// Error(InvalidArgument) whose message names the kernel, the parameter, the
// expected and the actual value. packParams() lays the arguments out as the
// ABI slots of docs/kernel-abi.md. None of this touches a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_BINDING_H
#define DSLC_RUNTIME_BINDING_H

#include "runtime/Metadata.h"
#include "runtime/Teams.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

/// A tensor argument: a device address, its element type and sizes
/// (row-major contiguous), and for a symmetric tensor the device table of
/// world_size peer addresses.
struct TensorArg {
  void *data = nullptr;
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  void *peers = nullptr;

  int64_t numel() const;
};

struct ArgValue {
  enum class Kind { Unset, Tensor, Int, Float };
  Kind kind = Kind::Unset;
  TensorArg tensor;
  int64_t i = 0;
  double f = 0.0;
};

/// Pointer arguments must be aligned to this many bytes (the compiled
/// kernels assume it: contract::kTensorAlignment).
constexpr uint64_t kPointerAlignment = contract::kTensorAlignment;

class BoundArgs {
public:
  explicit BoundArgs(const KernelMetadata &md);

  void setTensor(const std::string &name, const TensorArg &t);
  void setTensor(int position, const TensorArg &t);
  void setInt(const std::string &name, int64_t v);
  void setInt(int position, int64_t v);
  void setFloat(const std::string &name, double v);
  void setFloat(int position, double v);

  /// The teams of the rank these arguments are for (Kernel::args sets them
  /// from the communicator, runtime/Teams.h). From then on a peer table (a
  /// symmetric tensor's table or a `peer_table` argument) whose entries
  /// name a rank outside this rank's LSA team is refused when it is bound,
  /// naming both ranks, and again by check().
  void setTeams(const RankTeams &teams);
  const std::optional<RankTeams> &teams() const { return teams_; }

  bool isBound(const std::string &name) const;
  const ArgValue &value(const std::string &name) const;
  const std::vector<ArgValue> &values() const { return values_; }
  const KernelMetadata &metadata() const { return *md_; }

  /// Checks everything a launch on `rank` of `worldSize` needs: all
  /// arguments bound, output shapes, peer tables, the world size and rank
  /// the kernel was compiled for and the metadata constraints.
  void check(int worldSize, int rank) const;

  /// The grid's tile count (product of ceil(extent / block)).
  int64_t numTiles() const;

private:
  int resolve(const std::string &name) const;
  int resolve(int position) const;
  void setTensorAt(int idx, const TensorArg &t);
  void setIntAt(int idx, int64_t v);
  void setFloatAt(int idx, double v);
  int64_t extent(const GridExtent &e) const;
  void checkPeers(int idx, const TensorArg &t) const;

  const KernelMetadata *md_;
  std::vector<ArgValue> values_;
  std::optional<RankTeams> teams_;
};

/// Values of the three hidden slots.
struct HiddenArgs {
  int64_t timeoutNs = 0;
  void *errorRecord = nullptr;
  void *state = nullptr;
};

/// Kernel parameters as cuLaunchKernel takes them: one 8-byte cell per ABI
/// slot and an array of pointers to the cells.
class ParamBuffer {
public:
  void **pointers() { return pointers_.data(); }
  size_t size() const { return cells_.size(); }
  uint64_t cell(size_t i) const { return cells_[i]; }

private:
  friend ParamBuffer packParams(const BoundArgs &args,
                                const HiddenArgs &hidden);
  std::vector<uint64_t> cells_;
  std::vector<void *> pointers_;
};

ParamBuffer packParams(const BoundArgs &args, const HiddenArgs &hidden);

/// Grid size for `numTiles` tiles: for a kernel that spins
/// min(numTiles, maxActivePerSm * numSms) (all CTAs co-resident), otherwise
/// numTiles capped by grid.max_ctas. 0 when there are no tiles.
int64_t planGrid(const KernelMetadata &md, int64_t numTiles, int maxActivePerSm,
                 int numSms);
/// The same with the number of co-resident CTAs given directly (the
/// runtime uses the smallest over all ranks, so every rank launches the
/// same grid: per-CTA state such as LL epochs must line up across ranks).
int64_t planGridResident(const KernelMetadata &md, int64_t numTiles,
                         int64_t resident);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_BINDING_H
