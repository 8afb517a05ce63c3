// RUN: dslc-opt %s -split-input-file -dslc-mma-layouts -verify-diagnostics

// A kernel that asks for tensor cores is told, at each dot that cannot
// have them, why it stays on CUDA cores.

func.func @fallbacks(%x: !tile.ref<bf16, 2>, %f: !tile.ref<f32, 2>,
                     %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %fa = tile.load %f[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<32x16xf32>
  %fb = tile.load %f[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x32xf32>
  // expected-warning @+1 {{this matrix product stays on CUDA cores (FMAs), not on the tensor cores of its kernel's dot_engine: its inputs are f32 (tensor cores take bf16, f16 and fp8; f32 in tf32 with @helion.kernel(dot_precision="tf32"))}}
  %e = tile.dot %fa, %fb : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %e, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<24x16xbf16>
  %b = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x32xbf16>
  // expected-warning @+1 {{this matrix product stays on CUDA cores (FMAs), not on the tensor cores of its kernel's dot_engine: no grid of its 4 warps splits the 24x32 result into blocks of whole 16x16 fragments (use block sizes that are multiples of 16 per warp)}}
  %g = tile.dot %a, %b : tensor<24x16xbf16>, tensor<16x32xbf16> -> tensor<24x32xf32>
  %s = tile.load %f[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<24x32xf32>
  %t = arith.addf %g, %s : tensor<24x32xf32>
  tile.store %t, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<24x32xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A batch's matrices are staged one after another, so K's padding to a
// multiple of 16 would leave gaps: K = 24 stays on CUDA cores.
func.func @batched_ragged_k(%x: !tile.ref<bf16, 3>, %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 3>
  %a = tile.load %x[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : !tile.ref<bf16, 3> -> tensor<2x32x24xbf16>
  %b = tile.load %x[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : !tile.ref<bf16, 3> -> tensor<2x24x32xbf16>
  // expected-warning @+1 {{this matrix product stays on CUDA cores (FMAs), not on the tensor cores of its kernel's dot_engine: a batched product needs K a multiple of 16 on tensor cores, got K = 24}}
  %d = tile.dot %a, %b : tensor<2x32x24xbf16>, tensor<2x24x32xbf16> -> tensor<2x32x32xf32>
  tile.store %d, %out[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : tensor<2x32x32xf32>, !tile.ref<f32, 3>
  return
}

// -----

// Staged for ldmatrix, 64 matrices of [64, 64] x [64, 64] take 2 x 64 x 64
// rows of 72 bf16: 1179648 bytes, more than a CTA's shared memory.
func.func @batched_too_big(%x: !tile.ref<bf16, 3>, %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 3>
  %a = tile.load %x[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : !tile.ref<bf16, 3> -> tensor<64x64x64xbf16>
  // expected-warning @+1 {{this matrix product stays on CUDA cores (FMAs), not on the tensor cores of its kernel's dot_engine: its operands take 1179648 bytes of shared memory staged for the tensor cores, more than a CTA's 232448 (use smaller block sizes)}}
  %d = tile.dot %a, %a : tensor<64x64x64xbf16>, tensor<64x64x64xbf16> -> tensor<64x64x64xf32>
  tile.store %d, %out[%c0, %c0, %c0] limits [%m, %m, %m] {dims = array<i64: 0, 1, 2>} : tensor<64x64x64xf32>, !tile.ref<f32, 3>
  return
}

// -----

// A [16, 400] result fits a grid of one warp only (400 is no multiple of
// 32): 200 accumulator elements a thread, too many for a repeated grid.
func.func @too_wide_for_fewer_warps(%x: !tile.ref<bf16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x16xbf16>
  %b = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x400xbf16>
  // expected-warning @+1 {{this matrix product stays on CUDA cores (FMAs), not on the tensor cores of its kernel's dot_engine: only 1 of its 8 warps split the 16x400 result into blocks of whole 16x16 fragments, 200 accumulator elements a thread (more than 64; use block sizes that are multiples of 16 per warp)}}
  %d = tile.dot %a, %b : tensor<16x16xbf16>, tensor<16x400xbf16> -> tensor<16x400xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<16x400xf32>, !tile.ref<f32, 2>
  return
}
