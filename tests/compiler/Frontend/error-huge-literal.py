# Integer literals above 2**64 - 1 are an error, not a silent wrap-around;
# 2**64 - 1 itself is fine.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

ok = 18446744073709551615
ok_hex = 0xFFFF_FFFF_FFFF_FFFF
# CHECK:{{.*}}error-huge-literal.py:[[@LINE+3]]:7: error: integer literal too large (the limit is 2**64 - 1)
# CHECK-NEXT:{{^}}big = 18446744073709551616{{$}}
# CHECK-NEXT:{{^}}      ^~~~~~~~~~~~~~~~~~~~{{$}}
big = 18446744073709551616
# CHECK:{{.*}}error-huge-literal.py:[[@LINE+3]]:11: error: integer literal too large (the limit is 2**64 - 1)
# CHECK-NEXT:{{^}}big_hex = 0x1_0000_0000_0000_0000{{$}}
# CHECK-NEXT:{{^}}          ^~~~~~~~~~~~~~~~~~~~~~~{{$}}
big_hex = 0x1_0000_0000_0000_0000
# CHECK:{{.*}}error-huge-literal.py:[[@LINE+3]]:9: error: integer literal too large (the limit is 2**64 - 1)
# CHECK-NEXT:{{^}}giant = 99999999999999999999999999999999999999999999999999999999999999999999999999999999{{$}}
# CHECK-NEXT:{{^}}        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~{{$}}
giant = 99999999999999999999999999999999999999999999999999999999999999999999999999999999
# CHECK-NOT: error:
# CHECK: 3 errors generated.
