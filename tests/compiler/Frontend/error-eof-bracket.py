# End of file inside brackets: one error at the unclosed bracket, nothing
# about the end of the file.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

# CHECK:{{.*}}error-eof-bracket.py:[[@LINE+5]]:13: error: '(' was never closed
# CHECK-NEXT:{{^}}    return g(x,{{$}}
# CHECK-NEXT:{{^}}            ^{{$}}
# CHECK-NEXT: 1 error generated.
def f(x):
    return g(x,
