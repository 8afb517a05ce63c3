// RUN: dslc-opt %s -dslc-distribute-tiles | FileCheck %s --check-prefix=DIST
// RUN: dslc-opt %s -dslc-distribute-tiles -dslc-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// The one-shot all-reduce of examples/one_shot_all_reduce.py for 2 ranks,
// as MLIRGen builds it.
func.func @one_shot(
    %pads: !tile.ref<i64, 1> {tile.role = #tile.role<peer_table of "local_signal_pad">},
    %local: !tile.ref<i32, 2> {tile.role = #tile.role<signal_pad>},
    %a: !tile.ref<bf16, 1> {tile.role = #tile.role<input>},
    %peers: !tile.ref<i64, 1> {tile.role = #tile.role<peers of "a_shared">},
    %out: !tile.ref<bf16, 1> {tile.role = #tile.role<output>})
    attributes {tile.kernel, tile.num_warps = 32 : i64, tile.peer_count = 2 : i64,
                tile.arg_names = ["signal_pad_addrs", "local_signal_pad", "a_shared", "a_shared.peers", "out"]} {
  %n = tile.dim %out, 0 : !tile.ref<bf16, 1>
  %stack_a = comm.stack_view %peers, %a : !tile.ref<i64, 1>, !tile.ref<bf16, 1> -> !comm.stack<bf16, 1>
  tile.grid (%n) block [8192] {
  ^bb0(%t: index):
    %c8192 = arith.constant 8192 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %begin = arith.muli %t, %c8192 : index
    %end0 = arith.addi %begin, %c8192 : index
    %end = arith.minui %end0, %n : index
    %pad_stack = comm.stack_view %pads, %local : !tile.ref<i64, 1>, !tile.ref<i32, 2> -> !comm.stack<i32, 2>
    comm.signal %pad_stack[%t, %c0] extents [1, 1] {signal = 1 : i64, wait_for = 0 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = false} : !comm.stack<i32, 2>
    comm.wait %local[%t, %c0] extents [1, 2] {signal = 1 : i64, update = 0 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 2>
    %zero = arith.constant dense<0.0> : tensor<8192xbf16>
    %p0 = comm.peer %stack_a[%c0] : !comm.stack<bf16, 1> -> !tile.ref<bf16, 1>
    %x0 = tile.load %p0[%begin] limits [%end] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    %acc0 = arith.addf %zero, %x0 : tensor<8192xbf16>
    %p1 = comm.peer %stack_a[%c1] : !comm.stack<bf16, 1> -> !tile.ref<bf16, 1>
    %x1 = tile.load %p1[%begin] limits [%end] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    %acc1 = arith.addf %acc0, %x1 : tensor<8192xbf16>
    tile.store %acc1, %out[%begin] limits [%end] {dims = array<i64: 0>} : tensor<8192xbf16>, !tile.ref<bf16, 1>
    comm.signal %pad_stack[%t, %c0] extents [1, 1] {signal = 1 : i64, wait_for = 0 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !comm.stack<i32, 2>
    comm.wait %local[%t, %c0] extents [1, 2] {signal = 1 : i64, update = 0 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = false} : !tile.ref<i32, 2>
  }
  return
}

// The ABI slots, typed, from the arguments' roles: a peer table is a tensor
// (address and size), the symmetric tensor's own table one address.
// DIST-LABEL: func.func @one_shot(
// DIST-NOT: tile.role
// DIST-SAME: tile.abi = [#tile.abi_slot<"signal_pad_addrs", data : ptr, param = "signal_pad_addrs">, #tile.abi_slot<"signal_pad_addrs.size0", size : i64, param = "signal_pad_addrs", dim = 0>,
// DIST-SAME: #tile.abi_slot<"local_signal_pad.size1", size : i64, param = "local_signal_pad", dim = 1>,
// DIST-SAME: #tile.abi_slot<"a_shared.size0", size : i64, param = "a_shared", dim = 0>, #tile.abi_slot<"a_shared.peers", peers : ptr, param = "a_shared">, #tile.abi_slot<"out", data : ptr, param = "out">,
// DIST-SAME: #tile.abi_slot<"__dslc_timeout_ns", timeout : i64>, #tile.abi_slot<"__dslc_error", error : ptr>, #tile.abi_slot<"__dslc_state", state : ptr>]
// DIST: nvvm.read.ptx.sreg.ctaid.x
// DIST: scf.for
// DIST: atom.release.sys.global.cas.b32
// DIST: atom.acquire.sys.global.cas.b32
// DIST: nvvm.barrier0
// DIST: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// DIST: arith.addf {{.*}} : vector<8xbf16>
// DIST: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>

// LLVM-LABEL: llvm.func @one_shot(
// LLVM-SAME: nvvm.kernel
// LLVM-SAME: nvvm.maxntid = array<i32: 1024, 1, 1>
// LLVM-NOT: {{[^a-z]scf\.}}
// LLVM-NOT: {{tile\.(load|store|grid|yield|dim|splat|iota|reduce)}}
