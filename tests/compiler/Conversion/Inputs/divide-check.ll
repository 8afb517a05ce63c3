; Checks @sdiv, @udiv, @srem and @urem (64-bit, from
; divide-without-calls.mlir after -dslc-divide-without-calls) against LLVM's
; own instructions for every pair of the values below (divisor not zero,
; and not INT64_MIN / -1 for the signed ones). Exits with the number of
; wrong results (0: all right).

@values = private constant [20 x i64] [
  i64 0, i64 1, i64 -1, i64 2, i64 3, i64 7, i64 -7, i64 1000,
  i64 2147483647, i64 2147483648, i64 4294967295, i64 4294967296,
  i64 4294967297, i64 8589934597, i64 4611686018427387904,
  i64 9223372036854775807, i64 -9223372036854775808,
  i64 123456789012345, i64 -987654321098, i64 -4294967296]

declare i64 @sdiv(i64, i64)
declare i64 @udiv(i64, i64)
declare i64 @srem(i64, i64)
declare i64 @urem(i64, i64)

define i32 @main() {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.next ]
  %bad.o = phi i32 [ 0, %entry ], [ %bad.i.end, %outer.next ]
  %pa = getelementptr [20 x i64], ptr @values, i64 0, i64 %i
  %a = load i64, ptr %pa
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner.next ]
  %bad = phi i32 [ %bad.o, %outer ], [ %bad.next, %inner.next ]
  %pb = getelementptr [20 x i64], ptr @values, i64 0, i64 %j
  %b = load i64, ptr %pb
  %zero = icmp eq i64 %b, 0
  br i1 %zero, label %inner.next.skip, label %unsigned
unsigned:
  %u1 = call i64 @udiv(i64 %a, i64 %b)
  %u2 = udiv i64 %a, %b
  %e1 = icmp ne i64 %u1, %u2
  %r1 = call i64 @urem(i64 %a, i64 %b)
  %r2 = urem i64 %a, %b
  %e2 = icmp ne i64 %r1, %r2
  %min = icmp eq i64 %a, -9223372036854775808
  %neg1 = icmp eq i64 %b, -1
  %overflow = and i1 %min, %neg1
  br i1 %overflow, label %tally.u, label %signed
signed:
  %s1 = call i64 @sdiv(i64 %a, i64 %b)
  %s2 = sdiv i64 %a, %b
  %e3 = icmp ne i64 %s1, %s2
  %t1 = call i64 @srem(i64 %a, i64 %b)
  %t2 = srem i64 %a, %b
  %e4 = icmp ne i64 %t1, %t2
  %e34 = or i1 %e3, %e4
  br label %tally.u
tally.u:
  %es = phi i1 [ false, %unsigned ], [ %e34, %signed ]
  %e12 = or i1 %e1, %e2
  %e = or i1 %e12, %es
  %inc = zext i1 %e to i32
  %bad.t = add i32 %bad, %inc
  br label %inner.next
inner.next.skip:
  br label %inner.next
inner.next:
  %bad.next = phi i32 [ %bad.t, %tally.u ], [ %bad, %inner.next.skip ]
  %j.next = add i64 %j, 1
  %more.j = icmp ult i64 %j.next, 20
  br i1 %more.j, label %inner, label %outer.next
outer.next:
  %bad.i.end = phi i32 [ %bad.next, %inner.next ]
  %i.next = add i64 %i, 1
  %more.i = icmp ult i64 %i.next, 20
  br i1 %more.i, label %outer, label %exit
exit:
  ret i32 %bad.i.end
}
