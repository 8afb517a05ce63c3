// RUN: dslc-opt %s -split-input-file -dslc-split-join-at-memory | FileCheck %s

// hl.split of a loaded row (reshape [2, 16] -> [2, 2, 8], swap the last two
// dimensions, sum over the pair masked by iota == 0 / its complement): each
// half is its own load, 8 elements apart, with the row's limits; both the
// keepdim and the dropped-dimension sums.

// CHECK-LABEL: func.func @split_of_load(
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = tile.load %arg0[%{{.*}}, %[[C0]]] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x8xbf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A]] : tensor<2x8xbf16> to tensor<2x8xf32>
// CHECK: %[[AK:.*]] = tile.reshape %[[AF]] : tensor<2x8xf32> -> tensor<2x8x1xf32>
// CHECK: %[[B:.*]] = tile.load %arg0[%{{.*}}, %[[C8]]] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x8xbf16>
// CHECK: %[[BF:.*]] = arith.extf %[[B]] : tensor<2x8xbf16> to tensor<2x8xf32>
// CHECK-NOT: tile.transpose
// CHECK-NOT: tile.reduce
// CHECK: return %[[AK]], %[[BF]]
func.func @split_of_load(%x: !tile.ref<bf16, 2>, %row: index, %end: index)
    -> (tensor<2x8x1xf32>, tensor<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<2x8x2xf32>
  %k0 = arith.constant dense<0> : tensor<2x8x2xi32>
  %l = tile.load %x[%row, %c0] limits[%end, %c16] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x16xbf16>
  %f = arith.extf %l : tensor<2x16xbf16> to tensor<2x16xf32>
  %r = tile.reshape %f : tensor<2x16xf32> -> tensor<2x2x8xf32>
  %pair = tile.transpose %r [0, 2, 1] : tensor<2x2x8xf32> -> tensor<2x8x2xf32>
  %i = tile.iota : tensor<2xi32>
  %ir = tile.reshape %i : tensor<2xi32> -> tensor<1x1x2xi32>
  %ib = tile.broadcast %ir : tensor<1x1x2xi32> -> tensor<2x8x2xi32>
  %m = arith.cmpi eq, %ib, %k0 : tensor<2x8x2xi32>
  %s0 = arith.select %m, %pair, %zero : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %first = tile.reduce sum %s0, 2 : tensor<2x8x2xf32> -> tensor<2x8x1xf32>
  %s1 = arith.select %m, %zero, %pair : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %second = tile.reduce sum %s1, 2 : tensor<2x8x2xf32> -> tensor<2x8xf32>
  return %first, %second : tensor<2x8x1xf32>, tensor<2x8xf32>
}

// -----

// A pair with another user keeps its load: splitting it would read each
// element twice.

// CHECK-LABEL: func.func @pair_used_whole(
// CHECK: tile.load %arg0{{.*}} -> tensor<2x16xbf16>
// CHECK-NOT: tile.load
// CHECK: tile.reduce sum
func.func @pair_used_whole(%x: !tile.ref<bf16, 2>, %row: index, %end: index)
    -> (tensor<2x8xf32>, tensor<2x8x2xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<2x8x2xf32>
  %k0 = arith.constant dense<0> : tensor<2x8x2xi32>
  %l = tile.load %x[%row, %c0] limits[%end, %c16] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x16xbf16>
  %f = arith.extf %l : tensor<2x16xbf16> to tensor<2x16xf32>
  %r = tile.reshape %f : tensor<2x16xf32> -> tensor<2x2x8xf32>
  %pair = tile.transpose %r [0, 2, 1] : tensor<2x2x8xf32> -> tensor<2x8x2xf32>
  %i = tile.iota : tensor<2xi32>
  %ir = tile.reshape %i : tensor<2xi32> -> tensor<1x1x2xi32>
  %ib = tile.broadcast %ir : tensor<1x1x2xi32> -> tensor<2x8x2xi32>
  %m = arith.cmpi eq, %ib, %k0 : tensor<2x8x2xi32>
  %s0 = arith.select %m, %pair, %zero : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %first = tile.reduce sum %s0, 2 : tensor<2x8x2xf32> -> tensor<2x8xf32>
  return %first, %pair : tensor<2x8xf32>, tensor<2x8x2xf32>
}

// -----

// hl.join stored: (-b, a) joined, its last two dimensions swapped and
// merged, rounded to bf16: two stores of halves, 8 elements apart, with the
// row's limits.

