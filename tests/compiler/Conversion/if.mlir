// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// scf.if (a run-time `if`) through the tile distribution: a yielded tile
// becomes the per-thread vector of its shape's layout on both paths, and
// the ops inside each branch are distributed in place.

// A 1024-element f32 tile at 4 warps: 8 elements per thread.
// CHECK-LABEL: func.func @yield_tile(
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: scf.yield %{{.*}} : vector<8xf32>
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : vector<8xf32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @yield_tile(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>, %n: i64)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %size = tile.dim %x, 0 : !tile.ref<f32, 1>
  %ni = arith.index_cast %n : i64 to index
  %cond = arith.cmpi slt, %size, %ni : index
  %r = scf.if %cond -> (tensor<1024xf32>) {
    %v = tile.load %x[%c0] limits [%size] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
    %two = arith.constant dense<2.0> : tensor<1024xf32>
    %w = arith.mulf %v, %two : tensor<1024xf32>
    scf.yield %w : tensor<1024xf32>
  } else {
    %z = arith.constant dense<0.0> : tensor<1024xf32>
    scf.yield %z : tensor<1024xf32>
  }
  tile.store %r, %out[%c0] limits [%size] {dims = array<i64: 0>} : tensor<1024xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A reduction inside a branch: its shuffles and the workspace's bar.syncs
// stay inside the scf.if (the condition is uniform across the CTA); the
// replicated result is yielded as every thread's vector<1xf32>.
// CHECK-LABEL: func.func @reduce_in_branch(
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (vector<1xf32>) {
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier
// CHECK: scf.yield %{{.*}} : vector<1xf32>
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : vector<1xf32>
func.func @reduce_in_branch(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>, %n: i64)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %size = tile.dim %x, 0 : !tile.ref<f32, 1>
  %ni = arith.index_cast %n : i64 to index
  %cond = arith.cmpi sgt, %ni, %c0 : index
  %r = scf.if %cond -> (tensor<1xf32>) {
    %v = tile.load %x[%c0] limits [%size] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
    %s = tile.reduce sum %v, 0 valid %size : tensor<1024xf32> -> tensor<f32>
    %s1 = tile.reshape %s : tensor<f32> -> tensor<1xf32>
    scf.yield %s1 : tensor<1xf32>
  } else {
    %z = arith.constant dense<0.0> : tensor<1xf32>
    scf.yield %z : tensor<1xf32>
  }
  tile.store %r, %out[%c0] limits [%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  return
}
