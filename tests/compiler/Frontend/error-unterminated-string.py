# Unterminated strings: the single-quoted one ends at the line end (and the
# next line parses normally); a triple-quoted one runs to the end of file.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

# CHECK:{{.*}}error-unterminated-string.py:[[@LINE+3]]:5: error: unterminated string literal
# CHECK-NEXT:{{^}}x = "abc{{$}}
# CHECK-NEXT:{{^}}    ^~~~{{$}}
x = "abc
y = 1
# CHECK:{{.*}}error-unterminated-string.py:[[@LINE+3]]:7: error: unterminated string literal
# CHECK-NEXT:{{^}}z = f('abc, 2){{$}}
# CHECK-NEXT:{{^}}      ^~~~~~~~{{$}}
z = f('abc, 2)
# CHECK:{{.*}}error-unterminated-string.py:[[@LINE+5]]:5: error: unterminated triple-quoted string literal
# CHECK-NEXT:{{^}}s = """never closed{{$}}
# CHECK-NEXT:{{^}}    ^~~{{$}}
# CHECK-NOT: error:
# CHECK: 3 errors generated.
s = """never closed
t = 2
