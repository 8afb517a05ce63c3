// RUN: dslc-opt %s -split-input-file -canonicalize | FileCheck %s

// Helion's welford counts a chunk's valid columns as
// `(tile_n.index < n).to(torch.int32).sum()` (MLIRGen's form below): the
// sum of the mask is a clamp of n - begin to [0, min(4096, valid)]; no
// index tile, comparison or i64 sum is left.

// CHECK-LABEL: func.func @welford_count(
// CHECK-SAME: %[[B:.*]]: index, %[[N:.*]]: index, %[[V:.*]]: index
// CHECK-NOT: tile.iota
// CHECK-NOT: arith.cmpi
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[E:.*]] = arith.constant 4096 : i64
// CHECK-DAG: %[[V64:.*]] = arith.index_cast %[[V]] : index to i64
// CHECK: %[[VMIN:.*]] = arith.minsi %[[V64]], %[[E]] : i64
// CHECK: %[[EXT:.*]] = arith.maxsi %[[VMIN]], %[[C0]] : i64
// CHECK: %[[GAP:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK: %[[LOW:.*]] = arith.minsi %[[GAP]], %[[EXT]] : i64
// CHECK: %[[CNT:.*]] = arith.maxsi %[[LOW]], %[[C0]] : i64
// CHECK: %[[T:.*]] = tile.splat %[[CNT]] : i64 -> tensor<i64>
// CHECK-NOT: tile.reduce
// CHECK: return %[[T]]
func.func @welford_count(%begin: index, %n: index, %valid: index) -> tensor<i64> {
  %iota = tile.iota : tensor<4096xi32>
  %b32 = arith.index_cast %begin : index to i32
  %bs = tile.splat %b32 : i32 -> tensor<4096xi32>
  %idx = arith.addi %iota, %bs : tensor<4096xi32>
  %n64 = arith.index_cast %n : index to i64
  %n32 = arith.trunci %n64 : i64 to i32
  %ns = tile.splat %n32 : i32 -> tensor<4096xi32>
  %m = arith.cmpi slt, %idx, %ns : tensor<4096xi32>
  %e = arith.extui %m : tensor<4096xi1> to tensor<4096xi32>
  %w = arith.extsi %e : tensor<4096xi32> to tensor<4096xi64>
  %r = tile.reduce sum %w, 0 valid %valid : tensor<4096xi64> -> tensor<i64>
  return %r : tensor<i64>
}

// -----

// `n > index`, no valid count, the iota alone (begin 0), an i32 sum:
// count = clamp(n - 0, 0, 64), truncated to i32.

// CHECK-LABEL: func.func @mirrored_no_valid(
// CHECK-NOT: tile.iota
// CHECK: arith.maxsi
// CHECK: %[[C:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: return %[[C]] : i32
func.func @mirrored_no_valid(%n: i32) -> i32 {
  %iota = tile.iota : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi sgt, %ns, %iota : tensor<64xi32>
  %e = arith.extui %m : tensor<64xi1> to tensor<64xi32>
  %r = tile.reduce sum %e, 0 : tensor<64xi32> -> i32
  return %r : i32
}

// -----

// Not an index count: a mask widened with extsi (true is -1), a mask of
// loaded values, an unsigned comparison.

// CHECK-LABEL: func.func @not_counts(
// CHECK-COUNT-3: tile.reduce sum
func.func @not_counts(%n: i32, %x: tensor<64xi32>) -> (i32, i32, i32) {
  %iota = tile.iota : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %m = arith.cmpi slt, %iota, %ns : tensor<64xi32>
  %neg = arith.extsi %m : tensor<64xi1> to tensor<64xi32>
  %a = tile.reduce sum %neg, 0 : tensor<64xi32> -> i32
  %mx = arith.cmpi slt, %x, %ns : tensor<64xi32>
  %ex = arith.extui %mx : tensor<64xi1> to tensor<64xi32>
  %b = tile.reduce sum %ex, 0 : tensor<64xi32> -> i32
  %mu = arith.cmpi ult, %iota, %ns : tensor<64xi32>
  %eu = arith.extui %mu : tensor<64xi1> to tensor<64xi32>
  %c = tile.reduce sum %eu, 0 : tensor<64xi32> -> i32
  return %a, %b, %c : i32, i32, i32
}

// -----

// A constant valid count at least the reduced extent masks nothing: the
// reduction keeps no `valid` (no compare and select an element).

// CHECK-LABEL: func.func @whole_valid(
// CHECK: tile.reduce max %{{.*}}, 1 : tensor<2x512xf32> -> tensor<2x1xf32>
// CHECK: tile.reduce sum %{{.*}}, 1 : tensor<2x512xf32> -> tensor<2x1xf32>
func.func @whole_valid(%x: tensor<2x512xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %c512 = arith.constant 512 : index
  %c4096 = arith.constant 4096 : index
  %a = tile.reduce max %x, 1 valid %c512 : tensor<2x512xf32> -> tensor<2x1xf32>
  %b = tile.reduce sum %x, 1 valid %c4096 : tensor<2x512xf32> -> tensor<2x1xf32>
  return %a, %b : tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// A constant count below the extent, or one known only at run time, stays.

// CHECK-LABEL: func.func @partial_valid(
// CHECK: tile.reduce sum %{{.*}}, 1 valid %{{.*}} : tensor<2x512xf32>
// CHECK: tile.reduce sum %{{.*}}, 1 valid %{{.*}} : tensor<2x512xf32>
func.func @partial_valid(%x: tensor<2x512xf32>, %n: index) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %c511 = arith.constant 511 : index
  %a = tile.reduce sum %x, 1 valid %c511 : tensor<2x512xf32> -> tensor<2x1xf32>
  %b = tile.reduce sum %x, 1 valid %n : tensor<2x512xf32> -> tensor<2x1xf32>
  return %a, %b : tensor<2x1xf32>, tensor<2x1xf32>
}
