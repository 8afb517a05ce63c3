// RUN: dslc-opt %s -dslc-distribute-tiles | FileCheck %s
// RUN: dslc-opt %s -dslc-distribute-tiles -dslc-lower-to-llvm | FileCheck --check-prefix=LLVM %s

// A software multicast load-reduce sums every peer's tile in f32 and rounds
// once; the nvls one issues multimem.ld_reduce for full pieces.
func.func @reduce(%table: !tile.ref<i64, 1> {tile.role = #tile.role<peer_table of "x">},
                  %x: !tile.ref<bf16, 1> {tile.role = #tile.role<input>},
                  %out: !tile.ref<bf16, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.arg_names = ["table", "x", "out"]} {
  %n = tile.dim %x, 0 : !tile.ref<bf16, 1>
  %stack = comm.stack_view %table, %x : !tile.ref<i64, 1>, !tile.ref<bf16, 1> -> !comm.stack<bf16, 1>
  tile.grid (%n) block [1024] {
  ^bb0(%t: index):
    %c1024 = arith.constant 1024 : index
    %begin = arith.muli %t, %c1024 : index
    %end0 = arith.addi %begin, %c1024 : index
    %end = arith.minui %end0, %n : index
    %sw = comm.multicast_load_reduce %stack[%begin] limits [%end] {dims = array<i64: 0>, mode = #comm<mode software>} : !comm.stack<bf16, 1> -> tensor<1024xbf16>
    %hw = comm.multicast_load_reduce %stack[%begin] limits [%end] {dims = array<i64: 0>, mode = #comm<mode nvls>} : !comm.stack<bf16, 1> -> tensor<1024xbf16>
    %sum = arith.addf %sw, %hw : tensor<1024xbf16>
    tile.store %sum, %out[%begin] limits [%end] {dims = array<i64: 0>} : tensor<1024xbf16>, !tile.ref<bf16, 1>
  }
  return
}

// CHECK-LABEL: func.func @reduce(
// CHECK: scf.for
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: multimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {$0, $1, $2, $3}, [$4];
// LLVM-LABEL: llvm.func @reduce(
// LLVM-NOT: {{[^a-z]comm\.}}
