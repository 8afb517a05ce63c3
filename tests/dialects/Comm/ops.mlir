// RUN: dslc-opt %s | dslc-opt | FileCheck %s
// RUN: dslc-opt %s --mlir-print-op-generic | dslc-opt | FileCheck %s
// RUN: dslc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every comm op, of !comm.stack and of the scope, sem and mode
// attributes, in the custom and in the generic form.

// CHECK-LABEL: func.func @types(
// CHECK-SAME: !comm.stack<bf16, 1>, %{{.*}}: !comm.stack<i32, 8>
func.func @types(%a: !comm.stack<bf16, 1>, %b: !comm.stack<i32, 8>) {
  return
}

// CHECK-LABEL: func.func @stacks(
func.func @stacks(%table: !tile.ref<i64, 1>, %like: !tile.ref<bf16, 2>,
                  %p: index) {
  // CHECK: %[[S:.*]] = comm.stack_view %{{.*}}, %{{.*}} : !tile.ref<i64, 1>, !tile.ref<bf16, 2> -> !comm.stack<bf16, 2>
  // GENERIC: "comm.stack_view"(%{{.*}}, %{{.*}}) : (!tile.ref<i64, 1>, !tile.ref<bf16, 2>) -> !comm.stack<bf16, 2>
  %s = comm.stack_view %table, %like
      : !tile.ref<i64, 1>, !tile.ref<bf16, 2> -> !comm.stack<bf16, 2>
  // CHECK: comm.peer %[[S]][%{{.*}}] : !comm.stack<bf16, 2> -> !tile.ref<bf16, 2>
  // GENERIC: "comm.peer"(%{{.*}}, %{{.*}}) : (!comm.stack<bf16, 2>, index) -> !tile.ref<bf16, 2>
  %r = comm.peer %s[%p] : !comm.stack<bf16, 2> -> !tile.ref<bf16, 2>
  return
}

