// RUN: dslc-opt %s --dslc-pipeline | FileCheck %s
// RUN: dslc-opt %s --dslc-pipeline="narrowed-fast-math=false" | FileCheck %s --check-prefix=PRECISE

// A softmax row whose result is rounded to bf16 (-dslc-narrowed-fast-math):
// exp is ex2.approx.f32 of x * log2(e), one per element, and the division
// by the row's sum is a multiplication by its reciprocal; a division
// that is no broadcast's is div.full.f32. --precise-math
// (narrowed-fast-math=false) keeps libdevice's exp and IEEE divisions.

// CHECK-LABEL: llvm.func @softmax_row(
// CHECK-NOT: __nv_expf
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%{{.*}}) : (f32) -> f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.fdiv
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.return

// PRECISE-LABEL: llvm.func @softmax_row(
// PRECISE-COUNT-8: llvm.call @__nv_expf
// PRECISE-NOT: llvm.nvvm.div.full
// PRECISE: llvm.fdiv %{{.*}}, %{{.*}} : vector<8xf32>
func.func @softmax_row(%x: !tile.ref<bf16, 1>, %y: !tile.ref<bf16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %a = tile.load %x[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<1024xbf16>
  %f = arith.extf %a : tensor<1024xbf16> to tensor<1024xf32>
  %m = tile.reduce max %f, 0 : tensor<1024xf32> -> f32
  %mb = tile.splat %m : f32 -> tensor<1024xf32>
  %d = arith.subf %f, %mb : tensor<1024xf32>
  %e = math.exp %d : tensor<1024xf32>
  %s = tile.reduce sum %e, 0 : tensor<1024xf32> -> f32
  %sb = tile.splat %s : f32 -> tensor<1024xf32>
  %q = arith.divf %e, %sb : tensor<1024xf32>
  %q2 = arith.divf %q, %f : tensor<1024xf32>
  %t = arith.truncf %q2 : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %y[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xbf16>, !tile.ref<bf16, 1>
  return
}
