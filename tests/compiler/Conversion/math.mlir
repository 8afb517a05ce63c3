// RUN: dslc-opt %s --dslc-pipeline | FileCheck %s

// Math with no correctly rounded PTX instruction calls libdevice, one call
// per element (linked and inlined by the Target stage); sqrt and abs stay
// LLVM intrinsics (sqrt.rn, abs). bf16/f16 math computes in f32 and rounds
// once; f64 calls the double functions.

// CHECK-LABEL: llvm.func @math(
// CHECK-COUNT-8: llvm.call @__nv_rsqrtf(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.sqrt(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// CHECK-COUNT-8: llvm.call @__nv_expf(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-8: llvm.call @__nv_logf(%{{.*}}) : (f32) -> f32
// CHECK: llvm.intr.fabs(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// bf16 tanh: widened, 8 calls, rounded back.
// CHECK: llvm.fpext %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK-COUNT-8: llvm.call @__nv_tanhf(%{{.*}}) : (f32) -> f32
// CHECK: llvm.fptrunc %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: llvm.intr.fabs(%{{.*}}) : (vector<8xbf16>) -> vector<8xbf16>
// CHECK-COUNT-8: llvm.call @__nv_exp(%{{.*}}) : (f64) -> f64
// CHECK-DAG: llvm.func @__nv_rsqrtf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_exp(f64) -> f64
func.func @math(%a: !tile.ref<f32, 1>, %b: !tile.ref<bf16, 1>, %d: !tile.ref<f64, 1>)
    attributes {tile.kernel, tile.num_warps = 32 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.dim %a, 0 : !tile.ref<f32, 1>
  %x = tile.load %a[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<8192xf32>
  %r = math.rsqrt %x : tensor<8192xf32>
  %s = math.sqrt %r : tensor<8192xf32>
  %e = math.exp %s : tensor<8192xf32>
  %l = math.log %e : tensor<8192xf32>
  %ab = math.absf %l : tensor<8192xf32>
  %m = arith.maximumf %ab, %x : tensor<8192xf32>
  tile.store %m, %a[%c0] limits [%n] {dims = array<i64: 0>} : tensor<8192xf32>, !tile.ref<f32, 1>
  %y = tile.load %b[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<8192xbf16>
  %t = math.tanh %y : tensor<8192xbf16>
  %ta = math.absf %t : tensor<8192xbf16>
  tile.store %ta, %b[%c0] limits [%n] {dims = array<i64: 0>} : tensor<8192xbf16>, !tile.ref<bf16, 1>
  %z = tile.load %d[%c0] limits [%n] {dims = array<i64: 0>} : !tile.ref<f64, 1> -> tensor<8192xf64>
  %ze = math.exp %z : tensor<8192xf64>
  tile.store %ze, %d[%c0] limits [%n] {dims = array<i64: 0>} : tensor<8192xf64>, !tile.ref<f64, 1>
  return
}
