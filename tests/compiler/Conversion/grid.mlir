// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles | FileCheck %s

// A 2-d grid is row-major: tile t is (t / n1, t mod n1), in 32-bit
// arithmetic (a 64-bit division by a run-time value is a call on the GPU,
// which serializes wgmma; the runtime refuses more than 2^32 - 1 tiles).

// CHECK-LABEL: func.func @row_major(
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[T32:.*]] = arith.index_castui %[[T]] : index to i32
// CHECK: %[[N32:.*]] = arith.index_castui %[[N1:.*]] : index to i32
// CHECK: arith.remui %[[T32]], %[[N32]] : i32
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.divui {{.*}} : index
// CHECK-NOT: arith.minui {{.*}} : index
func.func @row_major(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %m = tile.dim %x, 0 : !tile.ref<f32, 2>
  %n = tile.dim %x, 1 : !tile.ref<f32, 2>
  tile.grid(%m, %n) block [16, 16] {
  ^bb0(%i: index, %j: index):
    %c16 = arith.constant 16 : index
    %ie = arith.addi %i, %c16 : index
    %je = arith.addi %j, %c16 : index
    %t = tile.load %x[%i, %j] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
    tile.store %t, %out[%i, %j] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// With tile.l2_grouping = 8 (config l2_groupings=[8]) the tiles run in
// groups of 8 rows, each walked down its column first: in group
// k = t / (8 n1), row 8 k + (t mod 8 n1) mod r and column
// (t mod 8 n1) / r, with r = min(n0 - 8 k, 8) rows in the group.

// CHECK-LABEL: func.func @grouped(
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[G:.*]] = arith.minui %c8, %[[N0:.*]] : index
// CHECK: %[[IN:.*]] = arith.muli %[[G]], %[[N1:.*]] : index
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: %[[K:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[FIRST:.*]] = arith.muli %[[K]], %c8 : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[N0]], %[[FIRST]] : index
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %c8 : index
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: arith.addi %[[FIRST]], %[[R]] : index
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.divui {{.*}} : index
func.func @grouped(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.l2_grouping = 8 : i64} {
  %m = tile.dim %x, 0 : !tile.ref<f32, 2>
  %n = tile.dim %x, 1 : !tile.ref<f32, 2>
  tile.grid(%m, %n) block [16, 16] {
  ^bb0(%i: index, %j: index):
    %t = tile.load %x[%i, %j] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
    tile.store %t, %out[%i, %j] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  }
  return
}
