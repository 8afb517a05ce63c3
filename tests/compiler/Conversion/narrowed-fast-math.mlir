// RUN: dslc-opt %s -split-input-file -dslc-narrowed-fast-math | FileCheck %s

// Softmax (Helion's softmax example): every f32 value from the exp on
// ends in the bf16 output. exp gets afn; exp / broadcast(sum) becomes
// exp * broadcast(1 / (sum * f)) * broadcast(f): one correctly rounded
// division per row, f = 2^32 for a subnormal sum (whose reciprocal would
// be infinite), else 1.

// CHECK-LABEL: func.func @softmax(
// CHECK: %[[E:.*]] = math.exp %{{.*}} fastmath<afn> : tensor<2x4096xf32>
// CHECK: %[[S:.*]] = tile.reduce sum %[[E]], 1 : tensor<2x4096xf32> -> tensor<2x1xf32>
// CHECK-NOT: tile.broadcast %[[S]]
// CHECK-DAG: %[[TINY:.*]] = arith.constant dense<1.17549435E-38> : tensor<2x1xf32>
// CHECK-DAG: %[[BIG:.*]] = arith.constant dense<4.2949673E+9> : tensor<2x1xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<2x1xf32>
// CHECK-DAG: %[[A:.*]] = math.absf %[[S]] : tensor<2x1xf32>
// CHECK-DAG: %[[SUB:.*]] = arith.cmpf olt, %[[A]], %[[TINY]] : tensor<2x1xf32>
// CHECK: %[[F:.*]] = arith.select %[[SUB]], %[[BIG]], %[[ONE]] : tensor<2x1xi1>, tensor<2x1xf32>
// CHECK: %[[SF:.*]] = arith.mulf %[[S]], %[[F]] : tensor<2x1xf32>
// CHECK: %[[R:.*]] = arith.divf %[[ONE]], %[[SF]] : tensor<2x1xf32>
// CHECK: %[[RB:.*]] = tile.broadcast %[[R]] : tensor<2x1xf32> -> tensor<2x4096xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[E]], %[[RB]] : tensor<2x4096xf32>
// CHECK: %[[FB:.*]] = tile.broadcast %[[F]] : tensor<2x1xf32> -> tensor<2x4096xf32>
// CHECK: %[[Q:.*]] = arith.mulf %[[P]], %[[FB]] : tensor<2x4096xf32>
// CHECK: arith.truncf %[[Q]] : tensor<2x4096xf32> to tensor<2x4096xbf16>
// CHECK-NOT: arith.divf
func.func @softmax(%x: !tile.ref<bf16, 2>, %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  %a = tile.load %x[%c0, %c0] limits [%c2, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<2x4096xbf16>
  %f = arith.extf %a : tensor<2x4096xbf16> to tensor<2x4096xf32>
  %m = tile.reduce max %f, 1 : tensor<2x4096xf32> -> tensor<2x1xf32>
  %mb = tile.broadcast %m : tensor<2x1xf32> -> tensor<2x4096xf32>
  %d = arith.subf %f, %mb : tensor<2x4096xf32>
  %e = math.exp %d : tensor<2x4096xf32>
  %s = tile.reduce sum %e, 1 : tensor<2x4096xf32> -> tensor<2x1xf32>
  %sb = tile.broadcast %s : tensor<2x1xf32> -> tensor<2x4096xf32>
  %q = arith.divf %e, %sb : tensor<2x4096xf32>
  %t = arith.truncf %q : tensor<2x4096xf32> to tensor<2x4096xbf16>
  tile.store %t, %out[%c0, %c0] limits [%c2, %c4096] {dims = array<i64: 0, 1>} : tensor<2x4096xbf16>, !tile.ref<bf16, 2>
  return
}

// -----

// An f32 output sees every ulp: nothing changes.

// CHECK-LABEL: func.func @f32_output(
// CHECK: math.exp %{{.*}} : tensor<1024xf32>
// CHECK-NOT: fastmath
// CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<1024xf32>
// CHECK-NOT: arith.mulf
func.func @f32_output(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %a = tile.load %x[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
  %e = math.exp %a : tensor<1024xf32>
  %s = tile.reduce sum %e, 0 : tensor<1024xf32> -> f32
  %sb = tile.splat %s : f32 -> tensor<1024xf32>
  %q = arith.divf %e, %sb : tensor<1024xf32>
  tile.store %q, %out[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xf32>, !tile.ref<f32, 1>
  return
}

// -----

// A value that also reaches a comparison (a mask a flipped ulp could
// change) or a second, f32, output is not narrowed; the bf16 result of the
// other division is, and its divisor is no broadcast: afn (div.full.f32).
// A scalar divisor spread by tile.splat: the reciprocal is a scalar.

// CHECK-LABEL: func.func @mixed(
// CHECK: %[[E:.*]] = math.exp %{{.*}} : tensor<1024xf32>
// CHECK: arith.cmpf ogt, %[[E]]
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : tensor<1024xf32>
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[RS:.*]] = tile.splat %[[R]] : f32 -> tensor<1024xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %[[RS]] : tensor<1024xf32>
// CHECK: %[[FS:.*]] = tile.splat %{{.*}} : f32 -> tensor<1024xf32>
// CHECK: arith.mulf %[[P]], %[[FS]] : tensor<1024xf32>
// CHECK: %[[K:.*]] = math.exp2 %{{.*}} : tensor<1024xf32>
// CHECK: tile.store %[[K]]
func.func @mixed(%x: !tile.ref<f32, 1>, %y: !tile.ref<f32, 1>, %out: !tile.ref<bf16, 1>, %mask: !tile.ref<i1, 1>, %out32: !tile.ref<f32, 1>, %n: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %a = tile.load %x[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
  %b = tile.load %y[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1024xf32>
  %e = math.exp %a : tensor<1024xf32>
  %p = arith.cmpf ogt, %e, %zero : tensor<1024xf32>
  tile.store %p, %mask[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xi1>, !tile.ref<i1, 1>
  %q = arith.divf %a, %b : tensor<1024xf32>
  %ns = tile.splat %n : f32 -> tensor<1024xf32>
  %q2 = arith.divf %q, %ns : tensor<1024xf32>
  %t = arith.truncf %q2 : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %out[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xbf16>, !tile.ref<bf16, 1>
  %k = math.exp2 %b : tensor<1024xf32>
  tile.store %k, %out32[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xf32>, !tile.ref<f32, 1>
  return
}

// -----

// bf16 exp computes in f32 and rounds once: approximate (afn).

// CHECK-LABEL: func.func @half_exp(
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1024xbf16>
func.func @half_exp(%x: !tile.ref<bf16, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %a = tile.load %x[%c0] limits [%c1024] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<1024xbf16>
  %e = math.exp %a : tensor<1024xbf16>
  tile.store %e, %x[%c0] limits [%c1024] {dims = array<i64: 0>} : tensor<1024xbf16>, !tile.ref<bf16, 1>
  return
}

// -----

// Helion's softmax_two_pass: the row sum of exps is carried by the loop
// over column chunks, then divides the second loop's exps into bf16
// outputs. Errors reach only the loop's carried values and the bf16
// store: both exps get afn, as does the rescaling exp of the carried max.

// CHECK-LABEL: func.func @carried_sum(
// CHECK: scf.for
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1xf32>
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1x1024xf32>
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1x1024xf32>
// CHECK: arith.truncf %{{.*}} : tensor<1x1024xf32> to tensor<1x1024xbf16>
func.func @carried_sum(%x: !tile.ref<bf16, 2>, %out: !tile.ref<bf16, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1xf32>
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%d = %zero, %m = %ninf) -> (tensor<1xf32>, tensor<1xf32>) {
    %o = arith.muli %i, %c1024 : index
    %a = tile.load %x[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x1024xbf16>
    %f = arith.extf %a : tensor<1x1024xbf16> to tensor<1x1024xf32>
    %lm = tile.reduce max %f, 1 : tensor<1x1024xf32> -> tensor<1xf32>
    %mn = arith.maximumf %m, %lm : tensor<1xf32>
    %dm = arith.subf %m, %mn : tensor<1xf32>
    %sc = math.exp %dm : tensor<1xf32>
    %ds = arith.mulf %d, %sc : tensor<1xf32>
    %mr = tile.reshape %mn : tensor<1xf32> -> tensor<1x1xf32>
    %mb = tile.broadcast %mr : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sub = arith.subf %f, %mb : tensor<1x1024xf32>
    %e = math.exp %sub : tensor<1x1024xf32>
    %s = tile.reduce sum %e, 1 : tensor<1x1024xf32> -> tensor<1xf32>
    %dn = arith.addf %ds, %s : tensor<1xf32>
    scf.yield %dn, %mn : tensor<1xf32>, tensor<1xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c1024 : index
    %a = tile.load %x[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x1024xbf16>
    %f = arith.extf %a : tensor<1x1024xbf16> to tensor<1x1024xf32>
    %mr = tile.reshape %r#1 : tensor<1xf32> -> tensor<1x1xf32>
    %mb = tile.broadcast %mr : tensor<1x1xf32> -> tensor<1x1024xf32>
    %sub = arith.subf %f, %mb : tensor<1x1024xf32>
    %e = math.exp %sub : tensor<1x1024xf32>
    %dr = tile.reshape %r#0 : tensor<1xf32> -> tensor<1x1xf32>
    %db = tile.broadcast %dr : tensor<1x1xf32> -> tensor<1x1024xf32>
    %q = arith.divf %e, %db : tensor<1x1024xf32>
    %t = arith.truncf %q : tensor<1x1024xf32> to tensor<1x1024xbf16>
    tile.store %t, %out[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : tensor<1x1024xbf16>, !tile.ref<bf16, 2>
  }
  return
}

// -----

// The same carried sum, but the loop's result is also stored as f32 (a
// log-sum-exp a backward pass reads): errors escape through the loop's
// result, and each sum adds 128 terms (too few for the summed-exp rule),
// so the exps feeding it stay precise; the second loop's exp, which only
// reaches bf16, gets afn.

// CHECK-LABEL: func.func @carried_sum_escapes(
// CHECK: scf.for
// CHECK: math.exp %{{.*}} : tensor<1x128xf32>
// CHECK-NOT: fastmath
// CHECK: scf.yield
// CHECK: tile.store %{{.*}} : tensor<1xf32>
// CHECK: scf.for
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1x128xf32>
func.func @carried_sum_escapes(%x: !tile.ref<bf16, 2>, %out: !tile.ref<bf16, 2>, %lse: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%d = %zero) -> (tensor<1xf32>) {
    %o = arith.muli %i, %c128 : index
    %a = tile.load %x[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x128xbf16>
    %f = arith.extf %a : tensor<1x128xbf16> to tensor<1x128xf32>
    %e = math.exp %f : tensor<1x128xf32>
    %s = tile.reduce sum %e, 1 : tensor<1x128xf32> -> tensor<1xf32>
    %dn = arith.addf %d, %s : tensor<1xf32>
    scf.yield %dn : tensor<1xf32>
  }
  tile.store %r, %lse[%c0] limits [%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  scf.for %i = %c0 to %c4 step %c1 {
    %o = arith.muli %i, %c128 : index
    %a = tile.load %x[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2> -> tensor<1x128xbf16>
    %f = arith.extf %a : tensor<1x128xbf16> to tensor<1x128xf32>
    %e = math.exp %f : tensor<1x128xf32>
    %rr = tile.reshape %r : tensor<1xf32> -> tensor<1x1xf32>
    %rb = tile.broadcast %rr : tensor<1x1xf32> -> tensor<1x128xf32>
    %q = arith.divf %e, %rb : tensor<1x128xf32>
    %t = arith.truncf %q : tensor<1x128xf32> to tensor<1x128xbf16>
    tile.store %t, %out[%c0, %o] limits [%c1, %c4] {dims = array<i64: 0, 1>} : tensor<1x128xbf16>, !tile.ref<bf16, 2>
  }
  return
}

// -----

// Cross entropy's log-sum-exp over a 4096-wide row, stored as f32: the exp
// is only summed, over 4096 positive terms, whose rounding bound is above
// the approximation's error: afn. The max reduction and the log stay.

// CHECK-LABEL: func.func @summed_wide(
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<1x4096xf32>
// CHECK: math.log %{{.*}} : tensor<1x1xf32>
func.func @summed_wide(%x: !tile.ref<f32, 2>, %lse: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %a = tile.load %x[%c0, %c0] limits [%c1, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x4096xf32>
  %m = tile.reduce max %a, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
  %mb = tile.broadcast %m : tensor<1x1xf32> -> tensor<1x4096xf32>
  %d = arith.subf %a, %mb : tensor<1x4096xf32>
  %e = math.exp %d : tensor<1x4096xf32>
  %s = tile.reduce sum %e, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
  %l = math.log %s : tensor<1x1xf32>
  %r = arith.addf %l, %m : tensor<1x1xf32>
  tile.store %r, %lse[%c0, %c0] limits [%c1, %c1] {dims = array<i64: 0, 1>} : tensor<1x1xf32>, !tile.ref<f32, 2>
  return
}

// -----

// The same over 128 columns (fewer terms than the rule asks), and over
// 4096 where the exp is also stored: exact exps.

// CHECK-LABEL: func.func @summed_narrow_or_used(
// CHECK: math.exp %{{.*}} : tensor<1x128xf32>
// CHECK-NOT: fastmath
// CHECK: math.exp %{{.*}} : tensor<1x4096xf32>
// CHECK-NOT: fastmath
// CHECK: return
func.func @summed_narrow_or_used(%x: !tile.ref<f32, 2>, %lse: !tile.ref<f32, 2>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %a = tile.load %x[%c0, %c0] limits [%c1, %c128] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x128xf32>
  %e = math.exp %a : tensor<1x128xf32>
  %s = tile.reduce sum %e, 1 : tensor<1x128xf32> -> tensor<1x1xf32>
  tile.store %s, %lse[%c0, %c0] limits [%c1, %c1] {dims = array<i64: 0, 1>} : tensor<1x1xf32>, !tile.ref<f32, 2>
  %b = tile.load %x[%c0, %c0] limits [%c1, %c4096] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x4096xf32>
  %f = math.exp %b : tensor<1x4096xf32>
  %t = tile.reduce sum %f, 1 : tensor<1x4096xf32> -> tensor<1x1xf32>
  tile.store %t, %lse[%c0, %c0] limits [%c1, %c1] {dims = array<i64: 0, 1>} : tensor<1x1xf32>, !tile.ref<f32, 2>
  tile.store %f, %x[%c0, %c0] limits [%c1, %c4096] {dims = array<i64: 0, 1>} : tensor<1x4096xf32>, !tile.ref<f32, 2>
  return
}

// -----

// The config's fast_math (tile.fast_math): every f32 exp, exp2, log, log2
// and division gets afn, results stored as f32 too (Triton's math); the
// same ops in a kernel without it stay exact.

// CHECK-LABEL: func.func @fast_math(
// CHECK: math.exp %{{.*}} fastmath<afn> : tensor<128xf32>
// CHECK: math.exp2 %{{.*}} fastmath<afn> : tensor<128xf32>
// CHECK: math.log %{{.*}} fastmath<afn> : tensor<128xf32>
// CHECK: math.log2 %{{.*}} fastmath<afn> : tensor<128xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : tensor<128xf32>
// CHECK-LABEL: func.func @exact(
// CHECK-NOT: afn
func.func @fast_math(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.fast_math, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a = tile.load %x[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %e = math.exp %a : tensor<128xf32>
  %e2 = math.exp2 %e : tensor<128xf32>
  %l = math.log %e2 : tensor<128xf32>
  %l2 = math.log2 %l : tensor<128xf32>
  %q = arith.divf %l2, %a : tensor<128xf32>
  tile.store %q, %out[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  return
}
func.func @exact(%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>)
    attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a = tile.load %x[%c0] limits [%c128] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<128xf32>
  %e = math.exp %a : tensor<128xf32>
  %l = math.log %e : tensor<128xf32>
  %q = arith.divf %l, %a : tensor<128xf32>
  tile.store %q, %out[%c0] limits [%c128] {dims = array<i64: 0>} : tensor<128xf32>, !tile.ref<f32, 1>
  return
}
