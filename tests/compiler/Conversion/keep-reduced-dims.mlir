// RUN: dslc-opt %s -split-input-file -dslc-keep-reduced-dims | FileCheck %s

// Helion's online softmax (helion/examples/attention.py): the row statistics m_i
// and l_i, carried by the loop and read back through [:, :, None], take the
// keepdim shape [16, 16, 1]; the reductions keep their dimension, the
// reshapes go, the -inf and 1.0 starts are copied in the new shape.

// CHECK-LABEL: func.func @online_softmax(
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<16x16x1xf32>
// CHECK-DAG: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<16x16x1xf32>
// CHECK-NOT: tensor<16x16xf32>
// CHECK: scf.for {{.*}} iter_args(%[[L:.*]] = %[[ONE]], %[[M:.*]] = %[[NINF]]) -> (tensor<16x16x1xf32>, tensor<16x16x1xf32>)
// CHECK: %[[MAX:.*]] = tile.reduce max %{{.*}}, 2 : tensor<16x16x16xf32> -> tensor<16x16x1xf32>
// CHECK: %[[MIJ:.*]] = arith.maximumf %[[M]], %[[MAX]] : tensor<16x16x1xf32>
// CHECK: tile.broadcast %[[MIJ]] : tensor<16x16x1xf32> -> tensor<16x16x16xf32>
// CHECK: tile.reduce sum %{{.*}}, 2 : tensor<16x16x16xf32> -> tensor<16x16x1xf32>
// CHECK: scf.yield %{{.*}}, %[[MIJ]] : tensor<16x16x1xf32>, tensor<16x16x1xf32>
// CHECK-NOT: tile.reshape
// CHECK: tile.store %{{.*}} : tensor<16x16x1xf32>
func.func @online_softmax(%x: !tile.ref<f32, 3>, %out: !tile.ref<f32, 3>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %ninf = arith.constant dense<0xFF800000> : tensor<16x16xf32>
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%l = %one, %m = %ninf) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %s = tile.load %x[%c0, %c0, %c0] limits [%c16, %c16, %c16] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<16x16x16xf32>
    %max = tile.reduce max %s, 2 : tensor<16x16x16xf32> -> tensor<16x16xf32>
    %mij = arith.maximumf %m, %max : tensor<16x16xf32>
    %m3 = tile.reshape %mij : tensor<16x16xf32> -> tensor<16x16x1xf32>
    %mb = tile.broadcast %m3 : tensor<16x16x1xf32> -> tensor<16x16x16xf32>
    %d = arith.subf %s, %mb : tensor<16x16x16xf32>
    %p = math.exp2 %d : tensor<16x16x16xf32>
    %lij = tile.reduce sum %p, 2 : tensor<16x16x16xf32> -> tensor<16x16xf32>
    %dm = arith.subf %m, %mij : tensor<16x16xf32>
    %alpha = math.exp2 %dm : tensor<16x16xf32>
    %la = arith.mulf %l, %alpha : tensor<16x16xf32>
    %ln = arith.addf %la, %lij : tensor<16x16xf32>
    scf.yield %ln, %mij : tensor<16x16xf32>, tensor<16x16xf32>
  }
  %lg = math.log2 %r#0 : tensor<16x16xf32>
  %lse = arith.addf %r#1, %lg : tensor<16x16xf32>
  %lse3 = tile.reshape %lse : tensor<16x16xf32> -> tensor<16x16x1xf32>
  tile.store %lse3, %out[%c0, %c0, %c0] limits [%c16, %c16, %c1] {dims = array<i64: 0, 1, 2>} : tensor<16x16x1xf32>, !tile.ref<f32, 3>
  return
}

// -----

// A reduction stored as it is: making it keepdim would need a reshape back
// before the store, so it stays.

// CHECK-LABEL: func.func @stored_as_is(
// CHECK: tile.reduce sum %{{.*}}, 1 : tensor<16x64xf32> -> tensor<16xf32>
// CHECK-NOT: tile.reshape
func.func @stored_as_is(%x: !tile.ref<f32, 2>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %t = tile.load %x[%c0, %c0] limits [%c16, %c64] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x64xf32>
  %s = tile.reduce sum %t, 1 : tensor<16x64xf32> -> tensor<16xf32>
  %e = math.exp %s : tensor<16xf32>
  tile.store %e, %out[%c0] limits [%c16] {dims = array<i64: 0>} : tensor<16xf32>, !tile.ref<f32, 1>
  return
}

// -----

// Edges: a statistic loaded from memory joins the web through a reshape,
// and the value stored as [16] leaves through one; the two reductions and
// two reshapes the web saves outweigh them. The reduction along dim 0
// keeps it in front ([1, 64]).

