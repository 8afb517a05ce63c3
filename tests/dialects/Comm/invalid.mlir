// RUN: dslc-opt %s -split-input-file -verify-diagnostics

// Every verifier branch of the comm dialect.

// expected-error @+1 {{!comm.stack element type must be an integer of 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, f8E4M3FN or f8E5M2 (index has no size in memory), got 'index'}}
func.func @stack_index(%a: !comm.stack<index, 1>)

// -----

// expected-error @+1 {{!comm.stack rank must be between 1 and 8, got 0}}
func.func @stack_rank0(%a: !comm.stack<f32, 0>)

// -----

// expected-error @+1 {{!comm.stack rank must be between 1 and 8, got 9}}
func.func @stack_rank9(%a: !comm.stack<f32, 9>)

// -----

func.func @stack_view_table_rank(%t: !tile.ref<i64, 2>, %l: !tile.ref<f32, 1>) {
  // expected-error @+1 {{'comm.stack_view' op address table must be a 1-d tensor of 64-bit integers (!tile.ref<i64, 1>), got '!tile.ref<i64, 2>'}}
  %s = comm.stack_view %t, %l : !tile.ref<i64, 2>, !tile.ref<f32, 1> -> !comm.stack<f32, 1>
  return
}

// -----

func.func @stack_view_table_type(%t: !tile.ref<i32, 1>, %l: !tile.ref<f32, 1>) {
  // expected-error @+1 {{'comm.stack_view' op address table must be a 1-d tensor of 64-bit integers (!tile.ref<i64, 1>), got '!tile.ref<i32, 1>'}}
  %s = comm.stack_view %t, %l : !tile.ref<i32, 1>, !tile.ref<f32, 1> -> !comm.stack<f32, 1>
  return
}

// -----

func.func @stack_view_element(%t: !tile.ref<i64, 1>, %l: !tile.ref<f32, 1>) {
  // expected-error @+1 {{'comm.stack_view' op result element type 'bf16' does not match the element type 'f32' of 'like' '!tile.ref<f32, 1>'}}
  %s = comm.stack_view %t, %l : !tile.ref<i64, 1>, !tile.ref<f32, 1> -> !comm.stack<bf16, 1>
  return
}

// -----

func.func @stack_view_rank(%t: !tile.ref<i64, 1>, %l: !tile.ref<f32, 1>) {
  // expected-error @+1 {{'comm.stack_view' op result rank 2 does not match the rank 1 of 'like' '!tile.ref<f32, 1>'}}
  %s = comm.stack_view %t, %l : !tile.ref<i64, 1>, !tile.ref<f32, 1> -> !comm.stack<f32, 2>
  return
}

// -----

func.func @peer_element(%s: !comm.stack<f32, 1>, %p: index) {
  // expected-error @+1 {{'comm.peer' op result element type 'f16' does not match the stack's element type 'f32'}}
  %r = comm.peer %s[%p] : !comm.stack<f32, 1> -> !tile.ref<f16, 1>
  return
}

// -----

func.func @peer_rank(%s: !comm.stack<f32, 1>, %p: index) {
  // expected-error @+1 {{'comm.peer' op result rank 3 does not match the stack's rank 1}}
  %r = comm.peer %s[%p] : !comm.stack<f32, 1> -> !tile.ref<f32, 3>
  return
}

// -----

func.func @peer_index_type(%s: !comm.stack<f32, 1>, %p: i32) {
  // expected-error @+1 {{'comm.peer' op operand #1 must be index, but got 'i32'}}
  %r = "comm.peer"(%s, %p) : (!comm.stack<f32, 1>, i32) -> !tile.ref<f32, 1>
  return
}

// -----

func.func @signal_pad_element(%pad: !tile.ref<i64, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op pad must hold 32-bit integers (int32/uint32), got 'i64'}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i64, 1>
  return
}

// -----

