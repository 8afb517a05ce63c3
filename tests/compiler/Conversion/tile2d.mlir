// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s
// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s --check-prefix=COUNT

// x[tile_t, :] of a [T, 8192] bf16 tensor: a [4, 8192] tile at 8 warps is
// 4 pieces of 8 per row and thread; each piece is one 16-byte load when
// whole and aligned, else 8 element loads under the mask. Row o is masked
// by row < limits[0] (and the tensor's rows), the last dimension by the
// piece's remaining count: the tails of both dimensions.

// CHECK-LABEL: func.func @rows_of_hidden(
// CHECK: %[[ROWS:.*]] = arith.minui %{{.*}}, %arg1 : i64
// CHECK: %[[COLS:.*]] = arith.minui %arg2, %c8192_i64 : i64
// The rows left from the tile's first row (0 past the clamped limit): row
// 1 of the tile is in bounds when more than 1 is left.
// CHECK: %[[LEFT:.*]] = arith.select %{{.*}}, %{{.*}}, %c0_i64 : i64
// CHECK: arith.cmpi ugt, %[[LEFT]], %c1_i64 : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// 16 pieces, 16 vector loads and 16 vector stores; 8 element loads each
// on the masked path.
// COUNT-LABEL: func.func @rows_of_hidden(
// COUNT-COUNT-16: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// COUNT-NOT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// COUNT-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// COUNT-NOT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// COUNT-LABEL: func.func @replicated_rows(
func.func @rows_of_hidden(%x: !tile.ref<bf16, 2>, %out: !tile.ref<bf16, 2>, %t64: i64)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %t = arith.index_cast %t64 : i64 to index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %h = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %begin = arith.muli %t, %c4 : index
  %end = arith.addi %begin, %c4 : index
  %v = tile.load %x[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<4x8192xbf16>
  tile.store %v, %out[%begin, %c0] limits [%end, %h] {dims = array<i64: 0, 1>} : tensor<4x8192xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// A replicated tile ([4, 1]: one element per row) at 4 warps: the kernel's
// groups are its warps (TileLayout.h), group g holds row g; each lane of it
// loads the same address (row g is in bounds when the rows left minus g
// are more than 0), and lane 0 alone stores it.

// CHECK-LABEL: func.func @replicated_rows(
// CHECK: %[[TID:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: %[[GROUP:.*]] = arith.divui %[[TID]], %c32_i64 : i64
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[GROUP]] : i64
// CHECK: arith.muli %[[GROUP]], %arg2 : i64
// CHECK: arith.cmpi sgt, %[[LEFT]], %c0_i64 : i64
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<1xf32>
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32_i64 : i64
// CHECK: arith.cmpi eq, %[[LANE]], %c0_i64 : i64
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store %{{.*}} : vector<1xf32>, !llvm.ptr<1>
func.func @replicated_rows(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %x, 0 : !tile.ref<f32, 2>
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  %v = tile.load %x[%c0, %c0] limits [%n, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x1xf32>
  %two = arith.constant dense<2.0> : tensor<4x1xf32>
  %y = arith.mulf %v, %two : tensor<4x1xf32>
  tile.store %y, %out[%c0, %c0] limits [%n, %h] {dims = array<i64: 0, 1>} : tensor<4x1xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Booleans are a byte each in memory: an i1 tile is loaded as bytes and
// compared with 0, and stored as bytes (LLVM packs vectors of i1 into bits).

// CHECK-LABEL: func.func @bool_mask(
// CHECK: %[[B:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi8>
// CHECK: %[[M:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : vector<16xi8>
// CHECK: arith.select %[[M]], %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xi8>
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: %[[W:.*]] = arith.extui %[[C]] : vector<16xi1> to vector<16xi8>
// CHECK: llvm.store %[[W]], %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<1>
func.func @bool_mask(%m: !tile.ref<i1, 1>, %x: !tile.ref<i8, 1>, %out: !tile.ref<i1, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %m, 0 : !tile.ref<i1, 1>
  %mv = tile.load %m[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<i1, 1> -> tensor<512xi1>
  %xv = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<i8, 1> -> tensor<512xi8>
  %z = arith.constant dense<0> : tensor<512xi8>
  %y = arith.select %mv, %xv, %z : tensor<512xi1>, tensor<512xi8>
  tile.store %y, %x[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xi8>, !tile.ref<i8, 1>
  %i = tile.iota : tensor<512xi32>
  %c7 = arith.constant dense<7> : tensor<512xi32>
  %lt = arith.cmpi slt, %i, %c7 : tensor<512xi32>
  tile.store %lt, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xi1>, !tile.ref<i1, 1>
  return
}

// -----

// A one-element iota is replicated: every lane holds element 0, so the
// [1, 8] tile broadcast from it is row 0 in every lane (a lane's thread id
// in it made the row of lane t read t: wrong rows in gathers past lane 0).

// CHECK-LABEL: func.func @replicated_iota(
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : vector<2xi64>
// CHECK: llvm.store %[[ZERO]], %{{.*}} {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<1>
func.func @replicated_iota(%out: !tile.ref<i64, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %i = tile.iota : tensor<1xi64>
  %r = tile.reshape %i : tensor<1xi64> -> tensor<1x1xi64>
  %b = tile.broadcast %r : tensor<1x1xi64> -> tensor<1x8xi64>
  tile.store %b, %out[%c0, %c0] limits [%c1, %c8] {dims = array<i64: 0, 1>} : tensor<1x8xi64>, !tile.ref<i64, 2>
  return
}
