// RUN: dslc-opt %s -split-input-file -dslc-roll-reductions -verify-diagnostics | FileCheck %s

// Rows of 256 in chunks of 64: the sum of squares becomes a loop over 4
// chunks carrying the [4, 1] partial sum (each chunk's load moves by
// 64 * j along the row, its valid count clamped to the chunk); the store
// of the scaled row becomes a second loop that reloads and recomputes.
// The attribute is consumed.

// CHECK-LABEL: func.func @rms(
// CHECK-NOT: tile.reduction_loops
// CHECK: tile.grid
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %{{.*}} to %c4{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x1xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[J]], %c64 : index
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[FIRST]] : index
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[OFF]]] {{.*}} -> tensor<4x64xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<4x64xf32>
// CHECK: %[[P:.*]] = tile.reduce sum %{{.*}}, 1 valid %{{.*}} : tensor<4x64xf32> -> tensor<4x1xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : tensor<4x1xf32>
// CHECK: scf.yield %[[NEXT]]
// CHECK: math.rsqrt %[[SUM]] : tensor<4x1xf32>
// CHECK: scf.for
// CHECK: tile.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<4x64xf32>
// CHECK: tile.store %{{.*}} : tensor<4x64xf32>, !tile.ref<f32, 2>
// CHECK-NOT: tensor<4x256xf32>
func.func @rms(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.reduction_loops = array<i64: 64>} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %b = arith.muli %i, %c4 : index
    %e = arith.addi %b, %c4 : index
    %v = tile.load %x[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
    %sq = arith.mulf %v, %v : tensor<4x256xf32>
    %s = tile.reduce sum %sq, 1 valid %h : tensor<4x256xf32> -> tensor<4x1xf32>
    %r = math.rsqrt %s : tensor<4x1xf32>
    %rb = tile.broadcast %r : tensor<4x1xf32> -> tensor<4x256xf32>
    %y = arith.mulf %v, %rb : tensor<4x256xf32>
    tile.store %y, %out[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : tensor<4x256xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// A dimension-D tile used by an op the roll does not chunk (a reduction
// over its first dimension): the kernel stays whole, with a warning.

// CHECK-LABEL: func.func @not_rollable(
// CHECK-NOT: scf.for
// CHECK: tile.reduce sum %{{.*}}, 0 : tensor<4x256xf32> -> tensor<1x256xf32>
func.func @not_rollable(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.reduction_loops = array<i64: 64>} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  // expected-warning @+1 {{reduction_loops[0] = 64 is not applied to the dimension of 256: 'tile.reduce' on a tile of the rolled dimension}}
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %b = arith.muli %i, %c4 : index
    %e = arith.addi %b, %c4 : index
    %v = tile.load %x[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
    %s = tile.reduce sum %v, 1 valid %h : tensor<4x256xf32> -> tensor<4x1xf32>
    %c = tile.reduce sum %v, 0 : tensor<4x256xf32> -> tensor<1x256xf32>
    tile.store %c, %out[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : tensor<1x256xf32>, !tile.ref<f32, 2>
    tile.store %s, %out[%b, %c0] limits [%e, %c1] {dims = array<i64: 0, 1>} : tensor<4x1xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// A sum over the peers kept as a loop (a wide world, MLIRGen's
// kMaxAutoUnrolledWork): the loop computes with dimension-D tiles and
// writes nothing, so each chunk loop recomputes it with chunk-wide
// iteration values (the peer's load moved along the row like any other).

// CHECK-LABEL: func.func @peer_sum(
// CHECK: tile.grid
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %{{.*}} to %c4{{.*}} iter_args(%{{.*}}) -> (tensor<4x1xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[J]], %c64{{.*}} : index
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x64xf32>
// CHECK: %[[ROW:.*]] = scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<4x64xf32>)
// CHECK: %[[PEER:.*]] = comm.peer %{{.*}}[%[[P]]]
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[FIRST]] : index
// CHECK: tile.load %[[PEER]][%{{.*}}, %[[OFF]]] {{.*}} -> tensor<4x64xf32>
// CHECK: arith.addf %[[ACC]], %{{.*}} : tensor<4x64xf32>
// CHECK: scf.yield %{{.*}} : tensor<4x64xf32>
// CHECK: arith.mulf %[[ROW]], %[[ROW]] : tensor<4x64xf32>
// CHECK: tile.reduce sum %{{.*}}, 1 valid %{{.*}} : tensor<4x64xf32> -> tensor<4x1xf32>
// CHECK: math.rsqrt %[[SUM]] : tensor<4x1xf32>
// CHECK: scf.for
// CHECK: scf.for {{.*}} -> (tensor<4x64xf32>)
// CHECK: tile.store %{{.*}} : tensor<4x64xf32>, !tile.ref<f32, 2>
// CHECK-NOT: tensor<4x256xf32>
func.func @peer_sum(%table: !tile.ref<i64, 1>, %x: !tile.ref<f32, 2>,
                    %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.reduction_loops = array<i64: 64>} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  %peers = comm.stack_view %table, %x : !tile.ref<i64, 1>, !tile.ref<f32, 2> -> !comm.stack<f32, 2>
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %b = arith.muli %i, %c4 : index
    %e = arith.addi %b, %c4 : index
    %zero = arith.constant dense<0.000000e+00> : tensor<4x256xf32>
    %v = scf.for %p = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (tensor<4x256xf32>) {
      %peer = comm.peer %peers[%p] : !comm.stack<f32, 2> -> !tile.ref<f32, 2>
      %row = tile.load %peer[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
      %next = arith.addf %acc, %row : tensor<4x256xf32>
      scf.yield %next : tensor<4x256xf32>
    }
    %sq = arith.mulf %v, %v : tensor<4x256xf32>
    %s = tile.reduce sum %sq, 1 valid %h : tensor<4x256xf32> -> tensor<4x1xf32>
    %r = math.rsqrt %s : tensor<4x1xf32>
    %rb = tile.broadcast %r : tensor<4x1xf32> -> tensor<4x256xf32>
    %y = arith.mulf %v, %rb : tensor<4x256xf32>
    tile.store %y, %out[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : tensor<4x256xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// A loop that also writes memory (a store into every peer) is not
// recomputed: the kernel stays whole, with a warning.

// CHECK-LABEL: func.func @peer_store(
// CHECK-NOT: tensor<4x64xf32>
func.func @peer_store(%table: !tile.ref<i64, 1>, %x: !tile.ref<f32, 2>,
                      %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.reduction_loops = array<i64: 64>} {
  %t = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  %peers = comm.stack_view %table, %x : !tile.ref<i64, 1>, !tile.ref<f32, 2> -> !comm.stack<f32, 2>
  // expected-warning @+1 {{reduction_loops[0] = 64 is not applied to the dimension of 256: 'scf.for' on a tile of the rolled dimension}}
  tile.grid (%t) block [4] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %b = arith.muli %i, %c4 : index
    %e = arith.addi %b, %c4 : index
    %v = tile.load %x[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
    %s = tile.reduce sum %v, 1 valid %h : tensor<4x256xf32> -> tensor<4x1xf32>
    %w = scf.for %p = %c0 to %c64 step %c1 iter_args(%acc = %v) -> (tensor<4x256xf32>) {
      %peer = comm.peer %peers[%p] : !comm.stack<f32, 2> -> !tile.ref<f32, 2>
      tile.store %acc, %peer[%b, %c0] limits [%e, %h] {dims = array<i64: 0, 1>} : tensor<4x256xf32>, !tile.ref<f32, 2>
      scf.yield %acc : tensor<4x256xf32>
    }
    tile.store %s, %out[%b, %c0] limits [%e, %c1] {dims = array<i64: 0, 1>} : tensor<4x1xf32>, !tile.ref<f32, 2>
  }
  return
}
