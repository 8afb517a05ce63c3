// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// tile.reduce along the last dimension of a distributed tile, at 2 warps:
// each thread combines its 4 elements (a 2x256 f32 tile is 1 piece of 4 per
// thread per row), the warp butterfly (5 shuffles per row), lane 0 of each
// warp writes its row values into the shared workspace, bar.sync, lane l of
// every warp reads warp (l mod 2)'s value and each pair of lanes combines
// them with 1 shuffle (a butterfly over 2 lanes: no identities combined),
// bar.sync. The valid count masks with -inf (max's identity); the keepdim
// result is replicated, stored by thread 0.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-LABEL: func.func @max_last_valid(
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[WS:.*]] = llvm.mlir.addressof @__dslc_workspace : !llvm.ptr<3>
// CHECK: %[[TID:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %c256_i64 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : f32
// CHECK-COUNT-3: arith.maximumf
// CHECK-COUNT-5: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c{{16|8|4|2|1}}_i32, %c31_i32 : f32 -> f32
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[SRC:.*]] = arith.andi %[[LANE:.*]], %c1_i64 : i64
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[WS]][%[[SRC]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: %[[V0:.*]] = llvm.load %[[P0]] : !llvm.ptr<3> -> f32
// CHECK-NOT: arith.select
// CHECK: %[[I1:.*]] = arith.addi %[[SRC]], %c2_i64 : i64
// CHECK: llvm.getelementptr %[[WS]][%[[I1]]]
// CHECK-COUNT-2: nvvm.shfl.sync bfly %c-1_i32, %{{.*}}, %c1_i32, %c31_i32 : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// The replicated [2, 1] result: every thread holds both rows; thread 0
// stores them.
// CHECK: %[[ROWS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[T0:.*]] = arith.cmpi eq, %[[TID]], %c0_i64 : i64
// CHECK: arith.andi %[[T0]], %{{.*}} : i1
// CHECK: vector.extract_strided_slice %[[ROWS]] {offsets = [0], sizes = [1], strides = [1]}
// CHECK: vector.extract_strided_slice %[[ROWS]] {offsets = [1], sizes = [1], strides = [1]}
func.func @max_last_valid(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>, %n64: i64)
    attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %n = arith.index_cast %n64 : i64 to index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  %v = tile.load %x[%c0, %c0] limits [%c4, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x256xf32>
  %s = tile.reduce max %v, 1 valid %n : tensor<2x256xf32> -> tensor<2x1xf32>
  tile.store %s, %out[%c0, %c0] limits [%c4, %c4] {dims = array<i64: 0, 1>} : tensor<2x1xf32>, !tile.ref<f32, 2>
  return
}

// -----

// One warp: no shared memory, no barrier. A sum over a ragged 100-element
// row (4 pieces of 4 over 32 threads... 100 < 32 * 4: the static extent
// masks with 0.0), a rank-0 result.

// CHECK-NOT: __dslc_workspace
// CHECK-LABEL: func.func @sum_one_warp(
// CHECK-NOT: nvvm.barrier0
// CHECK: arith.constant 100 : i64
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @sum_one_warp(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %x, 0 : !tile.ref<f32, 1>
  %v = tile.load %x[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<100xf32>
  %s = tile.reduce sum %v, 0 : tensor<100xf32> -> tensor<f32>
  %s1 = tile.reshape %s : tensor<f32> -> tensor<1xf32>
  tile.store %s1, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  return
}

// -----

// Along a leading dimension every thread combines its own rows: no
// shuffle, no shared memory. Rows at or past `valid` contribute the
// identity of min on i32 (the signed maximum).

// CHECK-LABEL: func.func @min_leading(
// CHECK-NOT: nvvm.shfl.sync
// CHECK-DAG: %[[ID:.*]] = arith.constant dense<2147483647> : vector<4xi32>
// CHECK: arith.cmpi sgt, %{{.*}}, %c0_i64 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ID]] : vector<4xi32>
// CHECK: arith.cmpi sgt, %{{.*}}, %c1_i64 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ID]] : vector<4xi32>
// CHECK: arith.minsi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @min_leading(%x: !tile.ref<i32, 2>, %out: !tile.ref<i32, 1>, %n64: i64)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %n = arith.index_cast %n64 : i64 to index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %h = tile.dim %x, 1 : !tile.ref<i32, 2>
  %v = tile.load %x[%c0, %c0] limits [%c4, %h] {dims = array<i64: 0, 1>} : !tile.ref<i32, 2> -> tensor<3x512xi32>
  %m = tile.reduce min %v, 0 valid %n : tensor<3x512xi32> -> tensor<512xi32>
  tile.store %m, %out[%c0] limits [%h] {dims = array<i64: 0>} : tensor<512xi32>, !tile.ref<i32, 1>
  return
}

// -----

// The reduced dimension removed from a 2-d tile leaves a distributed 1-d
// tile: each thread selects its elements of the replicated row values by
// its thread index. A row of 128 over 32 threads of 4 needs no mask.

// CHECK-LABEL: func.func @prod_removed(
// CHECK-NOT: arith.select {{.*}} : f32
// CHECK: nvvm.shfl.sync bfly
// CHECK: arith.mulf
// CHECK: %[[ROWS:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// Thread 0 holds all 4 elements (one piece of 4): element v is row v, the
// selection folds away and the piece is stored as it is.
// CHECK: llvm.store %[[ROWS]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @prod_removed(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %h = tile.dim %x, 1 : !tile.ref<f32, 2>
  %v = tile.load %x[%c0, %c0] limits [%c4, %h] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x128xf32>
  %p = tile.reduce prod %v, 1 : tensor<4x128xf32> -> tensor<4xf32>
  tile.store %p, %out[%c0] limits [%c4] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  return
}

// -----

// 16-bit values travel through the shuffle widened to 32 bits, 64-bit
// values in two halves; a reduction to a scalar feeds scalar code.

// CHECK-LABEL: func.func @shuffle_widths(
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: nvvm.shfl.sync bfly %{{.*}} : i32 -> i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: nvvm.shfl.sync bfly %{{.*}} : i32 -> i32
// CHECK: arith.shrui %{{.*}}, %c32_i64 : i64
// CHECK: nvvm.shfl.sync bfly %{{.*}} : i32 -> i32
// CHECK: arith.bitcast %{{.*}} : i64 to f64
func.func @shuffle_widths(%a: !tile.ref<bf16, 1>, %b: !tile.ref<f64, 1>,
                          %out: !tile.ref<f64, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<bf16, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<256xbf16>
  %y = tile.load %b[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f64, 1> -> tensor<256xf64>
  %sx = tile.reduce max %x, 0 : tensor<256xbf16> -> bf16
  %sy = tile.reduce sum %y, 0 : tensor<256xf64> -> f64
  %wx = arith.extf %sx : bf16 to f64
  %z = arith.addf %wx, %sy : f64
  %t = tile.splat %z : f64 -> tensor<1xf64>
  tile.store %t, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<1xf64>, !tile.ref<f64, 1>
  return
}
