// RUN: dslc-opt %s -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// The ops of a pipelined tensor-core loop (-dslc-pipeline-dots), lowered.
// A [64, 32] bf16 tile into stage %s of a 2-stage ring at 0 (rows of 40
// bf16: 5120 bytes a stage) is 256 pieces of 16 bytes over 128 threads,
// two per thread: thread t's first piece is row t / 4, columns
// 8 (t % 4) .. + 8, to byte 80 r + 16 (t % 4) of the stage. Its source bytes inside the limits (0 past the last
// row; the column tail clamped to 0..8 elements, times 2) go to one
// cp.async.cg of 16 when the tensor, the tile's first element and the row
// pitch are 16-byte aligned, tested once around all the copy's pieces
// (zero-filled past them); else each piece is copied element by element,
// zeros past the limits. The rhs ring starts at 10240 (2 x 32 rows of 72 bf16): the
// workspace is 19456 bytes. Commit and wait are cp.async's, the wait
// followed by bar.sync; the staged dot reads the stage in place with
// ldmatrix (no staging of its own, no barrier).

// CHECK: module attributes {dslc.workspace_bytes = 19456 : i64}
// CHECK-LABEL: func.func @staged(
// CHECK: %[[WS:.*]] = llvm.mlir.addressof @__dslc_workspace : !llvm.ptr<3>
// (The tile starts at element 0: its offset folds away.)
// CHECK: %[[PITCH:.*]] = arith.muli %{{.*}}, %c2_i64 : i64
// CHECK: %[[BASEINT:.*]] = llvm.ptrtoint %arg0 : !llvm.ptr<1> to i64
// CHECK: %[[BOTH:.*]] = arith.ori %[[BASEINT]], %[[PITCH]] : i64
// CHECK: %[[LOW:.*]] = arith.andi %[[BOTH]], %c15_i64 : i64
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %c0_i64 : i64
// CHECK: %[[AT:.*]] = arith.muli %{{.*}}, %c5120_i64 : i64
// CHECK: %[[STAGE:.*]] = llvm.getelementptr %[[WS]][%[[AT]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[TID:.*]] = arith.extui
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c4_i64 : i64
// CHECK: %[[UNIT:.*]] = arith.remui %[[TID]], %c4_i64 : i64
// One test around every piece: the aligned path is cp.async only.
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: %[[COL:.*]] = arith.muli %[[UNIT]], %c8_i64 : i64
// CHECK: %[[ROWOK:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : i64
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[COL]] : i64
// CHECK: %[[MIN:.*]] = arith.minsi %[[LEFT]], %c8_i64 : i64
// CHECK: %[[CLAMP:.*]] = arith.maxsi %[[MIN]], %c0_i64 : i64
// CHECK: %[[COUNT:.*]] = arith.select %[[ROWOK]], %[[CLAMP]], %c0_i64 : i64
// CHECK: %[[SRC:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK: %[[DUNIT:.*]] = arith.muli %[[UNIT]], %c16_i64 : i64
// CHECK: %[[DROW:.*]] = arith.muli %[[ROW]], %c80_i64 : i64
// CHECK: %[[DOFF:.*]] = arith.addi %[[DROW]], %[[DUNIT]] : i64
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[STAGE]][%[[DOFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[BYTES:.*]] = arith.muli %[[COUNT]], %c2_i64 : i64
// CHECK: %[[SIZE:.*]] = arith.trunci %[[BYTES]] : i64 to i32
// CHECK: nvvm.cp.async.shared.global %[[DST]], %[[SRC]], 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// The thread's second piece: 32 rows down, the same columns.
// CHECK: %[[ROW2:.*]] = arith.addi %[[ROW]], %c32_i64 : i64
// CHECK: arith.cmpi slt, %[[ROW2]], %{{.*}} : i64
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: llvm.load
// CHECK: } else {
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: }
// The rhs copy: its own test, its own pieces.
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global
// CHECK: } else {
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
func.func @staged(%x: !tile.ref<bf16, 2>, %y: !tile.ref<bf16, 2>, %s: i64,
                  %out: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.dot_engine = #tile.dot_engine<mma_sync>} {
  %c0 = arith.constant 0 : index
  %st = arith.index_cast %s : i64 to index
  %m = tile.dim %x, 0 : !tile.ref<bf16, 2>
  %k = tile.dim %x, 1 : !tile.ref<bf16, 2>
  %n = tile.dim %y, 1 : !tile.ref<bf16, 2>
  tile.async_copy %x[%c0, %c0] limits [%m, %k] to #tile.staged<bf16, [64, 32], offset = 0, pitch = 40, stages = 2> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_copy %y[%c0, %c0] limits [%k, %n] to #tile.staged<bf16, [32, 64], offset = 10240, pitch = 72, stages = 2> stage %st {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
  tile.async_commit
  tile.async_wait 0
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  %d = tile.staged_dot #tile.staged<bf16, [64, 32], offset = 0, pitch = 40, stages = 2>, #tile.staged<bf16, [32, 64], offset = 10240, pitch = 72, stages = 2> stage %st acc %zero : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>>
  %r = tile.convert_layout %d : tensor<64x64xf32, #tile.mma<warpsM = 2, warpsN = 2>> -> tensor<64x64xf32>
  tile.store %r, %out[%c0, %c0] limits [%m, %n] {dims = array<i64: 0, 1>} : tensor<64x64xf32>, !tile.ref<f32, 2>
  return
}
