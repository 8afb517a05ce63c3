// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// The rows of a 3-d tile whose first dimension is smaller than the groups:
// [2, 8, 16] f32 in 32 threads has rows of 4 lanes, 8 groups, so the first
// two dimensions are dealt as one of 16 (TileLayout.h): row o of group g
// is index i = o * 8 + g of them, (i / 8, i % 8), each checked against its
// dimension's count.

// CHECK-LABEL: func.func @copy3d(
// CHECK-SAME: %[[X:[^:]*]]: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[S0:[^:]*]]: i64, %[[S1:[^:]*]]: i64, %[[S2:[^:]*]]: i64,
// CHECK: %[[TID:.*]] = arith.extui
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c4_i64
// CHECK: %[[G:.*]] = arith.divui %[[TID]], %c4_i64
// CHECK: %[[I1:.*]] = arith.remui %[[G]], %c8_i64
// CHECK: %[[I0:.*]] = arith.divui %[[G]], %c8_i64
// CHECK: arith.cmpi ugt, %{{.*}}, %[[I1]]
// CHECK: arith.muli %[[S2]], %[[I1]]
// CHECK: arith.cmpi ugt, %{{.*}}, %[[I0]]
// CHECK: %[[ROW1:.*]] = arith.addi %[[G]], %c8_i64
// CHECK: arith.remui %[[ROW1]], %c8_i64
// CHECK: arith.divui %[[ROW1]], %c8_i64
func.func @copy3d(%x: !tile.ref<f32, 3> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 3> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %a = tile.dim %x, 0 : !tile.ref<f32, 3>
  %b = tile.dim %x, 1 : !tile.ref<f32, 3>
  %c = tile.dim %x, 2 : !tile.ref<f32, 3>
  %t = tile.load %x[%c0, %c0, %c0] limits [%a, %b, %c] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<2x8x16xf32>
  tile.store %t, %out[%c0, %c0, %c0] limits [%a, %b, %c] {dims = array<i64: 0, 1, 2>} : tensor<2x8x16xf32>, !tile.ref<f32, 3>
  return
}

// -----

// A broadcast whose input rows other groups hold ([1, 3, 16]: 3 rows dealt
// over 2 groups; [2, 3, 16]: the first dimension dealt, the 3 rows held
// whole) goes through the workspace: stored row-major, then each thread
// reads rows 0, 1, 2 of its batch at 0, 16, 32 (the batch's stride is 0).

// CHECK-LABEL: func.func @bcast(
// CHECK-NOT: vector.shuffle
// CHECK: nvvm.barrier0
// CHECK: %[[C:.*]] = arith.minui %{{.*}}, %c15_i64
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: arith.addi %[[C]], %c16_i64
// CHECK: arith.addi %[[C]], %c32_i64
// CHECK: nvvm.barrier0
func.func @bcast(%x: !tile.ref<f32, 3> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 3> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %a = tile.dim %x, 0 : !tile.ref<f32, 3>
  %t = tile.load %x[%c0, %c0, %c0] limits [%a, %a, %a] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<1x3x16xf32>
  %b = tile.broadcast %t : tensor<1x3x16xf32> -> tensor<2x3x16xf32>
  tile.store %b, %out[%c0, %c0, %c0] limits [%a, %a, %a] {dims = array<i64: 0, 1, 2>} : tensor<2x3x16xf32>, !tile.ref<f32, 3>
  return
}

// -----

// A reduction along a dealt dimension ([2, 8, 4, 16] deals its first two
// dimensions over 8 groups) goes through the workspace: each thread sums,
// for its element (i0, 0, i2, c) of the result, the input's elements
// i0 * 512 + e * 64 + i2 * 16 + c for e = 0 .. 7.

// CHECK-LABEL: func.func @reduce_dealt(
// CHECK: nvvm.barrier0
// CHECK: %[[I2:.*]] = arith.remui %{{.*}}, %c4_i64
// CHECK: %[[I0:.*]] = arith.divui %{{.*}}, %c4_i64
// CHECK: %[[B0:.*]] = arith.muli %[[I0]], %c512_i64
// CHECK: arith.muli %[[I2]], %c16_i64
// CHECK: arith.addi %[[B0]], %c64_i64
// CHECK: arith.addi %[[B0]], %c448_i64
// CHECK: arith.addf
// CHECK: nvvm.barrier0
func.func @reduce_dealt(%x: !tile.ref<f32, 4> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 4> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %a = tile.dim %x, 0 : !tile.ref<f32, 4>
  %t = tile.load %x[%c0, %c0, %c0, %c0] limits [%a, %a, %a, %a] {dims = array<i64: 0, 1, 2, 3>} : !tile.ref<f32, 4> -> tensor<2x8x4x16xf32>
  %r = tile.reduce sum %t, 1 : tensor<2x8x4x16xf32> -> tensor<2x1x4x16xf32>
  tile.store %r, %out[%c0, %c0, %c0, %c0] limits [%a, %a, %a, %a] {dims = array<i64: 0, 1, 2, 3>} : tensor<2x1x4x16xf32>, !tile.ref<f32, 4>
  return
}
