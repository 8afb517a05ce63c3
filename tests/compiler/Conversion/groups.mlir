// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// Rows dealt over groups of lanes (TileLayout.h). At 4 warps a [64, 64]
// f32 tile takes 16 lanes per row (V = 4): 8 groups, 8 rows per thread.
// A reduction over the dealt first dimension goes through the workspace
// (the whole tile, 16 KiB): each owner stores its pieces, bar.sync, each
// thread loads its piece of each of the 64 rows (one vector<4xf32> each)
// and combines them, bar.sync.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i8>
// CHECK-LABEL: func.func @reduce_dealt(
// CHECK: %[[TID:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: arith.remui %[[TID]], %c16_i64 : i64
// CHECK: arith.divui %[[TID]], %c16_i64 : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-64: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: nvvm.barrier0
func.func @reduce_dealt(%a: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %n = tile.dim %a, 1 : !tile.ref<f32, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<64x64xf32>
  %s = tile.reduce sum %x, 0 valid %m : tensor<64x64xf32> -> tensor<1x64xf32>
  tile.store %s, %out[%c0, %c0] limits [%c1, %n] {dims = array<i64: 0, 1>} : tensor<1x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Along the last dimension the 16 lanes of a group combine with butterfly
// shuffles at offsets 8, 4, 2, 1 (not 16: the other half of the warp is
// another group), one per row and offset, and no shared memory.

// CHECK-LABEL: func.func @reduce_rows(
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-32: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c{{8|4|2|1}}_i32, %c31_i32 : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @reduce_rows(%a: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %n = tile.dim %a, 1 : !tile.ref<f32, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<64x64xf32>
  %s = tile.reduce max %x, 1 valid %n : tensor<64x64xf32> -> tensor<64x1xf32>
  tile.store %s, %out[%c0, %c0] limits [%m, %c1] {dims = array<i64: 0, 1>} : tensor<64x1xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Broadcasts stay shuffles: a [64, 1] column (a thread's 8 rows, one value
// each) fills its rows' pieces; a [1, 64] row (held by every group, one
// piece per thread) repeats into each of the thread's 8 rows.

// CHECK-LABEL: func.func @broadcast_groups(
// CHECK-DAG: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7] : vector<8xf32>, vector<8xf32>
// CHECK-DAG: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: nvvm.barrier0
func.func @broadcast_groups(%a: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %n = tile.dim %a, 1 : !tile.ref<f32, 2>
  %col = tile.load %a[%c0, %c0] limits [%m, %c1] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<64x1xf32>
  %row = tile.load %a[%c0, %c0] limits [%c1, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x64xf32>
  %cb = tile.broadcast %col : tensor<64x1xf32> -> tensor<64x64xf32>
  %rb = tile.broadcast %row : tensor<1x64xf32> -> tensor<64x64xf32>
  %p = arith.mulf %cb, %rb : tensor<64x64xf32>
  tile.store %p, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
