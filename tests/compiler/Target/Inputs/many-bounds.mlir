// Per tile j < m, N bounds `r + j > k` (k < N), each selecting one of a
// row's N loaded elements in every iteration of the tile's inner loop
// (tests/compiler/Target/predicates.test). Generated; N = 28 and N = 8.
module {
llvm.func @many_bounds(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %r: i64, %n: i64, %m: i64) attributes {nvvm.kernel} {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %width = llvm.mlir.constant(28 : i64) : i64
  %f0 = llvm.mlir.constant(0.0 : f32) : f32
  %k0 = llvm.mlir.constant(0 : i64) : i64
  %k1 = llvm.mlir.constant(1 : i64) : i64
  %k2 = llvm.mlir.constant(2 : i64) : i64
  %k3 = llvm.mlir.constant(3 : i64) : i64
  %k4 = llvm.mlir.constant(4 : i64) : i64
  %k5 = llvm.mlir.constant(5 : i64) : i64
  %k6 = llvm.mlir.constant(6 : i64) : i64
  %k7 = llvm.mlir.constant(7 : i64) : i64
  %k8 = llvm.mlir.constant(8 : i64) : i64
  %k9 = llvm.mlir.constant(9 : i64) : i64
  %k10 = llvm.mlir.constant(10 : i64) : i64
  %k11 = llvm.mlir.constant(11 : i64) : i64
  %k12 = llvm.mlir.constant(12 : i64) : i64
  %k13 = llvm.mlir.constant(13 : i64) : i64
  %k14 = llvm.mlir.constant(14 : i64) : i64
  %k15 = llvm.mlir.constant(15 : i64) : i64
  %k16 = llvm.mlir.constant(16 : i64) : i64
  %k17 = llvm.mlir.constant(17 : i64) : i64
  %k18 = llvm.mlir.constant(18 : i64) : i64
  %k19 = llvm.mlir.constant(19 : i64) : i64
  %k20 = llvm.mlir.constant(20 : i64) : i64
  %k21 = llvm.mlir.constant(21 : i64) : i64
  %k22 = llvm.mlir.constant(22 : i64) : i64
  %k23 = llvm.mlir.constant(23 : i64) : i64
  %k24 = llvm.mlir.constant(24 : i64) : i64
  %k25 = llvm.mlir.constant(25 : i64) : i64
  %k26 = llvm.mlir.constant(26 : i64) : i64
  %k27 = llvm.mlir.constant(27 : i64) : i64
  llvm.br ^tile(%zero : i64)
^tile(%j: i64):
  %rj = llvm.add %r, %j : i64
  %b0 = llvm.icmp "ugt" %rj, %k0 : i64
  %b1 = llvm.icmp "ugt" %rj, %k1 : i64
  %b2 = llvm.icmp "ugt" %rj, %k2 : i64
  %b3 = llvm.icmp "ugt" %rj, %k3 : i64
  %b4 = llvm.icmp "ugt" %rj, %k4 : i64
  %b5 = llvm.icmp "ugt" %rj, %k5 : i64
  %b6 = llvm.icmp "ugt" %rj, %k6 : i64
  %b7 = llvm.icmp "ugt" %rj, %k7 : i64
  %b8 = llvm.icmp "ugt" %rj, %k8 : i64
  %b9 = llvm.icmp "ugt" %rj, %k9 : i64
  %b10 = llvm.icmp "ugt" %rj, %k10 : i64
  %b11 = llvm.icmp "ugt" %rj, %k11 : i64
  %b12 = llvm.icmp "ugt" %rj, %k12 : i64
  %b13 = llvm.icmp "ugt" %rj, %k13 : i64
  %b14 = llvm.icmp "ugt" %rj, %k14 : i64
  %b15 = llvm.icmp "ugt" %rj, %k15 : i64
  %b16 = llvm.icmp "ugt" %rj, %k16 : i64
  %b17 = llvm.icmp "ugt" %rj, %k17 : i64
  %b18 = llvm.icmp "ugt" %rj, %k18 : i64
  %b19 = llvm.icmp "ugt" %rj, %k19 : i64
  %b20 = llvm.icmp "ugt" %rj, %k20 : i64
  %b21 = llvm.icmp "ugt" %rj, %k21 : i64
  %b22 = llvm.icmp "ugt" %rj, %k22 : i64
  %b23 = llvm.icmp "ugt" %rj, %k23 : i64
  %b24 = llvm.icmp "ugt" %rj, %k24 : i64
  %b25 = llvm.icmp "ugt" %rj, %k25 : i64
  %b26 = llvm.icmp "ugt" %rj, %k26 : i64
  %b27 = llvm.icmp "ugt" %rj, %k27 : i64
  llvm.br ^loop(%zero, %f0 : i64, f32)
^loop(%i: i64, %acc0: f32):
  %row = llvm.mul %i, %width : i64
  %o0 = llvm.add %row, %k0 : i64
  %a0 = llvm.getelementptr %p[%o0] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x0 = llvm.load %a0 : !llvm.ptr<1> -> f32
  %s0 = llvm.select %b0, %x0, %f0 : i1, f32
  %acc1 = llvm.fadd %acc0, %s0 : f32
  %o1 = llvm.add %row, %k1 : i64
  %a1 = llvm.getelementptr %p[%o1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x1 = llvm.load %a1 : !llvm.ptr<1> -> f32
  %s1 = llvm.select %b1, %x1, %f0 : i1, f32
  %acc2 = llvm.fadd %acc1, %s1 : f32
  %o2 = llvm.add %row, %k2 : i64
  %a2 = llvm.getelementptr %p[%o2] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x2 = llvm.load %a2 : !llvm.ptr<1> -> f32
  %s2 = llvm.select %b2, %x2, %f0 : i1, f32
  %acc3 = llvm.fadd %acc2, %s2 : f32
  %o3 = llvm.add %row, %k3 : i64
  %a3 = llvm.getelementptr %p[%o3] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x3 = llvm.load %a3 : !llvm.ptr<1> -> f32
  %s3 = llvm.select %b3, %x3, %f0 : i1, f32
  %acc4 = llvm.fadd %acc3, %s3 : f32
  %o4 = llvm.add %row, %k4 : i64
  %a4 = llvm.getelementptr %p[%o4] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x4 = llvm.load %a4 : !llvm.ptr<1> -> f32
  %s4 = llvm.select %b4, %x4, %f0 : i1, f32
  %acc5 = llvm.fadd %acc4, %s4 : f32
  %o5 = llvm.add %row, %k5 : i64
  %a5 = llvm.getelementptr %p[%o5] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x5 = llvm.load %a5 : !llvm.ptr<1> -> f32
  %s5 = llvm.select %b5, %x5, %f0 : i1, f32
  %acc6 = llvm.fadd %acc5, %s5 : f32
  %o6 = llvm.add %row, %k6 : i64
  %a6 = llvm.getelementptr %p[%o6] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x6 = llvm.load %a6 : !llvm.ptr<1> -> f32
  %s6 = llvm.select %b6, %x6, %f0 : i1, f32
  %acc7 = llvm.fadd %acc6, %s6 : f32
  %o7 = llvm.add %row, %k7 : i64
  %a7 = llvm.getelementptr %p[%o7] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x7 = llvm.load %a7 : !llvm.ptr<1> -> f32
  %s7 = llvm.select %b7, %x7, %f0 : i1, f32
  %acc8 = llvm.fadd %acc7, %s7 : f32
  %o8 = llvm.add %row, %k8 : i64
  %a8 = llvm.getelementptr %p[%o8] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x8 = llvm.load %a8 : !llvm.ptr<1> -> f32
  %s8 = llvm.select %b8, %x8, %f0 : i1, f32
  %acc9 = llvm.fadd %acc8, %s8 : f32
  %o9 = llvm.add %row, %k9 : i64
  %a9 = llvm.getelementptr %p[%o9] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x9 = llvm.load %a9 : !llvm.ptr<1> -> f32
  %s9 = llvm.select %b9, %x9, %f0 : i1, f32
  %acc10 = llvm.fadd %acc9, %s9 : f32
  %o10 = llvm.add %row, %k10 : i64
  %a10 = llvm.getelementptr %p[%o10] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x10 = llvm.load %a10 : !llvm.ptr<1> -> f32
  %s10 = llvm.select %b10, %x10, %f0 : i1, f32
  %acc11 = llvm.fadd %acc10, %s10 : f32
  %o11 = llvm.add %row, %k11 : i64
  %a11 = llvm.getelementptr %p[%o11] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x11 = llvm.load %a11 : !llvm.ptr<1> -> f32
  %s11 = llvm.select %b11, %x11, %f0 : i1, f32
  %acc12 = llvm.fadd %acc11, %s11 : f32
  %o12 = llvm.add %row, %k12 : i64
  %a12 = llvm.getelementptr %p[%o12] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x12 = llvm.load %a12 : !llvm.ptr<1> -> f32
  %s12 = llvm.select %b12, %x12, %f0 : i1, f32
  %acc13 = llvm.fadd %acc12, %s12 : f32
  %o13 = llvm.add %row, %k13 : i64
  %a13 = llvm.getelementptr %p[%o13] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x13 = llvm.load %a13 : !llvm.ptr<1> -> f32
  %s13 = llvm.select %b13, %x13, %f0 : i1, f32
  %acc14 = llvm.fadd %acc13, %s13 : f32
  %o14 = llvm.add %row, %k14 : i64
  %a14 = llvm.getelementptr %p[%o14] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x14 = llvm.load %a14 : !llvm.ptr<1> -> f32
  %s14 = llvm.select %b14, %x14, %f0 : i1, f32
  %acc15 = llvm.fadd %acc14, %s14 : f32
  %o15 = llvm.add %row, %k15 : i64
  %a15 = llvm.getelementptr %p[%o15] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x15 = llvm.load %a15 : !llvm.ptr<1> -> f32
  %s15 = llvm.select %b15, %x15, %f0 : i1, f32
  %acc16 = llvm.fadd %acc15, %s15 : f32
  %o16 = llvm.add %row, %k16 : i64
  %a16 = llvm.getelementptr %p[%o16] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x16 = llvm.load %a16 : !llvm.ptr<1> -> f32
  %s16 = llvm.select %b16, %x16, %f0 : i1, f32
  %acc17 = llvm.fadd %acc16, %s16 : f32
  %o17 = llvm.add %row, %k17 : i64
  %a17 = llvm.getelementptr %p[%o17] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x17 = llvm.load %a17 : !llvm.ptr<1> -> f32
  %s17 = llvm.select %b17, %x17, %f0 : i1, f32
  %acc18 = llvm.fadd %acc17, %s17 : f32
  %o18 = llvm.add %row, %k18 : i64
  %a18 = llvm.getelementptr %p[%o18] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x18 = llvm.load %a18 : !llvm.ptr<1> -> f32
  %s18 = llvm.select %b18, %x18, %f0 : i1, f32
  %acc19 = llvm.fadd %acc18, %s18 : f32
  %o19 = llvm.add %row, %k19 : i64
  %a19 = llvm.getelementptr %p[%o19] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x19 = llvm.load %a19 : !llvm.ptr<1> -> f32
  %s19 = llvm.select %b19, %x19, %f0 : i1, f32
  %acc20 = llvm.fadd %acc19, %s19 : f32
  %o20 = llvm.add %row, %k20 : i64
  %a20 = llvm.getelementptr %p[%o20] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x20 = llvm.load %a20 : !llvm.ptr<1> -> f32
  %s20 = llvm.select %b20, %x20, %f0 : i1, f32
  %acc21 = llvm.fadd %acc20, %s20 : f32
  %o21 = llvm.add %row, %k21 : i64
  %a21 = llvm.getelementptr %p[%o21] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x21 = llvm.load %a21 : !llvm.ptr<1> -> f32
  %s21 = llvm.select %b21, %x21, %f0 : i1, f32
  %acc22 = llvm.fadd %acc21, %s21 : f32
  %o22 = llvm.add %row, %k22 : i64
  %a22 = llvm.getelementptr %p[%o22] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x22 = llvm.load %a22 : !llvm.ptr<1> -> f32
  %s22 = llvm.select %b22, %x22, %f0 : i1, f32
  %acc23 = llvm.fadd %acc22, %s22 : f32
  %o23 = llvm.add %row, %k23 : i64
  %a23 = llvm.getelementptr %p[%o23] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x23 = llvm.load %a23 : !llvm.ptr<1> -> f32
  %s23 = llvm.select %b23, %x23, %f0 : i1, f32
  %acc24 = llvm.fadd %acc23, %s23 : f32
  %o24 = llvm.add %row, %k24 : i64
  %a24 = llvm.getelementptr %p[%o24] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x24 = llvm.load %a24 : !llvm.ptr<1> -> f32
  %s24 = llvm.select %b24, %x24, %f0 : i1, f32
  %acc25 = llvm.fadd %acc24, %s24 : f32
  %o25 = llvm.add %row, %k25 : i64
  %a25 = llvm.getelementptr %p[%o25] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x25 = llvm.load %a25 : !llvm.ptr<1> -> f32
  %s25 = llvm.select %b25, %x25, %f0 : i1, f32
  %acc26 = llvm.fadd %acc25, %s25 : f32
  %o26 = llvm.add %row, %k26 : i64
  %a26 = llvm.getelementptr %p[%o26] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x26 = llvm.load %a26 : !llvm.ptr<1> -> f32
  %s26 = llvm.select %b26, %x26, %f0 : i1, f32
  %acc27 = llvm.fadd %acc26, %s26 : f32
  %o27 = llvm.add %row, %k27 : i64
  %a27 = llvm.getelementptr %p[%o27] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x27 = llvm.load %a27 : !llvm.ptr<1> -> f32
  %s27 = llvm.select %b27, %x27, %f0 : i1, f32
  %acc28 = llvm.fadd %acc27, %s27 : f32
  %next = llvm.add %i, %one : i64
  %more = llvm.icmp "slt" %next, %n : i64
  llvm.cond_br %more, ^loop(%next, %acc28 : i64, f32), ^done
^done:
  %at = llvm.getelementptr %q[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.store %acc28, %at : f32, !llvm.ptr<1>
  %nextj = llvm.add %j, %one : i64
  %morej = llvm.icmp "slt" %nextj, %m : i64
  llvm.cond_br %morej, ^tile(%nextj : i64), ^exit
^exit:
  llvm.return
}

llvm.func @few_bounds(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %r: i64, %n: i64, %m: i64) attributes {nvvm.kernel} {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %width = llvm.mlir.constant(8 : i64) : i64
  %f0 = llvm.mlir.constant(0.0 : f32) : f32
  %k0 = llvm.mlir.constant(0 : i64) : i64
  %k1 = llvm.mlir.constant(1 : i64) : i64
  %k2 = llvm.mlir.constant(2 : i64) : i64
  %k3 = llvm.mlir.constant(3 : i64) : i64
  %k4 = llvm.mlir.constant(4 : i64) : i64
  %k5 = llvm.mlir.constant(5 : i64) : i64
  %k6 = llvm.mlir.constant(6 : i64) : i64
  %k7 = llvm.mlir.constant(7 : i64) : i64
  llvm.br ^tile(%zero : i64)
^tile(%j: i64):
  %rj = llvm.add %r, %j : i64
  %b0 = llvm.icmp "ugt" %rj, %k0 : i64
  %b1 = llvm.icmp "ugt" %rj, %k1 : i64
  %b2 = llvm.icmp "ugt" %rj, %k2 : i64
  %b3 = llvm.icmp "ugt" %rj, %k3 : i64
  %b4 = llvm.icmp "ugt" %rj, %k4 : i64
  %b5 = llvm.icmp "ugt" %rj, %k5 : i64
  %b6 = llvm.icmp "ugt" %rj, %k6 : i64
  %b7 = llvm.icmp "ugt" %rj, %k7 : i64
  llvm.br ^loop(%zero, %f0 : i64, f32)
^loop(%i: i64, %acc0: f32):
  %row = llvm.mul %i, %width : i64
  %o0 = llvm.add %row, %k0 : i64
  %a0 = llvm.getelementptr %p[%o0] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x0 = llvm.load %a0 : !llvm.ptr<1> -> f32
  %s0 = llvm.select %b0, %x0, %f0 : i1, f32
  %acc1 = llvm.fadd %acc0, %s0 : f32
  %o1 = llvm.add %row, %k1 : i64
  %a1 = llvm.getelementptr %p[%o1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x1 = llvm.load %a1 : !llvm.ptr<1> -> f32
  %s1 = llvm.select %b1, %x1, %f0 : i1, f32
  %acc2 = llvm.fadd %acc1, %s1 : f32
  %o2 = llvm.add %row, %k2 : i64
  %a2 = llvm.getelementptr %p[%o2] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x2 = llvm.load %a2 : !llvm.ptr<1> -> f32
  %s2 = llvm.select %b2, %x2, %f0 : i1, f32
  %acc3 = llvm.fadd %acc2, %s2 : f32
  %o3 = llvm.add %row, %k3 : i64
  %a3 = llvm.getelementptr %p[%o3] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x3 = llvm.load %a3 : !llvm.ptr<1> -> f32
  %s3 = llvm.select %b3, %x3, %f0 : i1, f32
  %acc4 = llvm.fadd %acc3, %s3 : f32
  %o4 = llvm.add %row, %k4 : i64
  %a4 = llvm.getelementptr %p[%o4] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x4 = llvm.load %a4 : !llvm.ptr<1> -> f32
  %s4 = llvm.select %b4, %x4, %f0 : i1, f32
  %acc5 = llvm.fadd %acc4, %s4 : f32
  %o5 = llvm.add %row, %k5 : i64
  %a5 = llvm.getelementptr %p[%o5] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x5 = llvm.load %a5 : !llvm.ptr<1> -> f32
  %s5 = llvm.select %b5, %x5, %f0 : i1, f32
  %acc6 = llvm.fadd %acc5, %s5 : f32
  %o6 = llvm.add %row, %k6 : i64
  %a6 = llvm.getelementptr %p[%o6] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x6 = llvm.load %a6 : !llvm.ptr<1> -> f32
  %s6 = llvm.select %b6, %x6, %f0 : i1, f32
  %acc7 = llvm.fadd %acc6, %s6 : f32
  %o7 = llvm.add %row, %k7 : i64
  %a7 = llvm.getelementptr %p[%o7] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x7 = llvm.load %a7 : !llvm.ptr<1> -> f32
  %s7 = llvm.select %b7, %x7, %f0 : i1, f32
  %acc8 = llvm.fadd %acc7, %s7 : f32
  %next = llvm.add %i, %one : i64
  %more = llvm.icmp "slt" %next, %n : i64
  llvm.cond_br %more, ^loop(%next, %acc8 : i64, f32), ^done
^done:
  %at = llvm.getelementptr %q[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.store %acc8, %at : f32, !llvm.ptr<1>
  %nextj = llvm.add %j, %one : i64
  %morej = llvm.icmp "slt" %nextj, %m : i64
  llvm.cond_br %morej, ^tile(%nextj : i64), ^exit
^exit:
  llvm.return
}
}
