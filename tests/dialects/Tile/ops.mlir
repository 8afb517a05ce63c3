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
