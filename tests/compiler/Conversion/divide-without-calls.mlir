// RUN: dslc-opt %s -dslc-divide-without-calls | FileCheck %s
// RUN: %if lli %{ dslc-opt %s -dslc-divide-without-calls | mlir-translate --mlir-to-llvmir -o %t.ll %}
// RUN: %if lli %{ lli --extra-module=%t.ll %S/Inputs/divide-check.ll %}

// In a function marked dslc.without_calls (a kernel on wgmma: ptxas would
// make div.s64 and friends calls, and any call serializes its products),
// 64-bit divisions and remainders by a run-time value become a 32-bit
// division when both operands fit, else a 64-step shift-and-subtract loop;
// signs are fixed after. lli runs the results against LLVM's own
// instructions over 20 x 20 values (Inputs/divide-check.ll: 32-bit edges,
// 2^62, INT64_MAX, INT64_MIN, negative values). A constant divisor keeps
// its division (LLVM turns it into a multiplication); an unmarked function
// keeps its own. The marker is removed. (f32 divisions become div.full.f32:
// dot-engine.test checks a wgmma kernel's SiLU epilogue.)

// CHECK-LABEL: llvm.func @sdiv(
// CHECK-NOT: dslc.without_calls
// CHECK-NOT: llvm.sdiv
// CHECK: llvm.lshr
// CHECK: llvm.cond_br
// CHECK: llvm.udiv %{{.*}} : i32
// CHECK: llvm.icmp "ult"
// CHECK: llvm.return
llvm.func @sdiv(%a: i64, %b: i64) -> i64 attributes {dslc.without_calls} {
  %q = llvm.sdiv %a, %b : i64
  llvm.return %q : i64
}

// CHECK-LABEL: llvm.func @udiv(
// CHECK-NOT: llvm.udiv %{{.*}} : i64
// CHECK: llvm.udiv %{{.*}} : i32
llvm.func @udiv(%a: i64, %b: i64) -> i64 attributes {dslc.without_calls} {
  %q = llvm.udiv %a, %b : i64
  llvm.return %q : i64
}

// CHECK-LABEL: llvm.func @srem(
// CHECK-NOT: llvm.srem
// CHECK: llvm.urem %{{.*}} : i32
llvm.func @srem(%a: i64, %b: i64) -> i64 attributes {dslc.without_calls} {
  %r = llvm.srem %a, %b : i64
  llvm.return %r : i64
}

// CHECK-LABEL: llvm.func @urem(
// CHECK-NOT: llvm.urem %{{.*}} : i64
// CHECK: llvm.urem %{{.*}} : i32
llvm.func @urem(%a: i64, %b: i64) -> i64 attributes {dslc.without_calls} {
  %r = llvm.urem %a, %b : i64
  llvm.return %r : i64
}

// CHECK-LABEL: llvm.func @by_constant(
// CHECK: llvm.udiv %{{.*}}, %{{.*}} : i64
// CHECK-NOT: llvm.cond_br
llvm.func @by_constant(%a: i64) -> i64 attributes {dslc.without_calls} {
  %c = llvm.mlir.constant(7 : i64) : i64
  %q = llvm.udiv %a, %c : i64
  llvm.return %q : i64
}

// CHECK-LABEL: llvm.func @unmarked(
// CHECK: llvm.sdiv %{{.*}}, %{{.*}} : i64
llvm.func @unmarked(%a: i64, %b: i64) -> i64 {
  %q = llvm.sdiv %a, %b : i64
  llvm.return %q : i64
}
