// RUN: dslc-opt %s -split-input-file | dslc-opt -split-input-file | FileCheck %s
// RUN: dslc-opt %s -split-input-file --mlir-print-op-generic | dslc-opt -split-input-file | FileCheck %s

// The kernel contract in the IR: every role as an argument attribute and
// every kind of ABI slot round-trip (docs/dialects.md, docs/kernel-abi.md).

// CHECK-LABEL: func.func @roles(
// CHECK-SAME: {tile.role = #tile.role<peer_table of "pad">}
// CHECK-SAME: {tile.role = #tile.role<signal_pad>}
// CHECK-SAME: {tile.role = #tile.role<input>}
// CHECK-SAME: {tile.role = #tile.role<peers of "a">}
// CHECK-SAME: {tile.role = #tile.role<scratch>}
// CHECK-SAME: {tile.role = #tile.role<inout>}
// CHECK-SAME: {tile.role = #tile.role<output>}
// CHECK-SAME: {tile.role = #tile.role<unused>}
// CHECK-SAME: {tile.role = #tile.role<scalar>}
func.func @roles(%t: !tile.ref<i64, 1> {tile.role = #tile.role<peer_table of "pad">},
                 %pad: !tile.ref<i32, 2> {tile.role = #tile.role<signal_pad>},
                 %a: !tile.ref<bf16, 1> {tile.role = #tile.role<input>},
                 %ap: !tile.ref<i64, 1> {tile.role = #tile.role<peers of "a">},
                 %s: !tile.ref<i64, 1> {tile.role = #tile.role<scratch>},
                 %w: !tile.ref<bf16, 2> {tile.role = #tile.role<inout>},
                 %o: !tile.ref<bf16, 1> {tile.role = #tile.role<output>},
                 %u: !tile.ref<f32, 1> {tile.role = #tile.role<unused>},
                 %n: i64 {tile.role = #tile.role<scalar>})
    attributes {tile.kernel} {
  return
}

// -----

// CHECK-LABEL: func.func @slots(
// CHECK-SAME: tile.abi = [#tile.abi_slot<"x", data : ptr, param = "x">, #tile.abi_slot<"x.size0", size : i64, param = "x", dim = 0>, #tile.abi_slot<"x.peers", peers : ptr, param = "x">, #tile.abi_slot<"n", scalar : i64, param = "n">, #tile.abi_slot<"f", scalar : f32, param = "f">, #tile.abi_slot<"__dslc_timeout_ns", timeout : i64>, #tile.abi_slot<"__dslc_error", error : ptr>, #tile.abi_slot<"__dslc_state", state : ptr>]
func.func @slots() attributes {tile.abi = [
    #tile.abi_slot<"x", data : ptr, param = "x">,
    #tile.abi_slot<"x.size0", size : i64, param = "x", dim = 0>,
    #tile.abi_slot<"x.peers", peers : ptr, param = "x">,
    #tile.abi_slot<"n", scalar : i64, param = "n">,
    #tile.abi_slot<"f", scalar : f32, param = "f">,
    #tile.abi_slot<"__dslc_timeout_ns", timeout : i64>,
    #tile.abi_slot<"__dslc_error", error : ptr>,
    #tile.abi_slot<"__dslc_state", state : ptr>]} {
  return
}
