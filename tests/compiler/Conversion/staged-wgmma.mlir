// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// Staged operands read by wgmma (#tile.staged with swizzle), 4 warps: one
// warpgroup, a 64 x 64 result.
//  - The workspace is aligned to 1024 bytes (the swizzle atoms).
//  - Copies: lhs [64, 32] bf16 is one 64-byte atom per row: unit u of row r
//    goes to byte r * 64 + 16 (u ^ ((r / 2) % 4)); a second atom would
//    start 64 x 64 = 4096 bytes on.
//  - The wait fences the copies for the async proxy before bar.sync.
//  - The dot: fence, then per k-step of 16 one wgmma.mma_async m64n64k16
//    (bf16, f32 accumulate, lhs K-major "row", rhs N-major "row"), with
//    descriptors: lhs start + 32 bytes a step, leading offset 16 (unused),
//    stride 512 (8 rows of 64 bytes), mode 2 (64-byte swizzle):
//    0x8000002000010000 = -9223371899415756800; rhs start + 2048 a step
//    (16 rows of 128 bytes), leading 32 x 128 = 4096 (the next 64-column
//    atom), stride 1024, mode 1: 0x4000004001000000 = 4611686293322072064.
//    Then commit and wait for it.

// CHECK: module attributes {dslc.needs_sm90a, dslc.workspace_bytes = 17408 : i64}
// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: func.func @wgmma(
// CHECK: %[[PHASE0:.*]] = arith.divui %{{.*}}, %c2_i64 : i64
// CHECK: %[[PHASE:.*]] = arith.remui %[[PHASE0]], %c4_i64 : i64
// CHECK: %[[UNIT:.*]] = arith.xori %{{.*}}, %[[PHASE]] : i64
// CHECK: arith.muli %[[UNIT]], %c16_i64 : i64
// CHECK: arith.muli %{{.*}}, %c4096_i64 : i64
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %c-9223371899415756800_i64 : i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293322072064_i64 : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: arith.addi %{{.*}}, %c32_i64 : i64
// CHECK: arith.addi %{{.*}}, %c2048_i64 : i64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 64, k = 16>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
module attributes {dslc.needs_sm90a} {
func.func @wgmma(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>, %s: i64,
                 %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %st = arith.index_cast %s : i64 to index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  tile.async_copy %x[%c0, %c0] limits [%m, %k] to #tile.staged<bf16, [64, 32], offset = 0, pitch = 32, stages = 2, swizzle = 64> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_copy %y[%c0, %c0] limits [%k, %n] to #tile.staged<bf16, [32, 64], offset = 8192, pitch = 64, stages = 2, swizzle = 128> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_commit
  tile.async_wait 0 {async_proxy}
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %d = tile.staged_dot #tile.staged<bf16, [64, 32], offset = 0, pitch = 32, stages = 2, swizzle = 64>, #tile.staged<bf16, [32, 64], offset = 8192, pitch = 64, stages = 2, swizzle = 128> stage %st acc %zero : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %r = tile.convert_layout %d : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>> -> tensor<64x64xf32>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
}

// -----

// A product left in flight (pending = 1) waits for all but its own group
// (wgmma.wait_group 1); tile.dot_wait is wgmma.wait_group 0 as inline
// assembly whose outputs are the accumulator's registers, tied to its
// inputs ("=f" x 32, then "0" .. "31"), so the store reads them after it.

// CHECK-LABEL: func.func @in_flight(
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: %[[W:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,~{memory}"
// CHECK: llvm.extractvalue %[[W]][0]
// CHECK: nvvm.barrier0
module attributes {dslc.needs_sm90a} {
func.func @in_flight(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>, %s: i64,
                     %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %st = arith.index_cast %s : i64 to index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  tile.async_wait 0 {async_proxy}
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %d = tile.staged_dot #tile.staged<bf16, [64, 32], offset = 0, pitch = 32, stages = 2, swizzle = 64>, #tile.staged<bf16, [32, 64], offset = 8192, pitch = 64, stages = 2, swizzle = 128> stage %st acc %zero {pending = 1 : i64} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %done = tile.dot_wait %d : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  tile.async_wait 0
  %r = tile.convert_layout %done : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>> -> tensor<64x64xf32>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
}

// -----

// fp8 (e4m3) with a K-major rhs (rhs_k_major, [N, K] staged): a k-step is
// 32 elements (m64n64k32), both operands read as the lhs is (32 bytes on a
// step within the 128-byte atom of every row, stride 1024: 8 rows of 128
// bytes, mode 1: 0x4000004000010000), the rhs "col" (K-major); the copies
// move the fp8 bits as i8 where they go element by element.

// CHECK-LABEL: func.func @fp8_k_major(
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> i8
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK: nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: arith.addi %{{.*}}, %c32_i64 : i64
// CHECK: arith.addi %{{.*}}, %c32_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c96_i64 : i64
// CHECK: arith.addi %{{.*}}, %c96_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {dslc.needs_sm90a} {
func.func @fp8_k_major(%x: !tile.ref<f8E4M3FN, 2>, %w: !tile.ref<f8E4M3FN, 2>,
                       %s: i64, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %st = arith.index_cast %s : i64 to index
  %m = tile.dim %x, 0 : !tile.ref<f8E4M3FN, 2>
  %k = tile.dim %x, 1 : !tile.ref<f8E4M3FN, 2>
  %n = tile.dim %w, 0 : !tile.ref<f8E4M3FN, 2>
  tile.async_copy %x[%c0, %c0] limits [%m, %k] to #tile.staged<f8E4M3FN, [64, 128], offset = 0, pitch = 128, stages = 2, swizzle = 128> stage %st {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2>
  tile.async_copy %w[%c0, %c0] limits [%n, %k] to #tile.staged<f8E4M3FN, [64, 128], offset = 16384, pitch = 128, stages = 2, swizzle = 128> stage %st {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2>
  tile.async_commit
  tile.async_wait 0 {async_proxy}
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %d = tile.staged_dot #tile.staged<f8E4M3FN, [64, 128], offset = 0, pitch = 128, stages = 2, swizzle = 128>, #tile.staged<f8E4M3FN, [64, 128], offset = 16384, pitch = 128, stages = 2, swizzle = 128> stage %st acc %zero {rhs_k_major} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %r = tile.convert_layout %d : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>> -> tensor<64x64xf32>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
}

// -----

// bf16 with a K-major rhs (x @ w.T, w [N, K] staged as loaded): k16 steps
// of 32 bytes through both operands' 128-byte atoms (the descriptors of the
// fp8 case above, mode 1), the rhs "col".

// CHECK-LABEL: func.func @bf16_k_major(
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK: nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: arith.addi %{{.*}}, %c32_i64 : i64
// CHECK: arith.addi %{{.*}}, %c32_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c64_i64 : i64
// CHECK: arith.addi %{{.*}}, %c64_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c96_i64 : i64
// CHECK: arith.addi %{{.*}}, %c96_i64 : i64
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {dslc.needs_sm90a} {
func.func @bf16_k_major(%x: !tile.ref<bf16, 2>, %w: !tile.ref<bf16, 2>,
                        %s: i64, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<wgmma>} {
  %c0 = arith.constant 0 : index
  %st = arith.index_cast %s : i64 to index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %w, 0 : !tile.ref<bf16, 2>
  tile.async_copy %x[%c0, %c0] limits [%m, %k] to #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 2, swizzle = 128> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_copy %w[%c0, %c0] limits [%n, %k] to #tile.staged<bf16, [64, 64], offset = 16384, pitch = 64, stages = 2, swizzle = 128> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_commit
  tile.async_wait 0 {async_proxy}
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %d = tile.staged_dot #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 2, swizzle = 128>, #tile.staged<bf16, [64, 64], offset = 16384, pitch = 64, stages = 2, swizzle = 128> stage %st acc %zero {rhs_k_major} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %r = tile.convert_layout %d : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>> -> tensor<64x64xf32>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
}
