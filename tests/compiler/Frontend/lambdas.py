# Lambda expressions: parameters with defaults, the body one expression (a
# conditional expression included), nested in calls and defaults.
# RUN: dslc %s --emit=ast | FileCheck --strict-whitespace --match-full-lines %s
# RUN: not dslc %S/Inputs/lambda-errors.py --emit=ast 2>&1 | FileCheck --check-prefix=ERR %s
f = lambda acc, tile: acc
g = lambda x, k=2: x * k if k else x
def h(e=lambda: 1): return e
# CHECK:(module "{{.*}}lambdas.py"
# CHECK-NEXT:  (assign @5:1
# CHECK-NEXT:    (name @5:1 f)
# CHECK-NEXT:    (lambda @5:5 acc tile
# CHECK-NEXT:      (name @5:23 acc)))
# CHECK-NEXT:  (assign @6:1
# CHECK-NEXT:    (name @6:1 g)
# CHECK-NEXT:    (lambda @6:5 x k=
# CHECK-NEXT:      (int @6:17 2)
# CHECK-NEXT:      (if-expr @6:20
# CHECK-NEXT:        (name @6:29 k)
# CHECK-NEXT:        (binary @6:20 *
# CHECK-NEXT:          (name @6:20 x)
# CHECK-NEXT:          (name @6:24 k))
# CHECK-NEXT:        (name @6:36 x))))
# CHECK-NEXT:  (def @7:1 h
# CHECK-NEXT:    (param @7:7 e
# CHECK-NEXT:      (default
# CHECK-NEXT:        (lambda @7:9
# CHECK-NEXT:          (int @7:17 1))))
# CHECK-NEXT:    (body
# CHECK-NEXT:      (return @7:21
# CHECK-NEXT:        (name @7:28 e)))))

# ERR: lambda-errors.py:1:12: error: '*' and '**' parameters of a lambda are not supported: name each parameter
# ERR: lambda-errors.py:2:15: error: duplicate parameter 'a'
# ERR: lambda-errors.py:3:17: error: parameter without a default follows parameter with a default
# ERR: lambda-errors.py:4:14: error: expected ':' after the lambda's parameters, found 'b'
