// RUN: dslc-opt %s -split-input-file -dslc-mma-layouts -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// A bf16 [32, 24] x [24, 32] dot with valid_k on tensor cores at 4 warps
// (2x2 warps of 16x16: one 16-row lhs fragment and two 8-column rhs
// fragments per warp, MmaLayout.h):
//  - the operands are loaded in pieces of 4 (16 bytes of the f32 result,
//    the widest tensor: rows of 24 or 32 in pieces of 8 would leave lanes
//    without one), 8 elements a thread;
//  - the K tail at or past valid_k is zeroed in registers (a select per
//    operand), the operands are stored with padded pitches (lhs rows of
//    40 bf16 = 5 x 16 bytes, rhs rows of 40), K's padding to 32 (rows and
//    columns 24..31, 512 elements over 128 threads) is zeroed, bar.sync;
//  - two k-steps of 16, each: one ldmatrix.x4 (row) for lhs, one
//    ldmatrix.x4.trans (col) for the two rhs fragments, two mma.sync
//    m16n8k16 on the 8 accumulator floats per thread; bar.sync;
//  - the conversion out of the fragments: pairs of floats stored to rows of
//    36 floats (row + 8: 288 floats on), bar.sync, the blocked tile loaded,
//    bar.sync.
// Workspace: the operands take 2560 + 2560 bytes, the conversion 32 x 144:
// 5120 bytes, static (under 48 KiB).

// CHECK: module attributes {dslc.workspace_bytes = 5120 : i64}
// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<5120 x i8>
// CHECK-LABEL: func.func @mma(
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xbf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<3>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512_i64 step %c128_i64
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-2: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: scf.yield %{{.*}} : vector<8xf32>
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: arith.addi %{{.*}}, %c288_i64 : i64
// CHECK: nvvm.barrier0
// CHECK: nvvm.barrier0
func.func @mma(%a: !tile.ref<bf16, 2>, %b: !tile.ref<bf16, 2>,
               %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %a, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %b, 1 : !tile.ref<bf16, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x24xbf16>
  %y = tile.load %b[%c0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<24x32xbf16>
  %d = tile.dot %x, %y valid_k %k : tensor<32x24xbf16>, tensor<24x32xbf16> -> tensor<32x32xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A 128x128 accumulator at 8 warps: its conversion stages 128 rows of 132
// floats, 67584 bytes: the workspace is dynamic shared memory (an external
// array of no size; the metadata's shared_bytes is the module attribute).

// CHECK: module attributes {dslc.workspace_bytes = 67584 : i64}
// CHECK: llvm.mlir.global external @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @big(
// CHECK-COUNT-16: nvvm.mma.sync
func.func @big(%a: !tile.ref<f16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<f16, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<128x16xf16>
  %y = tile.load %a[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<16x128xf16>
  %d = tile.dot %x, %y : tensor<128x16xf16>, tensor<16x128xf16> -> tensor<128x128xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<128x128xf32>, !tile.ref<f32, 2>
  return
}

// -----

// K = 1 (a block size of 1 along K): lhs [16, 1] is one element per row,
// which every lane of a group holds; it is stored by one writer per row at
// the padded pitch (24 f16), K's padding (15 columns and 15 rows, 480
// elements over 32 threads) zeroed, and one k-step of 16 runs (its loop
// folded away).

// CHECK-LABEL: func.func @k_one(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c480_i64 step %c32_i64
// CHECK-COUNT-2: nvvm.mma.sync
func.func @k_one(%a: !tile.ref<f16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 1 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<f16, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<16x1xf16>
  %y = tile.load %a[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<1x16xf16>
  %d = tile.dot %x, %y : tensor<16x1xf16>, tensor<1x16xf16> -> tensor<16x16xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A batch of four bf16 [16, 32] x [32, 16] products at 4 warps: one matrix
// a warp (warpsB = 4). The operands are staged matrix after matrix: lhs 64
// rows of 40 bf16 (5120 bytes), rhs 128 rows of 24 (6144 bytes); the
// result's conversion 64 rows of 20 floats (5120 bytes). Each warp's
// ldmatrix addresses start at its matrix (warp * 16 lhs rows, warp * 32
// rhs rows); two k-steps of two mma.sync each.

// CHECK: module attributes {dslc.workspace_bytes = 11264 : i64}
// CHECK-LABEL: func.func @batched(
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK: scf.yield %{{.*}} : vector<8xf32>
func.func @batched(%a: !tile.ref<bf16, 3>, %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<bf16, 3>
  %x = tile.load %a[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : !tile.ref<bf16, 3> -> tensor<4x16x32xbf16>
  %y = tile.load %a[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : !tile.ref<bf16, 3> -> tensor<4x32x16xbf16>
  %d = tile.dot %x, %y : tensor<4x16x32xbf16>, tensor<4x32x16xbf16> -> tensor<4x16x16xf32>
  tile.store %d, %out[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : tensor<4x16x16xf32>, !tile.ref<f32, 3>
  return
}

// -----

// A 2-d bf16 [32, 24] x transpose([32, 24]) at 4 warps, rhs read
// transposed: rhs is staged [N, Kp] as loaded (rows of 40 bf16, K's
// padding columns 24..31 zeroed for both operands: 32 x 8 + 32 x 8 = 512
// elements), then each k-step reads it with ldmatrix.x4 untransposed (row
// layout) like lhs.

// CHECK-LABEL: func.func @transposed_rhs(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512_i64 step %c128_i64
// CHECK: nvvm.barrier0
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-2: nvvm.mma.sync
func.func @transposed_rhs(%a: !tile.ref<bf16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<bf16, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x24xbf16>
  %yt = tile.transpose %x [1, 0] : tensor<32x24xbf16> -> tensor<24x32xbf16>
  %d = tile.dot %x, %yt : tensor<32x24xbf16>, tensor<24x32xbf16> -> tensor<32x32xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  return
}

// -----

// f32 inputs in tf32 (the kernel's tile.allow_tf32, dot_precision="tf32"):
// rows of 4-byte operands (lhs rows of 20 floats = 5 x 16 bytes: 2560
// bytes; rhs rows of 36: 2304), k-steps of 8 (32 bytes, as bf16's 16): two
// for K = 16. Per step the lhs fragment by the same ldmatrix.x4 (its bytes
// are tf32's a0..a3), each rhs fragment by two 32-bit loads (rows l % 4 and
// l % 4 + 4, column l / 4: ldmatrix.trans would move 16-bit halves), every
// register rounded by cvt.rna.tf32.f32, then mma.sync.m16n8k8.tf32.

// CHECK: module attributes {dslc.workspace_bytes = 4864 : i64}
// CHECK-LABEL: func.func @tf32(
// CHECK: scf.for %{{.*}} = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-4: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-COUNT-2: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
func.func @tf32(%a: !tile.ref<f32, 2>, %b: !tile.ref<f32, 2>,
                %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.allow_tf32,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %k = tile.dim %a, 1 : !tile.ref<f32, 2>
  %n = tile.dim %b, 1 : !tile.ref<f32, 2>
  %x = tile.load %a[%c0, %c0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<32x16xf32>
  %y = tile.load %b[%c0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x32xf32>
  %d = tile.dot %x, %y valid_k %k : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  return
}