// CHECK-LABEL: func.func @edges(
// CHECK: %[[B:.*]] = tile.load %arg1{{.*}} -> tensor<64xf32>
// CHECK-NEXT: %[[B2:.*]] = tile.reshape %[[B]] : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: %[[S:.*]] = tile.reduce sum %{{.*}}, 0 : tensor<16x64xf32> -> tensor<1x64xf32>
// CHECK: %[[SB:.*]] = arith.addf %[[S]], %[[B2]] : tensor<1x64xf32>
// CHECK: tile.broadcast %[[SB]] : tensor<1x64xf32> -> tensor<16x64xf32>
// CHECK: %[[M:.*]] = tile.reduce max %{{.*}}, 0 : tensor<16x64xf32> -> tensor<1x64xf32>
// CHECK: %[[N:.*]] = arith.mulf %[[SB]], %[[M]] : tensor<1x64xf32>
// CHECK: tile.broadcast %[[N]]
// CHECK: %[[OUT:.*]] = tile.reshape %[[N]] : tensor<1x64xf32> -> tensor<64xf32>
// CHECK-NEXT: tile.store %[[OUT]]
func.func @edges(%x: !tile.ref<f32, 2>, %bias: !tile.ref<f32, 1>,
                 %out: !tile.ref<f32, 1>, %y: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %b = tile.load %bias[%c0] limits [%c64] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<64xf32>
  %t = tile.load %x[%c0, %c0] limits [%c16, %c64] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<16x64xf32>
  %s = tile.reduce sum %t, 0 : tensor<16x64xf32> -> tensor<64xf32>
  %sb = arith.addf %s, %b : tensor<64xf32>
  %s2 = tile.reshape %sb : tensor<64xf32> -> tensor<1x64xf32>
  %bc = tile.broadcast %s2 : tensor<1x64xf32> -> tensor<16x64xf32>
  %d = arith.subf %t, %bc : tensor<16x64xf32>
  %m = tile.reduce max %d, 0 : tensor<16x64xf32> -> tensor<64xf32>
  %n = arith.mulf %sb, %m : tensor<64xf32>
  %n2 = tile.reshape %n : tensor<64xf32> -> tensor<1x64xf32>
  %nb = tile.broadcast %n2 : tensor<1x64xf32> -> tensor<16x64xf32>
  tile.store %nb, %y[%c0, %c0] limits [%c16, %c64] {dims = array<i64: 0, 1>} : tensor<16x64xf32>, !tile.ref<f32, 2>
  tile.store %n, %out[%c0] limits [%c64] {dims = array<i64: 0>} : tensor<64xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A statistic chosen by an scf.if is carried through both branches.

// CHECK-LABEL: func.func @branch(
// CHECK: scf.if %{{.*}} -> (tensor<8x1xf32>)
// CHECK: scf.yield %{{.*}} : tensor<8x1xf32>
// CHECK: } else {
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<8x1xf32>
// CHECK: scf.yield %[[Z]] : tensor<8x1xf32>
// CHECK-NOT: tile.reshape
func.func @branch(%x: !tile.ref<f32, 2>, %y: !tile.ref<f32, 2>, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %t = tile.load %x[%c0, %c0] limits [%c8, %c32] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<8x32xf32>
  %r = scf.if %c -> (tensor<8xf32>) {
    %s = tile.reduce sum %t, 1 : tensor<8x32xf32> -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  } else {
    %z = arith.constant dense<0.0> : tensor<8xf32>
    scf.yield %z : tensor<8xf32>
  }
  %r2 = tile.reshape %r : tensor<8xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %r2 : tensor<8x1xf32> -> tensor<8x32xf32>
  %d = arith.subf %t, %b : tensor<8x32xf32>
  tile.store %d, %y[%c0, %c0] limits [%c8, %c32] {dims = array<i64: 0, 1>} : tensor<8x32xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A statistic carried by an scf.while (not a web edge the pass rewrites):
// the loop keeps its types and the reshape after it stays; the IR stays
// valid.

// CHECK-LABEL: func.func @while_carried(
// CHECK: %[[S:.*]] = tile.reduce sum %{{.*}}, 1 : tensor<8x32xf32> -> tensor<8xf32>
// CHECK: scf.while (%{{.*}} = %[[S]], %{{.*}} = %{{.*}}) : (tensor<8xf32>, index) -> (tensor<8xf32>, index)
// CHECK: tile.reshape %{{.*}} : tensor<8xf32> -> tensor<8x1xf32>
func.func @while_carried(%x: !tile.ref<f32, 2>, %y: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %t = tile.load %x[%c0, %c0] limits [%c8, %c32] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<8x32xf32>
  %s = tile.reduce sum %t, 1 : tensor<8x32xf32> -> tensor<8xf32>
  %r:2 = scf.while (%a = %s, %i = %c0) : (tensor<8xf32>, index) -> (tensor<8xf32>, index) {
    %go = arith.cmpi ult, %i, %c3 : index
    scf.condition(%go) %a, %i : tensor<8xf32>, index
  } do {
  ^bb0(%a: tensor<8xf32>, %i: index):
    %a2 = arith.addf %a, %a : tensor<8xf32>
    %i2 = arith.addi %i, %c1 : index
    scf.yield %a2, %i2 : tensor<8xf32>, index
  }
  %r2 = tile.reshape %r#0 : tensor<8xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %r2 : tensor<8x1xf32> -> tensor<8x32xf32>
  %d = arith.subf %t, %b : tensor<8x32xf32>
  tile.store %d, %y[%c0, %c0] limits [%c8, %c32] {dims = array<i64: 0, 1>} : tensor<8x32xf32>, !tile.ref<f32, 2>
  return
}
