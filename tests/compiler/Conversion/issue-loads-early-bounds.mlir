// RUN: dslc-opt %s -dslc-issue-loads-early | FileCheck %s --check-prefix=WIDE
// RUN: dslc-opt %s -dslc-issue-loads-early="max-bytes-per-thread=32" | FileCheck %s --check-prefix=NARROW

// LayerNorm's shape at hidden 4096 and 4 warps: weight and bias, bf16,
// 64 bytes a thread each, written after the two reductions. At the default
// (wide) bound both climb above the first reduction and the module is
// marked dslc.wide_early_loads (dslc compiles it again at the narrow bound
// if ptxas spills); at 32 bytes a thread both stay and nothing is marked.

// WIDE: module attributes {dslc.wide_early_loads}
// WIDE-LABEL: func.func @layer_norm(
// WIDE: tile.load %arg0
// WIDE-NEXT: arith.extf
// WIDE-NEXT: tile.load %arg1
// WIDE-NEXT: tile.load %arg2
// WIDE-NEXT: tile.reduce sum

// NARROW-NOT: dslc.wide_early_loads
// NARROW-LABEL: func.func @layer_norm(
// NARROW: tile.reduce sum
// NARROW: tile.reduce sum
// NARROW: tile.load %arg1
// NARROW-NEXT: tile.load %arg2
module {
func.func @layer_norm(%x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 1>,
                      %b: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4096 = arith.constant 4096 : index
    %end = arith.addi %row, %c1 : index
    %a = tile.load %x[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x4096xbf16>
    %v = arith.extf %a : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %s = tile.reduce sum %v, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
    %mb = tile.broadcast %s : tensor<1x1xf32> -> tensor<1x4096xf32>
    %c = arith.subf %v, %mb : tensor<1x4096xf32>
    %sq = arith.mulf %c, %c : tensor<1x4096xf32>
    %var = tile.reduce sum %sq, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
    %inv = math.rsqrt %var : tensor<1x1xf32>
    %ib = tile.broadcast %inv : tensor<1x1xf32> -> tensor<1x4096xf32>
    %n = arith.mulf %c, %ib : tensor<1x4096xf32>
    %wt = tile.load %w[%c0] limits [%c4096] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<4096xbf16>
    %bt = tile.load %b[%c0] limits [%c4096] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<4096xbf16>
    %w2 = tile.reshape %wt : tensor<4096xbf16> -> tensor<1x4096xbf16>
    %b2 = tile.reshape %bt : tensor<4096xbf16> -> tensor<1x4096xbf16>
    %wf = arith.extf %w2 : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %bf = arith.extf %b2 : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %m = arith.mulf %n, %wf : tensor<1x4096xf32>
    %o = arith.addf %m, %bf : tensor<1x4096xf32>
    %ob = arith.truncf %o : tensor<1x4096xf32> to tensor<1x4096xbf16>
    tile.store %ob, %out[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : tensor<1x4096xbf16>, !tile.ref<bf16, 2>
  }
  return
}
}
