# End of file where a block must start: the error points just past the end
# of the last line (not at a phantom empty line).
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s
# RUN: %python -c "import sys; sys.stdout.write('x = (1 +')" > %t.py
# RUN: not dslc %t.py --emit=ast 2>&1 | FileCheck --strict-whitespace --check-prefix=EXPR %s
# RUN: %python -c "import sys; sys.stdout.write('def f(a):\n    return a +\n')" > %t2.py
# RUN: not dslc %t2.py --emit=ast 2>&1 | FileCheck --strict-whitespace --check-prefix=LINE %s

# EXPR:{{.*}}.py:1:5: error: '(' was never closed
# EXPR-NEXT:{{^}}x = (1 +{{$}}
# EXPR-NEXT:{{^}}    ^{{$}}
# EXPR-NEXT: 1 error generated.

# LINE:{{.*}}.py:2:15: error: expected expression, found end of line
# LINE-NEXT:{{^}}    return a +{{$}}
# LINE-NEXT:{{^}}              ^{{$}}

# CHECK:{{.*}}error-eof-block.py:[[@LINE+4]]:19: error: unexpected end of file; expected an indented block after 'for' statement on line [[@LINE+4]]
# CHECK-NEXT:{{^}}for i in range(3):{{$}}
# CHECK-NEXT:{{^}}                  ^{{$}}
# CHECK-NEXT: 1 error generated.
for i in range(3):
