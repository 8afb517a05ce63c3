// RUN: dslc-opt %s -split-input-file -dslc-issue-loads-early | FileCheck %s

// RMSNorm's shape (examples/rmsnorm.py): the weight load written after the
// reduction lands just above it (it could climb up to the store of
// residual_out, a write, but the math before the reduction has no barrier
// to hide it behind).

// CHECK-LABEL: func.func @rmsnorm(
// CHECK: tile.load %arg0
// CHECK: tile.load %arg1
// CHECK: tile.store %{{.*}}, %arg4
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[W:.*]] = tile.load %arg2
// CHECK-NEXT: tile.reduce sum
// CHECK: tile.reshape %[[W]]
// CHECK: tile.store %{{.*}}, %arg3
func.func @rmsnorm(%x: !tile.ref<bf16, 2>, %r: !tile.ref<bf16, 2>,
                   %w: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 2>,
                   %rout: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 16 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4096 = arith.constant 4096 : index
    %end = arith.addi %row, %c1 : index
    %a = tile.load %x[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x4096xbf16>
    %b = tile.load %r[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x4096xbf16>
    %s = arith.addf %a, %b : tensor<1x4096xbf16>
    tile.store %s, %rout[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : tensor<1x4096xbf16>, !tile.ref<bf16, 2>
    %v = arith.extf %s : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %sq = arith.mulf %v, %v : tensor<1x4096xf32>
    %sum = tile.reduce sum %sq, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
    %inv = math.rsqrt %sum : tensor<1x1xf32>
    %bc = tile.broadcast %inv : tensor<1x1xf32> -> tensor<1x4096xf32>
    %n = arith.mulf %v, %bc : tensor<1x4096xf32>
    %wt = tile.load %w[%c0] limits [%c4096] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<4096xbf16>
    %w2 = tile.reshape %wt : tensor<4096xbf16> -> tensor<1x4096xbf16>
    %wf = arith.extf %w2 : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %o = arith.mulf %n, %wf : tensor<1x4096xf32>
    %ob = arith.truncf %o : tensor<1x4096xf32> to tensor<1x4096xbf16>
    tile.store %ob, %out[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : tensor<1x4096xbf16>, !tile.ref<bf16, 2>
  }
  return
}

// -----

// A load stops at the op that computes its index; a load of more than 64
// bytes a thread (here 256: 8192 f32 over 128 threads) stays where it is
// written; a load climbs above a reduction at the top of its loop's
// body, never out of the loop; a load does not climb over a matrix
// product.

// CHECK-LABEL: func.func @stays(
// CHECK: tile.reduce
// CHECK-NEXT: %[[IX:.*]] = arith.addi
// CHECK-NEXT: tile.load %arg1[%[[IX]]] limits
// CHECK: tile.reduce
// CHECK-NEXT: tile.load %arg2
// CHECK: scf.for
// CHECK-NEXT: tile.load %arg3
// CHECK-NEXT: tile.reduce
// CHECK: tile.dot
// CHECK-NEXT: tile.load %arg5
func.func @stays(%x: !tile.ref<f32, 1>, %y: !tile.ref<f32, 1>,
                 %big: !tile.ref<f32, 1>, %z: !tile.ref<f32, 1>,
                 %out: !tile.ref<f32, 1>, %m: !tile.ref<f32, 2>, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c8192 = arith.constant 8192 : index
  %a = tile.load %x[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %s = tile.reduce sum %a, 0 : tensor<128xf32> -> tensor<f32>
  %ix = arith.addi %n, %c1 : index
  %b = tile.load %y[%ix] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %s2 = tile.reduce sum %b, 0 : tensor<128xf32> -> tensor<f32>
  %g = tile.load %big[%c0] limits [%c8192] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<8192xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %a) -> (tensor<128xf32>) {
    %r = tile.reduce sum %t, 0 : tensor<128xf32> -> tensor<f32>
    %zt = tile.load %z[%k] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
    %nx = arith.addf %t, %zt : tensor<128xf32>
    scf.yield %nx : tensor<128xf32>
  }
  tile.store %acc, %out[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  %p = tile.load %m[%c0, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
  %d = tile.dot %p, %p : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %q = tile.load %m[%c16, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
  %e = arith.addf %d, %q : tensor<16x16xf32>
  tile.store %e, %m[%c0, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A tensor the kernel wrote before is read after a barrier
// (lower::markReadsAfterWrites): that load does not move.

// CHECK-LABEL: func.func @read_after_write(
// CHECK: tile.store
// CHECK: tile.reduce
// CHECK-NEXT: tile.load %arg1{{.*}}tile.cta_ordered
func.func @read_after_write(%x: !tile.ref<f32, 1>, %y: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a = tile.load %x[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  tile.store %a, %y[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  %s = tile.reduce sum %a, 0 : tensor<128xf32> -> tensor<f32>
  %b = tile.load %y[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  tile.store %b, %x[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  return
}

// Cross entropy's shape (Helion's cross_entropy example): a row's
// 16 KB (128 B a thread, past the barrier climb's 64) written after the
// gather `logits[row, label]` climbs over the gather and its index math
// (issued before the label arrives), stops at the label's load; a second
// wide load after a reduction does not climb over it.

// CHECK-LABEL: func.func @cross_entropy(
// CHECK: %[[L:.*]] = tile.load %arg1
// CHECK: arith.addi %{{.*}}, %[[L]]
// CHECK-NEXT: %[[ROW:.*]] = tile.load %arg0
// CHECK-NEXT: tile.gather
// CHECK-NEXT: tile.reduce max %[[ROW]]
// CHECK-NEXT: tile.load %arg3
func.func @cross_entropy(%logits: !tile.ref<f32, 2>, %labels: !tile.ref<i64, 1>,
                         %flat: !tile.ref<f32, 1>, %other: !tile.ref<f32, 2>,
                         %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %n = tile.dim %logits, 0 : !tile.ref<f32, 2>
  tile.grid(%n) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4096 = arith.constant 4096 : index
    %end = arith.addi %row, %c1 : index
    %label = tile.load %labels[%row] limits [%end] {dims = array<i64: 0>} : !tile.ref<i64, 1> -> tensor<1xi64>
    %c4096i = arith.constant 4096 : i64
    %base = tile.splat %c4096i : i64 -> tensor<1xi64>
    %ix = arith.addi %base, %label : tensor<1xi64>
    %target = tile.gather %flat[%ix] : !tile.ref<f32, 1>, tensor<1xi64> -> tensor<1xf32>
    %r = tile.load %logits[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x4096xf32>
    %m = tile.reduce max %r, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
    %q = tile.load %other[%row, %c0] limits [%end, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x4096xf32>
    %mm = tile.reshape %m : tensor<1x1xf32> -> tensor<1xf32>
    %s = arith.addf %mm, %target : tensor<1xf32>
    tile.store %s, %out[%row] limits [%end] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
    tile.store %mm, %out[%row] limits [%end] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
    %qq = tile.reduce sum %q, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
  }
  return
}

// -----

// (dslc --issue-loads-early=false, and -dslc-pipeline with
// issue-loads-early=false, leave every load where it is written: see
// tests/examples/rmsnorm-issue-early.test.)