// CHECK-LABEL: func.func @join_to_store(
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[NA:.*]] = arith.truncf %arg3 : tensor<2x8xf32> to tensor<2x8xbf16>
// CHECK: tile.store %[[NA]], %arg0[%arg1, %[[C0]]] limits[%arg2, %{{.*}}] {dims = array<i64: 0, 1>} : tensor<2x8xbf16>, !tile.ref<bf16, 2>
// CHECK: %[[NB:.*]] = arith.truncf %arg4 : tensor<2x8xf32> to tensor<2x8xbf16>
// CHECK: tile.store %[[NB]], %arg0[%arg1, %[[C8]]] limits[%arg2, %{{.*}}] {dims = array<i64: 0, 1>} : tensor<2x8xbf16>, !tile.ref<bf16, 2>
// CHECK-NOT: tile.store
func.func @join_to_store(%out: !tile.ref<bf16, 2>, %row: index, %end: index,
                         %a: tensor<2x8xf32>, %b: tensor<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %k0 = arith.constant dense<0> : tensor<2x8x2xi32>
  %i = tile.iota : tensor<2xi32>
  %ir = tile.reshape %i : tensor<2xi32> -> tensor<1x1x2xi32>
  %ib = tile.broadcast %ir : tensor<1x1x2xi32> -> tensor<2x8x2xi32>
  %m = arith.cmpi eq, %ib, %k0 : tensor<2x8x2xi32>
  %ar = tile.reshape %a : tensor<2x8xf32> -> tensor<2x8x1xf32>
  %ab = tile.broadcast %ar : tensor<2x8x1xf32> -> tensor<2x8x2xf32>
  %br = tile.reshape %b : tensor<2x8xf32> -> tensor<2x8x1xf32>
  %bb = tile.broadcast %br : tensor<2x8x1xf32> -> tensor<2x8x2xf32>
  %j = arith.select %m, %ab, %bb : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %t = tile.transpose %j [0, 2, 1] : tensor<2x8x2xf32> -> tensor<2x2x8xf32>
  %r = tile.reshape %t : tensor<2x2x8xf32> -> tensor<2x16xf32>
  %h = arith.truncf %r : tensor<2x16xf32> to tensor<2x16xbf16>
  tile.store %h, %out[%row, %c0] limits[%end, %c16] {dims = array<i64: 0, 1>} : tensor<2x16xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// The halves are read where the row was: a store into the row between its
// load and the split is not seen.

// CHECK-LABEL: func.func @split_before_store(
// CHECK: tile.load %arg0{{.*}} -> tensor<2x8xbf16>
// CHECK: tile.load %arg0{{.*}} -> tensor<2x8xbf16>
// CHECK: tile.store
// CHECK-NOT: tile.load
func.func @split_before_store(%x: !tile.ref<bf16, 2>, %row: index, %end: index,
                              %new: tensor<2x16xbf16>)
    -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<2x8x2xf32>
  %k0 = arith.constant dense<0> : tensor<2x8x2xi32>
  %l = tile.load %x[%row, %c0] limits[%end, %c16] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x16xbf16>
  tile.store %new, %x[%row, %c0] limits[%end, %c16] {dims = array<i64: 0, 1>} : tensor<2x16xbf16>, !tile.ref<bf16, 2>
  %f = arith.extf %l : tensor<2x16xbf16> to tensor<2x16xf32>
  %r = tile.reshape %f : tensor<2x16xf32> -> tensor<2x2x8xf32>
  %pair = tile.transpose %r [0, 2, 1] : tensor<2x2x8xf32> -> tensor<2x8x2xf32>
  %i = tile.iota : tensor<2xi32>
  %ir = tile.reshape %i : tensor<2xi32> -> tensor<1x1x2xi32>
  %ib = tile.broadcast %ir : tensor<1x1x2xi32> -> tensor<2x8x2xi32>
  %m = arith.cmpi eq, %ib, %k0 : tensor<2x8x2xi32>
  %s0 = arith.select %m, %pair, %zero : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %first = tile.reduce sum %s0, 2 : tensor<2x8x2xf32> -> tensor<2x8xf32>
  %s1 = arith.select %m, %zero, %pair : tensor<2x8x2xi1>, tensor<2x8x2xf32>
  %second = tile.reduce sum %s1, 2 : tensor<2x8x2xf32> -> tensor<2x8xf32>
  return %first, %second : tensor<2x8xf32>, tensor<2x8xf32>
}
