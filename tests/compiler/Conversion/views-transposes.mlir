// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// tile.view (x.view(-1) of a [m, n] tensor): the same address with the new
// size; the size is 0 (every access masked) when the view would hold more
// elements than the tensor (m * n, here exactly its elements).

// CHECK-LABEL: func.func @flat(
// CHECK-SAME: %[[X:[a-z0-9]+]]: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[M:[a-z0-9]+]]: i64, %[[N:[a-z0-9]+]]: i64
// CHECK: %[[HAVE:.*]] = arith.muli %[[M]], %[[N]] : i64
// CHECK: %[[WANT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[WANT]], %[[HAVE]] : i64
// CHECK: arith.select %[[FITS]], %[[WANT]], %c0_i64 : i64
// CHECK: llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
func.func @flat(%x: !tile.ref<f32, 2> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<f32, 2>
  %n = tile.dim %x, 1 : !tile.ref<f32, 2>
  %mn = arith.muli %m, %n : index
  %v = tile.view %x [%mn] : !tile.ref<f32, 2> -> !tile.ref<f32, 1>
  %t = tile.load %v[%c0] limits [%c32] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<32xf32>
  tile.store %t, %out[%c0] limits [%c32] {dims = array<i64: 0>} : tensor<32xf32>, !tile.ref<f32, 1>
  return
}

// -----

// tile.static_sizes (a size every launch checks equal to a constant): the
// size slot stays in the ABI, and the kernel uses the constant, so the view
// of x's 64 columns needs no multiplication by a run-time size.

