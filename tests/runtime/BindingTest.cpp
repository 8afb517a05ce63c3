//===- BindingTest.cpp - Argument binding, checking, packing, grid --------===//
#include "runtime/Binding.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace dslc::rt;

namespace {
void *fakePtr(uintptr_t v) { return reinterpret_cast<void *>(v); }

TensorArg tensor(uintptr_t addr, DType t, std::vector<int64_t> sizes,
                 uintptr_t peers = 0) {
  TensorArg a;
  a.data = fakePtr(addr);
  a.dtype = t;
  a.sizes = std::move(sizes);
  a.peers = fakePtr(peers);
  return a;
}

KernelMetadata oneShot(int rank = 0) {
  return loadMetadataFile(dslc::test::kernelPath(
      "one_shot_all_reduce.r" + std::to_string(rank) + ".cubin.json"));
}

/// Binds a correct set for n elements (world 2).
void bindAll(BoundArgs &a, int64_t n, int64_t padRows) {
  a.setTensor("signal_pad_addrs", tensor(0x1000, DType::UInt64, {2}));
  a.setTensor("local_signal_pad", tensor(0x2000, DType::Int32, {padRows, 2}));
  a.setTensor("a_shared", tensor(0x3000, DType::BFloat16, {n}, 0x4000));
  a.setTensor("out", tensor(0x5000, DType::BFloat16, {n}));
}

std::string checkError(const BoundArgs &a, int world, int rank) {
  try {
    a.check(world, rank);
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    return e.what();
  }
  return "(ok)";
}
} // namespace

TEST_CASE("binding: a correct one-shot binding checks and packs", "[binding]") {
  KernelMetadata md = oneShot();
  BoundArgs a(md);
  bindAll(a, 8193, 2);
  CHECK(a.numTiles() == 2);
  CHECK_NOTHROW(a.check(2, 0));
  DslcErrorRecord rec;
  HiddenArgs h{1234, &rec, nullptr};
  ParamBuffer p = packParams(a, h);
  REQUIRE(p.size() == 13);
  CHECK(p.cell(0) == 0x1000);
  CHECK(p.cell(1) == 2);
  CHECK(p.cell(2) == 0x2000);
  CHECK(p.cell(3) == 2);
  CHECK(p.cell(4) == 2);
  CHECK(p.cell(5) == 0x3000);
  CHECK(p.cell(6) == 0x4000);
  CHECK(p.cell(7) == 8193);
  CHECK(p.cell(8) == 0x5000);
  CHECK(p.cell(9) == 8193);
  CHECK(p.cell(10) == 1234);
  CHECK(p.cell(11) == reinterpret_cast<uintptr_t>(&rec));
  CHECK(p.cell(12) == 0);
  CHECK(*static_cast<uint64_t *>(p.pointers()[7]) == 8193);
}

