// RUN: dslc-opt %s -split-input-file -dslc-prefetch-loads | FileCheck %s

// The two-pass softmax's first loop (Helion's softmax_two_pass): the chunk
// of the first iteration is loaded before the loop, and each iteration
// loads the next chunk first (its first limit 0 past the loop's end) and
// reduces the one it carries.

// CHECK-LABEL: func.func @two_pass(
// CHECK: %[[LB:.*]] = arith.constant 0 : index
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[LB]], %[[N:.*]] : index
// CHECK: %[[LIM0:.*]] = arith.select %[[IN0]], %{{.*}}, %{{.*}} : index
// CHECK: %[[FIRST:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}] limits[%[[LIM0]], %{{.*}}]
// CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[N]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK: %[[LIM:.*]] = arith.select %[[IN]]
// CHECK: %[[LOADED:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}] limits[%[[LIM]], %{{.*}}]
// CHECK: arith.extf %[[CUR]]
// CHECK-NEXT: tile.reduce max
// CHECK-NOT: tile.load
// CHECK: scf.yield %{{.*}}, %[[LOADED]]
func.func @two_pass(%x: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %t = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %n = tile.dim %x, 1 : !tile.ref<bf16, 2>
  tile.grid(%t) block [8] {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %end = arith.addi %row, %c8 : index
    %init = arith.constant dense<0xFF800000> : tensor<8xf32>
    %chunks = arith.ceildivui %n, %c256 : index
    %m = scf.for %i = %c0 to %chunks step %c1 iter_args(%acc = %init) -> (tensor<8xf32>) {
      %col = arith.muli %i, %c256 : index
      %colEnd = arith.addi %col, %c256 : index
      %v = tile.load %x[%row, %col] limits [%end, %colEnd] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<8x256xbf16>
      %f = arith.extf %v : tensor<8x256xbf16> to tensor<8x256xf32>
      %r = tile.reduce max %f, 1 : tensor<8x256xf32> -> tensor<8xf32>
      %nm = arith.maximumf %acc, %r : tensor<8xf32>
      scf.yield %nm : tensor<8xf32>
    }
    %mb = arith.truncf %m : tensor<8xf32> to tensor<8xbf16>
    tile.store %mb, %x[%row, %c0] limits [%end, %c1] {dims = array<i64: 0>} : tensor<8xbf16>, !tile.ref<bf16, 2>
  }
  return
}

// -----

// num_stages = 3: two chunks ahead, carried in order.

// CHECK-LABEL: func.func @three_stages(
// CHECK: %[[A:.*]] = tile.load %arg0
// CHECK: %[[B:.*]] = tile.load %arg0
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[C0:.*]] = %[[A]], %[[C1:.*]] = %[[B]])
// CHECK: %[[L:.*]] = tile.load %arg0
// CHECK: arith.addf %{{.*}}, %[[C0]]
// CHECK: scf.yield %{{.*}}, %[[C1]], %[[L]]
func.func @three_stages(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.num_stages = 3 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %c1 = arith.constant 1 : index
  tile.grid(%c1) block [1] {
  ^bb0(%g: index):
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant dense<0.0> : tensor<512xf32>
    %s = scf.for %i = %c0 to %n step %c512 iter_args(%acc = %zero) -> (tensor<512xf32>) {
      %e = arith.addi %i, %c512 : index
      %v = tile.load %x[%i] limits [%e] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
      %a = arith.addf %acc, %v : tensor<512xf32>
      scf.yield %a : tensor<512xf32>
    }
    tile.store %s, %out[%c0] limits [%c512] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  }
  return
}

// -----

// Loads that stay: num_stages = 1; a loop that stores into the tensor it
// reads (in-place); a loop that waits on a flag; a chunk wider than 32 bytes a
// thread (4096 f32 over 128 threads).

// CHECK-LABEL: func.func @one_stage(
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.load
func.func @one_stage(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.num_stages = 1 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %c1 = arith.constant 1 : index
  tile.grid(%c1) block [1] {
  ^bb0(%g: index):
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant dense<0.0> : tensor<512xf32>
    %s = scf.for %i = %c0 to %n step %c512 iter_args(%acc = %zero) -> (tensor<512xf32>) {
      %e = arith.addi %i, %c512 : index
      %v = tile.load %x[%i] limits [%e] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
      %a = arith.addf %acc, %v : tensor<512xf32>
      scf.yield %a : tensor<512xf32>
    }
    tile.store %s, %out[%c0] limits [%c512] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  }
  return
}

// CHECK-LABEL: func.func @in_place(
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.load
func.func @in_place(%x: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %c1 = arith.constant 1 : index
  tile.grid(%c1) block [1] {
  ^bb0(%g: index):
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    scf.for %i = %c0 to %n step %c512 {
      %e = arith.addi %i, %c512 : index
      %v = tile.load %x[%i] limits [%e] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
      %a = arith.addf %v, %v : tensor<512xf32>
      tile.store %a, %x[%i] limits [%e] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
    }
  }
  return
}

// CHECK-LABEL: func.func @waits(
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: comm.wait
// CHECK-NEXT: tile.load
func.func @waits(%x: !tile.ref<f32, 1>, %flags: !tile.ref<i32, 2>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %c1 = arith.constant 1 : index
  tile.grid(%c1) block [1] {
  ^bb0(%g: index):
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant dense<0.0> : tensor<512xf32>
    %s = scf.for %i = %c0 to %n step %c512 iter_args(%acc = %zero) -> (tensor<512xf32>) {
      %e = arith.addi %i, %c512 : index
      comm.wait %flags[%c0, %c0] extents [1, 1] {signal = 1 : i64, update = 0 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 2>
      %v = tile.load %x[%i] limits [%e] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<512xf32>
      %a = arith.addf %acc, %v : tensor<512xf32>
      scf.yield %a : tensor<512xf32>
    }
    tile.store %s, %out[%c0] limits [%c512] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  }
  return
}

// CHECK-LABEL: func.func @wide(
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.load
func.func @wide(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %c1 = arith.constant 1 : index
  tile.grid(%c1) block [1] {
  ^bb0(%g: index):
    %c0 = arith.constant 0 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant dense<0.0> : tensor<4096xf32>
    %s = scf.for %i = %c0 to %n step %c4096 iter_args(%acc = %zero) -> (tensor<4096xf32>) {
      %e = arith.addi %i, %c4096 : index
      %v = tile.load %x[%i] limits [%e] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4096xf32>
      %a = arith.addf %acc, %v : tensor<4096xf32>
      scf.yield %a : tensor<4096xf32>
    }
    tile.store %s, %out[%c0] limits [%c4096] {dims = array<i64: 0>} : tensor<4096xf32>, !tile.ref<f32, 1>
  }
  return
}
