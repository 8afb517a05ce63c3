// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// tile.dot of bf16 [16, 32] x [32, 64] with an f32 accumulator and a valid
// K count, at 4 warps (128 threads, V = 8): the owners store A and B into
// the workspace in bf16 (A at byte 0, B at 1024: 5120 bytes), bar.sync;
// rows of 32 and 64 take 8 lanes (16 groups of 8 lanes, TileLayout.h), so
// each thread computes one row x 8 columns of the result: a loop over
// k < min(valid_k, 32) that loads its B piece (one vector<8xbf16>) and its
// A element, widens them to f32 and adds the outer product with a vector
// FMA into the accumulator; bar.sync frees the workspace.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<5120 x i8>
// CHECK-LABEL: func.func @dot_acc(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %c32_i64 : i64
// CHECK: scf.for %[[K:.*]] = %c0_i64 to %[[END]] step %c1_i64 iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> bf16
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK: scf.yield
// CHECK: nvvm.barrier0
func.func @dot_acc(%a: !tile.ref<bf16, 2>, %b: !tile.ref<bf16, 2>,
                   %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %a, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %b, 1 : !tile.ref<bf16, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x32xbf16>
  %y = tile.load %b[%c0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x64xbf16>
  %z = arith.constant dense<0.0> : tensor<16x64xf32>
  %c = tile.dot %x, %y acc %z valid_k %k : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
  tile.store %c, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<16x64xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Shapes that do not divide: [3, 5] x [5, 7] f32 at 1 warp, with a bf16
// result: 2 groups of 16 lanes, 2 rows per thread of which row 3 (group 1's
// second) is padding: its A row is clamped to row 2. The bf16 result allows
// pieces of 8, but rows of 7 over 16 lanes would leave 15 lanes without
// one: pieces of 4 (16 bytes of f32, the widest tensor), so a thread holds
// 2 x 4 elements, not 2 x 8; they are read element by element (column
// clamped to 6), an FMA of 4 per row; the bf16 result is rounded after the
// op.

// CHECK-LABEL: func.func @dot_tails(
// CHECK: nvvm.barrier0
// CHECK: arith.minui %{{.*}}, %c2_i64 : i64
// CHECK: scf.for %{{.*}} = %c0_i64 to %c5_i64 step %c1_i64 iter_args(%{{.*}}) -> (vector<8xf32>)
// CHECK: arith.minui %{{.*}}, %c6_i64 : i64
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
func.func @dot_tails(%x: !tile.ref<f32, 2>, %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %out, 0 : !tile.ref<bf16, 2>
  %a = tile.load %x[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<3x5xf32>
  %b = tile.load %x[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<5x7xf32>
  %c = tile.dot %a, %b : tensor<3x5xf32>, tensor<5x7xf32> -> tensor<3x7xbf16>
  tile.store %c, %out[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : tensor<3x7xbf16>, !tile.ref<bf16, 2>
  return
}