// CHECK-LABEL: func.func @static_cols(
// CHECK-SAME: %[[X:[a-z0-9]+]]: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[M:[a-z0-9]+]]: i64, %[[N:[a-z0-9]+]]: i64
// CHECK-SAME: #tile.abi_slot<"x.size1", size : i64, param = "x", dim = 1>
// CHECK-NOT: %[[N]]
// CHECK: arith.muli %[[M]], %c64_i64 : i64
// CHECK-NOT: %[[N]]
// CHECK: return
func.func @static_cols(%x: !tile.ref<f32, 2> {tile.role = #tile.role<input>, tile.static_sizes = array<i64: -1, 64>}, %out: !tile.ref<f32, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %x, 0 : !tile.ref<f32, 2>
  %n = tile.dim %x, 1 : !tile.ref<f32, 2>
  %mn = arith.muli %m, %n : index
  %v = tile.view %x [%mn] : !tile.ref<f32, 2> -> !tile.ref<f32, 1>
  %t = tile.load %v[%c0] limits [%c32] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<32xf32>
  tile.store %t, %out[%c0] limits [%c32] {dims = array<i64: 0>} : tensor<32xf32>, !tile.ref<f32, 1>
  return
}

// -----

// tile.transpose goes through the shared workspace (the [4, 8] f32 input:
// 128 bytes): the owners store it row-major, bar.sync, each thread reads
// each element of its layout of [8, 4] from the input's position (one
// scalar load from addrspace 3 per element), bar.sync.

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x i8>
// CHECK-LABEL: func.func @transposed(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier0
func.func @transposed(%x: !tile.ref<f32, 2> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 2> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = tile.load %x[%c0, %c0] limits [%c4, %c8] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<4x8xf32>
  %tt = tile.transpose %t [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  tile.store %tt, %out[%c0, %c0] limits [%c8, %c4] {dims = array<i64: 0, 1>} : tensor<8x4xf32>, !tile.ref<f32, 2>
  return
}

// -----

// A batched tile.dot ([2, 4, 8] x [2, 8, 4]): both operands staged (2 *
// (4*8 + 8*4) f32 = 512 bytes); a row b * 4 + m of the result reads rhs
// matrix b, at offset (row / 4) * 32 elements (row / 4 is also the batch
// index the loads compute: the rows of [2, 4, 8] are dealt like those of
// [8, 8]).

// CHECK: llvm.mlir.global internal @__dslc_workspace() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<512 x i8>
// CHECK-LABEL: func.func @batched(
// CHECK: arith.divui %{{.*}}, %c4_i64 : i64
// CHECK: nvvm.barrier0
// CHECK: arith.muli %{{.*}}, %c32_i64 : i64
// CHECK: scf.for
// CHECK: llvm.intr.fma
// CHECK: nvvm.barrier0
func.func @batched(%a: !tile.ref<f32, 3> {tile.role = #tile.role<input>}, %b: !tile.ref<f32, 3> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 3> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["a", "b", "out"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %x = tile.load %a[%c0, %c0, %c0] limits [%c2, %c4, %c8] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<2x4x8xf32>
  %y = tile.load %b[%c0, %c0, %c0] limits [%c2, %c8, %c4] {dims = array<i64: 0, 1, 2>} : !tile.ref<f32, 3> -> tensor<2x8x4xf32>
  %d = tile.dot %x, %y : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  tile.store %d, %out[%c0, %c0, %c0] limits [%c2, %c4, %c4] {dims = array<i64: 0, 1, 2>} : tensor<2x4x4xf32>, !tile.ref<f32, 3>
  return
}

// -----

// tile.gather: per element of the thread's vector (a [32] i64 index tile
// at 1 warp: one element per thread), the index checked against the
// tensor's size (unsigned: negative is out) and the mask, then one scalar
// load under that condition (a zero otherwise). tile.scatter stores the
// same way.

// CHECK-LABEL: func.func @gather_scatter(
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : f32
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @gather_scatter(%x: !tile.ref<f32, 1> {tile.role = #tile.role<inout>}, %i: !tile.ref<i64, 1> {tile.role = #tile.role<input>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "i"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %idx = tile.load %i[%c0] limits [%c32] {dims = array<i64: 0>} : !tile.ref<i64, 1> -> tensor<32xi64>
  %zero = arith.constant dense<0> : tensor<32xi64>
  %m = arith.cmpi sgt, %idx, %zero : tensor<32xi64>
  %v = tile.gather %x[%idx] mask %m : tensor<32xi1> : !tile.ref<f32, 1>, tensor<32xi64> -> tensor<32xf32>
  tile.scatter %v, %x[%idx] : tensor<32xf32>, !tile.ref<f32, 1>, tensor<32xi64>
  return
}

// -----

// A gather of f32 at i64 indices (an embedding's `weight[idx, tile_e]`):
// the index tiles do not narrow the pieces (16 bytes of the data: four f32
// a thread at [128] x 1 warp), and a piece whose four positions read one
// contiguous aligned run (each read, each index one past the one before,
// the first address a multiple of 16) is one vector load, element by
// element otherwise. LLVM folds the run test where the indices are an
// iota plus a base.

// CHECK-LABEL: func.func @gather_run(
// CHECK: llvm.ptrtoint
// CHECK: %[[PIECE:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: vector.from_elements
// CHECK: llvm.store %[[PIECE]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @gather_run(%x: !tile.ref<f32, 1> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %base = arith.constant 4096 : i64
  %i = tile.iota : tensor<128xi64>
  %b = tile.splat %base : i64 -> tensor<128xi64>
  %idx = arith.addi %i, %b : tensor<128xi64>
  %v = tile.gather %x[%idx] : !tile.ref<f32, 1>, tensor<128xi64> -> tensor<128xf32>
  tile.store %v, %out[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A scatter at the same indices: one vector store per piece that writes
// one contiguous aligned run, element by element otherwise.

// CHECK-LABEL: func.func @scatter_run(
// CHECK: scf.if %{{[0-9]+}} {
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT: } else {
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @scatter_run(%x: !tile.ref<f32, 1> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "out"]} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %base = arith.constant 4096 : i64
  %v = tile.load %x[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %i = tile.iota : tensor<128xi64>
  %b = tile.splat %base : i64 -> tensor<128xi64>
  %idx = arith.addi %i, %b : tensor<128xi64>
  tile.scatter %v, %out[%idx] : tensor<128xf32>, !tile.ref<f32, 1>, tensor<128xi64>
  return
}

// -----

// tile.atomic: the scatter's conditions, then one relaxed llvm.atomicrmw
// per element the thread holds (fadd of floats, max of integers) at device
// scope; the op's ordering is device-scope fences around them (release
// before, acquire after), which llc keeps where it drops an atomicrmw's.

// CHECK-LABEL: func.func @atomics(
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK-NOT: llvm.fence
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK-NOT: llvm.fence
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.fence syncscope("device") acquire
func.func @atomics(%x: !tile.ref<f32, 1> {tile.role = #tile.role<inout>}, %y: !tile.ref<i32, 1> {tile.role = #tile.role<inout>}, %i: !tile.ref<i64, 1> {tile.role = #tile.role<input>})
    attributes {tile.kernel, tile.num_warps = 1 : i64, tile.arg_names = ["x", "y", "i"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %idx = tile.load %i[%c0] limits [%c32] {dims = array<i64: 0>} : !tile.ref<i64, 1> -> tensor<32xi64>
  %v = arith.constant dense<1.0> : tensor<32xf32>
  %w = arith.constant dense<3> : tensor<32xi32>
  tile.atomic add relaxed %v, %x[%idx] : tensor<32xf32>, !tile.ref<f32, 1>, tensor<32xi64>
  tile.atomic max acq_rel %w, %y[%idx] : tensor<32xi32>, !tile.ref<i32, 1>, tensor<32xi64>
  return
}
