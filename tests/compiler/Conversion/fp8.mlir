// RUN: dslc-opt %s -split-input-file -dslc-distribute-tiles -canonicalize -cse | FileCheck %s

// fp8 tiles are i8 vectors per thread. A piece is 16 bytes of the type that
// moves the most bytes, f32 here: 4 elements, one 16-byte load of f32 and
// one 4-byte store of fp8 (neighbouring lanes' stores contiguous), 4
// pieces a thread over 2048 elements and 128 threads. Quantizing converts
// pairs of f32 with cvt.rn.satfinite.e4m3x2.f32 (the first element of a
// pair is the `b` operand: the low byte); dequantizing converts pairs with
// cvt.rn.f16x2.e4m3x2, then widens the f16s.

// CHECK-LABEL: func.func @quantize(
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X:.*]][0] : f32 from vector<4xf32>
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<4xf32>
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK-COUNT-7: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E4M3FN)
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<1>
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
// (exact: every fp8 value is a bf16). The fp8 tile is never loaded or
// stored: pieces of 8 bf16, two a thread.

// CHECK-LABEL: func.func @e5m2_round_trip(
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
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

// -----

// A torch.clamp to e4m3's range (+-448, maximumf then minimumf) just before
// the conversion is what cvt.rn.satfinite does anyway (finite values past
// 448 and infinities to +-448, NaN to NaN): the clamp is left to it. The
// same with minimumf first, and with e5m2's 57344.

// CHECK-LABEL: func.func @clamp_left_to_satfinite(
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E4M3FN)
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E5M2)
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: return
func.func @clamp_left_to_satfinite(%a: !tile.ref<f32, 1>, %q: !tile.ref<f8E4M3FN, 1>, %r: !tile.ref<f8E5M2, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<2048xf32>
  %lo = arith.constant dense<-448.0> : tensor<2048xf32>
  %hi = arith.constant dense<448.0> : tensor<2048xf32>
  %m = arith.maximumf %x, %lo : tensor<2048xf32>
  %c = arith.minimumf %m, %hi : tensor<2048xf32>
  %y = arith.truncf %c : tensor<2048xf32> to tensor<2048xf8E4M3FN>
  tile.store %y, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  %lo5 = arith.constant dense<-1.0e+05> : tensor<2048xf32>
  %hi5 = arith.constant dense<57344.0> : tensor<2048xf32>
  %m5 = arith.minimumf %hi5, %x : tensor<2048xf32>
  %c5 = arith.maximumf %m5, %lo5 : tensor<2048xf32>
  %y5 = arith.truncf %c5 : tensor<2048xf32> to tensor<2048xf8E5M2>
  tile.store %y5, %r[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E5M2>, !tile.ref<f8E5M2, 1>
  return
}

// -----

// A clamp narrower than the format (+-100), one that drops NaN
// (maxnumf: NaN becomes -448 where satfinite keeps NaN), and one whose
// clamped value has another use all stay.

// CHECK-LABEL: func.func @clamp_kept(
// CHECK: arith.minimumf
// CHECK: nvvm.convert.f32x2.to.f8x2
// CHECK: arith.maxnumf
// CHECK: nvvm.convert.f32x2.to.f8x2
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: nvvm.convert.f32x2.to.f8x2
func.func @clamp_kept(%a: !tile.ref<f32, 1>, %q: !tile.ref<f8E4M3FN, 1>, %f: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<2048xf32>
  %lo = arith.constant dense<-448.0> : tensor<2048xf32>
  %hi = arith.constant dense<448.0> : tensor<2048xf32>
  %lo1 = arith.constant dense<-100.0> : tensor<2048xf32>
  %hi1 = arith.constant dense<100.0> : tensor<2048xf32>
  %m1 = arith.maximumf %x, %lo1 : tensor<2048xf32>
  %c1 = arith.minimumf %m1, %hi1 : tensor<2048xf32>
  %y1 = arith.truncf %c1 : tensor<2048xf32> to tensor<2048xf8E4M3FN>
  tile.store %y1, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  %m2 = arith.maxnumf %x, %lo : tensor<2048xf32>
  %c2 = arith.minimumf %m2, %hi : tensor<2048xf32>
  %y2 = arith.truncf %c2 : tensor<2048xf32> to tensor<2048xf8E4M3FN>
  tile.store %y2, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  %m3 = arith.maximumf %x, %lo : tensor<2048xf32>
  %c3 = arith.minimumf %m3, %hi : tensor<2048xf32>
  %y3 = arith.truncf %c3 : tensor<2048xf32> to tensor<2048xf8E4M3FN>
  tile.store %y3, %q[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  tile.store %c3, %f[%c0] limits [%n] {dims = array<i64: 0>} : tensor<2048xf32>, !tile.ref<f32, 1>
  return
}