// CHECK-LABEL: func.func @signal_wait(
func.func @signal_wait(%pad: !tile.ref<i32, 2>, %spad: !comm.stack<i32, 2>,
                       %upad: !tile.ref<ui32, 1>, %i: index, %j: index) {
  // CHECK: comm.signal %{{.*}}[%{{.*}}, %{{.*}}] extents [1, 4] {has_previous_mem_access = true, scope = #comm<scope gpu>, sem = #comm<sem release>, signal = 1 : i64} : !tile.ref<i32, 2>
  // GENERIC: "comm.signal"(%{{.*}}, %{{.*}}, %{{.*}}) <{extents = array<i64: 1, 4>, has_previous_mem_access = true, scope = #comm<scope gpu>, sem = #comm<sem release>, signal = 1 : i64}> : (!tile.ref<i32, 2>, index, index) -> ()
  comm.signal %pad[%i, %j] extents [1, 4]
      {signal = 1 : i64, scope = #comm<scope gpu>, sem = #comm<sem release>,
       has_previous_mem_access = true} : !tile.ref<i32, 2>
  // A stack pad (every peer), a CAS from wait_for, the widest values.
  // CHECK: comm.signal %{{.*}}[%{{.*}}, %{{.*}}] extents [1, 1] {has_previous_mem_access = false, scope = #comm<scope sys>, sem = #comm<sem acq_rel>, signal = 4294967295 : i64, wait_for = -2147483648 : i64} : !comm.stack<i32, 2>
  comm.signal %spad[%i, %j] extents [1, 1]
      {signal = 4294967295 : i64, wait_for = -2147483648 : i64,
       scope = #comm<scope sys>, sem = #comm<sem acq_rel>,
       has_previous_mem_access = false} : !comm.stack<i32, 2>
  // CHECK: comm.signal {{.*}} sem = #comm<sem relaxed>, signal = 0 : i64} : !tile.ref<ui32, 1>
  comm.signal %upad[%i] extents [2]
      {signal = 0 : i64, scope = #comm<scope gpu>, sem = #comm<sem relaxed>,
       has_previous_mem_access = false} : !tile.ref<ui32, 1>
  // CHECK: comm.wait %{{.*}}[%{{.*}}, %{{.*}}] extents [1, 2] {has_subsequent_mem_access = true, scope = #comm<scope sys>, sem = #comm<sem acquire>, signal = 1 : i64, update = 0 : i64} : !tile.ref<i32, 2>
  // GENERIC: "comm.wait"(%{{.*}}, %{{.*}}, %{{.*}}) <{extents = array<i64: 1, 2>, has_subsequent_mem_access = true, scope = #comm<scope sys>, sem = #comm<sem acquire>, signal = 1 : i64, update = 0 : i64}> : (!tile.ref<i32, 2>, index, index) -> ()
  comm.wait %pad[%i, %j] extents [1, 2]
      {signal = 1 : i64, update = 0 : i64, scope = #comm<scope sys>,
       sem = #comm<sem acquire>, has_subsequent_mem_access = true}
      : !tile.ref<i32, 2>
  // CHECK: comm.wait {{.*}} {has_subsequent_mem_access = false, scope = #comm<scope gpu>, sem = #comm<sem relaxed>, signal = 3 : i64} : !tile.ref<ui32, 1>
  comm.wait %upad[%i] extents [1]
      {signal = 3 : i64, scope = #comm<scope gpu>, sem = #comm<sem relaxed>,
       has_subsequent_mem_access = false} : !tile.ref<ui32, 1>
  // CHECK: sem = #comm<sem acq_rel>
  comm.wait %upad[%i] extents [1]
      {signal = 3 : i64, scope = #comm<scope gpu>, sem = #comm<sem acq_rel>,
       has_subsequent_mem_access = false} : !tile.ref<ui32, 1>
  return
}

// CHECK-LABEL: func.func @packets(
func.func @packets(%scratch: !tile.ref<i32, 1>, %slot: index,
                   %v: tensor<1024xbf16>, %w: tensor<2xf32>) {
  // CHECK: %[[F:.*]] = comm.epoch : i32
  // GENERIC: "comm.epoch"() : () -> i32
  %flag = comm.epoch : i32
  // CHECK: comm.ll_put %{{.*}}, %{{.*}}[%{{.*}}] flag %[[F]] {packet = 16 : i64} : tensor<1024xbf16>, !tile.ref<i32, 1>
  // GENERIC: "comm.ll_put"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{packet = 16 : i64}> : (tensor<1024xbf16>, !tile.ref<i32, 1>, index, i32) -> ()
  comm.ll_put %v, %scratch[%slot] flag %flag {packet = 16 : i64}
      : tensor<1024xbf16>, !tile.ref<i32, 1>
  // CHECK: comm.ll_put {{.*}} {packet = 8 : i64} : tensor<2xf32>, !tile.ref<i32, 1>
  comm.ll_put %w, %scratch[%slot] flag %flag {packet = 8 : i64}
      : tensor<2xf32>, !tile.ref<i32, 1>
  // CHECK: comm.ll_get %{{.*}}[%{{.*}}] flag %[[F]] {packet = 16 : i64} : !tile.ref<i32, 1> -> tensor<1024xbf16>
  // GENERIC: "comm.ll_get"(%{{.*}}, %{{.*}}, %{{.*}}) <{packet = 16 : i64}> : (!tile.ref<i32, 1>, index, i32) -> tensor<1024xbf16>
  %g = comm.ll_get %scratch[%slot] flag %flag {packet = 16 : i64}
      : !tile.ref<i32, 1> -> tensor<1024xbf16>
  // CHECK: comm.ll_get {{.*}} {packet = 8 : i64} : !tile.ref<i32, 1> -> tensor<4xi16>
  %h = comm.ll_get %scratch[%slot] flag %flag {packet = 8 : i64}
      : !tile.ref<i32, 1> -> tensor<4xi16>
  return
}

// CHECK-LABEL: func.func @multicast(
func.func @multicast(%s: !comm.stack<f32, 2>, %i: index, %j: index,
                     %v: tensor<256xf32>) {
  // CHECK: comm.multicast_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 1>, mode = #comm<mode software>} : tensor<256xf32>, !comm.stack<f32, 2>
  // GENERIC: "comm.multicast_store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dims = array<i64: 1>, mode = #comm<mode software>, operandSegmentSizes = array<i32: 1, 1, 2, 2>}> : (tensor<256xf32>, !comm.stack<f32, 2>, index, index, index, index) -> ()
  comm.multicast_store %v, %s[%i, %j] limits [%i, %j]
      {dims = array<i64: 1>, mode = #comm<mode software>}
      : tensor<256xf32>, !comm.stack<f32, 2>
  // CHECK: comm.multicast_store {{.*}} {dims = array<i64: 0, 1>, mode = #comm<mode nvls>} : tensor<2x256xf32>, !comm.stack<f32, 2>
  %z = arith.constant dense<0.0> : tensor<2x256xf32>
  comm.multicast_store %z, %s[%i, %j] limits [%i, %j]
      {dims = array<i64: 0, 1>, mode = #comm<mode nvls>}
      : tensor<2x256xf32>, !comm.stack<f32, 2>
  // CHECK: comm.multicast_load_reduce %{{.*}}[%{{.*}}, %{{.*}}] limits[%{{.*}}, %{{.*}}] {dims = array<i64: 1>, mode = #comm<mode software>} : !comm.stack<f32, 2> -> tensor<256xf32>
  // GENERIC: "comm.multicast_load_reduce"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dims = array<i64: 1>, mode = #comm<mode software>, operandSegmentSizes = array<i32: 1, 2, 2>}> : (!comm.stack<f32, 2>, index, index, index, index) -> tensor<256xf32>
  %r = comm.multicast_load_reduce %s[%i, %j] limits [%i, %j]
      {dims = array<i64: 1>, mode = #comm<mode software>}
      : !comm.stack<f32, 2> -> tensor<256xf32>
  // CHECK: comm.multicast_load_reduce {{.*}} mode = #comm<mode nvls>} : !comm.stack<f32, 2> -> tensor<256xf32>
  %q = comm.multicast_load_reduce %s[%i, %j] limits [%i, %j]
      {dims = array<i64: 1>, mode = #comm<mode nvls>}
      : !comm.stack<f32, 2> -> tensor<256xf32>
  return
}
