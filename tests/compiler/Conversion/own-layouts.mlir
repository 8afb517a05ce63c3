// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// A tile that the kernel's row threads would leave mostly padding takes its
// own (TileLayout::choose). The [2, 1024] tile gives the kernel 64 lanes a
// row (2 groups), which would deal [1024, 2] as 512 rows per thread of
// one 2-element piece each (1024 elements); alone it takes one lane a row:
// 128 groups of 8 rows, 16 elements per thread. Its reduction along the
// last dimension stays in that layout, as does its [1024, 1] result
// (squeeze_and_excitation_net's [1024, 2] next to [2, 1024]): 8 scalar
// stores, no shuffle, no trip through shared memory.

// CHECK-LABEL: func.func @narrow_next_to_wide(
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
// CHECK-NOT: vector<1xf32>, !llvm.ptr<1>
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @narrow_next_to_wide(%a: !tile.ref<f32, 2>, %b: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %n = tile.dim %a, 1 : !tile.ref<f32, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1024x2xf32>
  %s = tile.reduce sum %x, 1 valid %n : tensor<1024x2xf32> -> tensor<1024x1xf32>
  tile.store %s, %out[%c0, %c0] limits [%m, %c1] {dims = array<i64: 0, 1>} : tensor<1024x1xf32>, !tile.ref<f32, 2>
  %w = tile.load %b[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x1024xf32>
  tile.store %w, %b[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<2x1024xf32>, !tile.ref<f32, 2>
  return
}

// -----

// The kernel's 2-row tiles leave 2 groups of 512 threads, which would give
// the 1024 rows of a [1, 1024, 1] tile 512 per thread (a last dimension of
// 1 is replicated over a group's lanes): past the 256 that fit. It takes
// one lane a row instead: one element per thread, the row being the
// thread's index. (One lane a row for the kernel would give its [2, 1024]
// tile a layout of its own instead: no fewer conversions.)

// CHECK-LABEL: func.func @replicated_own(
// CHECK: arith.divui %{{.*}}, %c512_i64 : i64
// CHECK: llvm.store %{{.*}} : vector<1xf32>, !llvm.ptr<1>
// CHECK: arith.remui %[[T:.*]], %c1024_i64 : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<1xf32>
// CHECK: llvm.store %{{.*}} : vector<1xf32>, !llvm.ptr<1>
// CHECK: return
func.func @replicated_own(%a: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 32 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 3>
  %y = tile.load %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 1, 2>} : !tile.ref<f32, 3> -> tensor<2x1xf32>
  tile.store %y, %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 1, 2>} : tensor<2x1xf32>, !tile.ref<f32, 3>
  %z = tile.load %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 1, 2>} : !tile.ref<f32, 3> -> tensor<2x1024xf32>
  tile.store %z, %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 1, 2>} : tensor<2x1024xf32>, !tile.ref<f32, 3>
  %x = tile.load %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<1x1024x1xf32>
  tile.store %x, %a[%c0, %c0, %c0] limits [%n, %n, %n] {dims = array<i64: 0, 1, 2>} : tensor<1x1024x1xf32>, !tile.ref<f32, 3>
  return
}
