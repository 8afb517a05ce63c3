// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// fp8 tiles are i8 vectors per thread. With fp8 the kernel's narrowest type,
// a piece is 16 elements: one 16-byte load or store. Quantizing converts
// pairs of f32 with cvt.rn.satfinite.e4m3x2.f32 (the first element of a
// pair is the `b` operand: the low byte); dequantizing converts pairs with
// cvt.rn.f16x2.e4m3x2, then widens the f16s.

// CHECK-LABEL: func.func @quantize(
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X:.*]][0] : f32 from vector<16xf32>
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<16xf32>
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK-COUNT-7: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E4M3FN)
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<1>
func.func @quantize(%a: !tile.ref<f32, 1>, %q: !tile.ref<f8E4M3FN, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<2048xf32>
  %y = arith.truncf %x : tensor<2048xf32> to tensor<2048xf8E4M3FN>
  tile.store %y, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  return
}

// -----

// e5m2 from bf16 goes through f32; back to bf16 through f16 and f32
// (exact: every fp8 value is a bf16).

// CHECK-LABEL: func.func @e5m2_round_trip(
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E5M2)
// The pair of bytes goes back whole (the canonicalizer folds the
// extract/from_elements between the two conversions).
// CHECK: nvvm.convert.f8x2.to.f16x2 %[[P]] : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
func.func @e5m2_round_trip(%a: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<bf16, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<2048xbf16>
  %q = arith.truncf %x : tensor<2048xbf16> to tensor<2048xf8E5M2>
  %y = arith.extf %q : tensor<2048xf8E5M2> to tensor<2048xbf16>
  tile.store %y, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xbf16>, !tile.ref<bf16, 1>
  return
}

// -----

// fp8 loads fill masked elements with `other` (here 1.0 = 0x38 in e4m3),
// constants and selects of fp8 tiles are bytes.

// CHECK-LABEL: func.func @fp8_other_and_select(
// CHECK-DAG: arith.constant 56 : i8
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xi8>
func.func @fp8_other_and_select(%a: !tile.ref<f8E4M3FN, 1>, %out: !tile.ref<f8E4M3FN, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f8E4M3FN, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>, other = 1.0 : f8E4M3FN} : !tile.ref<f8E4M3FN, 1> -> tensor<512xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<512xf8E4M3FN>
  %i = tile.iota : tensor<512xi32>
  %c7 = arith.constant dense<7> : tensor<512xi32>
  %m = arith.cmpi slt, %i, %c7 : tensor<512xi32>
  %y = arith.select %m, %x, %z : tensor<512xi1>, tensor<512xf8E4M3FN>
  tile.store %y, %out[%c0] limits [%n] {dims = array<i64: 0>} : tensor<512xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  return
}
