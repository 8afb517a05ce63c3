# Messages for constructs that are not valid (or not supported) here.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck %s

# CHECK: error-syntax.py:[[@LINE+1]]:1: error: cannot assign to function call
f() = 1
# CHECK: error-syntax.py:[[@LINE+1]]:1: error: cannot assign to literal
1 = x
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: cannot use as a loop target a function call
for f() in x:
    pass
# CHECK: error-syntax.py:[[@LINE+1]]:8: error: positional argument follows keyword argument
f(a=1, 2)
# CHECK: error-syntax.py:[[@LINE+1]]:8: error: keyword argument 'a' repeated
f(a=1, a=2)
# CHECK: error-syntax.py:[[@LINE+1]]:8: error: comprehensions are not supported
x = [i for i in y]
# CHECK: error-syntax.py:[[@LINE+1]]:12: error: '*' and '**' parameters of a lambda are not supported: name each parameter
x = lambda *a: 1
# CHECK: error-syntax.py:[[@LINE+1]]:4: error: assignment expressions (':=') are not supported
(x := 1)
# CHECK: error-syntax.py:[[@LINE+1]]:13: error: duplicate parameter 'a'
def h(a, b, a):
    pass
# CHECK: error-syntax.py:[[@LINE+1]]:12: error: parameter without a default follows parameter with a default
def h(a=1, b):
    pass
# CHECK: error-syntax.py:[[@LINE+1]]:1: error: unexpected 'else'
else:
    pass
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: unmatched ')'
x = )
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: invalid numeric literal
x = 1_
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers
x = 0123
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: complex literals are not supported
x = 3j
# CHECK: error-syntax.py:[[@LINE+1]]:7: error: unexpected character after line continuation character
x = 1 \ 2
# CHECK: error-syntax.py:[[@LINE+1]]:9: error: cannot mix bytes and non-bytes literals
x = 'a' b'b'
# CHECK: error-syntax.py:[[@LINE+1]]:5: error: set displays and comprehensions are not supported
x = {1, 2}
# CHECK: error-syntax.py:[[@LINE+1]]:1: error: 'del' statements are not supported
del x
# CHECK-NOT: error:
# CHECK: 19 errors generated.
