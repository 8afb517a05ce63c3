// RUN: dslc-opt %s | dslc-opt | FileCheck %s
// RUN: dslc-opt %s --mlir-print-op-generic | dslc-opt | FileCheck %s
// RUN: dslc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every tile op and of !tile.ref, in the custom and in the
// generic form.

// CHECK-LABEL: func.func @types(
// CHECK-SAME: %{{.*}}: !tile.ref<bf16, 1>, %{{.*}}: !tile.ref<f32, 8>, %{{.*}}: !tile.ref<i1, 2>, %{{.*}}: !tile.ref<i64, 3>
func.func @types(%a: !tile.ref<bf16, 1>, %b: !tile.ref<f32, 8>,
                 %c: !tile.ref<i1, 2>, %d: !tile.ref<i64, 3>) {
  return
}

// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: attributes {tile.arg_names = ["a", "out"], tile.kernel, tile.num_warps = 4 : i64, tile.peer_count = 8 : i64, tile.some_pass_hint = 3 : i64}
// GENERIC-LABEL: sym_name = "kernel"
// Unknown tile.* attributes are left to the passes that use them.
func.func @kernel(%a: !tile.ref<f32, 2>, %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.arg_names = ["a", "out"], tile.peer_count = 8 : i64,
                tile.some_pass_hint = 3 : i64} {
  // CHECK: %[[M:.*]] = tile.dim %{{.*}}, 0 : !tile.ref<f32, 2>
  // CHECK: %[[N:.*]] = tile.dim %{{.*}}, 1 : !tile.ref<f32, 2>
  // GENERIC: "tile.dim"(%{{.*}}) <{dim = 0 : i64}> : (!tile.ref<f32, 2>) -> index
  %m = tile.dim %a, 0 : !tile.ref<f32, 2>
  %n = tile.dim %a, 1 : !tile.ref<f32, 2>
  // CHECK: tile.grid(%[[M]], %[[N]]) block [1, 256] {
  // CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
  // GENERIC: "tile.grid"(%{{.*}}, %{{.*}}) <{blocks = array<i64: 1, 256>}> ({
  tile.grid (%m, %n) block [1, 256] {
  ^bb0(%i: index, %j: index):
    %c256 = arith.constant 256 : index
    %begin = arith.muli %j, %c256 : index
    %next = arith.addi %begin, %c256 : index
    %end = arith.minui %next, %n : index
    %i1 = arith.addi %i, %c256 : index
    // CHECK: %[[X:.*]] = tile.load %{{.*}}[%[[I]], %{{.*}}] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<256xf32>
    // GENERIC: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dims = array<i64: 1>, operandSegmentSizes = array<i32: 1, 2, 2>}> : (!tile.ref<f32, 2>, index, index, index, index) -> tensor<256xf32>
    %x = tile.load %a[%i, %begin] limits [%i1, %end] {dims = array<i64: 1>}
        : !tile.ref<f32, 2> -> tensor<256xf32>
    // CHECK: %[[Y:.*]] = tile.load {{.*}} {dims = array<i64: 0, 1>, other = 1.000000e+00 : f32} : !tile.ref<f32, 2> -> tensor<1x256xf32>
    %y = tile.load %a[%i, %begin] limits [%i1, %end]
        {dims = array<i64: 0, 1>, other = 1.0 : f32}
        : !tile.ref<f32, 2> -> tensor<1x256xf32>
    // CHECK: %[[S:.*]] = tile.splat %{{.*}} : f32 -> tensor<256xf32>
    %c2 = arith.constant 2.0 : f32
    %s = tile.splat %c2 : f32 -> tensor<256xf32>
    // CHECK: tile.splat %[[I]] : index -> tensor<4x8xindex>
    %si = tile.splat %i : index -> tensor<4x8xindex>
    // CHECK: tile.iota : tensor<256xi32>
    // CHECK: tile.iota : tensor<16xindex>
    // GENERIC: "tile.iota"() : () -> tensor<256xi32>
    %io = tile.iota : tensor<256xi32>
    %ii = tile.iota : tensor<16xindex>
    // CHECK: tile.reduce sum %[[X]], 0 : tensor<256xf32> -> f32
    // CHECK: tile.reduce prod %[[X]], 0 : tensor<256xf32> -> f32
    // CHECK: tile.reduce max %[[Y]], 1 : tensor<1x256xf32> -> tensor<1xf32>
    // CHECK: tile.reduce min %[[Y]], 0 : tensor<1x256xf32> -> tensor<256xf32>
    // CHECK: tile.reduce max %{{.*}}, 0 : tensor<256xi32> -> i32
    // GENERIC: "tile.reduce"(%{{.*}}) <{dim = 0 : i64, kind = 0 : i32}> : (tensor<256xf32>) -> f32
    %r0 = tile.reduce sum %x, 0 : tensor<256xf32> -> f32
    %r1 = tile.reduce prod %x, 0 : tensor<256xf32> -> f32
    %r2 = tile.reduce max %y, 1 : tensor<1x256xf32> -> tensor<1xf32>
    %r3 = tile.reduce min %y, 0 : tensor<1x256xf32> -> tensor<256xf32>
    %r4 = tile.reduce max %io, 0 : tensor<256xi32> -> i32
    // CHECK: tile.store %{{.*}}, %{{.*}}[%[[I]], %{{.*}}] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 1>} : tensor<256xf32>, !tile.ref<f32, 2>
    // GENERIC: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dims = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1, 2, 2>}> : (tensor<256xf32>, !tile.ref<f32, 2>, index, index, index, index) -> ()
    %sum = arith.addf %x, %s : tensor<256xf32>
    tile.store %sum, %out[%i, %begin] limits [%i1, %end] {dims = array<i64: 1>}
        : tensor<256xf32>, !tile.ref<f32, 2>
    // The terminator is implicit in the custom form.
    // CHECK-NOT: tile.yield
    // CHECK: }
    // GENERIC: "tile.yield"() : () -> ()
  }
  return
}

