// RUN: dslc-opt %s -split-input-file -canonicalize -dslc-distribute-tiles -canonicalize -cse | FileCheck %s
// RUN: dslc-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// tile.broadcast is a shuffle of the per-thread vector with a static mask.
// Rows this wide keep one group of 32 lanes (TileLayout.h): a [2, 1] f32
// tile is replicated (2 values per thread); a [2, 128] tile over 1 warp is
// one piece of V = 4 per row and thread (8 values). The broadcast fills
// row o's piece with value o; a [1, 128] row broadcast to [2, 128] repeats
// the row's piece. A broadcast to its own shape folds.

// CHECK-LABEL: func.func @broadcasts(
// CHECK: vector.shuffle %[[R:.*]], %[[R]] [0, 0, 0, 0, 1, 1, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: vector.shuffle %[[W:.*]], %[[W]] [0, 1, 2, 3, 0, 1, 2, 3] : vector<4xf32>, vector<4xf32>
// CANON-LABEL: func.func @broadcasts(
// CANON-NOT: tile.broadcast %{{.*}} : tensor<2x128xf32> -> tensor<2x128xf32>
func.func @broadcasts(%a: !tile.ref<f32, 2>, %w: !tile.ref<f32, 1>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %h = tile.dim %w, 0 : !tile.ref<f32, 1>
  %r = tile.load %a[%c0, %c0] limits [%c2, %c2] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x1xf32>
  %rb = tile.broadcast %r : tensor<2x1xf32> -> tensor<2x128xf32>
  %wv = tile.load %w[%c0] limits [%h] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %w1 = tile.reshape %wv : tensor<128xf32> -> tensor<1x128xf32>
  %wb = tile.broadcast %w1 : tensor<1x128xf32> -> tensor<2x128xf32>
  %p = arith.mulf %rb, %wb : tensor<2x128xf32>
  %same = tile.broadcast %p : tensor<2x128xf32> -> tensor<2x128xf32>
  tile.store %same, %out[%c0, %c0] limits [%c2, %h] {dims = array<i64: 0, 1>} : tensor<2x128xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A rank-1 tile reshaped to a last dimension of 1 (x[:, None]) changes
// layout through the shared workspace: at 1 warp a [64, 1] tile deals its
// rows over 32 groups of one lane (2 rows per thread), the [64] tile spreads
// 16-byte pieces over the warp. Each owner stores its piece (a 16-byte
// store when whole), bar.sync, each thread loads its two rows, bar.sync;
// and back: each thread stores its rows, bar.sync, loads its piece.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x i8>
// CHECK-LABEL: func.func @gather_and_select(
// CHECK: %[[WS:.*]] = llvm.mlir.addressof @__dslc_workspace : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<1xf32>
// CHECK: nvvm.barrier0
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NEXT: nvvm.barrier0
func.func @gather_and_select(%a: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<64xf32>
  %col = tile.reshape %x : tensor<64xf32> -> tensor<64x1xf32>
  %two = arith.constant dense<2.0> : tensor<64x1xf32>
  %y = arith.mulf %col, %two : tensor<64x1xf32>
  %row = tile.reshape %y : tensor<64x1xf32> -> tensor<64xf32>
  tile.store %row, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<64xf32>, !tile.ref<f32, 1>
  return
}

// -----

// Inserting a leading unit dimension keeps the per-thread vector.

// CHECK-LABEL: func.func @unit_leading(
// CHECK-NOT: vector.shuffle
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @unit_leading(%a: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.dim %a, 0 : !tile.ref<bf16, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<1024xbf16>
  %y = tile.reshape %x : tensor<1024xbf16> -> tensor<1x1024xbf16>
  tile.store %y, %out[%c0, %c0] limits [%c1, %n] {dims = array<i64: 0, 1>} : tensor<1x1024xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// reshape(reduce(x, 1) without the dimension) back to [4, 1] is the keepdim
// reduction; the other use of the reduction gets a reshape of the keepdim
// result. At 4 warps a [4, 256] f32 tile takes 64 lanes per row (2 groups,
// 2 rows each): the reduction combines 2 warps through the workspace (2
// rows x 4 warps x 4 bytes, two barriers), and the reshape to rank 1
// changes layout through it (two more); the broadcast is a shuffle.

// CANON-LABEL: func.func @fold_keepdim(
// CANON: %[[K:.*]] = tile.reduce sum %{{.*}}, 1 valid %{{.*}} : tensor<4x256xf32> -> tensor<4x1xf32>
// CANON: %[[B:.*]] = tile.reshape %[[K]] : tensor<4x1xf32> -> tensor<4xf32>
// CANON-NOT: tile.reshape
// CANON: tile.store %[[B]]
// CANON: tile.broadcast %[[K]] : tensor<4x1xf32> -> tensor<4x256xf32>
// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i8>
// CHECK-LABEL: func.func @fold_keepdim(
// CHECK-COUNT-4: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 1, 1, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: return
func.func @fold_keepdim(%a: !tile.ref<f32, 2>, %s: !tile.ref<f32, 1>, %out: !tile.ref<f32, 2>, %n64: i64)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = arith.index_cast %n64 : i64 to index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %x = tile.load %a[%c0, %c0] limits [%c4, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x256xf32>
  %r = tile.reduce sum %x, 1 valid %n : tensor<4x256xf32> -> tensor<4xf32>
  tile.store %r, %s[%c0] limits [%c4] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  %col = tile.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
  %b = tile.broadcast %col : tensor<4x1xf32> -> tensor<4x256xf32>
  %y = arith.divf %x, %b : tensor<4x256xf32>
  tile.store %y, %out[%c0, %c0] limits [%c4, %n] {dims = array<i64: 0, 1>} : tensor<4x256xf32>, !tile.ref<f32, 2>
  return
}

// -----

// tile.shift goes through the shared workspace like a transpose: every
// owner stores its elements row-major, bar.sync, and each thread loads each
// of its elements from the position one coordinate back (here column c - 4
// of a [2, 128] f32 tile at 1 warp, 8 values a thread) where c >= 4, else
// its own (a select on the column before the address), then bar.sync.
// (A [2, 128] tile at 1 warp is not dealt: each thread holds both rows,
// whose indices come from the row's position; dslc crashed on every
// transpose, broadcast or shift through shared memory of such a tile
// before rowIndices took them so.)

// CHECK-LABEL: func.func @shifted(
// CHECK: nvvm.barrier0
// CHECK: arith.cmpi sge, %{{.*}}, %c4_i64 : i64
// CHECK: %[[BACK:.*]] = arith.subi %{{.*}}, %c4_i64 : i64
// CHECK: arith.select %{{.*}}, %[[BACK]], %{{.*}} : i64
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier0
func.func @shifted(%a: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %t = tile.load %a[%c0, %c0] limits [%c2, %c128] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x128xf32>
  %s = tile.shift %t, 1 by 4 : tensor<2x128xf32>
  tile.store %s, %out[%c0, %c0] limits [%c2, %c128] {dims = array<i64: 0, 1>} : tensor<2x128xf32>, !tile.ref<f32, 2>
  return
}
