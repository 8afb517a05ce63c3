// RUN: dslc-opt %s -split-input-file -dslc-split-wide-dots | FileCheck %s

// se_block's `x[tile_m, :] @ w[:, :]` at 4 warps: the [1024, 1024] weight
// is 8192 elements a thread. The product becomes a loop over K in chunks
// of 16 (a [16, 1024] chunk is 128 a thread, half the budget), each
// iteration reloading both operands at its K offset and accumulating in
// f32 from zero; the f16 result is rounded once after the loop. The whole
// load of w is gone; x's row stays for its other use.

// CHECK-LABEL: func.func @whole_weight(
// CHECK: %[[ROW:.*]] = tile.load %arg0[%{{.*}}, %c0] {{.*}} -> tensor<1x1024xf16>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<1x1024xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c16{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<1x1024xf32>)
// CHECK: %[[XK:.*]] = arith.addi %c0, %[[K]] : index
// CHECK: %[[A:.*]] = tile.load %arg0[%{{.*}}, %[[XK]]] {{.*}} -> tensor<1x16xf16>
// CHECK: %[[WK:.*]] = arith.addi %c0, %[[K]] : index
// CHECK: %[[B:.*]] = tile.load %arg1[%[[WK]], %c0] {{.*}} -> tensor<16x1024xf16>
// CHECK: %[[P:.*]] = tile.dot %[[A]], %[[B]] acc %[[ACC]] : tensor<1x16xf16>, tensor<16x1024xf16>, tensor<1x1024xf32> -> tensor<1x1024xf32>
// CHECK: scf.yield %[[P]]
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : tensor<1x1024xf32> to tensor<1x1024xf16>
// CHECK: tile.store %[[R]]
// CHECK: arith.extf %[[ROW]]
// CHECK-NOT: tensor<1024x1024xf16>
func.func @whole_weight(%x: !tile.ref<f16, 2>, %w: !tile.ref<f16, 2>,
                        %out: !tile.ref<f16, 2>, %out2: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %m = tile.dim %x, 0 : !tile.ref<f16, 2>
  tile.grid (%m) block [1] {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %end = arith.addi %i, %c1 : index
    %row = tile.load %x[%i, %c0] limits [%end, %c1024] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<1x1024xf16>
    %whole = tile.load %w[%c0, %c0] limits [%c1024, %c1024] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<1024x1024xf16>
    %d = tile.dot %row, %whole : tensor<1x1024xf16>, tensor<1024x1024xf16> -> tensor<1x1024xf16>
    tile.store %d, %out[%i, %c0] limits [%end, %c1024] {dims = array<i64: 0, 1>} : tensor<1x1024xf16>, !tile.ref<f16, 2>
    %wide = arith.extf %row : tensor<1x1024xf16> to tensor<1x1024xf32>
    tile.store %wide, %out2[%i, %c0] limits [%end, %c1024] {dims = array<i64: 0, 1>} : tensor<1x1024xf32>, !tile.ref<f32, 2>
  }
  return
}

// -----

// Operands converted to f32 (`.to(torch.float32)`) are reloaded and
// converted per chunk; the accumulator the dot had is the loop's start;
// K = 768 takes chunks of 8 at 2 warps (an [8, 768] chunk is 96 of the
// 128 a thread may hold; 16 would be 192); valid_k is clamped per chunk.