// The explicit terminator parses too.
// CHECK-LABEL: func.func @explicit_yield(
// CHECK: tile.grid(%{{.*}}) block [8192] {
// CHECK-NOT: tile.yield
// CHECK: return
func.func @explicit_yield(%n: index) {
  tile.grid (%n) block [8192] {
  ^bb0(%t: index):
    tile.yield
  }
  return
}

// A 3-d grid over a 3-d ref with a 2-d tile of dims (0, 2).
// CHECK-LABEL: func.func @three_d(
// CHECK: tile.grid(%{{.*}}, %{{.*}}, %{{.*}}) block [2, 1, 64]
// CHECK: tile.load {{.*}} {dims = array<i64: 0, 2>} : !tile.ref<bf16, 3> -> tensor<2x64xbf16>
func.func @three_d(%a: !tile.ref<bf16, 3>, %p: index, %q: index, %r: index) {
  tile.grid (%p, %q, %r) block [2, 1, 64] {
  ^bb0(%i: index, %j: index, %k: index):
    %x = tile.load %a[%i, %j, %k] limits [%p, %q, %r] {dims = array<i64: 0, 2>}
        : !tile.ref<bf16, 3> -> tensor<2x64xbf16>
  }
  return
}

// Reductions along any dimension, keepdim or not, with a valid count.
// CHECK-LABEL: func.func @reduce_forms(
// CHECK-SAME: %[[X:.*]]: tensor<4x8192xf32>, %[[N:.*]]: index, %[[V:.*]]: tensor<5120xf32>
// CHECK: tile.reduce sum %[[X]], 1 valid %[[N]] : tensor<4x8192xf32> -> tensor<4x1xf32>
// CHECK: tile.reduce max %[[X]], 1 : tensor<4x8192xf32> -> tensor<4xf32>
// CHECK: tile.reduce min %[[X]], 0 valid %[[N]] : tensor<4x8192xf32> -> tensor<1x8192xf32>
// CHECK: tile.reduce prod %[[V]], 0 : tensor<5120xf32> -> tensor<f32>
// CHECK: tile.reduce max %[[V]], 0 valid %[[N]] : tensor<5120xf32> -> tensor<1xf32>
// CHECK: tile.reduce sum %[[V]], 0 valid %[[N]] : tensor<5120xf32> -> f32
// GENERIC: "tile.reduce"(%{{.*}}, %{{.*}}) <{dim = 1 : i64, kind = 0 : i32}> : (tensor<4x8192xf32>, index) -> tensor<4x1xf32>
// GENERIC: "tile.reduce"(%{{.*}}) <{dim = 1 : i64, kind = 2 : i32}> : (tensor<4x8192xf32>) -> tensor<4xf32>
func.func @reduce_forms(%x: tensor<4x8192xf32>, %n: index, %v: tensor<5120xf32>) {
  %0 = tile.reduce sum %x, 1 valid %n : tensor<4x8192xf32> -> tensor<4x1xf32>
  %1 = tile.reduce max %x, 1 : tensor<4x8192xf32> -> tensor<4xf32>
  %2 = tile.reduce min %x, 0 valid %n : tensor<4x8192xf32> -> tensor<1x8192xf32>
  %3 = tile.reduce prod %v, 0 : tensor<5120xf32> -> tensor<f32>
  %4 = tile.reduce max %v, 0 valid %n : tensor<5120xf32> -> tensor<1xf32>
  %5 = tile.reduce sum %v, 0 valid %n : tensor<5120xf32> -> f32
  return
}

