// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// A tensor the kernel writes and then reads back: other threads of the CTA
// may have written the elements a thread reads (here a [2, 2] tile has one
// writer per element and is read replicated by all 128 threads), so the
// read waits at a CTA barrier (bar.sync orders global memory in the CTA).

// CHECK-LABEL: func.func @write_then_read(
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
func.func @write_then_read(%x: !tile.ref<f32, 2>, %c: !tile.ref<f32, 2>,
                           %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %v = tile.load %x[%c0, %c0] limits [%c2, %c2] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x2xf32>
  tile.store %v, %c[%c0, %c0] limits [%c2, %c2] {dims = array<i64: 0, 1>} : tensor<2x2xf32>, !tile.ref<f32, 2>
  %back = tile.load %c[%c0, %c0] limits [%c2, %c2] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x2xf32>
  %t = tile.transpose %back [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  tile.store %t, %out[%c0, %c0] limits [%c2, %c2] {dims = array<i64: 0, 1>} : tensor<2x2xf32>, !tile.ref<f32, 2>
  return
}

// -----

// In place (read, then write the same elements) needs none; nor does a
// write that no read of the tensor can follow.

// CHECK-LABEL: func.func @in_place(
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @in_place(%x: !tile.ref<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %v = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
  %w = arith.addf %v, %v : tensor<512xf32>
  tile.store %w, %x[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A loop that writes then (next iteration) reads: ordered.

// CHECK-LABEL: func.func @loop(
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: llvm.load
func.func @loop(%x: !tile.ref<f32, 1>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
    %w = arith.addf %v, %v : tensor<512xf32>
    tile.store %w, %x[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  }
  return
}