func.func @signal_stack_pad_element(%pad: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op pad must hold 32-bit integers (int32/uint32), got 'f32'}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !comm.stack<f32, 1>
  return
}

// -----

func.func @signal_pad_type(%pad: tensor<4xi32>, %i: index) {
  // expected-error @+1 {{'comm.signal' op operand #0 must be a pad: a !tile.ref or a !comm.stack (of 32-bit integers), but got 'tensor<4xi32>'}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : tensor<4xi32>
  return
}

// -----

func.func @signal_indices(%pad: !tile.ref<i32, 2>, %i: index) {
  // expected-error @+1 {{'comm.signal' op needs 2 indices (one per dimension of the pad), got 1}}
  comm.signal %pad[%i] extents [1, 1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i32, 2>
  return
}

// -----

func.func @signal_extents(%pad: !comm.stack<i32, 2>, %i: index) {
  // expected-error @+1 {{'comm.signal' op needs 2 extents (one per dimension of the pad), got 1}}
  comm.signal %pad[%i, %i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !comm.stack<i32, 2>
  return
}

// -----

func.func @signal_extent_zero(%pad: !tile.ref<i32, 2>, %i: index) {
  // expected-error @+1 {{'comm.signal' op extent of dimension 1 must be positive, got 0}}
  comm.signal %pad[%i, %i] extents [1, 0] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i32, 2>
  return
}

// -----

func.func @signal_acquire(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op a signal cannot have acquire semantics; use 'release', 'acq_rel' or 'relaxed'}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_previous_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @signal_value_big(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op 'signal' value 4294967296 does not fit a 32-bit pad slot (expected a value in [-2147483648, 4294967295])}}
  comm.signal %pad[%i] extents [1] {signal = 4294967296 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @signal_wait_for_small(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op 'wait_for' value -2147483649 does not fit a 32-bit pad slot (expected a value in [-2147483648, 4294967295])}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, wait_for = -2147483649 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @signal_missing_attr(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.signal' op requires attribute 'has_previous_mem_access'}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>} : !tile.ref<i32, 1>
  return
}

// -----

func.func @signal_bad_scope(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+2 {{expected ::dslc::comm::MemScope to be one of: gpu, sys}}
  // expected-error @+1 {{failed to parse Comm_Scope parameter 'value' which is to be a `::dslc::comm::MemScope`}}
  comm.signal %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope cta>, sem = #comm<sem release>, has_previous_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_pad_element(%pad: !tile.ref<i16, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op pad must hold 32-bit integers (int32/uint32), got 'i16'}}
  comm.wait %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i16, 1>
  return
}

// -----

func.func @wait_stack_pad(%pad: !comm.stack<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op operand #0 must be !tile.ref: a row-major tensor in global memory, but got '!comm.stack<i32, 1>'}}
  comm.wait %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !comm.stack<i32, 1>
  return
}

// -----

func.func @wait_indices(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op needs 1 indices (one per dimension of the pad), got 2}}
  comm.wait %pad[%i, %i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_extents(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op needs 1 extents (one per dimension of the pad), got 2}}
  comm.wait %pad[%i] extents [1, 1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_extent_negative(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op extent of dimension 0 must be positive, got -2}}
  comm.wait %pad[%i] extents [-2] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_release(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op a wait cannot have release semantics; use 'acquire', 'acq_rel' or 'relaxed'}}
  comm.wait %pad[%i] extents [1] {signal = 1 : i64, scope = #comm<scope sys>, sem = #comm<sem release>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_signal_value(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op 'signal' value -4294967296 does not fit a 32-bit pad slot (expected a value in [-2147483648, 4294967295])}}
  comm.wait %pad[%i] extents [1] {signal = -4294967296 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @wait_update_value(%pad: !tile.ref<i32, 1>, %i: index) {
  // expected-error @+1 {{'comm.wait' op 'update' value 8589934592 does not fit a 32-bit pad slot (expected a value in [-2147483648, 4294967295])}}
  comm.wait %pad[%i] extents [1] {signal = 1 : i64, update = 8589934592 : i64, scope = #comm<scope sys>, sem = #comm<sem acquire>, has_subsequent_mem_access = true} : !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_put_packet(%v: tensor<64xf32>, %s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_put' op packet size must be 8 or 16 bytes, got 32}}
  comm.ll_put %v, %s[%i] flag %f {packet = 32 : i64} : tensor<64xf32>, !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_get_packet(%s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_get' op packet size must be 8 or 16 bytes, got 4}}
  %v = comm.ll_get %s[%i] flag %f {packet = 4 : i64} : !tile.ref<i32, 1> -> tensor<64xf32>
  return
}

// -----

func.func @ll_put_rank(%v: tensor<2x64xf32>, %s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_put' op packets carry a static 1-d tile, got 'tensor<2x64xf32>'}}
  comm.ll_put %v, %s[%i] flag %f {packet = 16 : i64} : tensor<2x64xf32>, !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_get_dynamic(%s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_get' op packets carry a static 1-d tile, got 'tensor<?xf32>'}}
  %v = comm.ll_get %s[%i] flag %f {packet = 16 : i64} : !tile.ref<i32, 1> -> tensor<?xf32>
  return
}

// -----

func.func @ll_put_element_width(%v: tensor<64xf64>, %s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_put' op packets carry 16- or 32-bit integer or float elements, got 'f64'}}
  comm.ll_put %v, %s[%i] flag %f {packet = 16 : i64} : tensor<64xf64>, !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_get_element_index(%s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_get' op packets carry 16- or 32-bit integer or float elements, got 'index'}}
  %v = comm.ll_get %s[%i] flag %f {packet = 16 : i64} : !tile.ref<i32, 1> -> tensor<64xindex>
  return
}

// -----

func.func @ll_put_empty(%v: tensor<0xf32>, %s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_put' op packets carry a non-empty tile, got 'tensor<0xf32>'}}
  comm.ll_put %v, %s[%i] flag %f {packet = 8 : i64} : tensor<0xf32>, !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_put_partial(%v: tensor<3xbf16>, %s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_put' op a tile of 3 elements (6 bytes) does not fill whole 16-byte packets (8 data bytes each)}}
  comm.ll_put %v, %s[%i] flag %f {packet = 16 : i64} : tensor<3xbf16>, !tile.ref<i32, 1>
  return
}

// -----

func.func @ll_get_partial(%s: !tile.ref<i32, 1>, %i: index, %f: i32) {
  // expected-error @+1 {{'comm.ll_get' op a tile of 1 elements (2 bytes) does not fill whole 8-byte packets (4 data bytes each)}}
  %v = comm.ll_get %s[%i] flag %f {packet = 8 : i64} : !tile.ref<i32, 1> -> tensor<1xf16>
  return
}

// -----

func.func @ll_put_flag_type(%v: tensor<2xf32>, %s: !tile.ref<i32, 1>, %i: index, %f: i64) {
  // expected-error @+1 {{'comm.ll_put' op operand #3 must be 32-bit signless integer, but got 'i64'}}
  "comm.ll_put"(%v, %s, %i, %f) <{packet = 8 : i64}> : (tensor<2xf32>, !tile.ref<i32, 1>, index, i64) -> ()
  return
}

// -----

func.func @epoch_type() {
  // expected-error @+1 {{'comm.epoch' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %e = comm.epoch : i64
  return
}

// -----

func.func @multicast_store_offsets(%v: tensor<16xf32>, %s: !comm.stack<f32, 2>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op needs 2 offsets (one per dimension of the stack), got 1}}
  comm.multicast_store %v, %s[%i] limits [%i, %i] {dims = array<i64: 1>, mode = #comm<mode software>} : tensor<16xf32>, !comm.stack<f32, 2>
  return
}

// -----

func.func @multicast_store_limits(%v: tensor<16xf32>, %s: !comm.stack<f32, 2>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op needs 2 limits (one per dimension of the stack), got 0}}
  comm.multicast_store %v, %s[%i, %i] limits [] {dims = array<i64: 1>, mode = #comm<mode software>} : tensor<16xf32>, !comm.stack<f32, 2>
  return
}

// -----

func.func @multicast_store_dims_count(%v: tensor<16xf32>, %s: !comm.stack<f32, 2>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op tile of rank 1 needs 1 entries in 'dims', got 2 [0, 1]}}
  comm.multicast_store %v, %s[%i, %i] limits [%i, %i] {dims = array<i64: 0, 1>, mode = #comm<mode software>} : tensor<16xf32>, !comm.stack<f32, 2>
  return
}

// -----

func.func @multicast_store_dims_order(%v: tensor<2x16xf32>, %s: !comm.stack<f32, 2>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op 'dims' must be strictly increasing dimensions in [0, 2), got [1, 1]}}
  comm.multicast_store %v, %s[%i, %i] limits [%i, %i] {dims = array<i64: 1, 1>, mode = #comm<mode nvls>} : tensor<2x16xf32>, !comm.stack<f32, 2>
  return
}

// -----

func.func @multicast_store_element(%v: tensor<16xf16>, %s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op tile element type 'f16' does not match the stack element type 'f32'}}
  comm.multicast_store %v, %s[%i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode software>} : tensor<16xf16>, !comm.stack<f32, 1>
  return
}

// -----

func.func @multicast_store_dynamic(%v: tensor<?xf32>, %s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_store' op tile shape must be static, got 'tensor<?xf32>'}}
  comm.multicast_store %v, %s[%i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode software>} : tensor<?xf32>, !comm.stack<f32, 1>
  return
}

// -----

func.func @multicast_load_reduce_offsets(%s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_load_reduce' op needs 1 offsets (one per dimension of the stack), got 2}}
  %r = comm.multicast_load_reduce %s[%i, %i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode software>} : !comm.stack<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @multicast_load_reduce_limits(%s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_load_reduce' op needs 1 limits (one per dimension of the stack), got 2}}
  %r = comm.multicast_load_reduce %s[%i] limits [%i, %i] {dims = array<i64: 0>, mode = #comm<mode software>} : !comm.stack<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @multicast_load_reduce_dims(%s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_load_reduce' op 'dims' must be strictly increasing dimensions in [0, 1), got [1]}}
  %r = comm.multicast_load_reduce %s[%i] limits [%i] {dims = array<i64: 1>, mode = #comm<mode nvls>} : !comm.stack<f32, 1> -> tensor<16xf32>
  return
}

// -----

func.func @multicast_load_reduce_element(%s: !comm.stack<bf16, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_load_reduce' op tile element type 'f32' does not match the stack element type 'bf16'}}
  %r = comm.multicast_load_reduce %s[%i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode software>} : !comm.stack<bf16, 1> -> tensor<16xf32>
  return
}

// -----

func.func @multicast_load_reduce_dynamic(%s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+1 {{'comm.multicast_load_reduce' op tile shape must be static, got 'tensor<?xf32>'}}
  %r = comm.multicast_load_reduce %s[%i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode software>} : !comm.stack<f32, 1> -> tensor<?xf32>
  return
}

// -----

func.func @multicast_bad_mode(%s: !comm.stack<f32, 1>, %i: index) {
  // expected-error @+2 {{expected ::dslc::comm::MulticastMode to be one of: software, nvls}}
  // expected-error @+1 {{failed to parse Comm_MulticastMode parameter 'value' which is to be a `::dslc::comm::MulticastMode`}}
  %r = comm.multicast_load_reduce %s[%i] limits [%i] {dims = array<i64: 0>, mode = #comm<mode multimem>} : !comm.stack<f32, 1> -> tensor<16xf32>
  return
}
