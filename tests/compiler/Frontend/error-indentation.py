# Indentation errors (CPython's rules and messages).
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

def f(x):
    y = 1
# CHECK:{{.*}}error-indentation.py:[[@LINE+3]]:3: error: unindent does not match any outer indentation level
# CHECK-NEXT:{{^}}  return y{{$}}
# CHECK-NEXT:{{^}}  ^{{$}}
  return y

x = 1
# CHECK:{{.*}}error-indentation.py:[[@LINE+3]]:5: error: unexpected indent
# CHECK-NEXT:{{^}}    y = 2{{$}}
# CHECK-NEXT:{{^}}    ^{{$}}
    y = 2
    z = 3

# CHECK:{{.*}}error-indentation.py:[[@LINE+4]]:1: error: expected an indented block after 'if' statement on line [[@LINE+3]], found 'w'
# CHECK-NEXT:{{^}}w = 4{{$}}
# CHECK-NEXT:{{^}}^{{$}}
if x:
w = 4
# CHECK-NOT: error:
# CHECK: 3 errors generated.