// Broadcasts of unit dimensions and reshapes that insert or remove them.
// CHECK-LABEL: func.func @broadcast_reshape(
// CHECK: tile.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<4x8192xf32>
// CHECK: tile.reshape %{{.*}} : tensor<8192xbf16> -> tensor<1x8192xbf16>
// CHECK: tile.broadcast %{{.*}} : tensor<1x8192xbf16> -> tensor<4x8192xbf16>
// CHECK: tile.reshape %{{.*}} : tensor<f32> -> tensor<1x1xf32>
// CHECK: tile.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<2x16xf32>
// CHECK: tile.broadcast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: tile.reshape %{{.*}} : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: tile.reshape %{{.*}} : tensor<4x1xf32> -> tensor<4xf32>
// CHECK: tile.reshape %{{.*}} : tensor<1x4x1x8xf32> -> tensor<4x8xf32>
// GENERIC: "tile.broadcast"(%{{.*}}) : (tensor<4x1xf32>) -> tensor<4x8192xf32>
// GENERIC: "tile.reshape"(%{{.*}}) : (tensor<8192xbf16>) -> tensor<1x8192xbf16>
func.func @broadcast_reshape(%a: tensor<4x1xf32>, %w: tensor<8192xbf16>,
                             %r: tensor<4xf32>, %s: tensor<f32>,
                             %t: tensor<1x4x1x8xf32>, %u: tensor<4x8xf32>) {
  %0 = tile.broadcast %a : tensor<4x1xf32> -> tensor<4x8192xf32>
  %w2 = tile.reshape %w : tensor<8192xbf16> -> tensor<1x8192xbf16>
  %1 = tile.broadcast %w2 : tensor<1x8192xbf16> -> tensor<4x8192xbf16>
  %s2 = tile.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %2 = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<2x16xf32>
  %3 = tile.broadcast %u : tensor<4x8xf32> -> tensor<4x8xf32>
  %r2 = tile.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
  %r3 = tile.reshape %r2 : tensor<4x1xf32> -> tensor<4xf32>
  %4 = tile.reshape %t : tensor<1x4x1x8xf32> -> tensor<4x8xf32>
  return
}

// fp8 storage types: refs, loads and stores.
// CHECK-LABEL: func.func @fp8(
// CHECK-SAME: !tile.ref<f8E4M3FN, 2>, %{{.*}}: !tile.ref<f8E5M2, 1>
// CHECK: tile.load {{.*}} : !tile.ref<f8E4M3FN, 2> -> tensor<4x64xf8E4M3FN>
// CHECK: tile.load {{.*}} : !tile.ref<f8E5M2, 1> -> tensor<64xf8E5M2>
// CHECK: tile.store {{.*}} : tensor<4x64xf8E4M3FN>, !tile.ref<f8E4M3FN, 2>
// CHECK: tile.store {{.*}} : tensor<64xf8E5M2>, !tile.ref<f8E5M2, 1>
func.func @fp8(%a: !tile.ref<f8E4M3FN, 2>, %b: !tile.ref<f8E5M2, 1>,
               %i: index, %n: index) {
  %x = tile.load %a[%i, %i] limits [%n, %n] {dims = array<i64: 0, 1>}
      : !tile.ref<f8E4M3FN, 2> -> tensor<4x64xf8E4M3FN>
  %y = tile.load %b[%i] limits [%n] {dims = array<i64: 0>}
      : !tile.ref<f8E5M2, 1> -> tensor<64xf8E5M2>
  tile.store %x, %a[%i, %i] limits [%n, %n] {dims = array<i64: 0, 1>}
      : tensor<4x64xf8E4M3FN>, !tile.ref<f8E4M3FN, 2>
  tile.store %y, %b[%i] limits [%n] {dims = array<i64: 0>}
      : tensor<64xf8E5M2>, !tile.ref<f8E5M2, 1>
  return
}

