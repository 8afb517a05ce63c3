// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// tile.dot of bf16 [16, 32] x [32, 64] with an f32 accumulator and a valid
// K count, at 4 warps (128 threads, V = 8): the inputs are widened to f32
// (exactly), each thread stores its pieces of A and B into the workspace
// (A at byte 0, B at 2048, the product at 10240: 14336 bytes), bar.sync;
// the 1024 products are 8 per thread (elements tid + 128 s), each an FMA
// chain over k < min(valid_k, 32) reading A[row][k] and B[k][col] from
// shared memory; they are stored to the product region, bar.sync; each
// thread reads its layout's piece (rows of 32 and 64 take 8 lanes: 16
// groups of 8 lanes, one row each, TileLayout.h: one aligned vector<8xf32>
// load of 8 columns), adds the accumulator, bar.sync.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<14336 x i8>
// CHECK-LABEL: func.func @dot_acc(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %c32_i64 : i64
// CHECK: scf.for %[[K:.*]] = %c0_i64 to %[[END]] step %c1_i64 iter_args(
// CHECK-COUNT-8: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: scf.yield
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf32>
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<8xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
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

// Shapes that do not divide: [3, 5] x [5, 7] f32 at 1 warp (V = 4): the
// 21 products take one slot per thread, the last lanes' slot is past the
// end (not stored); pieces of 4 over 7 columns are read element by element
// (column clamped to 6); a bf16 result is rounded after the op.

// CHECK-LABEL: func.func @dot_tails(
// CHECK: scf.for
// CHECK: llvm.intr.fma
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c21_i64 : i64
// CHECK: scf.if %[[IN]] {
// CHECK: nvvm.barrier0
// CHECK: arith.minui %{{.*}}, %c6_i64 : i64
// CHECK: arith.truncf %{{.*}} : vector<{{[0-9]+}}xf32> to vector<{{[0-9]+}}xbf16>
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
