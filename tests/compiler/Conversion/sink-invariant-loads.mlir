// RUN: dslc-opt %s -split-input-file -dslc-sink-invariant-loads | FileCheck %s
// RUN: dslc-opt %s -split-input-file -dslc-sink-invariant-loads=apply=false | FileCheck %s --check-prefix=MARK

// LayerNorm's backward (Helion's layer_norm_bwd): the weight row, loaded and
// widened before the loop over the CTA's rows and used only in it, is loaded
// and widened again in the loop, right before the multiply that reads it;
// nothing of it is left before the loop. With apply=false nothing moves and
// the module is marked.

// CHECK-LABEL: func.func @weight_row(
// CHECK-NOT: tile.load %arg1
// CHECK: scf.for
// CHECK: %[[X:.*]] = tile.load %arg0
// CHECK: %[[XF:.*]] = arith.extf %[[X]]
// CHECK: %[[W:.*]] = tile.load %arg1[%{{.*}}] limits[%{{.*}}]
// CHECK-NEXT: %[[WR:.*]] = tile.reshape %[[W]]
// CHECK-NEXT: %[[WF:.*]] = arith.extf %[[WR]]
// CHECK-NEXT: arith.mulf %[[WF]], %[[XF]]
// MARK: module attributes {dslc.sinkable_loads} {
// MARK-NEXT: func.func @weight_row(
// MARK: tile.load %arg1
// MARK: scf.for
func.func @weight_row(%x: !tile.ref<f16, 2>, %w: !tile.ref<f16, 1>, %out: !tile.ref<f16, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<f16, 2>
  tile.grid(%t) block [4] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %wl = tile.load %w[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<f16, 1> -> tensor<1024xf16>
    %wr = tile.reshape %wl : tensor<1024xf16> -> tensor<1x1024xf16>
    %wf = arith.extf %wr : tensor<1x1024xf16> to tensor<1x1024xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %r = arith.addi %row, %i : index
      %re = arith.addi %r, %c1 : index
      %xl = tile.load %x[%r, %c0] limits [%re, %c1024] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<1x1024xf16>
      %xf = arith.extf %xl : tensor<1x1024xf16> to tensor<1x1024xf32>
      %p = arith.mulf %wf, %xf : tensor<1x1024xf32>
      %pt = arith.truncf %p : tensor<1x1024xf32> to tensor<1x1024xf16>
      tile.store %pt, %out[%r, %c0] limits [%re, %c1024] {dims = array<i64: 0, 1>} : tensor<1x1024xf16>, !tile.ref<f16, 2>
    }
  }
  return
}

// -----

// The weight is also read after the loop: it stays where it is (a copy in
// the loop would not shorten its life).

// CHECK-LABEL: func.func @used_after(
// CHECK: %[[W:.*]] = tile.load %arg1
// CHECK: scf.for
// CHECK-NOT: tile.load %arg1
// CHECK: arith.truncf %[[W]]
// MARK: module {
// MARK-NEXT: func.func @used_after(
func.func @used_after(%x: !tile.ref<f16, 2>, %w: !tile.ref<f32, 1>, %out: !tile.ref<f16, 2>, %wout: !tile.ref<f16, 1>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<f16, 2>
  tile.grid(%t) block [4] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c1024 = arith.constant 1024 : index
    %wl = tile.load %w[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %r = arith.addi %row, %i : index
      %re = arith.addi %r, %c1 : index
      %xl = tile.load %x[%r, %c0] limits [%re, %c1024] {dims = array<i64: 1>} : !tile.ref<f16, 2> -> tensor<1024xf16>
      %xf = arith.extf %xl : tensor<1024xf16> to tensor<1024xf32>
      %p = arith.mulf %wl, %xf : tensor<1024xf32>
      %pt = arith.truncf %p : tensor<1024xf32> to tensor<1024xf16>
      tile.store %pt, %out[%r, %c0] limits [%re, %c1024] {dims = array<i64: 1>} : tensor<1024xf16>, !tile.ref<f16, 2>
    }
    %wt = arith.truncf %wl : tensor<1024xf32> to tensor<1024xf16>
    tile.store %wt, %wout[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xf16>, !tile.ref<f16, 1>
  }
  return
}

// -----

// The kernel writes the tensor the weight is loaded from: loaded again in
// the loop it could read the loop's own stores.

// CHECK-LABEL: func.func @written(
// CHECK: %[[W:.*]] = tile.load %arg1
// CHECK: scf.for
// CHECK: arith.addf %[[W]]
// MARK: module {
// MARK-NEXT: func.func @written(
func.func @written(%w: !tile.ref<f32, 2>, %v: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %t = tile.dim %w, 0 : !tile.ref<f32, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %re = arith.addi %row, %c1 : index
    %wl = tile.load %v[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<512xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %xl = tile.load %w[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<512xf32>
      %s = arith.addf %wl, %xl : tensor<512xf32>
      tile.store %s, %v[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : tensor<512xf32>, !tile.ref<f32, 2>
    }
  }
  return
}

// -----

// No load in the value's slice (a constant, widened): nothing to gain.

// CHECK-LABEL: func.func @no_load(
// CHECK: %[[C:.*]] = arith.extf %{{.*}} : tensor<512xf16> to tensor<512xf32>
// CHECK: scf.for
// CHECK: arith.addf %[[C]]
// MARK: module {
// MARK-NEXT: func.func @no_load(
func.func @no_load(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %re = arith.addi %row, %c1 : index
    %h = arith.constant dense<1.5> : tensor<512xf16>
    %cf = arith.extf %h : tensor<512xf16> to tensor<512xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %xl = tile.load %x[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<512xf32>
      %s = arith.addf %cf, %xl : tensor<512xf32>
      tile.store %s, %out[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : tensor<512xf32>, !tile.ref<f32, 2>
    }
  }
  return
}

// -----

// A loaded value that starts a loop-carried accumulator is the loop's
// operand, not its body's: it stays.

// CHECK-LABEL: func.func @carried_init(
// CHECK: %[[W:.*]] = tile.load %arg1
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[W]])
// MARK: module {
// MARK-NEXT: func.func @carried_init(
func.func @carried_init(%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 1>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %re = arith.addi %row, %c1 : index
    %wl = tile.load %w[%c0] limits [%c512] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
    %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %wl) -> (tensor<512xf32>) {
      %xl = tile.load %x[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<512xf32>
      %s = arith.addf %a, %xl : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %acc, %out[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : tensor<512xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// Used in a nested loop only: the weight moves into the inner loop.

// CHECK-LABEL: func.func @nested(
// CHECK-NOT: tile.load %arg1
// CHECK: scf.for
// CHECK-NOT: tile.load %arg1
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: %[[W:.*]] = tile.load %arg1
// CHECK-NEXT: arith.mulf %[[W]]
// MARK: module attributes {dslc.sinkable_loads} {
// MARK-NEXT: func.func @nested(
func.func @nested(%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 1>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  tile.grid(%t) block [1] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c512 = arith.constant 512 : index
    %re = arith.addi %row, %c1 : index
    %wl = tile.load %w[%c0] limits [%c512] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %xl = tile.load %x[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<512xf32>
        %s = arith.mulf %wl, %xl : tensor<512xf32>
        tile.store %s, %out[%row, %c0] limits [%re, %c512] {dims = array<i64: 1>} : tensor<512xf32>, !tile.ref<f32, 2>
      }
    }
  }
  return
}