// Matrix products: with and without an accumulator and a valid K count,
// every input type, 16-bit results.
// CHECK-LABEL: func.func @dot_forms(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xbf16>, %[[B:.*]]: tensor<32x64xbf16>, %[[C:.*]]: tensor<64x64xf32>, %[[N:.*]]: index
// CHECK: tile.dot %[[A]], %[[B]] acc %[[C]] valid_k %[[N]] : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: tile.dot %[[A]], %[[B]] : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xbf16>
// CHECK: tile.dot %{{.*}}, %{{.*}} valid_k %[[N]] : tensor<16x16xf8E4M3FN>, tensor<16x8xf8E4M3FN> -> tensor<16x8xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<16x16xf8E5M2>, tensor<16x8xf8E5M2> -> tensor<16x8xf16>
// CHECK: tile.dot %{{.*}}, %{{.*}} acc %{{.*}} : tensor<4x1xf32>, tensor<1x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// GENERIC: "tile.dot"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>, index) -> tensor<64x64xf32>
// GENERIC: "tile.dot"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<64x64xbf16>
func.func @dot_forms(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>,
                     %c: tensor<64x64xf32>, %n: index,
                     %e: tensor<16x16xf8E4M3FN>, %f: tensor<16x8xf8E4M3FN>,
                     %g: tensor<16x16xf8E5M2>, %h: tensor<16x8xf8E5M2>,
                     %x: tensor<4x1xf32>, %y: tensor<1x4xf32>,
                     %z: tensor<4x4xf32>) {
  %0 = tile.dot %a, %b acc %c valid_k %n
      : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  %1 = tile.dot %a, %b : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xbf16>
  %2 = tile.dot %e, %f valid_k %n
      : tensor<16x16xf8E4M3FN>, tensor<16x8xf8E4M3FN> -> tensor<16x8xf32>
  %3 = tile.dot %g, %h : tensor<16x16xf8E5M2>, tensor<16x8xf8E5M2> -> tensor<16x8xf16>
  %4 = tile.dot %x, %y acc %z
      : tensor<4x1xf32>, tensor<1x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// CHECK-LABEL: func.func @views_and_transposes(
// CHECK: tile.view %{{.*}}[%{{.*}}] : !tile.ref<bf16, 2> -> !tile.ref<bf16, 1>
// CHECK: tile.transpose %{{.*}} [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}} acc %{{.*}} : tensor<2x4x8xbf16>, tensor<2x8x4xbf16>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
// GENERIC: "tile.view"(%{{.*}}, %{{.*}}) : (!tile.ref<bf16, 2>, index) -> !tile.ref<bf16, 1>
// GENERIC: "tile.transpose"(%{{.*}}) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
func.func @views_and_transposes(%x: !tile.ref<bf16, 2>, %n: index,
                                %t: tensor<4x8xf32>, %a: tensor<2x4x8xbf16>,
                                %b: tensor<2x8x4xbf16>, %c: tensor<2x4x4xf32>) {
  %flat = tile.view %x [%n] : !tile.ref<bf16, 2> -> !tile.ref<bf16, 1>
  %tt = tile.transpose %t [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %d = tile.dot %a, %b acc %c
      : tensor<2x4x8xbf16>, tensor<2x8x4xbf16>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  return
}

// tile.atomic: a kind, an ordering, the value, indices and an optional mask.
// CHECK-LABEL: func.func @atomics(
// CHECK: tile.atomic add relaxed %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x8xf32>, !tile.ref<f32, 2>, tensor<4x8xi64>, tensor<4x8xi64>
// CHECK: tile.atomic xchg acq_rel %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<4x8xi1> : tensor<4x8xi32>, !tile.ref<i32, 2>, tensor<4x8xi64>, tensor<4x8xi64>
// GENERIC-LABEL: sym_name = "atomics"
// GENERIC: "tile.atomic"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kind = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 2, 0>, sem = 0 : i32}>
func.func @atomics(%x: !tile.ref<f32, 2>, %y: !tile.ref<i32, 2>,
                   %i: tensor<4x8xi64>, %j: tensor<4x8xi64>,
                   %v: tensor<4x8xf32>, %w: tensor<4x8xi32>,
                   %m: tensor<4x8xi1>) {
  tile.atomic add relaxed %v, %x[%i, %j] : tensor<4x8xf32>, !tile.ref<f32, 2>, tensor<4x8xi64>, tensor<4x8xi64>
  tile.atomic xchg acq_rel %w, %y[%i, %j] mask %m : tensor<4x8xi1> : tensor<4x8xi32>, !tile.ref<i32, 2>, tensor<4x8xi64>, tensor<4x8xi64>
  return
}

// CHECK-LABEL: func.func @tensor_cores(
// CHECK-SAME: tile.dot_engine = #tile.dot_engine<mma_sync>
// CHECK: %[[M:.*]] = tile.convert_layout %{{.*}} : tensor<32x32xf32> -> tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}} acc %[[M]] : tensor<32x16xbf16>, tensor<16x32xbf16>, tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
// CHECK: tile.convert_layout %[[D]] : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<32x32xf32>
func.func @tensor_cores(%a: tensor<32x16xbf16>, %b: tensor<16x32xbf16>,
                        %c: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %m = tile.convert_layout %c : tensor<32x32xf32> -> tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  %d = tile.dot %a, %b acc %m : tensor<32x16xbf16>, tensor<16x32xbf16>, tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  %r = tile.convert_layout %d : tensor<32x32xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @staged(
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] limits[%{{.*}}, %{{.*}}] to <bf16, [64, 32], offset = 0, pitch = 40, stages = 3> stage %{{.*}} {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.async_wait 1
// CHECK-NEXT: tile.staged_dot <bf16, [64, 32], offset = 0, pitch = 40, stages = 3>, <bf16, [32, 64], offset = 15360, pitch = 72, stages = 3> stage %{{.*}} acc %{{.*}} : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
func.func @staged(%x: !tile.ref<bf16, 2>, %i: index,
                  %acc: tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>)
    -> tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>> {
  tile.async_copy %x[%i, %i] limits [%i, %i] to #tile.staged<bf16, [64, 32], offset = 0, pitch = 40, stages = 3> stage %i {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_commit
  tile.async_wait 1
  %d = tile.staged_dot #tile.staged<bf16, [64, 32], offset = 0, pitch = 40, stages = 3>, #tile.staged<bf16, [32, 64], offset = 15360, pitch = 72, stages = 3> stage %i acc %acc : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  return %d : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
}

// CHECK-LABEL: func.func @staged_in_flight(
// CHECK: %[[D:.*]] = tile.staged_dot <bf16, [64, 64], offset = 0, pitch = 64, stages = 3, swizzle = 128>, <bf16, [64, 64], offset = 24576, pitch = 64, stages = 3, swizzle = 128> stage %{{.*}} acc %{{.*}} {pending = 1 : i64} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
// CHECK-NEXT: tile.dot_wait %[[D]] : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
func.func @staged_in_flight(%i: index,
                            %acc: tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>)
    -> tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>> {
  %d = tile.staged_dot #tile.staged<bf16, [64, 64], offset = 0, pitch = 64, stages = 3, swizzle = 128>, #tile.staged<bf16, [64, 64], offset = 24576, pitch = 64, stages = 3, swizzle = 128> stage %i acc %acc {pending = 1 : i64} : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  %done = tile.dot_wait %d : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
  return %done : tensor<64x64xf32, #tile.mma<warpsM = 4, warpsN = 1>>
}

// CHECK-LABEL: func.func @shift(
// CHECK: tile.shift %{{.*}}, 1 by 4 : tensor<8x64xf32>
// CHECK: tile.shift %{{.*}}, 0 by -2 : tensor<8x64xf32>
func.func @shift(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %a = tile.shift %x, 1 by 4 : tensor<8x64xf32>
  %b = tile.shift %a, 0 by -2 : tensor<8x64xf32>
  return %b : tensor<8x64xf32>
}