// CHECK-LABEL: func.func @converted(
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c8{{.*}} iter_args(%[[ACC:.*]] = %arg3)
// CHECK: tile.load %arg0{{.*}} -> tensor<2x8xbf16>
// CHECK: arith.extf %{{.*}} : tensor<2x8xbf16> to tensor<2x8xf32>
// CHECK: tile.load %arg1{{.*}} -> tensor<8x768xbf16>
// CHECK: arith.extf %{{.*}} : tensor<8x768xbf16> to tensor<8x768xf32>
// CHECK: %[[LEFT:.*]] = arith.subi %arg4, %[[K]] : index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[LEFT]], %{{.*}} : index
// CHECK: %[[VALID:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK: tile.dot %{{.*}}, %{{.*}} acc %[[ACC]] valid_k %[[VALID]] : tensor<2x8xf32>, tensor<8x768xf32>, tensor<2x768xf32> -> tensor<2x768xf32>
// CHECK-NOT: arith.truncf
// CHECK: tile.store %[[SUM]]
func.func @converted(%x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 2>,
                     %out: !tile.ref<f32, 2>, %acc: tensor<2x768xf32>,
                     %valid: index)
    attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c768 = arith.constant 768 : index
  %a = tile.load %x[%c0, %c0] limits [%c2, %c768] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x768xbf16>
  %b = tile.load %w[%c0, %c0] limits [%c768, %c768] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<768x768xbf16>
  %af = arith.extf %a : tensor<2x768xbf16> to tensor<2x768xf32>
  %bf = arith.extf %b : tensor<768x768xbf16> to tensor<768x768xf32>
  %d = tile.dot %af, %bf acc %acc valid_k %valid : tensor<2x768xf32>, tensor<768x768xf32>, tensor<2x768xf32> -> tensor<2x768xf32>
  tile.store %d, %out[%c0, %c0] limits [%c2, %c768] {dims = array<i64: 0, 1>} : tensor<2x768xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Left as they are: a product whose operands fit; one whose big operand is
// computed (not a load to repeat by chunk); one whose masked elements are
// not zero.

// CHECK-LABEL: func.func @untouched(
// CHECK-NOT: scf.for
// CHECK-COUNT-3: tile.dot
func.func @untouched(%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 2>,
                     %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %a = tile.load %x[%c0, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
  %b = tile.load %w[%c0, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x16xf32>
  %small = tile.dot %a, %b : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %small, %out[%c0, %c0] limits [%c16, %c16] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  %row = tile.load %x[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x512xf32>
  %big = tile.load %w[%c0, %c0] limits [%c512, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<512x512xf32>
  %twice = arith.addf %big, %big : tensor<512x512xf32>
  %d1 = tile.dot %row, %twice : tensor<16x512xf32>, tensor<512x512xf32> -> tensor<16x512xf32>
  tile.store %d1, %out[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  %ones = tile.load %w[%c0, %c0] limits [%c512, %c512] {dims = array<i64: 0, 1>, other = 1.0 : f32} : !tile.ref<f32, 2> -> tensor<512x512xf32>
  %d2 = tile.dot %row, %ones : tensor<16x512xf32>, tensor<512x512xf32> -> tensor<16x512xf32>
  tile.store %d2, %out[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A load is repeated per chunk only if nothing between it and the product
// may write what it read: a store into the weight itself keeps the product
// whole (the distribution then says to loop over K); a store into another
// parameter does not (parameters do not alias).

// CHECK-LABEL: func.func @stale(
// CHECK-NOT: scf.for
// CHECK: tile.store %{{.*}}, %arg1
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<16x512xf32>, tensor<512x512xf32>
// CHECK-LABEL: func.func @other_param(
// CHECK: tile.store %{{.*}}, %arg2
// CHECK: scf.for
// CHECK: tile.dot {{.*}} : tensor<16x32xf32>, tensor<32x512xf32>, tensor<16x512xf32>
func.func @stale(%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 2>,
                 %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %row = tile.load %x[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x512xf32>
  %big = tile.load %w[%c0, %c0] limits [%c512, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<512x512xf32>
  tile.store %row, %w[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  %d = tile.dot %row, %big : tensor<16x512xf32>, tensor<512x512xf32> -> tensor<16x512xf32>
  tile.store %d, %out[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  return
}
func.func @other_param(%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 2>,
                       %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %row = tile.load %x[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x512xf32>
  %big = tile.load %w[%c0, %c0] limits [%c512, %c512] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<512x512xf32>
  tile.store %row, %out[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  %d = tile.dot %row, %big : tensor<16x512xf32>, tensor<512x512xf32> -> tensor<16x512xf32>
  tile.store %d, %out[%c0, %c0] limits [%c16, %c512] {dims = array<i64: 0, 1>} : tensor<16x512xf32>, !tile.ref<f32, 2>
  return
}