TEST_CASE("binding: errors name kernel, parameter, expected and actual",
          "[binding]") {
  KernelMetadata md = oneShot();
  BoundArgs a(md);
  CHECK_THROWS_WITH(
      a.setTensor("a_shared", tensor(0x3000, DType::Float32, {8}, 0x4000)),
      "kernel one_shot_all_reduce_kernel: parameter 'a_shared': dtype "
      "bfloat16 expected, float32 given");
  CHECK_THROWS_WITH(
      a.setTensor("a_shared", tensor(0x3008, DType::BFloat16, {8}, 0x4000)),
      "kernel one_shot_all_reduce_kernel: parameter 'a_shared': address "
      "0x3008 is not 16-byte aligned");
  CHECK_THROWS_WITH(
      a.setTensor("local_signal_pad", tensor(0x2000, DType::Int32, {4})),
      "kernel one_shot_all_reduce_kernel: parameter 'local_signal_pad': rank "
      "2 expected, 1 given (sizes [4])");
  CHECK_THROWS_WITH(a.setTensor("nope", tensor(0x2000, DType::Int32, {4})),
                    Catch::Contains("no parameter or output named 'nope' (it "
                                    "takes: signal_pad_addrs, "
                                    "local_signal_pad, a_shared, out)"));
  CHECK_THROWS_WITH(a.setInt(0, 3),
                    "kernel one_shot_all_reduce_kernel: parameter "
                    "'signal_pad_addrs' is tensor, an int was given");
  CHECK_THROWS_WITH(a.setTensor(9, tensor(0x2000, DType::Int32, {4})),
                    Catch::Contains("argument position 9 is out of range"));
  CHECK_THROWS_WITH(
      a.setTensor("out", tensor(0, DType::BFloat16, {8})),
      Catch::Contains("output 'out': null data pointer for 8 elements"));

  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: parameter 'signal_pad_addrs' "
        "(position 0) is not bound");
  bindAll(a, 8193, 1);
  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: parameter 'local_signal_pad' dim "
        "0 is 1, but it must be >= 2 (num_tiles)");
  bindAll(a, 8193, 2);
  CHECK(checkError(a, 4, 0) ==
        "kernel one_shot_all_reduce_kernel: compiled for world size 2, "
        "launched on a communicator of world size 4");
  CHECK(checkError(a, 2, 1) ==
        "kernel one_shot_all_reduce_kernel: compiled for rank 0, launched on "
        "rank 1");
  a.setTensor("out", tensor(0x5000, DType::BFloat16, {8192}));
  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: output 'out' has sizes [8192], "
        "expected [8193] (like 'a_shared')");
  bindAll(a, 8193, 2);
  a.setTensor("a_shared", tensor(0x3000, DType::BFloat16, {8193}));
  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: parameter 'a_shared' is "
        "symmetric: it needs a peer table of 2 addresses (got none)");
  bindAll(a, 8193, 2);
  a.setTensor("signal_pad_addrs", tensor(0x1000, DType::UInt64, {3}));
  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: parameter 'signal_pad_addrs' dim "
        "0 is 3, but it must be == 2");
}

TEST_CASE("binding: a kernel of 32-bit index values refuses larger tensors",
          "[binding]") {
  // max_tensor_elements: tile.index * v would wrap past INT32_MAX and
  // address the wrong elements; the launch says so instead.
  KernelMetadata md = oneShot();
  md.maxTensorElements = 2147483647;
  BoundArgs a(md);
  bindAll(a, 8193, 2);
  CHECK_NOTHROW(a.check(2, 0));
  a.setTensor("out", tensor(0x5000, DType::BFloat16, {int64_t(1) << 31}));
  CHECK(checkError(a, 2, 0) ==
        "kernel one_shot_all_reduce_kernel: output 'out' holds 2147483648 "
        "elements, more than the 2147483647 that the kernel's 32-bit index "
        "values (tile.index, hl.arange) reach: compile it for these sizes "
        "(--shape; dslc then takes 64-bit index values) or with "
        "index_dtype=torch.int64");
  // Sizes whose product passes INT64_MAX count as that much, not wrapped.
  a.setTensor("local_signal_pad", tensor(0x2000, DType::Int32,
                                         {int64_t(1) << 40, int64_t(1) << 30}));
  CHECK_THAT(checkError(a, 2, 0),
             Catch::Contains("parameter 'local_signal_pad' holds "
                             "9223372036854775807 elements"));
}

TEST_CASE("binding: positions count params then outputs", "[binding]") {
  KernelMetadata md = oneShot();
  BoundArgs a(md);
  a.setTensor(0, tensor(0x1000, DType::UInt64, {2}));
  a.setTensor(1, tensor(0x2000, DType::Int32, {1, 2}));
  a.setTensor(2, tensor(0x3000, DType::BFloat16, {100}, 0x4000));
  a.setTensor(3, tensor(0x5000, DType::BFloat16, {100}));
  CHECK_NOTHROW(a.check(2, 0));
}

