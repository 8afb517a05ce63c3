// RUN: dslc-opt %s -split-input-file -dslc-mma-layouts | FileCheck %s

// Helion's matmul loop at [128, 128, 32] and 8 warps, tensor cores asked
// for: the 128x128 block splits into 2x4 warp blocks of 64x32 (the most
// square of 1x8, 2x4, 4x2 and 8x1 whose blocks are whole 16x16
// multiples). The accumulator is carried in the fragments: its zero is
// made in the #tile.mma type before the loop, the dot reads and yields
// fragments, and one conversion after the loop gives the blocked tile the
// truncf and the store read.

// CHECK-LABEL: func.func @matmul(
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>)
// CHECK-NOT: tile.convert_layout
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}} acc %[[ACC]] valid_k %{{.*}} : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>> -> tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: %[[OUT:.*]] = tile.convert_layout %[[LOOP]] : tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>> -> tensor<128x128xf32>
// CHECK: arith.truncf %[[OUT]] : tensor<128x128xf32> to tensor<128x128xbf16>
func.func @matmul(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>,
                  %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  %steps = arith.ceildivui %k, %c32 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %zero) -> (tensor<128x128xf32>) {
    %k0 = arith.muli %i, %c32 : index
    %a_t = tile.load %x[%c0, %k0] limits [%m, %k] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<128x32xbf16>
    %b_t = tile.load %y[%k0, %c0] limits [%k, %n] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x128xbf16>
    %valid = arith.subi %k, %k0 : index
    %d = tile.dot %a_t, %b_t acc %a valid_k %valid : tensor<128x32xbf16>, tensor<32x128xbf16>, tensor<128x128xf32> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %r = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<128x128xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// Without the kernel attribute (the default engine) nothing changes.

// CHECK-LABEL: func.func @default_engine(
// CHECK-NOT: #tile.mma
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32>
func.func @default_engine(%x: !tile.ref<bf16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x16xbf16>
  %b = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x32xbf16>
  %d = tile.dot %a, %b : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A dot outside a loop, with a bf16 result and no accumulator, at 4 warps
// on a 32x32 result (2x2 warps of 16x16): fragments from zero, converted
// out, then rounded. f32 inputs, and a 24x32 result that no warp grid
// splits into 16x16 fragments, stay on CUDA cores.

// CHECK-LABEL: func.func @single(
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}} : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
// CHECK: %[[C:.*]] = tile.convert_layout %[[D]] : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<32x32xf32>
// CHECK: arith.truncf %[[C]] : tensor<32x32xf32> to tensor<32x32xbf16>
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<24x16xbf16>, tensor<16x32xbf16> -> tensor<24x32xf32>
func.func @single(%x: !tile.ref<bf16, 2>, %f: !tile.ref<f32, 2>,
                  %out: !tile.ref<bf16, 2>, %o2: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<32x16xbf16>
  %b = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x32xbf16>
  %d = tile.dot %a, %b : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xbf16>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<32x32xbf16>, !tile.ref<bf16, 2>
  %fa = tile.load %f[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<32x16xf32>
  %fb = tile.load %f[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x32xf32>
  %e = tile.dot %fa, %fb : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  tile.store %e, %o2[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<32x32xf32>, !tile.ref<f32, 2>
  %ra = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<24x16xbf16>
  %g = tile.dot %ra, %b : tensor<24x16xbf16>, tensor<16x32xbf16> -> tensor<24x32xf32>
  %g16 = arith.truncf %g : tensor<24x32xf32> to tensor<24x32xbf16>
  tile.store %g16, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<24x32xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// fp8 inputs become f16 (exactly) for the tensor cores.

// CHECK-LABEL: func.func @fp8(
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<16x32xf8E4M3FN> to tensor<16x32xf16>
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<32x16xf8E4M3FN> to tensor<32x16xf16>
// CHECK: tile.dot %[[A]], %[[B]] : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
func.func @fp8(%x: !tile.ref<f8E4M3FN, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 1 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<f8E4M3FN, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2> -> tensor<16x32xf8E4M3FN>
  %b = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<f8E4M3FN, 2> -> tensor<32x16xf8E4M3FN>
  %d = tile.dot %a, %b : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  return
}

// -----

// Helion's default 16x16 blocks at 4 warps: one warp's fragments, which
// the other three repeat (#tile.mma<warpsM = 1, warpsN = 1> in a 4-warp
// kernel), on tensor cores rather than CUDA cores.

// CHECK-LABEL: func.func @small_tile(
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32, #tile.mma<warpsM = 1, warpsN = 1>>
func.func @small_tile(%x: !tile.ref<bf16, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %a = tile.load %x[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<16x16xbf16>
  %d = tile.dot %a, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.store %d, %out[%c0, %c0] limits [%m, %m] {dims = array<i64: 0, 1>} : tensor<16x16xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A batched product (Helion's attention at [16, 16, 16]: 16 matrices of
// 16x16, K = 64) at 4 warps: the matrices are dealt over 4 groups of one
// warp (warpsB = 4), each warp computing 4 of them.

// CHECK-LABEL: func.func @batched(
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}} : tensor<16x16x64xf16>, tensor<16x64x16xf16> -> tensor<16x16x16xf32, #tile.mma<warpsM = 1, warpsN = 1, warpsB = 4>>
// CHECK: tile.convert_layout %[[D]] : tensor<16x16x16xf32, #tile.mma<warpsM = 1, warpsN = 1, warpsB = 4>> -> tensor<16x16x16xf32>
func.func @batched(%q: !tile.ref<f16, 3>, %k: !tile.ref<f16, 3>,
                   %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %b = tile.dim %q, 0 : !tile.ref<f16, 3>
  %m = tile.dim %q, 1 : !tile.ref<f16, 3>
  %d = tile.dim %q, 2 : !tile.ref<f16, 3>
  %n = tile.dim %k, 2 : !tile.ref<f16, 3>
  %x = tile.load %q[%c0, %c0, %c0] limits [%b, %m, %d] {dims = array<i64: 0, 1, 2>} : !tile.ref<f16, 3> -> tensor<16x16x64xf16>
  %y = tile.load %k[%c0, %c0, %c0] limits [%b, %d, %n] {dims = array<i64: 0, 1, 2>} : !tile.ref<f16, 3> -> tensor<16x64x16xf16>
  %s = tile.dot %x, %y : tensor<16x16x64xf16>, tensor<16x64x16xf16> -> tensor<16x16x16xf32>
  tile.store %s, %out[%c0, %c0, %c0] limits [%b, %m, %n] {dims = array<i64: 0, 1, 2>} : tensor<16x16x16xf32>, !tile.ref<f32, 3>
  return
}

// -----

// An rhs transposed from [N, K] (`q @ k.transpose(-2, -1)`) is read as it
// is: the transpose folds into the dot's rhs_transposed.

// CHECK-LABEL: func.func @transposed_rhs(
// CHECK-NOT: tile.transpose
// CHECK: tile.dot %{{.*}}, %{{.*}} {rhs_transposed} : tensor<4x16x64xf16>, tensor<4x32x64xf16> -> tensor<4x16x32xf32, #tile.mma<warpsM = 1, warpsN = 1, warpsB = 4>>
func.func @transposed_rhs(%q: !tile.ref<f16, 3>, %k: !tile.ref<f16, 3>,
                          %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %b = tile.dim %q, 0 : !tile.ref<f16, 3>
  %m = tile.dim %q, 1 : !tile.ref<f16, 3>
  %d = tile.dim %q, 2 : !tile.ref<f16, 3>
  %n = tile.dim %k, 1 : !tile.ref<f16, 3>
  %x = tile.load %q[%c0, %c0, %c0] limits [%b, %m, %d] {dims = array<i64: 0, 1, 2>} : !tile.ref<f16, 3> -> tensor<4x16x64xf16>
  %y = tile.load %k[%c0, %c0, %c0] limits [%b, %n, %d] {dims = array<i64: 0, 1, 2>} : !tile.ref<f16, 3> -> tensor<4x32x64xf16>
  %yt = tile.transpose %y [0, 2, 1] : tensor<4x32x64xf16> -> tensor<4x64x32xf16>
  %s = tile.dot %x, %yt : tensor<4x16x64xf16>, tensor<4x64x32xf16> -> tensor<4x16x32xf32>
  tile.store %s, %out[%c0, %c0, %c0] limits [%b, %m, %n] {dims = array<i64: 0, 1, 2>} : tensor<4x16x32xf32>, !tile.ref<f32, 3>
  return
}
