// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// A load with a cache hint (tile.load's evict; Helion's
// load_eviction_policies) is Triton's: an L2 policy made by
// createpolicy.fractional and an ld.global with the L1 priority of the same
// name and L2::cache_hint. In bounds a piece of 8 bf16 is one v4.b32 load;
// the masked tail's elements are b16 loads with the same hint. The store
// has none.

// CHECK-LABEL: func.func @evict_last(
// CHECK: %[[P:.*]] = llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l,~{memory}" %{{.*}}, %[[P]] : (!llvm.ptr<1>, i64) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
// CHECK: "ld.global.L1::evict_last.L2::cache_hint.b16 $0, [$1], $2;", "=h,l,l,~{memory}"
// CHECK: llvm.bitcast %{{.*}} : i16 to bf16
// CHECK-NOT: llvm.load
// CHECK: llvm.store
func.func @evict_last(%a: !tile.ref<bf16, 1>, %b: !tile.ref<bf16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<bf16, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>, evict = 2 : i32} : !tile.ref<bf16, 1> -> tensor<1024xbf16>
  tile.store %x, %b[%c0] limits [%n] {dims = array<i64: 0>} : tensor<1024xbf16>, !tile.ref<bf16, 1>
  return
}

// -----

// evict_first on f32: pieces of 4 f32 (v4.b32, no bitcast of the struct's
// vector beyond i32 -> f32) and b32 elements in the tail.

// CHECK-LABEL: func.func @evict_first(
// CHECK: "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;"
// CHECK: "ld.global.L1::evict_first.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;"
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: "ld.global.L1::evict_first.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l,~{memory}"
func.func @evict_first(%a: !tile.ref<f32, 1>, %b: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>, evict = 1 : i32} : !tile.ref<f32, 1> -> tensor<512xf32>
  tile.store %x, %b[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  return
}

// -----

// Without a hint (or evict = 0, normal): llvm.load, no inline assembly.

// CHECK-LABEL: func.func @no_hint(
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.inline_asm
func.func @no_hint(%a: !tile.ref<f32, 1>, %b: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>, evict = 0 : i32} : !tile.ref<f32, 1> -> tensor<512xf32>
  tile.store %x, %b[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A gather keeps the hint on its element loads (and on a run read as one
// vector where its indices are contiguous at run time). A single byte
// takes no hint (llvm.load): PTX has no 8-bit register for it; a run of
// two bytes is one b16 load with the hint.

// CHECK-LABEL: func.func @gather_last(
// CHECK: "ld.global.L1::evict_last.L2::cache_hint.b32 $0, [$1], $2;"
// CHECK-LABEL: func.func @gather_bytes(
// CHECK: "ld.global.L1::evict_last.L2::cache_hint.b16 $0, [$1], $2;"
// CHECK: llvm.bitcast %{{.*}} : i16 to vector<2xi8>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
func.func @gather_last(%w: !tile.ref<f32, 1>, %i: !tile.ref<i64, 1>, %o: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %i, 0 : !tile.ref<i64, 1>
  %idx = tile.load %i[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<i64, 1> -> tensor<128xi64>
  %g = tile.gather %w[%idx] {evict = 2 : i32} : !tile.ref<f32, 1>, tensor<128xi64> -> tensor<128xf32>
  tile.store %g, %o[%c0] limits [%n] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  return
}
func.func @gather_bytes(%w: !tile.ref<i8, 1>, %i: !tile.ref<i64, 1>, %o: !tile.ref<i8, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %i, 0 : !tile.ref<i64, 1>
  %idx = tile.load %i[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<i64, 1> -> tensor<128xi64>
  %g = tile.gather %w[%idx] {evict = 2 : i32} : !tile.ref<i8, 1>, tensor<128xi64> -> tensor<128xi8>
  tile.store %g, %o[%c0] limits [%n] {dims = array<i64: 0>} : tensor<128xi8>, !tile.ref<i8, 1>
  return
}