TEST_CASE("grid: persistent for spinning kernels, capped by max_ctas",
          "[binding]") {
  KernelMetadata md = oneShot();
  CHECK(planGrid(md, 0, 2, 132) == 0);
  CHECK(planGrid(md, 1, 2, 132) == 1);
  CHECK(planGrid(md, 8192, 2, 132) == 264);
  CHECK(planGrid(md, 100, 2, 132) == 100);
  CHECK_THROWS_WITH(planGrid(md, 10, 0, 132),
                    Catch::Contains("not one CTA of 1024 threads fits"));
  md.spins = false;
  CHECK(planGrid(md, 8192, 2, 132) == 8192);
  md.maxCtas = 512;
  CHECK(planGrid(md, 8192, 2, 132) == 512);
  // A spinning kernel with per-CTA state: resident and within max_ctas.
  md.spins = true;
  md.maxCtas = 100;
  CHECK(planGrid(md, 8192, 2, 132) == 100);
  CHECK(planGrid(md, 50, 2, 132) == 50);
}

TEST_CASE("grid: tile counts from params, scalars and constants", "[binding]") {
  KernelMetadata md = oneShot();
  BoundArgs a(md);
  bindAll(a, 1, 1);
  CHECK(a.numTiles() == 1);
  bindAll(a, 8192, 1);
  CHECK(a.numTiles() == 1);
  bindAll(a, 8193, 2);
  CHECK(a.numTiles() == 2);
  bindAll(a, 64 << 20, 8192);
  CHECK(a.numTiles() == 8192);
  GridExtent c;
  c.constant = 10;
  c.block = 3;
  md.grid.push_back(c);
  BoundArgs b(md);
  bindAll(b, 8193, 8);
  CHECK(b.numTiles() == 8);
}

TEST_CASE("kernel paths and architectures", "[binding]") {
  CHECK(expandRankPattern("k.r{rank}.cubin", 3) == "k.r3.cubin");
  CHECK(expandRankPattern("{rank}/{rank}", 1) == "1/1");
  int maj = 0, min = 0;
  CHECK(parseSmArch("sm_90", maj, min));
  CHECK(maj == 9);
  CHECK(min == 0);
  CHECK(parseSmArch("sm_90a", maj, min));
  CHECK(parseSmArch("sm_100", maj, min));
  CHECK(maj == 10);
  CHECK_FALSE(parseSmArch("compute_90", maj, min));
}

TEST_CASE("grid: extents with add and div (a grid over ceil(N / 2))",
          "[binding]") {
  KernelMetadata md = oneShot();
  md.grid[0].add = 1;
  md.grid[0].div = 2;
  BoundArgs a(md);
  bindAll(a, 1, 1);
  CHECK(a.numTiles() == 1);
  bindAll(a, 16384, 1);
  CHECK(a.numTiles() == 1);
  bindAll(a, 16385, 2); // ceil(16385 / 2) = 8193 -> 2 tiles of 8192
  CHECK(a.numTiles() == 2);
  CHECK(checkError(a, 2, 0) == "(ok)");
  // The num_tiles constraint uses the same count.
  bindAll(a, 16385, 1);
  CHECK(checkError(a, 2, 0).find("dim 0 is 1, but it must be >= 2 "
                                 "(num_tiles)") != std::string::npos);
  CHECK(planGrid(md, a.numTiles(), 2, 132) == 2);
}

TEST_CASE("binding: dimensions one tile indexes must have equal sizes",
          "[binding]") {
  // same_sizes (issue 25): 'out' dim 0 is indexed by the tile over
  // 'a_shared' dim 0. A mismatch is refused at launch, naming both.
  KernelMetadata md = oneShot();
  md.sameSizes.push_back({"out", 0, "a_shared", 0, "k.py:12:9"});
  BoundArgs a(md);
  bindAll(a, 8193, 2);
  CHECK_NOTHROW(a.check(2, 0));
  a.setTensor("out", tensor(0x5000, DType::BFloat16, {8192}));
  // (the output's `like` check speaks first when it applies: drop it)
  for (ArgSpec &s : md.args)
    s.like.clear();
  BoundArgs b(md);
  bindAll(b, 8193, 2);
  b.setTensor("out", tensor(0x5000, DType::BFloat16, {8192}));
  CHECK(checkError(b, 2, 0).find("'out' dim 0 is 8192, but 'a_shared' dim 0 "
                                 "is 8193: the kernel indexes both with one "
                                 "tile (at k.py:12:9), so their sizes must "
                                 "be equal") != std::string::npos);
}
