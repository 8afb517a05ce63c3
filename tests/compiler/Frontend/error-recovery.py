# After a syntax error the parser skips to the next statement (and past the
# block of a broken compound statement), so one run reports every error.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:8: error: expected expression, found end of line
# CHECK-NEXT:{{^}}x = 1 +{{$}}
# CHECK-NEXT:{{^}}       ^{{$}}
x = 1 +
def f(a):
# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:11: error: expected end of line, found 'a'
# CHECK-NEXT:{{^}}    b = a a{{$}}
# CHECK-NEXT:{{^}}          ^{{$}}
    b = a a
    return b
# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:10: error: expected expression, found ':'
# CHECK-NEXT:{{^}}for i in :{{$}}
# CHECK-NEXT:{{^}}         ^{{$}}
for i in :
    this block is skipped entirely
# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:1: error: 'class' statements are not supported
# CHECK-NEXT:{{^}}class C:{{$}}
# CHECK-NEXT:{{^}}^~~~~{{$}}
class C:
    pass
def g(x):
    if x:
# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:19: error: expected 'else' in conditional expression, found end of line
# CHECK-NEXT:{{^}}        y = 1 if x{{$}}
# CHECK-NEXT:{{^}}                  ^{{$}}
        y = 1 if x
    return (y
# CHECK:{{.*}}error-recovery.py:[[@LINE+3]]:5: error: closing ']' does not match opening '('
# CHECK-NEXT:{{^}}    ]{{$}}
# CHECK-NEXT:{{^}}    ^{{$}}
    ]
# CHECK:{{.*}}error-recovery.py:[[@LINE-5]]:12: note: '(' opened here
# CHECK-NEXT:{{^}}    return (y{{$}}
# CHECK-NEXT:{{^}}           ^{{$}}
z = 3
# CHECK-NOT: error:
# CHECK: 6 errors generated.
