// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -verify-diagnostics

// What the distribution rejects, at the op's location.

func.func @fp8_arith(%a: !tile.ref<f8E4M3FN, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f8E4M3FN, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f8E4M3FN, 1> -> tensor<64xf8E4M3FN>
  // expected-error @+1 {{'arith.addf' on fp8 values: fp8 is a storage type; convert with arith.extf to f32 first}}
  %y = arith.addf %x, %x : tensor<64xf8E4M3FN>
  tile.store %y, %a[%c0] limits [%n] {dims = array<i64: 0>} : tensor<64xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  return
}

// -----

func.func @too_many_per_thread(%a: !tile.ref<f32, 1>, %at: index)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  // expected-error @+1 {{a tile of 'tensor<16384xf32>' takes 512 elements per thread in a CTA of 32 threads; at most 256 fit in registers (use more warps or a smaller block)}}
  %x = tile.load %a[%at] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<16384xf32>
  tile.store %x, %a[%at] limits [%n] {dims = array<i64: 0>} : tensor<16384xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A load of a whole tensor (`w[:, :]`: offset 0 in every dimension) is
// not made smaller by any block: the advice is a loop over it.
func.func @whole_tensor(%w: !tile.ref<f16, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %w, 0 : !tile.ref<f16, 2>
  %n = tile.dim %w, 1 : !tile.ref<f16, 2>
  // expected-error @+1 {{a tile of 'tensor<1024x1024xf16>' takes 8192 elements per thread in a CTA of 128 threads; at most 256 fit in registers (it loads the whole tensor into one CTA: loop over it with an inner hl.tile, e.g. over the K dimension of a matrix product, accumulating the partial results)}}
  %x = tile.load %w[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : !tile.ref<f16, 2> -> tensor<1024x1024xf16>
  tile.store %x, %w[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<1024x1024xf16>, !tile.ref<f16, 2>
  return
}

// -----

func.func @fp8_splat(%a: !tile.ref<f8E4M3FN, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f8E4M3FN, 1>
  %s = arith.constant 1.0 : f8E4M3FN
  // expected-error @+1 {{cannot splat an fp8 scalar: splat an f32 and convert the tile with arith.truncf}}
  %x = tile.splat %s : f8E4M3FN -> tensor<64xf8E4M3FN>
  tile.store %x, %a[%c0] limits [%n] {dims = array<i64: 0>} : tensor<64xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  return
}

// -----

// A matmul whose staged operands ((M*K + K*N) elements) exceed the 227 KiB
// of shared memory a CTA may have names its block sizes.
func.func @dot_too_big(%out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 32 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %out, 0 : !tile.ref<f32, 2>
  %a = tile.load %out[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<128x256xf32>
  %b = tile.load %out[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<256x128xf32>
  // expected-error @+1 {{a matmul of block sizes M=128, N=128, K=256 stages 262144 bytes of operands in shared memory; at most 232448 are available: use smaller block sizes ((M*K + K*N) elements of the input type, fp8 as 4 bytes, must fit)}}
  %c = tile.dot %a, %b : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
  tile.store %c, %out[%c0, %c0] limits [%n, %n] {dims = array<i64: 0, 1>} : tensor<128x128xf32>, !tile.ref<f32, 2>
  return
}
