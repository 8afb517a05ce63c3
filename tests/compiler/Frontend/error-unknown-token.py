# Characters that are no token: reported with their location and skipped.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

# CHECK:{{.*}}error-unknown-token.py:[[@LINE+3]]:7: error: invalid character '$' in source
# CHECK-NEXT:{{^}}y = 1 $ 2{{$}}
# CHECK-NEXT:{{^}}      ^{{$}}
y = 1 $ 2
# CHECK:{{.*}}error-unknown-token.py:[[@LINE+3]]:7: error: invalid character '?' in source
# CHECK-NEXT:{{^}}z = a ? b{{$}}
# CHECK-NEXT:{{^}}      ^{{$}}
z = a ? b
# CHECK:{{.*}}error-unknown-token.py:[[@LINE+3]]:7: error: invalid character '!' in source
# CHECK-NEXT:{{^}}w = a ! b{{$}}
# CHECK-NEXT:{{^}}      ^{{$}}
w = a ! b
# CHECK:{{.*}}error-unknown-token.py:[[@LINE+3]]:5: error: invalid character U+00E9 in source
# CHECK-NEXT:{{^}}v = é{{$}}
# CHECK-NEXT:{{^}}    ^{{$}}
v = é
# The parser does not repeat what the lexer said about a line.
# CHECK-NOT: error:
# CHECK: 4 errors generated.
